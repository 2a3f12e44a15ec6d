//! The A2A 1.0 HTTP+JSON (REST) binding, as both SDKs serve it (a2a-sdk
//! `create_rest_routes`, @a2a-js/sdk's `restHandler`; measured in
//! tests/agents/ANSWERS.md, "REST"): the bindings a card offers, the path
//! of each call, and an error answer read as the JSON-RPC error it stands
//! for, so that one judge rules on both bindings.
//!
//! On REST, events are bare (`{"task": …}`, `{"statusUpdate": …}`, no
//! JSON-RPC envelope) and read by the one event reader; an error is an
//! HTTP status with a `google.rpc.Status`-like body whose
//! `details[].reason` names the A2A error.

use serde::Deserialize;

use super::answer::Answer;
use super::event::parse;

/// How a client talks to an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP (`JSONRPC`).
    JsonRpc,
    /// HTTP+JSON, the REST binding (`HTTP+JSON`).
    Rest,
    /// gRPC, `a2a.proto`'s `A2AService` (`GRPC`): spoken by the native
    /// CLI only, read everywhere ([`super::grpc`]).
    Grpc,
}

impl Binding {
    /// Every binding, in the order a probe prefers them.
    pub const ALL: [Binding; 3] = [Binding::JsonRpc, Binding::Rest, Binding::Grpc];

    /// `jsonrpc`, `rest` or `grpc`, as `--binding`, `--json` and
    /// `probe.json` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Binding::JsonRpc => "jsonrpc",
            Binding::Rest => "rest",
            Binding::Grpc => "grpc",
        }
    }

    /// The binding as a card names it, in messages.
    pub fn card_name(self) -> &'static str {
        match self {
            Binding::JsonRpc => "JSON-RPC",
            Binding::Rest => "HTTP+JSON",
            Binding::Grpc => "GRPC",
        }
    }

    /// Reads `--binding`.
    pub fn parse(text: &str) -> Option<Binding> {
        Binding::ALL.into_iter().find(|b| b.name() == text)
    }

    /// Whether a card's `protocolBinding` (1.0) or `transport` (0.3)
    /// names this binding.
    pub fn is_named(self, card_name: &str) -> bool {
        match self {
            Binding::JsonRpc => card_name.eq_ignore_ascii_case("JSONRPC"),
            Binding::Rest => {
                card_name.eq_ignore_ascii_case("HTTP+JSON")
                    || card_name.eq_ignore_ascii_case("REST")
            }
            Binding::Grpc => card_name.eq_ignore_ascii_case("GRPC"),
        }
    }
}

/// Written as its name (`probe.json`, `records.json`).
impl serde::Serialize for Binding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Binding {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Binding, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        Binding::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("`{text}` is not jsonrpc, rest or grpc"))
        })
    }
}

/// The REST calls a probe makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestCall {
    /// `POST {url}/message:stream`.
    Stream,
    /// `GET {url}/tasks/{id}`.
    Get,
    /// `POST {url}/tasks/{id}:cancel`.
    Cancel,
    /// `POST {url}/tasks/{id}:subscribe`.
    Subscribe,
    /// `GET {url}/tasks` (ListTasks, 1.0 only).
    List,
}

impl RestCall {
    /// The call's URL under the interface `url`, its slash not doubled
    /// (both SDKs answer a doubled slash 404), the task id escaped as a
    /// path segment (an agent's id may hold `/`, `?` or `#`).
    pub fn url(self, url: &str, task: &str) -> String {
        let base = url.trim_end_matches('/');
        let task = segment(task);
        match self {
            RestCall::Stream => format!("{base}/message:stream"),
            RestCall::Get => format!("{base}/tasks/{task}"),
            RestCall::Cancel => format!("{base}/tasks/{task}:cancel"),
            RestCall::Subscribe => format!("{base}/tasks/{task}:subscribe"),
            RestCall::List => format!("{base}/tasks"),
        }
    }
}

/// `text` as one URL path segment: every byte but the unreserved ones
/// percent-encoded.
fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A REST error body: `{"error": {"code", "status", "message",
/// "details": [{"reason"}]}}`.
#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorStatus,
}

#[derive(Deserialize)]
struct ErrorStatus {
    #[serde(default)]
    status: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    details: Vec<ErrorDetail>,
}

#[derive(Deserialize)]
struct ErrorDetail {
    #[serde(default)]
    reason: String,
}

