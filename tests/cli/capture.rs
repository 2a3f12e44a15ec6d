//! The reader of real traffic (SPEC §8): A2A 1.0 and 0.3, many tasks in one
//! file, a dropped stream followed by its SubscribeToTask stream, JSON-RPC
//! errors, SSE, JSON Lines and arrays, several files as one capture.
#![cfg(not(target_arch = "wasm32"))]

use crate::cli_support;
use crate::model_support;

use std::collections::HashMap;

use a2a_lab::cli::run;
use a2a_lab::model::evidence::capture::{CaptureReport, Wire};
use a2a_lab::model::state::TaskState;
use cli_support::{binary, MemoryFiles, Scratch};
use model_support::read_capture;
use model_support::{capture_report, jsonl, wire_rows};
use serde_json::{json, Value};

/// The wire events a streaming client of the simulated agent received: not
/// the answers of calls that return.
fn stream(query: &str) -> Vec<Value> {
    wire_rows(query)
        .into_iter()
        .filter(|r| r["event"].as_str().is_some_and(|e| !e.contains("returns")))
        .map(|mut r| r["wire"].take())
        .collect()
}

/// The same events for another task id.
fn retask(events: &[Value], id: &str) -> Vec<Value> {
    let text = serde_json::to_string(events)
        .unwrap()
        .replace("task-bbs-1042", id);
    serde_json::from_str(&text).unwrap()
}

/// An A2A 1.0 event as the SDKs' 0.3 compatibility mode writes it: flat,
/// tagged `kind`, kebab-case states, `final` on status updates, `kind` on
/// parts.
fn to_0_3(event: &Value) -> Value {
    let state = |inner: &Value| {
        let s = inner["status"]["state"].as_str().unwrap();
        TaskState::from_wire(s).unwrap().kebab().to_string()
    };
    let (key, inner) = event.as_object().unwrap().iter().next().unwrap();
    let mut out = inner.clone();
    let map = out.as_object_mut().unwrap();
    match key.as_str() {
        "task" => {
            map.insert("kind".into(), json!("task"));
            map.insert("status".into(), json!({"state": state(inner)}));
            for message in map
                .get_mut("history")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                message["kind"] = json!("message");
                message["role"] = json!("user");
                for part in message["parts"].as_array_mut().unwrap() {
                    part["kind"] = json!("text");
                }
            }
        }
        "statusUpdate" => {
            map.insert("kind".into(), json!("status-update"));
            let s = state(inner);
            let last = TaskState::from_kebab(&s).unwrap();
            map.insert(
                "final".into(),
                json!(last.is_terminal() || last.is_interrupted()),
            );
            map.insert("status".into(), json!({"state": s}));
        }
        "artifactUpdate" => {
            map.insert("kind".into(), json!("artifact-update"));
            for part in map["artifact"]["parts"].as_array_mut().unwrap() {
                part["kind"] = json!("text");
            }
        }
        _ => {}
    }
    out
}

fn sse(events: &[Value]) -> Vec<u8> {
    sse_as(events, 1)
}

/// SSE as the answer to JSON-RPC request `id`.
fn sse_as(events: &[Value], id: u32) -> Vec<u8> {
    let mut out = String::from(": ping\r\n\r\n");
    for e in events {
        let response = json!({"jsonrpc": "2.0", "id": id, "result": e});
        out.push_str(&format!("event: message\r\ndata: {response}\r\n\r\n"));
    }
    out.into_bytes()
}

fn codes(report: &CaptureReport) -> Vec<(String, &str)> {
    report
        .findings
        .iter()
        .map(|f| (f.task.clone(), f.code.code()))
        .collect()
}

#[test]
fn an_a2a_0_3_stream_is_read_and_judged_like_its_1_0_twin() {
    let events: Vec<Value> = stream("").iter().map(to_0_3).collect();
    let report = capture_report(&[sse(&events)]);
    assert_eq!(report.wire.name(), "0.3");
    assert_eq!(report.tasks.len(), 1);
    assert_eq!(report.tasks[0].final_state, "completed");
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let late: Vec<Value> = stream("late=0").iter().map(to_0_3).collect();
    let report = capture_report(&[jsonl(&late, json!("1"))]);
    assert_eq!(codes(&report), [("task-bbs-1042".into(), "after-terminal")]);
}

