//! A capture that keeps the requests the client sent beside the answers (a
//! session of the lab, downloaded as JSON Lines): each request is read and
//! is no event.

use crate::model_support::{capture_report, jsonl, wire_events};

use a2a_lab::model::evidence::capture::CaptureReader;
use a2a_lab::model::evidence::import::import_bytes;
use a2a_lab::model::wire::read_error::ReadKind;
use serde_json::{json, Value};

const TASK: &str = "task-bbs-1042";
const CONTEXT: &str = "ctx-bbs-1042";

/// A 1.0 JSON-RPC SendStreamingMessage whose message names `task` and
/// `context` where given.
fn request_1_0(id: u32, task: Option<&str>, context: Option<&str>) -> Value {
    let mut message = json!({"messageId": format!("m{id}"), "role": "ROLE_USER",
        "parts": [{"text": "yes"}]});
    if let Some(task) = task {
        message["taskId"] = json!(task);
    }
    if let Some(context) = context {
        message["contextId"] = json!(context);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "SendStreamingMessage",
        "params": {"message": message}})
}

/// The same request on the 0.3 wire (`message/stream`).
fn request_0_3(id: u32, task: Option<&str>, context: Option<&str>) -> Value {
    let mut message = json!({"kind": "message", "messageId": format!("m{id}"), "role": "user",
        "parts": [{"kind": "text", "text": "yes"}]});
    if let Some(task) = task {
        message["taskId"] = json!(task);
    }
    if let Some(context) = context {
        message["contextId"] = json!(context);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "message/stream",
        "params": {"message": message}})
}

fn line(value: &Value) -> Vec<u8> {
    format!("{value}\n").into_bytes()
}

#[test]
fn a_request_before_a_tasks_events_reads_as_the_events_alone() {
    for (query, request) in [
        ("", request_1_0(1, None, None)),
        ("wire=0.3", request_0_3(1, None, None)),
    ] {
        let events = wire_events(query);
        let alone = capture_report(&[jsonl(&events, json!(1))]);
        assert!(alone.findings.is_empty(), "{query}: {:?}", alone.findings);
        let with = capture_report(&[[line(&request), jsonl(&events, json!(1))].concat()]);
        assert_eq!(with, alone, "{query}");
        // The lab's own record of a REST call, before the bare events the
        // binding streams.
        let rest = json!({"method": "SendStreamingMessage", "binding": "HTTP+JSON",
            "params": request["params"]});
        let bare: Vec<u8> = events.iter().flat_map(line).collect();
        let with = capture_report(&[[line(&rest), bare.clone()].concat()]);
        assert_eq!(with, capture_report(&[bare]), "{query} over HTTP+JSON");
    }
}

#[test]
fn a_file_of_requests_alone_holds_no_event() {
    let requests: Vec<u8> = [
        request_1_0(1, None, None),
        request_1_0(2, Some(TASK), Some(CONTEXT)),
        request_0_3(3, Some(TASK), None),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"id": TASK}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": TASK}}),
        json!({"method": "SendMessage", "binding": "GRPC", "params": {"message": {}}}),
    ]
    .iter()
    .flat_map(line)
    .collect();
    let mut reader = CaptureReader::new(None);
    reader.read_bytes(&requests).unwrap();
    let e = reader.finish_checked(&["session.jsonl"]).unwrap_err();
    assert_eq!(
        e.kind(),
        &ReadKind::NoEvents {
            files: vec!["session.jsonl".into()]
        }
    );
    // Counted as no event by the report either, and by the page's Import.
    let report = capture_report(&[&requests]);
    assert_eq!((report.read, report.tasks.len()), (0, 0));
    let e = import_bytes(&requests).unwrap_err();
    assert!(matches!(e.kind(), ReadKind::NoEvents { .. }), "{e}");
}

#[test]
fn a_json_array_capture_holds_requests_too() {
    let events = wire_events("");
    let answers: Vec<Value> = events
        .iter()
        .map(|e| json!({"jsonrpc": "2.0", "id": 1, "result": e}))
        .collect();
    let alone = capture_report(&[serde_json::to_vec(&answers).unwrap()]);
    let mut array = vec![request_1_0(1, None, None)];
    array.extend(answers);
    array.push(json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": TASK}}));
    assert_eq!(
        capture_report(&[serde_json::to_vec(&array).unwrap()]),
        alone
    );
}
