//! The A2A 1.0 gRPC binding (§10), as the judge reads it: a call's
//! messages are the binding's ProtoJSON (the same `StreamResponse`s and
//! `Task`s as HTTP+JSON, read by the one event reader), and a call that
//! does not end OK ends with a gRPC status, read here as the JSON-RPC error
//! it stands for (§5.4, §10.6), so that one judge rules on every binding.
//!
//! The bytes themselves (HTTP/2, protobuf) are the native probe's
//! (`crate::probe::grpc`); nothing here depends on them, and the page
//! reads a gRPC run's records and `probe.json` as it reads the others.

use serde::{Deserialize, Serialize};

use super::answer::Answer;
use super::rest::code_of;

/// How a gRPC call ended when it did not end with status OK: the status
/// the agent sent (its code, its message, the `google.rpc.ErrorInfo`
/// reason in its details), or a stream reset before any status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrpcStatus {
    /// The status code (`FAILED_PRECONDITION` is 9).
    pub code: i32,
    /// The status message.
    #[serde(default)]
    pub message: String,
    /// The A2A error's reason (`TASK_NOT_CANCELABLE`) from the status's
    /// `google.rpc.ErrorInfo`, when it carried one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The stream was reset (HTTP/2 `RST_STREAM`, the connection closed)
    /// before the agent sent a status: no error, a stream that ended
    /// without a final status (SPEC §16), which is how the judge reads it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reset: bool,
}

impl GrpcStatus {
    /// The status as the answer it stands for, or `None` for a reset
    /// (the agent said nothing).
    pub fn answer(&self) -> Option<Answer> {
        if self.reset {
            return None;
        }
        let name = code_name(self.code);
        let reason = self.reason.as_deref().filter(|r| !r.is_empty());
        let said = match reason {
            Some(reason) => format!("gRPC {name} {reason}: {}", self.message),
            None => format!("gRPC {name}: {}", self.message),
        };
        Some(Answer::Error {
            code: code_of(reason.unwrap_or(name), name),
            message: said,
        })
    }
}

/// A gRPC status code's name (`grpc/status.proto`), as the messages say
/// it.
pub fn code_name(code: i32) -> &'static str {
    const NAMES: [&str; 17] = [
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED",
    ];
    usize::try_from(code)
        .ok()
        .and_then(|c| NAMES.get(c))
        .copied()
        .unwrap_or("UNKNOWN")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: i32, reason: Option<&str>) -> GrpcStatus {
        GrpcStatus {
            code,
            message: "m".into(),
            reason: reason.map(str::to_string),
            reset: false,
        }
    }

    #[test]
    fn a_status_is_read_as_the_json_rpc_error_it_stands_for() {
        // §5.4: TaskNotCancelableError is FAILED_PRECONDITION with the
        // reason in an ErrorInfo (§10.6).
        let not_cancelable = status(9, Some("TASK_NOT_CANCELABLE")).answer();
        assert_eq!(
            not_cancelable.as_ref().and_then(Answer::error),
            Some((-32002, "gRPC FAILED_PRECONDITION TASK_NOT_CANCELABLE: m"))
        );
        let unsupported = status(9, Some("UNSUPPORTED_OPERATION")).answer();
        assert_eq!(
            unsupported.and_then(|a| a.error().map(|e| e.0)),
            Some(-32004)
        );
        let not_found = status(5, None).answer();
        assert_eq!(not_found.and_then(|a| a.error().map(|e| e.0)), Some(-32001));
        let internal = status(13, None).answer();
        assert_eq!(
            internal.as_ref().and_then(Answer::error),
            Some((-32603, "gRPC INTERNAL: m"))
        );
        assert_eq!(code_name(99), "UNKNOWN");
        assert_eq!(code_name(-1), "UNKNOWN");
    }

    #[test]
    fn a_reset_says_nothing() {
        let reset = GrpcStatus {
            reset: true,
            ..status(13, None)
        };
        assert_eq!(reset.answer(), None);
    }
}