#[test]
fn two_tasks_in_one_file_are_judged_each_by_its_own_ledger_in_either_order() {
    let a = stream("");
    let b = retask(&stream("cancel=1"), "task-other");
    for (first, second) in [(&a, &b), (&b, &a)] {
        let concatenated: Vec<Value> = first.iter().chain(second.iter()).cloned().collect();
        let report = capture_report(&[jsonl(&concatenated, json!("1"))]);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
        assert_eq!(report.tasks.len(), 2);
    }
    // Interleaved, one event of each in turn.
    let mut interleaved = Vec::new();
    for i in 0..a.len().max(b.len()) {
        interleaved.extend(a.get(i).cloned());
        interleaved.extend(b.get(i).cloned());
    }
    let report = capture_report(&[sse(&interleaved)]);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let states: HashMap<String, String> = report
        .tasks
        .iter()
        .map(|t| (t.id.clone(), t.final_state.to_string()))
        .collect();
    assert_eq!(states["task-bbs-1042"], "TASK_STATE_COMPLETED");
    assert_eq!(states["task-other"], "TASK_STATE_CANCELED");
}

#[test]
fn a_dropped_stream_and_its_resubscription_are_one_clean_session() {
    let events = stream("");
    // The client's stream drops after the first chunk, while WORKING.
    let dropped = events[..3].to_vec();
    let alone = capture_report(&[sse(&dropped)]);
    assert_eq!(
        codes(&alone),
        [("task-bbs-1042".into(), "missing-terminal")]
    );
    // SubscribeToTask: the task as it is now (holding chunk 1), then the rest.
    let mut snapshot = events[0].clone();
    snapshot["task"]["status"] = json!({"state": "TASK_STATE_WORKING"});
    snapshot["task"]["artifacts"] = json!([{
        "artifactId": "BBS-1042-tracking",
        "name": "courier-tracking",
        "parts": events[2]["artifactUpdate"]["artifact"]["parts"].clone(),
    }]);
    let mut resubscribed = vec![snapshot];
    resubscribed.extend(events[3..].iter().cloned());
    let report = capture_report(&[sse(&dropped), sse(&resubscribed)]);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(report.tasks[0].final_state, "TASK_STATE_COMPLETED");
    // A part delivered again as an artifact event is a duplicate, though
    // it answers another request.
    let mut again = resubscribed.clone();
    again.insert(1, events[2].clone());
    let report = capture_report(&[sse(&dropped), sse_as(&again, 2)]);
    assert_eq!(codes(&report), [("task-bbs-1042".into(), "duplicate")]);
}

#[test]
fn an_append_with_no_start_is_an_artifact_gap() {
    let events = stream("");
    let without_first_chunk: Vec<Value> = events
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 2)
        .map(|(_, e)| e.clone())
        .collect();
    let report = capture_report(&[jsonl(&without_first_chunk, json!("1"))]);
    assert_eq!(codes(&report), [("task-bbs-1042".into(), "artifact-gap")]);
}

#[test]
fn json_rpc_errors_are_listed_not_findings() {
    let mut lines = String::from_utf8(jsonl(&stream(""), json!("1"))).unwrap();
    lines.push_str(
        r#"{"jsonrpc":"2.0","id":"2","error":{"code":-32002,"message":"Task cannot be canceled"}}"#,
    );
    lines.push('\n');
    let report = capture_report(&[lines.into_bytes()]);
    assert!(report.findings.is_empty());
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.errors[0].code, -32002);
    assert_eq!(report.errors[0].index, stream("").len());
}

