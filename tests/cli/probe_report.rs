//! The probe's report (SPEC §10) without an agent: its codes, outcomes and
//! JSON, and `probe`'s arguments, which are refused before anything is
//! contacted.
#![cfg(not(target_arch = "wasm32"))]

use crate::cli_support;

use a2a_lab::model::evidence::probe::records::capture_of_calls;
use a2a_lab::model::evidence::probe::report::{
    Probe, ProbeCode, ProbeOutcome, ProbeReport, ProbeResult, ProbedAgent,
};
use a2a_lab::model::wire::read_error::{ProbeJsonFault, ReadKind};
use a2a_lab::model::wire::rest::Binding;
use a2a_lab::model::wire::Wire;
use cli_support::cli;
use serde_json::json;

fn result(probe: Probe) -> ProbeResult {
    let name = probe.name();
    ProbeResult {
        name: probe,
        outcome: ProbeOutcome::Clean,
        summary: "s".into(),
        load: None,
        findings: Vec::new(),
        scenario: None,
        captures: vec![format!("{name}.sse")],
        calls: vec![format!(
            "data: {}\n\n",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": "t", "status": {"state": "working"}}})
        )],
    }
}

fn report() -> ProbeReport {
    let mut report = ProbeReport::new(ProbedAgent {
        name: "A".into(),
        url: "http://127.0.0.1:1".into(),
        wire: Wire::V0_3,
        binding: Binding::JsonRpc,
        offered: true,
        headers: Vec::new(),
    });
    report.push(
        result(Probe::Stream),
        vec![(ProbeCode::Hung, "open after 5 ms".into())],
    );
    report.push(result(Probe::Get), Vec::new());
    report
}

#[test]
fn outcomes_follow_the_findings_and_every_code_reads_back() {
    let report = report();
    assert_eq!(report.probes[0].outcome, ProbeOutcome::Broken);
    assert_eq!(report.probes[0].findings, [ProbeCode::Hung]);
    assert_eq!(report.probes[1].outcome, ProbeOutcome::Clean);
    assert_eq!(report.findings[0].probe, Probe::Stream);
    for code in [
        "hung",
        "get-task-mismatch",
        "cancel-not-canceled",
        "cancel-terminal-accepted",
        "subscribe-terminal-accepted",
        "after-terminal",
        "missing-terminal",
        "artifact-gap",
    ] {
        assert_eq!(ProbeCode::parse(code).map(|c| c.code()), Some(code));
    }
    assert_eq!(ProbeCode::parse("nope"), None);
    for probe in Probe::ALL {
        assert_eq!(Probe::parse(probe.name()), Some(probe));
    }
    assert_eq!(Probe::parse("nope"), None);
}

#[test]
fn json_has_no_calls_and_probe_json_reads_back_whole() {
    let report = report();
    let lean: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(lean["agent"]["wire"], "0.3");
    assert_eq!(lean["findings"][0]["code"], "hung");
    assert_eq!(lean["probes"][0]["findings"], json!(["hung"]));
    assert!(lean["probes"][0].get("calls").is_none());
    let back = ProbeReport::from_json(&report.to_file_json()).unwrap();
    assert_eq!(back, report);
    let wrong = report
        .to_file_json()
        .replace("a2a-lifecycle-lab/probe", "x");
    let e = ProbeReport::from_json(&wrong).unwrap_err();
    assert!(e.to_string().contains("format"));
    assert!(matches!(
        e.kind(),
        ReadKind::NotProbeJson(ProbeJsonFault::Format { .. })
    ));
    assert!(ProbeReport::from_json("{}").is_err());
}

#[test]
fn text_names_each_probe_and_what_to_fix() {
    let text = report().to_text();
    assert!(text.contains("stream               BROKEN"), "{text}");
    assert!(text.contains("hung: open after 5 ms"), "{text}");
    assert!(text.contains(ProbeCode::Hung.advice()), "{text}");
}

#[test]
fn a_dropped_stream_and_its_resubscription_are_judged_as_one_session() {
    let dropped =
        "data: {\"kind\": \"task\", \"id\": \"t\", \"contextId\": \"c\", \"status\": {\"state\": \"working\"}}\r\n\r\n";
    let subscribed = format!(
        "{}{}\n",
        json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "working"}}),
        "\n{\"kind\": \"status-update\", \"taskId\": \"t\", \"contextId\": \"c\", \"status\": {\"state\": \"completed\"}, \"final\": true}"
    );
    let session = capture_of_calls(&[dropped, &subscribed], None).unwrap();
    assert!(session.findings.is_empty(), "{:?}", session.findings);
    let alone = capture_of_calls(&[dropped], None).unwrap();
    assert_eq!(alone.findings[0].code.code(), "missing-terminal");
}

#[test]
fn bad_arguments_are_refused_before_anything_is_contacted() {
    for (args, says) in [
        (&["probe"][..], "no URL"),
        (&["probe", "ftp://x"], "not an http"),
        (&["probe", "http://a", "http://b"], "one URL only"),
        (&["probe", "http://a", "--wire", "2"], "not 1.0 or 0.3"),
        (&["probe", "http://a", "--timeout-ms", "0"], "milliseconds"),
        (&["probe", "http://a", "--timeout-ms"], "needs"),
        (&["probe", "http://a", "--bogus"], "unknown flag"),
        (&["probe", "http://a", "--tasks", "0"], "from 1 to 64"),
        (&["probe", "http://a", "--tasks", "65"], "from 1 to 64"),
        (&["probe", "http://a", "--tasks", "many"], "--tasks `many`"),
        (
            &["probe", "http://a", "--format", "xml"],
            "not text, json, junit or sarif",
        ),
        (
            &[
                "probe",
                "http://127.0.0.1:9",
                "--baseline",
                "/nonexistent/probe.json",
            ],
            "--baseline",
        ),
    ] {
        let (stdout, stderr, code) = cli(args, None);
        assert_eq!(code, 2, "{args:?}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn an_unreachable_agent_is_exit_2_with_a_message() {
    // A port that was free a moment ago: nothing listens on it now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap();
    let url = format!("http://127.0.0.1:{port}");
    let (stdout, stderr, code) = cli(&["probe", &url, "--timeout-ms", "2000"], None);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(stderr.contains("cannot reach the agent"), "{stderr}");
}

#[test]
fn a_malformed_header_is_refused_without_repeating_its_value() {
    let (stdout, stderr, code) = cli(&["probe", "http://a", "--header", "Bearer hunter2"], None);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

#[test]
fn the_load_and_the_headers_sent_read_back_from_probe_json() {
    let mut report = report();
    report.agent.headers = vec!["Authorization: <redacted>".into()];
    report.probes[0].load = Some(a2a_lab::model::evidence::probe::report::Load {
        tasks: 8,
        clean: 1,
        slowest_ms: Some(640),
    });
    let text = report.to_file_json();
    assert!(text.contains("\"slowest_ms\": 640"), "{text}");
    let back = ProbeReport::from_json(&text).unwrap();
    assert_eq!(back, report);
    assert_eq!(back.agent.headers, ["Authorization: <redacted>"]);
}
