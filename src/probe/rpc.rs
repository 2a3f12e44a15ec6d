//! The JSON-RPC calls a probe makes, in the wire it speaks, and what it
//! reads of the answers: the few facts that steer a probe (which task,
//! which state, is this an artifact). Judging the answers is the capture
//! reader's work.

use serde_json::{json, Value};

use crate::model::evidence::capture::Wire;
use crate::model::state::TaskState;

/// The calls of SPEC §10, by wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// SendStreamingMessage (0.3: `message/stream`).
    Stream,
    /// GetTask (0.3: `tasks/get`).
    Get,
    /// CancelTask (0.3: `tasks/cancel`).
    Cancel,
    /// SubscribeToTask (0.3: `tasks/resubscribe`).
    Subscribe,
}

impl Method {
    /// The method's name on `wire`.
    pub fn name(self, wire: Wire) -> &'static str {
        match (wire, self) {
            (Wire::V1_0, Method::Stream) => "SendStreamingMessage",
            (Wire::V1_0, Method::Get) => "GetTask",
            (Wire::V1_0, Method::Cancel) => "CancelTask",
            (Wire::V1_0, Method::Subscribe) => "SubscribeToTask",
            (Wire::V0_3, Method::Stream) => "message/stream",
            (Wire::V0_3, Method::Get) => "tasks/get",
            (Wire::V0_3, Method::Cancel) => "tasks/cancel",
            (Wire::V0_3, Method::Subscribe) => "tasks/resubscribe",
        }
    }
}

/// Builds the requests; ids count up from 1.
pub struct Requests {
    wire: Wire,
    next: u64,
    /// Tells message ids apart between runs without a clock or randomness
    /// in the model: the probe passes the time it started.
    salt: String,
}

impl Requests {
    /// Requests on `wire`; `salt` makes message ids unique to this run.
    pub fn new(wire: Wire, salt: String) -> Requests {
        Requests {
            wire,
            next: 0,
            salt,
        }
    }

    /// A streaming message saying `text`, starting a new task.
    pub fn send(&mut self, text: &str) -> Value {
        self.next += 1;
        let message_id = format!("a2a-lab-probe-{}-{}", self.salt, self.next);
        let message = match self.wire {
            Wire::V1_0 => json!({
                "messageId": message_id,
                "role": "ROLE_USER",
                "parts": [{"text": text}],
            }),
            Wire::V0_3 => json!({
                "kind": "message",
                "messageId": message_id,
                "role": "user",
                "parts": [{"kind": "text", "text": text}],
            }),
        };
        self.call(Method::Stream, json!({"message": message}))
    }

    /// A call on the task `id`.
    pub fn on_task(&mut self, method: Method, id: &str) -> Value {
        self.next += 1;
        self.call(method, json!({"id": id}))
    }

    fn call(&self, method: Method, params: Value) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.next,
            "method": method.name(self.wire),
            "params": params,
        })
    }
}

/// A JSON-RPC error's code and message, if the answer is one.
pub fn error_of(answer: &Value) -> Option<(i64, String)> {
    let error = answer.get("error")?;
    Some((
        error.get("code").and_then(Value::as_i64).unwrap_or(0),
        error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    ))
}

/// What an answer's `result` (or a bare event) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A task (the first event of a stream, or GetTask's answer).
    Task,
    /// A status update.
    Status,
    /// An artifact update.
    Artifact,
    /// A message.
    Message,
    /// Anything else.
    Other,
}

/// The event an answer carries: its `result`, or itself when bare.
pub fn event_of(answer: &Value) -> &Value {
    answer.get("result").unwrap_or(answer)
}

/// The kind of an event on either wire.
pub fn kind_of(event: &Value) -> Kind {
    if let Some(kind) = event.get("kind").and_then(Value::as_str) {
        return match kind {
            "task" => Kind::Task,
            "status-update" => Kind::Status,
            "artifact-update" => Kind::Artifact,
            "message" => Kind::Message,
            _ => Kind::Other,
        };
    }
    for (key, kind) in [
        ("task", Kind::Task),
        ("statusUpdate", Kind::Status),
        ("artifactUpdate", Kind::Artifact),
        ("message", Kind::Message),
    ] {
        if event.get(key).is_some() {
            return kind;
        }
    }
    Kind::Other
}