#[test]
fn the_wire_can_be_forced_and_a_wrong_one_is_bad_input() {
    let events: Vec<Value> = stream("").iter().map(to_0_3).collect();
    let bytes = jsonl(&events, json!("1"));
    assert!(read_capture(&[&bytes], Some(Wire::V0_3)).is_ok());
    let err = read_capture(&[&bytes], Some(Wire::V1_0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("event 0"), "{err}");
}

#[test]
fn check_reads_several_files_as_one_capture_and_prints_spec_json() {
    let events = stream("");
    let mut files =
        MemoryFiles::named(&[("a.sse", sse(&events[..3])), ("b.sse", sse(&events[3..]))]);
    let mut out = Vec::new();
    let args: Vec<String> = ["check", "--json", "a.sse", "b.sse"]
        .map(String::from)
        .to_vec();
    let result = run(&args, &mut files, &mut out);
    assert_eq!(result.code, 0, "{}", result.stderr);
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["wire"], "1.0");
    assert_eq!(v["tasks"][0]["id"], "task-bbs-1042");
    assert_eq!(v["tasks"][0]["events"], events.len());
    assert_eq!(v["tasks"][0]["final_state"], "TASK_STATE_COMPLETED");
    assert_eq!(v["findings"], json!([]));
    assert_eq!(v["errors"], json!([]));
    // The first file alone ends WORKING.
    let mut out = Vec::new();
    let args: Vec<String> = ["check", "a.sse"].map(String::from).to_vec();
    let result = run(&args, &mut files, &mut out);
    assert_eq!(result.code, 1);
    assert!(String::from_utf8(out).unwrap().contains("missing-terminal"));
    let args: Vec<String> = ["check", "--wire", "2.0", "a.sse"]
        .map(String::from)
        .to_vec();
    assert_eq!(run(&args, &mut files, &mut Vec::new()).code, 2);
}

#[test]
fn the_binary_reads_a_capture_larger_than_the_page_limit_a_line_at_a_time() {
    // 51 MiB of JSON Lines: over the 50 MiB the page reads, fine for the CLI.
    let dir = Scratch::new("capture");
    let events = stream("");
    let mut text = String::new();
    let mut n = 0;
    while text.len() < 51 << 20 {
        text.push_str(
            &String::from_utf8(jsonl(&retask(&events, &format!("t-{n}")), json!("1"))).unwrap(),
        );
        n += 1;
    }
    let path = dir.write("big.jsonl", text.as_bytes());
    let out = binary(["check", "--json", path.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tasks"].as_array().unwrap().len(), n);
}

#[test]
fn a_chunk_resent_after_the_end_is_after_terminal_and_nothing_else() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/captures/doctor/after-terminal-resent-chunk.jsonl"
    );
    let report = capture_report(&[std::fs::read(path).unwrap()]);
    let found: Vec<&str> = report.findings.iter().map(|f| f.code.code()).collect();
    assert_eq!(found, ["after-terminal"]);
    assert!(
        report.findings[0].message.contains("artifact update of"),
        "{}",
        report.findings[0].message
    );
}

