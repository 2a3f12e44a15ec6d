//! The reader of real traffic on real traffic: the raw captures that
//! tests/fidelity recorded from a2a-sdk 1.3.0 and @a2a-js/sdk 1.3.0, on the
//! A2A 1.0 wire and the 0.3 compatibility wire (SPEC §8). Each stream is
//! judged as the model's own stream for the same scenario and SDK is judged;
//! sessions over two files, and files built by concatenating and
//! interleaving two tasks' captures, are judged task by task.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use std::path::{Path, PathBuf};

use a2a_lab::model::evidence::capture::CaptureReport;
use model_support::capture_report;

const SDKS: [(&str, &str); 2] = [("python", "python"), ("js", "js")];
const WIRES: [&str; 2] = ["v1.0", "v0.3"];

fn dir(sdk: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fidelity/captures")
        .join(sdk)
}

fn capture(sdk: &str, wire: &str, name: &str) -> Vec<u8> {
    let path = dir(sdk).join(format!("{wire}_{name}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Finding codes, final states (in 1.0 spelling) and event counts.
fn verdict(report: &CaptureReport) -> (Vec<&'static str>, Vec<String>, Vec<u32>) {
    let state = |s: &str| {
        a2a_lab::model::state::TaskState::from_kebab(s)
            .map_or_else(|| s.to_string(), |st| st.wire().to_string())
    };
    (
        report.findings.iter().map(|f| f.code.code()).collect(),
        report
            .tasks
            .iter()
            .map(|t| state(&t.final_state.to_string()))
            .collect(),
        report.tasks.iter().map(|t| t.events).collect(),
    )
}

#[test]
fn every_recorded_stream_is_judged_as_the_models_stream_for_its_scenario() {
    let mut checked = 0;
    for (folder, sdk) in SDKS {
        for wire in WIRES {
            for (name, query) in [
                ("defaults.sse", ""),
                ("late-0.sse", "late=0"),
                ("ending-return.sse", "ending=return"),
                ("ending-fail.sse", "ending=fail"),
                ("cancel-1.sse", "cancel=1"),
                ("chunks-10.sse", "chunks=10"),
            ] {
                let recorded = verdict(&capture_report(&[&capture(folder, wire, name)]));
                let query = format!(
                    "{query}{}sdk={sdk}",
                    if query.is_empty() { "" } else { "&" }
                );
                let modelled =
                    verdict(&capture_report(&[&model_support::sse(&query).into_bytes()]));
                assert_eq!(
                    recorded, modelled,
                    "{folder} {wire} {name} vs the model's {query}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 24);
}

#[test]
fn the_python_sdk_delivers_a_late_artifact_after_the_terminal_status_and_js_drops_it() {
    for wire in WIRES {
        let python = capture_report(&[&capture("python", wire, "late-0.sse")]);
        assert_eq!(verdict(&python).0, ["after-terminal"], "{wire}");
        let js = capture_report(&[&capture("js", wire, "late-0.sse")]);
        assert!(js.findings.is_empty(), "{wire}: {:?}", js.findings);
        assert_eq!(python.wire.name(), wire.trim_start_matches('v'));
    }
}

#[test]
fn a_dropped_stream_is_missing_its_terminal_until_its_resubscription_completes_it() {
    for (folder, _) in SDKS {
        for wire in WIRES {
            let dropped = capture(folder, wire, "resubscribe-dropped.sse");
            let resubscribed = capture(folder, wire, "resubscribe-resubscribed.sse");
            assert_eq!(
                verdict(&capture_report(&[&dropped])).0,
                ["missing-terminal"],
                "{folder} {wire}"
            );
            let session = capture_report(&[&dropped, &resubscribed]);
            assert!(
                session.findings.is_empty(),
                "{folder} {wire}: {:?}",
                session.findings
            );
            assert_eq!(session.tasks.len(), 1, "{folder} {wire}");
            assert_eq!(
                verdict(&session).1,
                ["TASK_STATE_COMPLETED"],
                "{folder} {wire}"
            );
        }
    }
}

#[test]
fn an_authorization_turn_and_its_follow_up_are_one_session_ending_completed() {
    for (folder, _) in SDKS {
        for wire in WIRES {
            let first = capture(folder, wire, "interrupt-auth.turn-1.sse");
            let second = capture(folder, wire, "interrupt-auth.turn-2.sse");
            let alone = capture_report(&[&first]);
            assert!(
                alone.findings.is_empty(),
                "an interrupted task is no missing terminal"
            );
            assert_eq!(verdict(&alone).1, ["TASK_STATE_AUTH_REQUIRED"]);
            let session = capture_report(&[&first, &second]);
            assert!(
                session.findings.is_empty(),
                "{folder} {wire}: {:?}",
                session.findings
            );
            assert_eq!(
                verdict(&session).1,
                ["TASK_STATE_COMPLETED"],
                "{folder} {wire}"
            );
        }
    }
}

#[test]
fn a_json_rpc_error_in_a_capture_is_listed_not_a_finding() {
    for (folder, _) in SDKS {
        for wire in WIRES {
            let report = capture_report(&[&capture(folder, wire, "cancel-finished-task.json")]);
            assert!(report.findings.is_empty());
            assert_eq!(report.errors.len(), 1, "{folder} {wire}");
            assert_eq!(report.errors[0].code, -32002, "{folder} {wire}");
        }
    }
}

/// SSE events of a body (separated by a blank line, LF or CRLF).
fn sse_events(body: &[u8]) -> Vec<String> {
    String::from_utf8(body.to_vec())
        .unwrap()
        .replace("\r\n", "\n")
        .split("\n\n")
        .filter(|e| e.contains("data:"))
        .map(|e| format!("{e}\n\n"))
        .collect()
}

#[test]
fn two_tasks_concatenated_or_interleaved_are_judged_each_by_its_own_ledger() {
    for (folder, _) in SDKS {
        for wire in WIRES {
            let late = capture(folder, wire, "late-0.sse");
            let fail = capture(folder, wire, "ending-fail.sse");
            let alone_late = verdict(&capture_report(&[&late])).0;
            for (a, b) in [(&late, &fail), (&fail, &late)] {
                let joined: Vec<u8> = [a.as_slice(), b.as_slice()].concat();
                let report = capture_report(&[&joined]);
                assert_eq!(report.tasks.len(), 2, "{folder} {wire}");
                assert_eq!(verdict(&report).0, alone_late, "{folder} {wire}");
            }
            let (x, y) = (sse_events(&late), sse_events(&fail));
            let mut interleaved = String::new();
            for i in 0..x.len().max(y.len()) {
                interleaved.extend(x.get(i).cloned());
                interleaved.extend(y.get(i).cloned());
            }
            let report = capture_report(&[interleaved.as_bytes()]);
            assert_eq!(
                verdict(&report).0,
                alone_late,
                "{folder} {wire} interleaved"
            );
            let mut states = verdict(&report).1;
            states.sort();
            assert_eq!(
                states,
                ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED"],
                "{folder} {wire}"
            );
        }
    }
}
