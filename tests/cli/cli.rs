//! `a2a-lab` (SPEC §5): trace, reduce and check, their output and exit
//! codes, in-process and as a real process.
#![cfg(not(target_arch = "wasm32"))]

use crate::cli_support;
use crate::model_support;

use cli_support::{binary, cli, Scratch};
use model_support::recorded::{read_recorded, Recording};
use model_support::{wire_events, wire_rows};

use a2a_lab::model::evidence::export::export_json;
use a2a_lab::model::sim::scenario::Scenario;
use serde_json::{json, Value};

fn findings(stdout: &str) -> Vec<(String, Option<u64>)> {
    let v: Value = serde_json::from_str(stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap().to_string(), f["index"].as_u64()))
        .collect()
}

#[test]
fn trace_prints_the_export_for_the_query() {
    let (out, _, code) = cli(&["trace", "ending=never&cancel=3"], None);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        export_json(&Scenario::from_query("ending=never&cancel=3").unwrap())
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "a2a-lifecycle-lab/trace");
    assert_eq!(v["version"], 1);
    assert_eq!(v["metrics"]["final_state"], "TASK_STATE_CANCELED");
    for key in [
        "format",
        "version",
        "generator",
        "inputs",
        "metrics",
        "trace",
        "ledger",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
}

#[test]
fn trace_is_byte_deterministic() {
    assert_eq!(
        cli(&["trace", "late=300&guard=on"], None).0,
        cli(&["trace", "late=300&guard=on"], None).0
    );
}

#[test]
fn bad_query_is_exit_2_naming_the_key() {
    let (out, err, code) = cli(&["trace", "chunks=3&bogus=1"], None);
    assert_eq!((out.as_str(), code), ("", 2));
    assert!(err.contains("bogus"), "{err}");
}

#[test]
fn trace_takes_the_subscriber_keys_and_says_which_client_received_each_event() {
    let (out, _, code) = cli(&["trace", "resubscribe=3"], None);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["inputs"]["resubscribe"], "3");
    let kinds: Vec<&str> = v["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["wire"].as_object()?.keys().next().map(String::as_str))
        .collect();
    // The stream drops after chunk 1; the subscription starts with the task.
    assert_eq!(
        kinds,
        [
            "task",
            "statusUpdate",
            "artifactUpdate",
            "task",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate"
        ]
    );
    assert!(out.contains("the connection drops after event 3"));
    assert!(
        !out.contains("\"client\": 1"),
        "client 1 is the default, never written"
    );

    let (out, _, code) = cli(&["trace", "second_client=2"], None);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let second: Vec<&Value> = v["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["client"] == 2 && r["wire"].is_object())
        .collect();
    assert_eq!(second.len(), 5, "the snapshot, three chunks and COMPLETED");
    assert!(second[0]["wire"]["task"].is_object());
    assert_eq!(cli(&["check", "trace.json"], Some(out.as_bytes())).2, 0);

    let (out, err, code) = cli(&["trace", "resubscribe=9"], None);
    assert_eq!((out.as_str(), code), ("", 2));
    assert!(
        err.contains("resubscribe") && err.contains("at most 6 events"),
        "{err}"
    );
}

#[test]
fn a_resubscribed_session_read_as_a_capture_is_clean() {
    // Client 1's events over both streams, as a capture: the snapshot is its
    // new view, so nothing is a duplicate and the session ends COMPLETED.
    // Each client's own events are a clean capture too.
    for (query, client) in [
        ("resubscribe=3", 1),
        ("resubscribe=1", 1),
        ("second_client=3", 1),
        ("second_client=3", 2),
    ] {
        let rows = wire_rows(query);
        let events: Vec<&Value> = rows
            .iter()
            .filter(|r| r["client"].as_u64().unwrap_or(1) == client)
            .map(|r| &r["wire"])
            .collect();
        let raw = serde_json::to_vec(&events).unwrap();
        let (out, _, code) = cli(&["check", "--json", "raw.json"], Some(&raw));
        assert_eq!(
            (code, findings(&out)),
            (0, vec![]),
            "{query}, client {client}"
        );
    }
}

#[test]
fn reduce_answers_like_the_seed() {
    let file = br#"[{"id":"w","status":"working"},{"id":"a","status":"auth-required"},{"id":"a","status":"auth-required"},
        {"id":"resume","status":"working","authorizationReceipt":"authz:7"},{"id":"i","status":"input-required"},
        {"id":"back","status":"working"},{"id":"done","status":"completed"},{"id":"late","status":"working"}]"#;
    let (out, _, code) = cli(&["reduce", "f.json"], Some(file));
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        json!({"status":"completed","sequence":6,"accepted":["w","a","resume","i","back","done"],
               "rejected":[{"id":"late","reason":"illegal-transition"}]})
    );
}