/// `check` reads a capture again to explain its tasks with a finding,
/// each kept only until its last event: past the page's limit of events
/// too, and with what the page's explaining finds for the same tasks.
#[test]
fn check_explains_every_task_with_a_finding_past_the_pages_limit() {
    use a2a_lab::model::evidence::capture::explaining::Explaining;
    use a2a_lab::model::evidence::capture::{CaptureReader, EXPLAIN_AT_MOST};
    let late = stream("late=0");
    let clean = stream("");
    // Tasks of a late artifact, clean ones between them, and one whose
    // events interleave with the next's (two streams open at once).
    let tasks = EXPLAIN_AT_MOST / clean.len().min(late.len()) + 2;
    let mut file = Vec::new();
    for n in 0..tasks {
        let events = if n % 3 == 2 { &clean } else { &late };
        file.extend(jsonl(&retask(events, &format!("task-{n}")), json!(n)));
    }
    let (a, b) = (
        retask(&late, "task-a"),
        retask(&stream("ending=fail"), "task-b"),
    );
    for (x, y) in a.iter().zip(&b) {
        file.extend(jsonl(std::slice::from_ref(x), json!("a")));
        file.extend(jsonl(std::slice::from_ref(y), json!("b")));
    }
    let mut first = CaptureReader::new(None);
    first.read_bytes(&file).unwrap();
    let mut report = first.finish();
    assert!(report.read > EXPLAIN_AT_MOST, "{} events", report.read);
    let mut again = CaptureReader::explaining(None, &report);
    again.read_bytes(&file).unwrap();
    let explained = again.explained();
    let with_findings: Vec<usize> = (0..report.tasks.len())
        .filter(|&i| report.tasks[i].findings > 0)
        .collect();
    let mut got: Vec<usize> = explained.iter().map(|(i, _)| *i).collect();
    got.sort_unstable();
    assert_eq!(got, with_findings);
    assert!(
        explained
            .iter()
            .all(|(_, s)| s.query == "late=0" && s.reproduces),
        "{:?}",
        explained.iter().find(|(_, s)| s.query != "late=0")
    );
    for (i, found) in explained {
        report.tasks[i].scenario = Some(Box::new(found));
    }
    let text = report.to_text();
    assert!(
        text.contains("scenario: ?late=0 (reproduces it)"),
        "{}",
        &text[..2000]
    );
    // The page's explaining of the same tasks (a capture it keeps whole).
    let small = {
        let mut f = jsonl(&retask(&late, "task-x"), json!(1));
        f.extend(jsonl(&retask(&stream("ending=return"), "task-y"), json!(2)));
        f
    };
    let mut kept = CaptureReader::new(None).keeping_events();
    kept.read_bytes(&small).unwrap();
    let mut page = kept.finish();
    let mut explaining = Explaining::of(&mut page);
    let mut judged = CaptureReader::new(None);
    judged.read_bytes(&small).unwrap();
    let judged = judged.finish();
    let mut again = CaptureReader::explaining(None, &judged);
    again.read_bytes(&small).unwrap();
    let read_again = again.explained();
    assert_eq!(read_again.len(), 2);
    for (i, found) in read_again {
        // `check` keeps no page words (the events as compared) of a task.
        let mut on_the_page = explaining.explain(i, &page).unwrap();
        assert!(!on_the_page.events.is_empty());
        on_the_page.events.clear();
        assert_eq!(found, on_the_page, "task {i}");
    }
}

/// An SSE body's `\r\n` line ends are a2a-sdk's (sse-starlette's; every
/// recorded stream of it, none of @a2a-js/sdk's): they name it where the
/// events show nothing else; an `id:` line on every event is a2a-rs's
/// (every recorded stream of it, none of the others'); `\n` without ids,
/// what nearly everything writes, names nobody.
#[test]
fn sse_framing_names_a2a_sdk_by_crlf_and_a2a_rs_by_ids() {
    use a2a_lab::model::evidence::capture::CaptureReader;
    use a2a_lab::model::sim::keys::Sdk;
    use a2a_lab::model::sim::profile::sdk_named;
    // Bare 1.0 events without timestamps, keys in an order no SDK writes:
    // nothing else of them tells.
    let events = [
        r#"{"task":{"status":{"state":"TASK_STATE_SUBMITTED"},"id":"t","contextId":"c"}}"#,
        r#"{"statusUpdate":{"status":{"state":"TASK_STATE_COMPLETED"},"taskId":"t","contextId":"c"}}"#,
    ];
    let named = |eol: &str, ids: bool| {
        let body: String = events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let id = if ids {
                    format!("id: {}{eol}", i + 1)
                } else {
                    String::new()
                };
                format!("{id}data: {e}{eol}{eol}")
            })
            .collect();
        let mut reader = CaptureReader::new(None).keeping_events();
        reader.read_bytes(body.as_bytes()).unwrap();
        sdk_named(&reader.finish().signs[0])
    };
    assert_eq!(named("\r\n", false), Some(Sdk::Python));
    assert_eq!(named("\n", true), Some(Sdk::Rust));
    assert_eq!(named("\n", false), None);
    assert_eq!(named("\r\n", true), None, "no SDK frames both ways");
}

