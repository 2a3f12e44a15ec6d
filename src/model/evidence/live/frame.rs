//! What the relay streams back for one ask, a JSON line at a time: the
//! request as sent ([`Frame::Sent`]), each answer as it came
//! ([`Frame::Answer`]), then how the call ended ([`Frame::End`]). Headers
//! are never in a frame: the agent's credentials stay in the relay.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::model::evidence::probe::records::{AnswerEnd, AnswerStatus};
use crate::model::evidence::probe::request::Request;
use crate::model::wire::rest::Binding;

/// One line of the relay's answer to an ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Frame {
    /// The request sent, as the session keeps it ([`sent`]).
    Sent(Value),
    /// One answer as it came: a stream event's data, or a whole JSON
    /// body, byte for byte as text.
    Answer(String),
    /// The call ended.
    End(CallEnded),
}

/// How a call ended, as the relay saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallEnded {
    /// How the answer ended (closed by the agent, dropped by the page,
    /// timed out).
    pub how: AnswerEnd,
    /// The binding's status when it was not the one of an answer that
    /// ends well, in words (`HTTP 404`, `gRPC NOT_FOUND: …`): the page only
    /// shows it (the capture holds what the judge reads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// How long the call took, in ms.
    pub ms: u64,
    /// Why no answer came at all (the agent could not be reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Frame {
    /// The frame as one line of the relay's stream, newline included.
    pub fn line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }

    /// Reads one line of the relay's stream.
    pub fn parse(line: &str) -> Result<Frame, String> {
        serde_json::from_str(line).map_err(|e| format!("the relay sent a bad frame: {e}"))
    }
}

/// A status in the words [`CallEnded::status`] holds.
pub fn status_text(status: &AnswerStatus) -> String {
    match status {
        AnswerStatus::Rest(code) | AnswerStatus::Http(code) => format!("HTTP {code}"),
        AnswerStatus::Grpc(grpc) if grpc.reset => "gRPC stream reset".to_string(),
        AnswerStatus::Grpc(grpc) => format!(
            "gRPC {}: {}",
            crate::model::wire::grpc::code_name(grpc.code),
            grpc.message
        ),
    }
}

/// A request as a session keeps it, beside the answers it got: on
/// JSON-RPC the envelope as sent; on REST and gRPC the call's name, the
/// binding, the path called (REST names the task there) and the body
/// sent (`params`), so that every request kept has a `method` and the
/// capture reader tells it from an answer. Never the host: a URL's user
/// part would be a credential.
pub fn sent(request: &Request) -> Value {
    let body = request.body.clone().unwrap_or_else(|| json!({}));
    match request.binding {
        Binding::JsonRpc => body,
        Binding::Grpc => json!({
            "method": request.name(),
            "binding": request.binding.card_name(),
            "params": body,
        }),
        Binding::Rest => json!({
            "method": request.name(),
            "binding": request.binding.card_name(),
            "path": path_of(&request.url),
            "params": body,
        }),
    }
}

/// The path and query of `url`, without its scheme and authority.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map_or("/", |at| &rest[at..])
}
