//! `check --webhook` (SPEC §12): webhook logs as the recorders kept them
//! from the real a2a-sdk and @a2a-js/sdk agents (every push scenario of
//! both SDKs on both wires, `tests/fidelity/fixtures/*/push/`), judged by
//! the model: what each webhook was told last, what came after the
//! terminal POST, what was sent twice, and, beside GetTask, a webhook never
//! told how the task ended.
#![cfg(not(target_arch = "wasm32"))]

use crate::cli_support;
use crate::model_support;

use std::ffi::OsStr;

use a2a_lab::model::evidence::finding::FindingCode;
use a2a_lab::model::evidence::push_log::{PushLog, PushReport};
use a2a_lab::model::state::TaskState;
use a2a_lab::model::wire::read_error::{EventFault, Place, ReadKind};
use cli_support::{binary, Scratch};
use model_support::fidelity::{fixture_dir, modelled, Fixture};
use model_support::read_capture;
use model_support::recorded::Recording;
use serde_json::{json, Value};

/// Every push fixture of `sdk` the model is held to, by name
/// (`push-inline_late-0`).
fn fixtures(sdk: &str) -> Vec<(String, Fixture)> {
    modelled(&fixture_dir(sdk).join("push"))
        .into_iter()
        .map(|f| (f.stem(), f))
        .collect()
}

/// The push fixture `name` of `sdk`.
fn fixture(sdk: &str, name: &str) -> Recording {
    fixtures(sdk)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{sdk} {name}"))
        .1
        .recording
}

/// The first run's POSTs as a webhook's log: JSON Lines of
/// `{"headers", "body"}`, the body as the webhook received it.
fn log_of(fixture: &Recording) -> String {
    fixture.runs[0]
        .posts
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| json!({"headers": p.headers, "body": p.body}).to_string() + "\n")
        .collect()
}

fn judge(log: &str, stream: Option<&[u8]>) -> PushReport {
    let mut reader = PushLog::new();
    reader.read_file(log.as_bytes()).unwrap();
    let stream = stream.map(|s| read_capture(&[s], None).unwrap());
    reader.judge(stream.as_ref())
}

/// A log that cannot be read says what is wrong as a kind, and which line
/// or element, as data.
#[test]
fn a_log_that_cannot_be_read_names_the_fault_and_the_post() {
    let ok = r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#;
    let deep = format!("{ok}\n{}{}\n", "[".repeat(200), "]".repeat(200));
    let e = PushLog::new().read_file(deep.as_bytes()).unwrap_err();
    assert_eq!(e.kind(), &ReadKind::TooDeep { limit: 128 });
    assert_eq!(e.at(), [Place::Line(2)]);
    assert_eq!(e.to_string(), "line 2: JSON nested deeper than 128 levels");
    let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"gone"}}"#;
    let array = format!("[{ok},{error}]");
    let e = PushLog::new().read_file(array.as_bytes()).unwrap_err();
    assert!(matches!(
        e.kind(),
        ReadKind::Event(EventFault::ErrorPosted { code: -32001, .. })
    ));
    assert_eq!(e.at(), [Place::Entry(1)]);
}

fn count(report: &PushReport, code: FindingCode) -> u64 {
    report.findings.iter().filter(|f| f.code == code).count() as u64
}

fn state(text: &str) -> Option<TaskState> {
    TaskState::from_wire(text).or_else(|| TaskState::from_kebab(text))
}

#[test]
fn every_recorded_webhook_log_is_judged_as_the_recorder_counted_it() {
    let mut judged = 0;
    for sdk in ["python", "js", "rust"] {
        for (name, fixture) in fixtures(sdk) {
            // a2a-rs has no 0.3 wire and no database store: not measured.
            if !fixture.measurable() {
                continue;
            }
            let fixture = fixture.recording;
            let run = &fixture.runs[0];
            if run.posts.as_ref().unwrap().is_empty() {
                continue; // webhook=down: nothing reached it.
            }
            let report = judge(&log_of(&fixture), None);
            let at = format!("{sdk} {name}");
            assert_eq!(report.posts as u64, run.pushes_received.unwrap(), "{at}");
            // A retry that makes a second task pushes both (SPEC §14).
            let tasks = run.distinct_tasks.unwrap_or(1);
            assert_eq!(report.tasks.len() as u64, tasks, "{at}: tasks");
            if tasks > 1 {
                judged += 1;
                continue;
            }
            assert_eq!(
                report.tasks[0].last_state.map(|s| s.state),
                run.push_last_state.as_deref().and_then(state),
                "{at}: what the webhook was told last"
            );
            assert_eq!(
                count(&report, FindingCode::PushedAfterTerminal),
                run.push_after_terminal.unwrap(),
                "{at}"
            );
            assert_eq!(
                count(&report, FindingCode::PushDuplicate),
                run.push_duplicates.unwrap(),
                "{at}"
            );
            judged += 1;
        }
    }
    assert!(judged >= 60, "only {judged} logs judged");
}