/// The JSON-RPC code an A2A error reason stands for (A2A 1.0's table of
/// errors, one per reason; the generic ones by their gRPC status).
pub(super) fn code_of(reason: &str, status: &str) -> i64 {
    match reason {
        "TASK_NOT_FOUND" => -32001,
        "TASK_NOT_CANCELABLE" => -32002,
        "PUSH_NOTIFICATION_NOT_SUPPORTED" => -32003,
        "UNSUPPORTED_OPERATION" => -32004,
        "CONTENT_TYPE_NOT_SUPPORTED" => -32005,
        "INVALID_AGENT_RESPONSE" => -32006,
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED" => -32007,
        "EXTENSION_SUPPORT_REQUIRED" => -32008,
        "VERSION_NOT_SUPPORTED" => -32009,
        "INVALID_PARAMS" => -32602,
        "INVALID_REQUEST" => -32600,
        _ => match status {
            "NOT_FOUND" => -32001,
            "INVALID_ARGUMENT" => -32602,
            _ => -32603,
        },
    }
}

/// Reads a REST error answer (HTTP `status`, its body) as the JSON-RPC
/// error it stands for; the message says what was on the wire (`HTTP 400
/// TASK_NOT_CANCELABLE: …`). A body that is not such an error is read as
/// an internal error with the status and the start of the body.
pub fn read_rest_error(status: u16, body: &[u8]) -> Answer {
    match parse::<ErrorBody>(body) {
        Ok(ErrorBody { error }) => {
            let reason = error
                .details
                .iter()
                .map(|d| d.reason.as_str())
                .find(|r| !r.is_empty())
                .unwrap_or(error.status.as_str());
            Answer::Error {
                code: code_of(reason, &error.status),
                message: format!("HTTP {status} {reason}: {}", error.message),
            }
        }
        Err(_) => {
            let text = String::from_utf8_lossy(&body[..body.len().min(80)]);
            Answer::Error {
                code: -32603,
                message: format!("HTTP {status}: {}", text.trim()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_joined_without_doubling_the_slash() {
        assert_eq!(
            RestCall::Stream.url("http://h/rest/", "t"),
            "http://h/rest/message:stream"
        );
        assert_eq!(
            RestCall::Get.url("http://h/rest", "t"),
            "http://h/rest/tasks/t"
        );
        assert_eq!(
            RestCall::Get.url("http://h/rest", "a/b?c#d é"),
            "http://h/rest/tasks/a%2Fb%3Fc%23d%20%C3%A9"
        );
        assert_eq!(
            RestCall::Cancel.url("http://h/", "t"),
            "http://h/tasks/t:cancel"
        );
        assert_eq!(
            RestCall::Subscribe.url("http://h/rest", "t"),
            "http://h/rest/tasks/t:subscribe"
        );
    }

    #[test]
    fn an_error_is_read_as_the_json_rpc_error_it_stands_for() {
        // What a2a-sdk answers CancelTask on a finished task (measured).
        let body = br#"{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"Task cannot be canceled","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org","metadata":{}}]}}"#;
        assert_eq!(
            read_rest_error(400, body),
            Answer::Error {
                code: -32002,
                message: "HTTP 400 TASK_NOT_CANCELABLE: Task cannot be canceled".into()
            }
        );
        let subscribe = br#"{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"m","details":[{"reason":"UNSUPPORTED_OPERATION"}]}}"#;
        assert_eq!(
            read_rest_error(400, subscribe).error().map(|e| e.0),
            Some(-32004)
        );
        let internal =
            br#"{"error":{"code":500,"status":"INTERNAL","message":"unknown exception"}}"#;
        assert_eq!(
            read_rest_error(500, internal).error(),
            Some((-32603, "HTTP 500 INTERNAL: unknown exception"))
        );
        assert_eq!(
            read_rest_error(404, b"Not Found\n").error(),
            Some((-32603, "HTTP 404: Not Found"))
        );
    }

    #[test]
    fn bindings_by_their_card_names() {
        assert!(Binding::Rest.is_named("HTTP+JSON"));
        assert!(Binding::JsonRpc.is_named("JSONRPC"));
        assert!(!Binding::Rest.is_named("GRPC"));
        assert!(Binding::Grpc.is_named("grpc"));
        assert_eq!(Binding::parse("rest"), Some(Binding::Rest));
        assert_eq!(Binding::parse("grpc"), Some(Binding::Grpc));
        assert_eq!(Binding::parse("GRPC"), None);
    }
}