/// The body of an event: the wrapped object on 1.0, the event on 0.3.
fn body(event: &Value) -> &Value {
    ["task", "statusUpdate", "artifactUpdate", "message"]
        .iter()
        .find_map(|key| event.get(*key))
        .unwrap_or(event)
}

/// The task an event concerns.
pub fn task_id(event: &Value) -> Option<String> {
    let body = body(event);
    let key = if kind_of(event) == Kind::Task {
        "id"
    } else {
        "taskId"
    };
    body.get(key).and_then(Value::as_str).map(String::from)
}

/// The state a task or status event carries.
pub fn state_of(event: &Value) -> Option<TaskState> {
    let text = body(event).get("status")?.get("state")?.as_str()?;
    TaskState::from_wire(text).or_else(|| TaskState::from_kebab(text))
}

/// A task's artifacts as `(artifactId, parts)`, in order.
pub fn artifacts_of(task: &Value) -> Vec<(String, Vec<Value>)> {
    body(task)
        .get("artifacts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(id_and_parts)
        .collect()
}

/// An artifact's id and parts.
fn id_and_parts(artifact: &Value) -> (String, Vec<Value>) {
    let id = artifact
        .get("artifactId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let parts = artifact
        .get("parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    (id, parts)
}

/// The artifacts a client holds after `events`, as it would build them:
/// a task event replaces the view, an artifact update without `append`
/// replaces that artifact, one with `append` extends it.
pub fn streamed_artifacts(events: &[Value]) -> Vec<(String, Vec<Value>)> {
    let mut held: Vec<(String, Vec<Value>)> = Vec::new();
    for event in events.iter().map(event_of) {
        match kind_of(event) {
            Kind::Task => held = artifacts_of(event),
            Kind::Artifact => {
                let update = body(event);
                let Some(artifact) = update.get("artifact") else {
                    continue;
                };
                let (id, parts) = id_and_parts(artifact);
                let append = update.get("append").and_then(Value::as_bool) == Some(true);
                match held.iter_mut().find(|(held_id, _)| *held_id == id) {
                    Some((_, held_parts)) if append => held_parts.extend(parts),
                    Some((_, held_parts)) => *held_parts = parts,
                    None => held.push((id, parts)),
                }
            }
            _ => {}
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_of_both_wires() {
        let v1 = json!({"result": {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}}});
        assert_eq!(kind_of(event_of(&v1)), Kind::Status);
        assert_eq!(task_id(event_of(&v1)).as_deref(), Some("t"));
        assert_eq!(state_of(event_of(&v1)), Some(TaskState::Completed));
        let v03 = json!({"kind": "task", "id": "u", "status": {"state": "working"}});
        assert_eq!(task_id(&v03).as_deref(), Some("u"));
        assert_eq!(state_of(&v03), Some(TaskState::Working));
        let err = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "no"}});
        assert_eq!(error_of(&err), Some((-32002, "no".into())));
    }

    #[test]
    fn the_client_view_of_streamed_artifacts() {
        let events = [
            json!({"kind": "task", "id": "t", "artifacts": [{"artifactId": "a", "parts": [{"text": "1"}]}]}),
            json!({"kind": "artifact-update", "append": true, "artifact": {"artifactId": "a", "parts": [{"text": "2"}]}}),
            json!({"result": {"artifactUpdate": {"artifact": {"artifactId": "b", "parts": [{"text": "x"}]}}}}),
        ];
        let held = streamed_artifacts(&events);
        assert_eq!(held.len(), 2);
        assert_eq!(held[0].1, vec![json!({"text": "1"}), json!({"text": "2"})]);
    }
}
