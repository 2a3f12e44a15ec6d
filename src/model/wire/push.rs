//! What a webhook receives (SPEC §12): each POST's body, an A2A event as
//! the agent sends it (on 1.0 a StreamResponse; on 0.3, for some SDKs, a
//! whole Task snapshot), alone or with the names of the headers it came
//! with (`{"headers": [...], "body": ...}`, the body as JSON or as the
//! text of it).

use serde::Deserialize;
use serde_json::value::RawValue;

use super::answer::{read_answer, Answer, OwnedEvent};
use super::event::parse;
use super::read_error::{EventFault, ReadError, ReadKind};

/// One POST a webhook received.
#[derive(Debug, Clone, PartialEq)]
pub struct PushPost {
    /// The names of the headers it came with, when the log keeps them.
    pub headers: Vec<String>,
    /// The body exactly as logged: what "the same body" compares.
    pub body: String,
    /// The event it carries.
    pub event: OwnedEvent,
}

/// A log line with its headers.
#[derive(Deserialize)]
struct Logged<'a> {
    #[serde(default)]
    headers: Option<Headers>,
    #[serde(borrow)]
    body: &'a RawValue,
}

/// Header names, or names with values (whose values the lab never keeps).
#[derive(Deserialize)]
#[serde(untagged)]
enum Headers {
    Names(Vec<String>),
    Map(serde_json::Map<String, serde_json::Value>),
}

/// Reads one POST as a log holds it: a body, or `{"headers", "body"}`.
pub fn read_post(element: &[u8]) -> Result<PushPost, ReadError> {
    let text = std::str::from_utf8(element)
        .map_err(|_| ReadError::new(ReadKind::NotUtf8 { byte: None }))?;
    // A line with its headers, or else the body itself.
    let (headers, body) = match parse::<Logged>(element).ok() {
        Some(Logged { headers, body }) => {
            let headers = match headers {
                Some(Headers::Names(names)) => names,
                Some(Headers::Map(map)) => map.keys().cloned().collect(),
                None => Vec::new(),
            };
            // A body logged as the text it was sent as, or as JSON.
            let body = match serde_json::from_str::<String>(body.get()) {
                Ok(text) => text,
                Err(_) => body.get().to_string(),
            };
            (headers, body)
        }
        None => (Vec::new(), text.trim().to_string()),
    };
    match read_answer(body.as_bytes(), None)? {
        Answer::Event(event) => Ok(PushPost {
            headers,
            body,
            event,
        }),
        Answer::Error { code, message } => {
            Err(ReadError::new(ReadKind::Event(EventFault::ErrorPosted {
                code,
                message,
            })))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::state::TaskState;
    use crate::model::wire::answer::EventKind;

    #[test]
    fn a_body_alone_or_with_its_headers_on_either_wire() {
        let v10 = r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#;
        let post = read_post(v10.as_bytes()).unwrap();
        assert_eq!(post.event.kind, EventKind::Status);
        assert_eq!(post.body, v10);
        let logged = serde_json::json!({"headers": ["Content-Type", "X-A2A-Notification-Token"], "body": v10});
        let post = read_post(logged.to_string().as_bytes()).unwrap();
        assert_eq!(post.headers, ["Content-Type", "X-A2A-Notification-Token"]);
        assert_eq!(post.body, v10, "the body as sent, not as re-spelled");
        let snapshot = r#"{"headers":{"Authorization":"Bearer s3cret"},"body":{"kind":"task","id":"t","contextId":"c","status":{"state":"canceled"}}}"#;
        let post = read_post(snapshot.as_bytes()).unwrap();
        assert_eq!(post.headers, ["Authorization"], "names only");
        assert!(!format!("{post:?}").contains("s3cret"));
        assert_eq!(post.event.kind, EventKind::Task);
        assert_eq!(post.event.state.unwrap().known(), Some(TaskState::Canceled));
        let e = read_post(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}"#)
            .unwrap_err();
        assert!(matches!(
            e.kind(),
            ReadKind::Event(EventFault::ErrorPosted { code: -32603, .. })
        ));
        assert_eq!(
            e.to_string(),
            "a JSON-RPC error (-32603 x) is not a webhook body"
        );
    }
}