#[test]
fn each_sdks_push_defects_are_named_and_a_healthy_log_is_clean() {
    let codes = |report: &PushReport| -> Vec<&str> {
        report.findings.iter().map(|f| f.code.code()).collect()
    };
    for sdk in ["python", "js", "rust"] {
        assert!(
            judge(&log_of(&fixture(sdk, "push-inline")), None)
                .findings
                .is_empty(),
            "{sdk}"
        );
    }
    // a2a-sdk pushes an artifact sent after complete().
    assert_eq!(
        codes(&judge(
            &log_of(&fixture("python", "push-inline_late-0")),
            None
        )),
        ["pushed-after-terminal"]
    );
    // @a2a-js/sdk pushes CANCELED twice, the same bytes.
    assert_eq!(
        codes(&judge(
            &log_of(&fixture("js", "push-inline_cancel-1")),
            None
        )),
        ["pushed-after-terminal", "push-duplicate"]
    );
}

/// GetTask's answer for the log's task, in the state the recorder saw it
/// settle in: the stream capture beside the log.
fn get_task(fixture: &Recording, log: &PushReport) -> Vec<u8> {
    let settled = &fixture.runs[0].get_task_settled.task().unwrap().state;
    json!({"jsonrpc": "2.0", "id": 9, "result": {"id": log.tasks[0].id, "contextId": "c", "status": {"state": settled}}})
        .to_string()
        .into_bytes()
}

#[test]
fn a_webhook_never_told_failed_is_found_beside_get_task() {
    for (sdk, want) in [("python", 1), ("js", 0)] {
        let fixture = fixture(sdk, "push-inline_ending-raise");
        let alone = judge(&log_of(&fixture), None);
        assert!(
            alone.findings.is_empty(),
            "{sdk}: alone, nothing says the task ended"
        );
        let beside = judge(&log_of(&fixture), Some(&get_task(&fixture, &alone)));
        assert_eq!(
            count(&beside, FindingCode::PushMissingTerminal),
            want,
            "{sdk}: {:?}",
            beside.findings
        );
    }
    let fixture = fixture("python", "push-inline_ending-raise");
    let report = judge(&log_of(&fixture), None);
    let beside = judge(&log_of(&fixture), Some(&get_task(&fixture, &report)));
    assert!(
        beside.findings[0]
            .message
            .contains("last told TASK_STATE_WORKING, never TASK_STATE_FAILED"),
        "{}",
        beside.findings[0].message
    );
}

#[test]
fn check_webhook_prints_the_log_beside_the_stream_and_refuses_a_log_without_posts() {
    let fixture = fixture("python", "push-inline_ending-raise");
    let dir = Scratch::new("push");
    let log = dir.write("push.jsonl", log_of(&fixture).as_bytes());
    let report = judge(&log_of(&fixture), None);
    let get = dir.write("get.json", &get_task(&fixture, &report));
    let empty = dir.write("empty.jsonl", b"\n");
    let run = |args: &[&std::path::Path], json: bool| {
        let mut argv = vec![OsStr::new("check")];
        if json {
            argv.push(OsStr::new("--json"));
        }
        for (i, a) in args.iter().enumerate() {
            if i == 0 {
                argv.push(OsStr::new("--webhook"));
            }
            argv.push(a.as_os_str());
        }
        binary(argv)
    };
    let out = run(&[&log, &get], true);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["findings"][0]["code"], "push-missing-terminal");
    assert_eq!(v["pushes"]["tasks"][0]["last_state"], "TASK_STATE_WORKING");
    assert_eq!(v["tasks"][0]["final_state"], "TASK_STATE_FAILED");
    let out = run(&[&log], false);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("last told TASK_STATE_WORKING"));
    let out = run(&[&empty], false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no webhook POSTs in"));
}
