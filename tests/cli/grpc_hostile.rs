//! `a2a-lab probe` over gRPC against stand-ins that answer what no SDK
//! does (SPEC §16): a message that cannot be read, a wrong status code, a
//! stream reset mid-way (tests/grpc_standin, an HTTP/2 server on
//! 127.0.0.1). Its card lists only its GRPC interface, which the probe
//! then picks.
//!
//! Each finding is read against the same stand-in answering cleanly, so
//! the test says what each hostile answer adds, and nothing else.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use a2a_lab::model::evidence::probe::report::ProbeReport;
use cli_support::binary;
use grpc_standin::{start, Kind};
use serde_json::Value;

use crate::cli_support;
use crate::grpc_standin;

/// This test's folder `name` under target/tmp, as a run left it.
fn folder(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/tmp/grpc-hostile")
        .join(name)
}

/// An empty folder `name` for a run's `--out`.
fn scratch(name: &str) -> PathBuf {
    let dir = folder(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `output` exited with `code` (its stdout shown when not).
fn exits(output: &std::process::Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

fn probed(kind: Kind, name: &str) -> (ProbeReport, Vec<String>) {
    let url = start(kind);
    let out = scratch(name);
    let output = binary([
        "probe",
        &url,
        "--timeout-ms",
        "2000",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.is_empty(), "{name}: {stderr}");
    let text = std::fs::read_to_string(out.join("probe.json")).unwrap();
    let report = ProbeReport::from_json(&text).unwrap();
    let found = report
        .findings
        .iter()
        .map(|f| format!("{}:{}", f.probe, f.code))
        .collect();
    (report, found)
}

/// What `hostile` finds that `clean` does not.
fn added(clean: &[String], hostile: &[String]) -> Vec<String> {
    let mut rest = clean.to_vec();
    hostile
        .iter()
        .filter(|f| match rest.iter().position(|c| c == *f) {
            Some(at) => {
                rest.remove(at);
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

#[test]
fn hostile_grpc_answers_are_each_found_where_they_show() {
    let (clean, clean_found) = probed(Kind::Clean, "clean");
    assert_eq!(
        clean.agent.binding.name(),
        "grpc",
        "the card's only interface"
    );
    assert!(
        clean_found.is_empty(),
        "the clean stand-in: {clean_found:?}"
    );

    let (report, found) = probed(Kind::Unreadable, "unreadable");
    assert_eq!(
        added(&clean_found, &found),
        // The resubscribe probe drops its stream at the first WORKING,
        // before the bytes come.
        ["stream:unreadable-answer", "cancel:unreadable-answer"],
        "{found:?}"
    );
    let said = &report.findings[0].message;
    assert!(
        said.contains("gRPC message of 4 bytes that is not a lf.a2a.v1.StreamResponse"),
        "{said}"
    );

    let (report, found) = probed(Kind::WrongStatus, "wrong-status");
    assert_eq!(
        added(&clean_found, &found),
        [
            "cancel:cancel-not-canceled",
            "cancel-terminal:cancel-terminal-accepted",
            "subscribe-terminal:subscribe-terminal-accepted"
        ],
        "{found:?}"
    );
    let cancel_terminal = report
        .findings
        .iter()
        .find(|f| f.probe.to_string() == "cancel-terminal")
        .unwrap();
    assert!(
        cancel_terminal.message.contains("gRPC INTERNAL")
            && cancel_terminal
                .message
                .contains("FAILED_PRECONDITION TASK_NOT_CANCELABLE"),
        "{}",
        cancel_terminal.message
    );

    // A reset stream ended without a final status, wherever one was read
    // to its end.
    let (report, found) = probed(Kind::Reset, "reset");
    assert_eq!(
        added(&clean_found, &found),
        [
            "stream:missing-terminal",
            "cancel:missing-terminal",
            "resubscribe:missing-terminal"
        ],
        "{found:?}"
    );
    let records = std::fs::read_to_string(folder("reset").join("records.json")).unwrap();
    assert!(records.contains("\"reset\": true"), "the reset is kept");
    assert!(report.findings[0].message.contains("TASK_STATE_WORKING"));
}

/// A gRPC run is a run like the others for everything after the probe:
/// JUnit, SARIF, `--baseline`, and the page's Import of its `probe.json`.
#[test]
fn a_grpc_run_gates_and_imports_as_the_others() {
    let url = start(Kind::WrongStatus);
    let junit = binary(["probe", &url, "--timeout-ms", "2000", "--format", "junit"]);
    assert_eq!(junit.status.code(), Some(1));
    let xml = String::from_utf8(junit.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failed: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.children().any(|c| c.has_tag_name("failure")))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(failed.len(), 3, "{xml}");
    assert!(xml.contains("gRPC INTERNAL"), "{xml}");

    let sarif = binary(["probe", &url, "--timeout-ms", "2000", "--format", "sarif"]);
    let sarif: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"cancel-terminal-accepted"), "{rules:?}");

    // The clean stand-in as the baseline: the wrong status is new.
    let clean = start(Kind::Clean);
    let dir = scratch("baseline");
    let kept = binary([
        "probe",
        &clean,
        "--timeout-ms",
        "2000",
        "--out",
        dir.to_str().unwrap(),
    ]);
    exits(&kept, 0);
    let baseline = dir.join("probe.json");
    let baseline = baseline.to_str().unwrap();
    let same = binary([
        "probe",
        &clean,
        "--timeout-ms",
        "2000",
        "--baseline",
        baseline,
    ]);
    exits(&same, 0);
    let changed = binary([
        "probe",
        &url,
        "--timeout-ms",
        "2000",
        "--baseline",
        baseline,
    ]);
    exits(&changed, 1);

    // The page's Import reads it, and says which binding was spoken.
    let text = std::fs::read(dir.join("probe.json")).unwrap();
    let imported = a2a_lab::model::evidence::import::import_bytes(&text).unwrap();
    let said = a2a_lab::model::pictures::shown::import_summary(&imported);
    assert!(said.contains("on the A2A 1.0 wire over GRPC"), "{said}");
}

/// `--header` goes as gRPC metadata (A2A 1.0 §10.2), on every call, and
/// its value is written nowhere.
#[test]
fn credentials_go_as_metadata_and_are_written_nowhere() {
    let url = start(Kind::Bearer);
    let refused = binary(["probe", &url, "--timeout-ms", "2000"]);
    let said = String::from_utf8_lossy(&refused.stdout).to_string()
        + &String::from_utf8_lossy(&refused.stderr);
    // As over HTTP (401, 403): the agent cannot be probed without them.
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("UNAUTHENTICATED"), "{said}");
    assert!(said.contains("--header"), "{said}");

    let dir = scratch("bearer");
    let header = format!("Authorization: Bearer {}", grpc_standin::TOKEN);
    let output = binary([
        "probe",
        &url,
        "--timeout-ms",
        "2000",
        "--header",
        &header,
        "--out",
        dir.to_str().unwrap(),
    ]);
    exits(&output, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains(grpc_standin::TOKEN));
    }
    let kept = std::fs::read_to_string(dir.join("probe.json")).unwrap();
    assert!(kept.contains("Authorization: <redacted>"), "{kept}");
}

/// `--tasks N` over gRPC: N streams at once on one connection, each
/// judged on its own.
#[test]
fn streams_at_once_over_grpc() {
    let url = start(Kind::Clean);
    let dir = scratch("tasks");
    let output = binary([
        "probe",
        &url,
        "--timeout-ms",
        "2000",
        "--tasks",
        "4",
        "--out",
        dir.to_str().unwrap(),
    ]);
    exits(&output, 0);
    let report =
        ProbeReport::from_json(&std::fs::read_to_string(dir.join("probe.json")).unwrap()).unwrap();
    let load = report.probes[1].load.as_ref().unwrap();
    assert_eq!((load.tasks, load.clean), (4, 4));
}

/// A stream is read up to the cap HTTP's has, 16 MiB: past it the probe
/// stops reading and says so, as over HTTP, rather than holding all an
/// agent sends.
#[test]
fn a_stream_past_the_cap_is_dropped_and_said() {
    let url = start(Kind::Flood);
    let output = binary(["probe", &url, "--timeout-ms", "20000"]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("SendStreamingMessage: the stream sent more than 16777216 bytes"),
        "{said}"
    );
    // The stand-in streamed past the cap, and no further than the
    // client's window once it stopped reading.
    let flooded = grpc_standin::FLOODED.load(std::sync::atomic::Ordering::SeqCst);
    assert!(flooded > 16 << 20, "{flooded}");
    assert!(flooded < grpc_standin::FLOOD_BYTES / 2, "{flooded}");
}
