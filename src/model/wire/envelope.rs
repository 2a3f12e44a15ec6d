//! The JSON-RPC 2.0 envelope as a contract (SPEC §11 `rpc-envelope`):
//! what is wrong with an answer's envelope for the request it answers.
//! The event reader ([`super::event`]) is lenient on purpose, so that a
//! capture with a sloppy envelope is still judged for its lifecycle; this
//! says what it let pass.

use serde_json::{Map, Value};

/// What is wrong with `bytes` (a JSON-RPC response, or one SSE event's
/// payload) as the answer to the request whose id was `request_id`
/// (`None`: not known, so not compared). A well-formed JSON-RPC error is
/// no fault: the envelope is right, whatever it says.
pub fn envelope_faults(bytes: &[u8], request_id: Option<&Value>) -> Vec<String> {
    let Ok(Value::Object(answer)) = serde_json::from_slice::<Value>(bytes) else {
        return vec!["the answer is not a JSON object".to_string()];
    };
    let mut faults = Vec::new();
    match answer.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => faults.push(format!("`jsonrpc` is {other}, not \"2.0\"")),
        None => faults.push("there is no `jsonrpc` (\"2.0\")".to_string()),
    }
    if let Some(wanted) = request_id {
        match answer.get("id") {
            Some(id) if id == wanted => {}
            Some(id) => faults.push(format!("`id` is {id}, not the request's {wanted}")),
            None => faults.push(format!("there is no `id` (the request's was {wanted})")),
        }
    }
    match (answer.get("result"), answer.get("error")) {
        (Some(_), Some(_)) => faults.push("it has both `result` and `error`".to_string()),
        (None, None) => faults.push("it has neither `result` nor `error`".to_string()),
        (None, Some(error)) => faults.extend(error_fault(error)),
        (Some(_), None) => {}
    }
    faults
}

/// An `error` member without an integer `code`.
fn error_fault(error: &Value) -> Option<String> {
    let code = error
        .as_object()
        .and_then(|e: &Map<String, Value>| e.get("code"));
    match code {
        Some(Value::Number(n)) if n.is_i64() => None,
        Some(other) => Some(format!("the error's `code` is {other}, not an integer")),
        None => Some("the error has no `code`".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn faults(answer: &Value, id: i64) -> Vec<String> {
        envelope_faults(answer.to_string().as_bytes(), Some(&json!(id)))
    }

    #[test]
    fn a_response_and_an_error_answer_are_well_formed() {
        assert!(faults(&json!({"jsonrpc": "2.0", "id": 3, "result": {}}), 3).is_empty());
        let error = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32002, "message": "no"}});
        assert!(faults(&error, 3).is_empty());
    }

    #[test]
    fn each_fault_of_the_envelope_is_named() {
        let version = faults(&json!({"jsonrpc": "1.0", "id": 1, "result": {}}), 1);
        assert_eq!(version, ["`jsonrpc` is \"1.0\", not \"2.0\""]);
        let id = faults(&json!({"jsonrpc": "2.0", "id": 9, "result": {}}), 1);
        assert_eq!(id, ["`id` is 9, not the request's 1"]);
        let both = faults(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": null}),
            1,
        );
        assert_eq!(both, ["it has both `result` and `error`"]);
        let neither = faults(&json!({"jsonrpc": "2.0", "id": 1}), 1);
        assert_eq!(neither, ["it has neither `result` nor `error`"]);
        let code = faults(
            &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "-32002"}}),
            1,
        );
        assert_eq!(code, ["the error's `code` is \"-32002\", not an integer"]);
        let bare = faults(&json!({"task": {}}), 1);
        assert_eq!(bare.len(), 3, "{bare:?}");
        assert_eq!(envelope_faults(b"[1]", None).len(), 1);
    }

    #[test]
    fn an_unknown_request_id_is_not_compared() {
        let answer = json!({"jsonrpc": "2.0", "id": 7, "result": {}});
        assert!(envelope_faults(answer.to_string().as_bytes(), None).is_empty());
    }
}
