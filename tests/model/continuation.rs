//! A capture that keeps the requests the client sent beside the answers (a
//! session of the lab, downloaded as JSON Lines): each request is read and
//! is no event, and a request that continues a task (its message names a
//! `taskId`, A2A 1.0 §3.4.3) must be answered by that task in its context
//! (`continuation-new-task`, `continuation-dropped-context`).

use crate::model_support::{capture_report, jsonl, wire_events};

use a2a_lab::model::evidence::capture::{CaptureReader, CaptureReport};
use a2a_lab::model::evidence::import::{import_bytes, Imported};
use a2a_lab::model::wire::read_error::ReadKind;
use serde_json::{json, Value};

const TASK: &str = "task-bbs-1042";
const CONTEXT: &str = "ctx-bbs-1042";
const CONTINUATION_CODES: [&str; 2] = ["continuation-new-task", "continuation-dropped-context"];

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

/// The simulator's events of an input-required task in two turns: up to
/// its INPUT_REQUIRED status, and the turn that continues it.
fn two_turns(query: &str) -> (Vec<Value>, Vec<Value>) {
    let events = wire_events(query);
    let at = events
        .iter()
        .position(|e| {
            let text = e.to_string();
            text.contains("TASK_STATE_INPUT_REQUIRED") || text.contains("\"input-required\"")
        })
        .unwrap_or_else(|| panic!("{query}: no input-required status"));
    let (first, second) = events.split_at(at + 1);
    assert!(!second.is_empty(), "{query}: no second turn");
    (first.to_vec(), second.to_vec())
}

/// `events` with every `from` written `to` (a task id, a context id).
fn renamed(events: &[Value], from: &str, to: &str) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::from_str(&e.to_string().replace(from, to)).unwrap())
        .collect()
}

/// A session as the lab downloads it: the first request, its answers, the
/// continuing request, its answers.
fn session(first: &Value, turn_1: &[Value], second: &Value, turn_2: &[Value]) -> Vec<u8> {
    [
        line(first),
        jsonl(turn_1, json!(1)),
        line(second),
        jsonl(turn_2, json!(2)),
    ]
    .concat()
}