#[test]
fn reduce_refuses_bad_input_with_exit_2() {
    for bad in [
        &b"not json"[..],
        b"{}",
        br#"[{"id":1,"status":"working"}]"#,
        br#"[{"id":"a"}]"#,
        b"\xff\xfe",
    ] {
        let (_, err, code) = cli(&["reduce", "f.json"], Some(bad));
        assert_eq!(code, 2, "{}", String::from_utf8_lossy(bad));
        assert!(err.starts_with("a2a-lab: reduce"), "{err}");
    }
    let (_, err, code) = cli(&["reduce", "missing.json"], None);
    assert_eq!(code, 2);
    assert!(err.contains("no such file"));
}

#[test]
fn reduce_names_the_event_line_and_column_of_bad_input() {
    let file = b"[{\"id\":\"a\",\"status\":\"working\"},\n {\"id\":\"b\",\n  \"status\":7}]";
    let (out, err, code) = cli(&["reduce", "f.json"], Some(file));
    assert_eq!((out.as_str(), code), ("", 2));
    assert!(err.contains("event 1 (line 3, column 12)"), "{err}");
    assert!(err.contains("expected a string"), "{err}");
    let (_, err, _) = cli(
        &["reduce", "f.json"],
        Some(b"[{\"id\":\"a\",\"status\":\"working\"},]"),
    );
    assert!(
        err.contains("expected an element at line 1 column 32"),
        "{err}"
    );
    let (_, err, _) = cli(&["reduce", "f.json"], Some(b"[] []"));
    assert!(err.contains("after the array at line 1 column 4"), "{err}");
}

#[test]
fn reduce_reads_escaped_ids_and_answers_a_large_input_like_the_small_one() {
    let (out, _, code) = cli(
        &["reduce", "f.json"],
        Some(br#"[{"id":"a\u0041","status":"working"},{"id":"aA","status":"failed"}]"#),
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["accepted"],
        json!(["aA"]),
        "the escape was undone, so aA repeats"
    );
    // Enough events to span many read buffers: every id new, statuses
    // cycling through legal moves, so all are accepted.
    let n = 60_000;
    let cycle = ["working", "input-required", "working", "auth-required"];
    let mut file = String::from("[");
    for i in 0..n {
        let sep = if i == 0 { "" } else { ",\n" };
        let receipt = if cycle[(i + 3) % 4] == "auth-required" {
            r#","authorizationReceipt":"r""#
        } else {
            ""
        };
        file.push_str(&format!(
            r#"{sep}{{"id":"event-{i:08}","status":"{}"{receipt}}}"#,
            cycle[i % 4]
        ));
    }
    file.push(']');
    assert!(file.len() > 2 << 20, "spans more than one buffer");
    let (out, err, code) = cli(&["reduce", "f.json"], Some(file.as_bytes()));
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["sequence"], json!(n));
    assert_eq!(v["accepted"][n - 1], json!(format!("event-{:08}", n - 1)));
    assert_eq!(v["rejected"], json!([]));
}