/// a2a-rs ends an HTTP+JSON stream whose `cancel()` raised with a bare
/// JSON-RPC error object (`data: {"code":-32603,"message":…}`,
/// a2a-server-lf 0.5.3 `src/sse.rs:34-37`), recorded by
/// `a2a-lab probe --binding rest --out` against the order-status agent
/// with `cancel-raises`: the error is listed, the task judged.
#[test]
fn a_rest_stream_ending_in_a_bare_error_object_lists_the_error() {
    let body = include_bytes!("../fidelity/captures/rust/rest_cancel-raises.sse");
    let report = read_capture(&[body.as_slice()], None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert_eq!(report.errors[0].code, -32603);
    assert_eq!(report.errors[0].message, "cancel is not supported");
    assert_eq!(report.tasks.len(), 1);
    let codes: Vec<&str> = report.findings.iter().map(|f| f.code.code()).collect();
    assert_eq!(codes, ["missing-terminal"], "{:?}", report.findings);
}

/// A stream that an error event ended is explained with that end, on the
/// page and in `check` alike: a2a-rs's stream ended by an exception's
/// -32603 reads as a raise that reproduces it (the simulation's stream
/// ends with the same error); without the error, as a return; with an
/// error no scenario ends a stream with, as the closest, saying where the
/// ends part.
#[test]
fn a_stream_ended_by_an_error_event_is_explained_with_its_end() {
    use a2a_lab::model::evidence::capture::explaining::Explaining;
    use a2a_lab::model::evidence::capture::CaptureReader;
    let body = String::from_utf8(
        include_bytes!("../fidelity/captures/rust/rest_cancel-raises.sse").to_vec(),
    )
    .unwrap();
    let explained = |body: &str| {
        let bytes = body.as_bytes();
        let mut first = CaptureReader::new(None);
        first.read_bytes(bytes).unwrap();
        let judged = first.finish();
        let mut again = CaptureReader::explaining(None, &judged);
        again.read_bytes(bytes).unwrap();
        let mut in_check = again.explained();
        assert_eq!(in_check.len(), 1, "{body}");
        let (i, in_check) = in_check.remove(0);
        let mut kept = CaptureReader::new(None).keeping_events();
        kept.read_bytes(bytes).unwrap();
        let mut page = kept.finish();
        let mut on_the_page = Explaining::of(&mut page).explain(i, &page).unwrap();
        on_the_page.events.clear();
        assert_eq!(in_check, on_the_page, "the page and check part on {body}");
        in_check.to_string()
    };
    assert_eq!(
        explained(&body),
        "scenario: ?chunks=0&ending=raise&sdk=rust (reproduces it)"
    );
    let without_error: String =
        body.split("\n\n").take(2).collect::<Vec<_>>().join("\n\n") + "\n\n";
    assert_eq!(
        explained(&without_error),
        "scenario: ?chunks=0&ending=return&sdk=rust (reproduces it)"
    );
    let other_error = body.replace("-32603", "-32099");
    assert_eq!(
        explained(&other_error),
        "scenario: ?chunks=0&ending=return&sdk=rust (closest; after event 2: the task's stream ends with JSON-RPC error -32099, the scenario's closed)"
    );
}

/// The headers an SSE answer came with name the SDK whose handler sent
/// it (recorded: tests/agents/answers/raw/*-stream.headers and the a2a-rs
/// agent's): sse-starlette's `no-store` with `X-Accel-Buffering: no`
/// (a2a-sdk), `no-cache` with it (@a2a-js/sdk), `no-cache` alone (axum's
/// Sse, a2a-rs). Headers no SDK sends (fasta2a's, a proxy's) tell
/// nothing, and leave the bytes to decide.
#[test]
fn an_sse_answers_headers_name_the_sdk_that_sent_it() {
    use a2a_lab::model::sim::keys::Sdk;
    use a2a_lab::model::sim::profile::sdk_named;
    use a2a_lab::model::wire::signs::{SseFraming, SseHeaders, WireSigns};
    let named = |headers: &[(&str, &str)], crlf: bool| {
        let mut signs = WireSigns::default();
        signs.read_headers(&SseHeaders::of(headers.iter().copied()));
        if crlf {
            signs.read_sse(SseFraming { crlf, id: false });
        }
        sdk_named(&signs)
    };
    let python = [("cache-control", "no-store"), ("x-accel-buffering", "no")];
    let js = [("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")];
    let rust = [("cache-control", "no-cache")];
    assert_eq!(named(&python, false), Some(Sdk::Python));
    assert_eq!(named(&js, false), Some(Sdk::Js));
    assert_eq!(named(&rust, false), Some(Sdk::Rust));
    assert_eq!(named(&[("server", "uvicorn")], false), None);
    // a2a-sdk's `\r\n` framing behind a proxy that rewrote the headers.
    assert_eq!(
        named(&[("cache-control", "private")], true),
        Some(Sdk::Python)
    );
    // Headers that contradict the bytes are another SDK's: the bytes win.
    assert_eq!(named(&js, true), Some(Sdk::Python));
}

/// `a2a-lab ARGS` in process over these files by name: stdout, stderr,
/// exit code.
fn check_named(args: &[&str], files: &[(&str, Vec<u8>)]) -> (String, String, u8) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut stdout = Vec::new();
    let out = run(&args, &mut MemoryFiles::named(files), &mut stdout);
    (String::from_utf8(stdout).unwrap(), out.stderr, out.code)
}