/// The continuation findings: code, task and index.
fn continuation_findings(report: &CaptureReport) -> Vec<(String, String, usize)> {
    report
        .findings
        .iter()
        .filter(|f| CONTINUATION_CODES.contains(&f.code.code()))
        .map(|f| (f.code.to_string(), f.task.clone(), f.index))
        .collect()
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
fn a_continuation_answered_by_its_own_task_in_its_context_is_clean() {
    for (query, request) in [
        ("interrupt=input", request_1_0 as fn(_, _, _) -> Value),
        ("interrupt=input&wire=0.3", request_0_3),
    ] {
        let (turn_1, turn_2) = two_turns(query);
        let capture = session(
            &request(1, None, None),
            &turn_1,
            &request(2, Some(TASK), Some(CONTEXT)),
            &turn_2,
        );
        let report = capture_report(&[&capture]);
        assert!(report.findings.is_empty(), "{query}: {:?}", report.findings);
        let events: Vec<Value> = [turn_1, turn_2].concat();
        let alone = [jsonl(&events[..], json!(1))].concat();
        assert_eq!(report.tasks, capture_report(&[alone]).tasks, "{query}");
    }
}

#[test]
fn a_continuation_answered_by_another_task_is_a_new_task_once() {
    for (query, request) in [
        ("interrupt=input", request_1_0 as fn(_, _, _) -> Value),
        ("interrupt=input&wire=0.3", request_0_3),
    ] {
        let (turn_1, turn_2) = two_turns(query);
        let other = renamed(&turn_2, TASK, "task-other");
        let capture = session(
            &request(1, None, None),
            &turn_1,
            &request(2, Some(TASK), Some(CONTEXT)),
            &other,
        );
        let report = capture_report(&[&capture]);
        // Once, at the first answer, however many answers name the other task.
        assert!(other.len() > 1, "{query}");
        assert_eq!(
            continuation_findings(&report),
            [(
                "continuation-new-task".to_string(),
                "task-other".to_string(),
                turn_1.len()
            )],
            "{query}"
        );
        let finding = report
            .findings
            .iter()
            .find(|f| f.code.code() == "continuation-new-task")
            .unwrap();
        assert!(
            finding.message.contains(TASK) && finding.message.contains("task-other"),
            "{}",
            finding.message
        );
        let task = report.tasks.iter().find(|t| t.id == "task-other").unwrap();
        assert!(task.findings >= 1, "{query}");
        // The page's row of that answer says it.
        let Imported::Capture(page) = import_bytes(&capture).unwrap() else {
            panic!("{query}: a capture")
        };
        let at = page
            .tasks
            .iter()
            .position(|t| t.id == "task-other")
            .unwrap();
        assert!(
            page.rows[at][0].event.ends_with(": continuation-new-task"),
            "{query}: {}",
            page.rows[at][0].event
        );
    }
}

#[test]
fn a_continuation_answered_in_another_context_drops_it() {
    for (query, request) in [
        ("interrupt=input", request_1_0 as fn(_, _, _) -> Value),
        ("interrupt=input&wire=0.3", request_0_3),
    ] {
        let (turn_1, turn_2) = two_turns(query);
        let moved = renamed(&turn_2, CONTEXT, "ctx-other");
        let capture = session(
            &request(1, None, None),
            &turn_1,
            &request(2, Some(TASK), Some(CONTEXT)),
            &moved,
        );
        let report = capture_report(&[&capture]);
        assert_eq!(
            continuation_findings(&report),
            [(
                "continuation-dropped-context".to_string(),
                TASK.to_string(),
                turn_1.len()
            )],
            "{query}"
        );
        let finding = &report.findings[0];
        assert!(
            finding.message.contains(CONTEXT) && finding.message.contains("ctx-other"),
            "{}",
            finding.message
        );
        // A request that names no context is not judged by it.
        let capture = session(
            &request(1, None, None),
            &turn_1,
            &request(2, Some(TASK), None),
            &moved,
        );
        assert_eq!(continuation_findings(&capture_report(&[&capture])), []);
    }
}

#[test]
fn a_request_without_a_task_id_is_never_judged_as_a_continuation() {
    let (turn_1, turn_2) = two_turns("interrupt=input");
    let other = renamed(&renamed(&turn_2, TASK, "task-other"), CONTEXT, "ctx-other");
    let capture = session(
        &request_1_0(1, None, None),
        &turn_1,
        &request_1_0(2, None, None),
        &other,
    );
    assert_eq!(continuation_findings(&capture_report(&[&capture])), []);
}

#[test]
fn a_bare_message_answer_is_judged_by_the_task_it_names() {
    let (turn_1, _) = two_turns("interrupt=input");
    let answer = |task: Option<&str>| {
        let mut message = json!({"messageId": "a1", "role": "ROLE_AGENT",
            "parts": [{"text": "done"}], "contextId": CONTEXT});
        if let Some(task) = task {
            message["taskId"] = json!(task);
        }
        json!({"message": message})
    };
    let request = request_1_0(2, Some(TASK), Some(CONTEXT));
    let named = session(
        &request_1_0(1, None, None),
        &turn_1,
        &request,
        &[answer(Some("task-other"))],
    );
    let found = continuation_findings(&capture_report(&[&named]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].2),
        ("continuation-new-task", turn_1.len())
    );
    // A message that names no task is no other task.
    let unnamed = session(
        &request_1_0(1, None, None),
        &turn_1,
        &request,
        &[answer(None)],
    );
    assert_eq!(continuation_findings(&capture_report(&[&unnamed])), []);
}

#[test]
fn a_json_array_capture_holds_requests_too() {
    let (turn_1, turn_2) = two_turns("interrupt=input");
    let response = |id: u32| move |e: &Value| json!({"jsonrpc": "2.0", "id": id, "result": e});
    let answers: Vec<Value> = turn_1
        .iter()
        .map(response(1))
        .chain(turn_2.iter().map(response(2)))
        .collect();
    let alone = capture_report(&[serde_json::to_vec(&answers).unwrap()]);
    let mut array = vec![request_1_0(1, None, None)];
    array.extend(turn_1.iter().map(response(1)));
    array.push(request_1_0(2, Some(TASK), Some(CONTEXT)));
    array.extend(turn_2.iter().map(response(2)));
    assert_eq!(
        capture_report(&[serde_json::to_vec(&array).unwrap()]),
        alone
    );
    // Answered by another task, in the array as in lines.
    let mut array = vec![request_1_0(1, None, None)];
    array.extend(turn_1.iter().map(response(1)));
    array.push(request_1_0(2, Some(TASK), Some(CONTEXT)));
    array.extend(renamed(&turn_2, TASK, "task-other").iter().map(response(2)));
    assert_eq!(
        continuation_findings(&capture_report(&[serde_json::to_vec(&array).unwrap()])),
        [(
            "continuation-new-task".to_string(),
            "task-other".to_string(),
            turn_1.len()
        )]
    );
}

#[test]
fn a_request_judges_the_answers_of_its_own_file_only() {
    // The next file's events answer a request the capture did not keep.
    let (turn_1, turn_2) = two_turns("interrupt=input");
    let first = [
        line(&request_1_0(1, None, None)),
        jsonl(&turn_1, json!(1)),
        line(&request_1_0(2, Some(TASK), Some(CONTEXT))),
    ]
    .concat();
    let other = jsonl(&renamed(&turn_2, TASK, "task-other"), json!(7));
    assert_eq!(continuation_findings(&capture_report(&[first, other])), []);
}
