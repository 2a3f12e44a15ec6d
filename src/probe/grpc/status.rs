//! How a gRPC call ended, as the record keeps it: the status the agent
//! sent, with the A2A error's reason from the `google.rpc.ErrorInfo` in its
//! details (A2A 1.0 §10.6), or a stream reset before any status.

use prost::Message;
use tonic::{Code, Status};

use crate::model::wire::grpc::GrpcStatus;

/// `google.rpc.Status`, as `grpc-status-details-bin` carries it (only
/// what the probe reads).
#[derive(Clone, PartialEq, Message)]
struct RpcStatus {
    #[prost(message, repeated, tag = "3")]
    details: Vec<Any>,
}

/// `google.protobuf.Any`.
#[derive(Clone, PartialEq, Message)]
struct Any {
    #[prost(string, tag = "1")]
    type_url: String,
    #[prost(bytes = "vec", tag = "2")]
    value: Vec<u8>,
}

/// `google.rpc.ErrorInfo` (only its reason).
#[derive(Clone, PartialEq, Message)]
struct ErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
}

/// The record of `status`; `None` for OK.
pub fn record(status: &Status) -> Option<GrpcStatus> {
    if status.code() == Code::Ok {
        return None;
    }
    Some(GrpcStatus {
        code: status.code() as i32,
        message: status.message().to_string(),
        reason: reason(status.details()),
        // tonic keeps the transport's error as the source of a status it
        // made itself (a reset stream, a closed connection); a status the
        // agent sent in its trailers has none.
        reset: std::error::Error::source(status).is_some(),
    })
}

/// The first `ErrorInfo` reason in a status's details.
fn reason(details: &[u8]) -> Option<String> {
    let status = RpcStatus::decode(details).ok()?;
    status
        .details
        .iter()
        .filter(|any| any.type_url.ends_with("/google.rpc.ErrorInfo"))
        .find_map(|any| ErrorInfo::decode(any.value.as_slice()).ok())
        .map(|info| info.reason)
        .filter(|reason| !reason.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_is_read_from_the_error_info_in_the_details() {
        let info = ErrorInfo {
            reason: "TASK_NOT_CANCELABLE".into(),
        };
        let details = RpcStatus {
            details: vec![
                Any {
                    type_url: "type.googleapis.com/google.rpc.DebugInfo".into(),
                    value: vec![1, 2],
                },
                Any {
                    type_url: "type.googleapis.com/google.rpc.ErrorInfo".into(),
                    value: info.encode_to_vec(),
                },
            ],
        };
        let status = Status::with_details(
            Code::FailedPrecondition,
            "Task cannot be canceled",
            details.encode_to_vec().into(),
        );
        let got = record(&status).unwrap();
        assert_eq!(got.code, 9);
        assert_eq!(got.reason.as_deref(), Some("TASK_NOT_CANCELABLE"));
        assert!(!got.reset);
        assert_eq!(record(&Status::new(Code::Ok, "")), None);
        assert_eq!(reason(b"\xff"), None);
    }
}