/// `check --baseline` gates a capture (a live session, a recorded stream)
/// on an earlier one: it passes while no finding is new, counted by code
/// (a new session's tasks have new ids), and names what is new.
#[test]
fn check_baseline_passes_while_no_finding_is_new() {
    let clean = jsonl(&stream(""), json!(1));
    let late = jsonl(&retask(&stream("late=0"), "task-late"), json!(1));
    let twice = [
        late.clone(),
        jsonl(&retask(&stream("late=0"), "task-late-2"), json!(2)),
    ]
    .concat();
    let files = [
        ("clean.jsonl", clean.clone()),
        ("late.jsonl", late.clone()),
        ("twice.jsonl", twice),
        ("bad.jsonl", b"not json\n".to_vec()),
    ];
    // A finding the baseline did not have: exit 1, named.
    let (out, _, code) = check_named(
        &["check", "late.jsonl", "--baseline", "clean.jsonl"],
        &files,
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("baseline: new finding after-terminal (1, the baseline had 0)"),
        "{out}"
    );
    // The same finding as the baseline, in another task: exit 0.
    let (out, _, code) = check_named(&["check", "late.jsonl", "--baseline", "late.jsonl"], &files);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("baseline: no new finding"), "{out}");
    // More of a code than the baseline had is new.
    let (out, _, code) = check_named(
        &["check", "twice.jsonl", "--baseline", "late.jsonl"],
        &files,
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("(2, the baseline had 1)"), "{out}");
    // A finding gone is said, and passes.
    let (out, _, code) = check_named(
        &["check", "clean.jsonl", "--baseline", "late.jsonl"],
        &files,
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("baseline: finding gone after-terminal"),
        "{out}"
    );
    // --json carries the difference beside the report.
    let (out, _, code) = check_named(
        &["check", "late.jsonl", "--baseline", "clean.jsonl", "--json"],
        &files,
    );
    assert_eq!(code, 1);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["baseline"]["new"][0]["code"], "after-terminal");
    assert_eq!(json["findings"][0]["code"], "after-terminal");
    // An export has no baseline: it is checked against its own inputs.
    let export = a2a_lab::model::evidence::export::export_json(&Default::default());
    let with_export = [("export.json", export.into_bytes()), ("late.jsonl", late)];
    let (_, err, code) = check_named(
        &["check", "export.json", "--baseline", "late.jsonl"],
        &with_export,
    );
    assert_eq!(code, 2);
    assert!(err.contains("--baseline gates a capture"), "{err}");
    // A baseline that does not read is bad input.
    let (_, err, code) = check_named(&["check", "late.jsonl", "--baseline", "bad.jsonl"], &files);
    assert_eq!(code, 2);
    assert!(err.contains("--baseline bad.jsonl"), "{err}");
}
