//! SPEC §13 on captures: what agents built on other stacks send is judged
//! by A2A's rules, not by the habits of the SDK samples. Progress status
//! updates are no transition; a capture of only an error answer lists it.
#![cfg(not(target_arch = "wasm32"))]

use crate::cli_support;
use crate::model_support;

use cli_support::cli;
use model_support::{capture_report, jsonl};
use serde_json::{json, Value};

fn status(state: &str, text: Option<&str>) -> Value {
    let mut status = json!({"state": state, "timestamp": "2026-11-02T10:00:00.000Z"});
    if let Some(text) = text {
        status["message"] =
            json!({"messageId": text, "role": "ROLE_AGENT", "parts": [{"text": text}]});
    }
    json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": status}})
}

fn submitted() -> Value {
    json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}})
}

/// The four-event capture of the issue: SUBMITTED, WORKING "Looking up",
/// WORKING "Checking carrier", COMPLETED.
fn progress_capture() -> Vec<Value> {
    vec![
        submitted(),
        status("TASK_STATE_WORKING", Some("Looking up")),
        status("TASK_STATE_WORKING", Some("Checking carrier")),
        status("TASK_STATE_COMPLETED", None),
    ]
}

/// `check --json` of `bytes` as a capture: the exit code and the report.
fn check(bytes: Vec<u8>) -> (u8, Value) {
    let (out, err, code) = cli(&["check", "--json", "capture.jsonl"], Some(&bytes));
    assert_ne!(code, 2, "{err}");
    (code, serde_json::from_str(&out).unwrap())
}

#[test]
fn working_repeated_with_a_new_message_is_progress_not_an_illegal_transition() {
    let (code, report) = check(jsonl(&progress_capture(), json!(1)));
    assert_eq!(report["findings"], json!([]), "{report}");
    assert_eq!(code, 0);
    assert_eq!(report["tasks"][0]["events"], 4);
    assert_eq!(report["tasks"][0]["final_state"], "TASK_STATE_COMPLETED");
}

#[test]
fn progress_in_an_interruption_and_on_the_0_3_wire_is_no_finding_either() {
    let mut events = progress_capture();
    events.insert(3, status("TASK_STATE_INPUT_REQUIRED", Some("Which order?")));
    events.insert(
        4,
        status("TASK_STATE_INPUT_REQUIRED", Some("Still waiting")),
    );
    events.insert(5, status("TASK_STATE_WORKING", Some("Thanks")));
    let report = capture_report(&[jsonl(&events, json!(1))]);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let v03 = [
        json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "submitted"}}),
        json!({"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "working"}, "final": false}),
        json!({"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "working"}, "final": false}),
        json!({"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "completed"}, "final": true}),
    ];
    let report = capture_report(&[jsonl(&v03, json!(1))]);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}

#[test]
fn a_change_of_state_is_still_judged_by_the_allowlist() {
    // Progress is no licence: a terminal state repeated is after-terminal,
    // and working back to submitted is outside the allowlist.
    let mut events = progress_capture();
    events.push(status("TASK_STATE_COMPLETED", None));
    let report = capture_report(&[jsonl(&events, json!(1))]);
    let codes: Vec<&str> = report.findings.iter().map(|f| f.code.code()).collect();
    assert_eq!(codes, ["after-terminal"]);
    let events = vec![
        submitted(),
        status("TASK_STATE_WORKING", None),
        status("TASK_STATE_SUBMITTED", None),
    ];
    let report = capture_report(&[jsonl(&events, json!(1))]);
    let codes: Vec<&str> = report.findings.iter().map(|f| f.code.code()).collect();
    assert_eq!(codes, ["illegal-transition", "missing-terminal"]);
}

#[test]
fn a_capture_of_only_an_error_answer_lists_the_error() {
    let error =
        br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32004,"message":"Task is in terminal state"}}
"#
        .to_vec();
    let (code, report) = check(error);
    assert_eq!(code, 0);
    assert_eq!(report["tasks"], json!([]));
    assert_eq!(report["findings"], json!([]));
    assert_eq!(report["errors"][0]["code"], -32004);
    assert_eq!(report["errors"][0]["index"], 0);
}

/// A capture kept from a real agent (tests/agents/answers/raw/), checked.
fn check_raw(name: &str) -> (u8, Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/agents/answers/raw")
        .join(name);
    check(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn codes(report: &Value) -> Vec<&str> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

#[test]
fn streams_of_agents_on_other_stacks_are_judged_by_a2a_rules() {
    // google-adk's to_a2a and both SDKs reporting progress, their artifact
    // last: progress and all, clean on both wires.
    for clean in [
        "adk-stream.sse",
        "adk-0.3-stream.sse",
        "progress-python-1.0-stream.sse",
        "progress-python-0.3-stream.sse",
        "progress-js-1.0-stream.sse",
        "progress-js-0.3-stream.sse",
        "progress-python-1.0-resubscribe.sse",
    ] {
        let (code, report) = check_raw(clean);
        assert_eq!((code, codes(&report)), (0, vec![]), "{clean}: {report}");
    }
    // fasta2a writes its task's timestamp without a zone (A2A 1.0 §5.6.1):
    // one finding for the rule, citing it.
    let (code, report) = check_raw("fasta2a-stream.sse");
    assert_eq!((code, codes(&report)), (1, vec!["wire-shape"]), "{report}");
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("§5.6.1"), "{message}");
    assert!(message.contains("not UTC with `Z`"), "{message}");
}

#[test]
fn progress_rows_are_shown_as_progress_and_delivered() {
    use a2a_lab::model::evidence::capture::CaptureReader;
    let mut reader = CaptureReader::new(None).keeping_rows();
    reader
        .read_bytes(&jsonl(&progress_capture(), json!(1)))
        .unwrap();
    let report = reader.finish();
    let rows = &report.rows[0];
    let labels: Vec<&str> = rows.iter().map(|r| r.event.as_str()).collect();
    assert_eq!(
        labels,
        [
            "Task SUBMITTED (0 part(s) held)",
            "status WORKING",
            "status WORKING (progress)",
            "status COMPLETED"
        ]
    );
    assert!(rows
        .iter()
        .all(|r| r.disposition == a2a_lab::model::trace::Disposition::Delivered));
}

#[test]
fn the_page_imports_an_error_only_capture_and_says_what_it_holds() {
    use a2a_lab::model::evidence::import::{import_bytes, Imported};
    use a2a_lab::model::pictures::shown::Shown;
    let error = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32004,"message":"Task is in terminal state"}}"#;
    let Ok(Imported::Capture(report)) = import_bytes(error) else {
        panic!("an error answer is a capture");
    };
    assert_eq!(report.errors.len(), 1);
    let summary = Shown::capture(report).listing(10).unwrap().summary;
    assert_eq!(
        summary,
        "A capture: 1 events, 0 task(s), 0 finding(s), 1 JSON-RPC error(s)."
    );
}