#[test]
fn check_passes_an_untouched_export_and_flags_a_tampered_one() {
    let export = export_json(&Scenario::from_query("late=0").unwrap());
    let (out, _, code) = cli(&["check", "e.json"], Some(export.as_bytes()));
    assert_eq!(code, 0, "{out}");
    let tampered = export.replacen(
        "\"events_after_terminal\": 1",
        "\"events_after_terminal\": 0",
        1,
    );
    assert_ne!(tampered, export);
    let (out, _, code) = cli(&["check", "--json", "e.json"], Some(tampered.as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(findings(&out)[0].0, "differs");
}

#[test]
fn check_refuses_other_versions_and_formats() {
    let export = export_json(&Scenario::default()).replacen("\"version\": 1", "\"version\": 2", 1);
    let (_, err, code) = cli(&["check", "e.json"], Some(export.as_bytes()));
    assert_eq!(code, 2);
    assert!(err.contains("version 2"), "{err}");
    let (_, err, code) = cli(&["check", "e.json"], Some(br#"{"format":"other"}"#));
    assert_eq!(code, 2);
    assert!(err.contains("format"), "{err}");
}

#[test]
fn check_finds_after_terminal_in_a_raw_log() {
    let raw = serde_json::to_vec(&wire_events("late=0")).unwrap();
    let (out, _, code) = cli(&["check", "--json", "raw.json"], Some(&raw));
    assert_eq!(code, 1);
    assert_eq!(findings(&out), [("after-terminal".to_string(), Some(6))]);
}

#[test]
fn check_finds_missing_terminal_when_the_stream_ends_working() {
    let raw = serde_json::to_vec(&wire_events("ending=return")).unwrap();
    let (out, _, code) = cli(&["check", "--json", "raw.json"], Some(&raw));
    assert_eq!(code, 1);
    assert_eq!(findings(&out)[0].0, "missing-terminal");
    let clean = serde_json::to_vec(&wire_events("")).unwrap();
    assert_eq!(cli(&["check", "raw.json"], Some(&clean)).2, 0);
}

#[test]
fn check_reads_an_sse_capture_as_the_server_sent_it() {
    let mut sse = String::from(": comment\r\nevent: message\r\n");
    for (i, e) in wire_events("late=0").iter().enumerate() {
        sse.push_str(&format!(
            "id: {i}\r\ndata: {}\r\n\r\n",
            json!({"jsonrpc":"2.0","id":"1","result":e})
        ));
    }
    let (out, _, code) = cli(&["check", "--json", "capture.sse"], Some(sse.as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(findings(&out), [("after-terminal".to_string(), Some(6))]);
}

#[test]
fn check_finds_duplicates_illegal_edges_and_conflicting_coordinates() {
    let mut events = wire_events("ending=return");
    events.insert(3, events[2].clone());
    let mut rewrite = events[2].clone();
    rewrite["artifactUpdate"]["artifact"]["parts"][0]["text"] = json!("other bytes");
    events.push(rewrite);
    // The same task moves back to SUBMITTED (illegal), then completes.
    let task = events[0]["task"]["id"].clone();
    events.push(json!({"statusUpdate":{"taskId":task,"contextId":"c","status":{"state":"TASK_STATE_SUBMITTED"}}}));
    events.push(json!({"statusUpdate":{"taskId":task,"contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}));
    let (out, _, code) = cli(
        &["check", "--json", "raw.json"],
        Some(&serde_json::to_vec(&events).unwrap()),
    );
    assert_eq!(code, 1);
    let codes: Vec<String> = findings(&out).into_iter().map(|(c, _)| c).collect();
    assert_eq!(
        codes,
        ["duplicate", "conflicting-coordinate", "illegal-transition"]
    );
}

#[test]
fn check_judges_an_event_without_its_fields_as_wire_shape_and_refuses_what_is_no_event() {
    // Every field a status update requires absent, or a `kind` that names
    // no event: the schema's findings (exit 1), the capture read on.
    for event in [r#"{"kind":"status-update"}"#, r#"{"kind":"weather"}"#] {
        let input = format!("[{event}]");
        let (out, _, code) = cli(&["check", "raw.json"], Some(input.as_bytes()));
        assert_eq!(code, 1, "{event}: {out}");
        assert!(out.contains("wire-shape #0"), "{event}: {out}");
    }
    // An object that is no event of either wire: nothing to judge.
    let (_, err, code) = cli(&["check", "raw.json"], Some(br#"[{"hello":1}]"#));
    assert_eq!(code, 2);
    assert!(err.contains("event 0"), "{err}");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (_, err, code) = cli(&["check", "raw.json"], Some(deep.as_bytes()));
    assert_eq!(code, 2);
    assert!(err.contains("nested"), "{err}");
}

#[test]
fn check_names_the_file_then_where_in_it_a_capture_or_webhook_log_went_wrong() {
    let (_, err, code) = cli(
        &["check", "stream.jsonl"],
        Some(b"{\"kind\":\"task\",\"id\":\"t\",\"status\":{\"state\":\"working\"}}\nnope\n"),
    );
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "a2a-lab: check: stream.jsonl: line 2 is neither JSON nor an SSE field: not a capture this lab reads\n"
    );
    let (_, err, code) = cli(&["check", "--webhook", "log.jsonl"], Some(b"\xff{}"));
    assert_eq!(code, 2);
    assert_eq!(err, "a2a-lab: check: log.jsonl: not UTF-8 text (byte 0)\n");
}

#[test]
fn the_binary_never_panics_and_uses_exit_codes() {
    let out = binary(["trace", "chunks=2"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"format\""));
    for args in [
        &["trace", "chunks=x"][..],
        &["reduce", "/nonexistent.json"],
        &["check"],
        &["frobnicate"],
        &[],
    ] {
        let out = binary(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    assert_eq!(binary(["--version"]).status.code(), Some(0));
}

#[test]
fn check_on_input_with_no_a2a_event_is_exit_2_naming_each_file() {
    let dir = Scratch::new("empty");
    let write = |name: &str, bytes: &[u8]| dir.write(name, bytes).to_string_lossy().into_owned();
    let empties = [
        write("empty.sse", b""),
        write("blanks.jsonl", b"\n\n   \r\n\n"),
        write("pings.sse", b": ping\n\n: ping\n\n"),
        write("no-event.json", b"[]"),
    ];
    let check = |args: &[&str]| {
        let out = binary(["check"].iter().chain(args));
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for path in &empties {
        for json in [false, true] {
            let args: Vec<&str> = if json {
                vec!["--json", path]
            } else {
                vec![path]
            };
            let (code, stdout, stderr) = check(&args);
            assert_eq!(code, Some(2), "{path}: {stdout}{stderr}");
            assert_eq!(stdout, "", "{path}");
            assert_eq!(stderr, format!("a2a-lab: check: no A2A events in {path}\n"));
        }
    }
    // Several files: each one without an event is named; a file with
    // events beside them does not hide them.
    let good = write(
        "stream.json",
        &serde_json::to_vec(&wire_events("")).unwrap(),
    );
    let (code, _, stderr) = check(&[&good, &empties[0], &empties[2]]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        format!(
            "a2a-lab: check: no A2A events in {}, {}\n",
            empties[0], empties[2]
        )
    );
    // Events with some lines that are not events still read as before.
    let mixed = write(
        "mixed.sse",
        format!(": ping\n\n{}", model_support::sse("")).as_bytes(),
    );
    let (code, stdout, stderr) = check(&[&mixed]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
}

#[test]
fn help_on_every_command_prints_its_usage_and_exits_0() {
    for command in ["trace", "reduce", "check", "probe"] {
        for asked in [
            vec![command, "--help"],
            vec![command, "-h"],
            vec!["help", command],
        ] {
            let out = binary(&asked);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{asked:?}");
            assert!(
                stdout.contains(&format!("Usage: a2a-lab {command}")),
                "{asked:?}: {stdout}"
            );
            assert!(stdout.contains("Exit codes"), "{asked:?}");
        }
    }
    let probe = binary(["probe", "--help"]);
    let text = String::from_utf8_lossy(&probe.stdout);
    for flag in [
        "--card",
        "--binding",
        "--header",
        "--webhook",
        "--tasks",
        "--format",
    ] {
        assert!(text.contains(flag), "{flag}: {text}");
    }
    let unknown = binary(["help", "frobnicate"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn version_completions_and_the_reference_come_from_the_same_definitions() {
    for version in ["--version", "-V"] {
        let out = binary([version]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("a2a-lab {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
    for (shell, says) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef a2a-lab"),
        ("fish", "complete -c a2a-lab"),
    ] {
        let out = binary(["completions", shell]);
        let script = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(script.contains(says), "{shell}: {script}");
        assert!(
            script.contains("webhook-url"),
            "{shell}: every flag is completed"
        );
    }
    assert_eq!(binary(["completions", "tcsh"]).status.code(), Some(2));
    // docs/cli.md is the reference as the definitions make it.
    let made = String::from_utf8(binary(["reference"]).stdout).unwrap();
    let kept = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"),
    )
    .unwrap_or_default();
    assert!(
        kept == made,
        "docs/cli.md is not the reference: cargo run --bin a2a-lab -- reference > docs/cli.md"
    );
    for flag in [
        "--card",
        "--binding",
        "--timeout-ms",
        "--webhook",
        "--json",
        "--format",
        "--wire",
    ] {
        assert!(made.contains(&format!("`{flag}")), "{flag}");
    }
}

/// Issue 33: a task with a finding is explained by the lab's scenario, in
/// text and in `--json`.
#[test]
fn check_shows_the_scenario_of_each_task_with_a_finding() {
    let late = std::fs::read("tests/fixtures/captures/doctor/after-terminal.jsonl").unwrap();
    let (out, _, code) = cli(&["check", "--json", "c.jsonl"], Some(&late));
    assert_eq!(code, 1);
    let json: Value = serde_json::from_str(&out).unwrap();
    let scenario = &json["tasks"][0]["scenario"];
    assert_eq!(scenario["query"], "chunks=7&late=0&wire=0.3");
    assert_eq!(scenario["reproduces"], true);
    assert!(scenario["first_difference"].is_null());
    let (text, _, _) = cli(&["check", "c.jsonl"], Some(&late));
    assert!(
        text.contains("  scenario: ?chunks=7&late=0&wire=0.3 (reproduces it)"),
        "{text}"
    );
    // A clean capture has no finding to explain.
    let clean = std::fs::read("tests/fixtures/captures/doctor/clean.jsonl").unwrap();
    let (clean, _, code) = cli(&["check", "--json", "c.jsonl"], Some(&clean));
    assert_eq!(code, 0);
    assert!(!clean.contains("\"scenario\""), "{clean}");
}

/// `check --webhook`: a task of the log with a finding is explained by the
/// scenario read off its POSTs (issue 33), in text and in `--json`.
#[test]
fn check_shows_the_scenario_of_a_webhook_log_task_with_a_finding() {
    // a2a-sdk's POSTs of a late artifact, as a webhook logs them.
    let path = "tests/fidelity/fixtures/python/push/push-inline_late-0.json";
    let fixture: Recording = read_recorded(std::path::Path::new(path));
    let log: String = fixture.runs[0]
        .posts
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| json!({"headers": p.headers, "body": p.body}).to_string() + "\n")
        .collect();
    let (text, _, code) = cli(&["check", "--webhook", "log.jsonl"], Some(log.as_bytes()));
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("pushed-after-terminal"), "{text}");
    assert!(
        text.contains("    scenario: ?late=0&push=inline (reproduces it)"),
        "{text}"
    );
    let (out, _, _) = cli(
        &["check", "--json", "--webhook", "log.jsonl"],
        Some(log.as_bytes()),
    );
    let json: Value = serde_json::from_str(&out).unwrap();
    let tasks = json["pushes"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(tasks[0]["scenario"]["query"], "late=0&push=inline", "{out}");
    assert_eq!(tasks[0]["scenario"]["reproduces"], true);
}

/// `serve` in a binary built without the page says how to get the page
/// (the page is embedded only with the `page` feature, after trunk built
/// it; tests/e2e/serve.test.mjs serves it from such a binary).
#[cfg(not(feature = "page"))]
#[test]
fn serve_without_the_page_says_how_to_get_it() {
    let (out, err, code) = cli(&["serve", "--port", "0"], None);
    assert_eq!((out.as_str(), code), ("", 2));
    assert!(
        err.contains("--features page") && err.contains("scripts/serve.sh"),
        "{err}"
    );
}

/// Files that count every byte their readers hand out, and refuse to be
/// opened more than `opens` times (a pipe, or a file gone since).
struct CountedFiles {
    bytes: Vec<u8>,
    opens: usize,
    read: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl CountedFiles {
    fn new(bytes: Vec<u8>, opens: usize) -> CountedFiles {
        CountedFiles {
            bytes,
            opens,
            read: Default::default(),
        }
    }

    fn bytes_read(&self) -> usize {
        self.read.load(std::sync::atomic::Ordering::Relaxed)
    }
}

struct CountingReader {
    inner: std::io::Cursor<Vec<u8>>,
    read: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl std::io::Read for CountingReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

impl a2a_lab::cli::Files for CountedFiles {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        let mut all = Vec::new();
        std::io::Read::read_to_end(&mut self.open(path)?, &mut all).map_err(|e| e.to_string())?;
        Ok(all)
    }

    fn open(&mut self, path: &str) -> Result<Box<dyn std::io::Read>, String> {
        if self.opens == 0 {
            return Err(format!("{path}: gone"));
        }
        self.opens -= 1;
        Ok(Box::new(CountingReader {
            inner: std::io::Cursor::new(self.bytes.clone()),
            read: self.read.clone(),
        }))
    }
}

/// A capture `check` can hold whole is read once: its tasks with a
/// finding are explained from what the first reading kept, with no
/// second pass over the file (beyond the head read to tell an export).
#[test]
fn check_reads_a_capture_it_can_hold_once() {
    let late = std::fs::read("tests/fixtures/captures/doctor/after-terminal.jsonl").unwrap();
    let mut files = CountedFiles::new(late.clone(), 2);
    let mut stdout = Vec::new();
    let args: Vec<String> = ["check", "--json", "c.jsonl"].map(String::from).to_vec();
    let out = a2a_lab::cli::run(&args, &mut files, &mut stdout);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let json: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(
        json["tasks"][0]["scenario"]["query"],
        "chunks=7&late=0&wire=0.3"
    );
    assert!(
        files.bytes_read() <= 2 * late.len(),
        "read {} bytes of a {}-byte file",
        files.bytes_read(),
        late.len()
    );
}

/// A capture too long to hold is read again to explain its tasks; when it
/// cannot be (a pipe, a file gone since), `check` says the explanations
/// are missing and why, and still reports every finding.
#[test]
fn check_says_so_when_it_cannot_read_a_capture_again() {
    let late =
        std::fs::read_to_string("tests/fixtures/captures/doctor/after-terminal.jsonl").unwrap();
    let copies = a2a_lab::model::evidence::capture::CHECK_KEEPS_AT_MOST / 11 + 1;
    let mut many = String::new();
    for i in 0..copies {
        many.push_str(&late.replace("99787fcaad22be7b", &format!("task-{i}")));
    }
    let mut files = CountedFiles::new(many.into_bytes(), 2);
    let mut stdout = Vec::new();
    let args: Vec<String> = ["check", "--json", "c.jsonl"].map(String::from).to_vec();
    let out = a2a_lab::cli::run(&args, &mut files, &mut stdout);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let json: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(json["tasks"].as_array().unwrap().len(), copies);
    assert!(json["tasks"][0]["scenario"].is_null());
    assert!(
        out.stderr.contains("not explained") && out.stderr.contains("c.jsonl: gone"),
        "{}",
        out.stderr
    );
}
