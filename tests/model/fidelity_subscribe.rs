//! The model against the subscriber recordings of the SDKs (SPEC §9):
//! every A2A 1.0 fixture in `tests/fidelity/fixtures/{python,js,rust}/subscribe/`
//! (`resubscribe=k` and `second_client=k` with the other keys) must be
//! reproduced stream by stream: which client read it and why, each event's
//! kind, state, artifact flags and parts (the parts by their step number,
//! as the recorder's texts differ from the lab's), after-terminal marks,
//! how each stream ended (with the JSON-RPC code of an error), how client 1's
//! last stream ended, GetTask, the cancel result, orphaned steps and
//! executions. Timing may differ. The fixtures with `wire-0.3` in their
//! names are the `wire` key's, not these keys'.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use a2a_lab::model::trace::{Disposition, StreamEnd, StreamRole};
use a2a_lab::model::wire::answer::{read_value, EventKind};
use model_support::fidelity::{
    combinations, fixture_dir, listed, model_query, Aspect, Fixture, Settled,
};
use model_support::recorded::RecordedRun;
use model_support::run;
use model_support::wire_json;
use serde_json::Value;

/// Fixtures the model does not reproduce yet, by SDK folder and scenario.
/// The test fails when another one differs, and when one of these starts
/// to match (then it leaves this list).
const NOT_YET_REPRODUCED: &[(&str, &str)] = &[];

/// Measured combinations whose runs differ from one another (SPEC §14:
/// said, not picked): a2a-sdk's snapshot after a drop between two progress
/// updates held chunk 1 in one run of three; a2a-rs's second client
/// subscribed to the first task or to the resent one as the retry raced
/// it.
const UNSTABLE: &[(&str, &str)] = &[
    ("python", "progress=2&resubscribe=3"),
    ("rust", "retry=on&second_client=2"),
];

/// One stream as compared.
#[derive(Debug, PartialEq)]
struct StreamView {
    client: u64,
    role: String,
    events: Vec<String>,
    end: String,
}

/// Everything compared for one scenario.
#[derive(Debug, PartialEq)]
struct Outcome {
    /// Client 1's streams in the order it opened them, then the second
    /// client's: two calls opened at the same event (a retry and the
    /// second client's subscription) race in the recorder, not in the SDK.
    streams: Vec<StreamView>,
    settled: Settled,
}

fn by_client(mut streams: Vec<StreamView>) -> Vec<StreamView> {
    streams.sort_by_key(|s| s.client);
    streams
}

/// The recorder lists each resume of client 1 as a stream of its own; the
/// model's record of client 1's message stream goes on through its
/// resumes. A resume's events join that stream, and its end is the end;
/// unless an error ended that stream (@a2a-js/sdk's first stream, kept
/// open at AUTH_REQUIRED): then the resume is a message stream of its own,
/// as in the model.
fn resumes_joined(streams: Vec<StreamView>) -> Vec<StreamView> {
    let mut out: Vec<StreamView> = Vec::new();
    for mut s in streams {
        let message = out
            .iter_mut()
            .rev()
            .find(|m| m.client == 1 && matches!(m.role.as_str(), "send" | "retry"));
        match (s.role.as_str(), message) {
            ("resume", Some(m)) if !m.end.starts_with("error") => {
                m.events.extend(s.events);
                m.end = s.end;
            }
            ("resume", _) => {
                s.role = "send".into();
                out.push(s);
            }
            _ => out.push(s),
        }
    }
    out
}

/// A part by what it is: the courier step `i/n`, or the receipt.
fn part(text: &str) -> String {
    if let Some(rest) = text.split("courier step ").nth(1) {
        return rest.split(':').next().unwrap_or(rest).to_string();
    }
    if text.contains("receipt") {
        return "receipt".into();
    }
    text.to_string()
}

/// An event as one comparable line:
/// `artifactUpdate BBS-1042-tracking append last [2/3]`, `task TASK_STATE_WORKING [1/3]`.
fn line(
    kind: &str,
    state: Option<&str>,
    artifact: Option<&str>,
    append: bool,
    last: bool,
    after_terminal: bool,
    parts: &[String],
) -> String {
    let mut out = kind.to_string();
    for word in [state, artifact].into_iter().flatten() {
        out.push(' ');
        out.push_str(word);
    }
    if append {
        out.push_str(" append");
    }
    if last {
        out.push_str(" last");
    }
    if after_terminal {
        out.push_str(" after-terminal");
    }
    if kind != "statusUpdate" {
        out.push_str(&format!(" [{}]", parts.join(", ")));
    }
    out
}

fn texts(parts: &Value) -> Vec<String> {
    parts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
        .map(part)
        .collect()
}

impl Aspect for Outcome {
    fn recorded(run: &RecordedRun, _scenario: &str) -> Outcome {
        let streams = run
            .streams
            .as_ref()
            .expect("a subscribe fixture lists its streams")
            .iter()
            .map(|s| {
                let events = s
                    .events
                    .iter()
                    .map(|e| {
                        let parts: Vec<String> =
                            e.parts.iter().flatten().map(|t| part(t)).collect();
                        line(
                            &e.kind,
                            e.state.as_deref(),
                            e.artifact_id.as_deref(),
                            e.append,
                            e.last_chunk,
                            e.after_terminal,
                            &parts,
                        )
                    })
                    .collect();
                let end = match &s.rpc_error {
                    Some(error) => format!("{} {}", s.end, error.code),
                    None => s.end.clone(),
                };
                StreamView {
                    client: s.client,
                    role: s.role.name().to_string(),
                    events,
                    end,
                }
            })
            .collect();
        Outcome {
            streams: by_client(resumes_joined(streams)),
            settled: Settled::of_recorded(run),
        }
    }
    fn modelled(query: &str) -> Outcome {
        let run = &run(query);
        let streams = run
            .streams
            .iter()
            .map(|s| {
                let events = s
                    .rows
                    .iter()
                    .map(|&i| {
                        let row = &run.trace.rows[i];
                        let wire = wire_json(row).expect("a stream's row carries its wire");
                        model_line(&wire, row.disposition == Disposition::AfterTerminal)
                    })
                    .collect();
                let end = match s.end {
                    StreamEnd::Error(code) => format!("error {code}"),
                    end => end.label().to_string(),
                };
                let role = match s.role {
                    StreamRole::Send => "send",
                    StreamRole::Retry => "retry",
                    StreamRole::Resubscribe => "resubscribe",
                    StreamRole::SecondClient => "second_client",
                };
                StreamView {
                    client: u64::from(s.client),
                    role: role.into(),
                    events,
                    end,
                }
            })
            .collect();
        Outcome {
            streams: by_client(streams),
            settled: Settled::of_model(run),
        }
    }
}

/// A wire event of the model as a comparable line, read by the model's
/// one reader of the wire.
fn model_line(wire: &Value, after_terminal: bool) -> String {
    let event = read_value(wire, None).unwrap();
    let state = event
        .state
        .as_ref()
        .and_then(|s| s.known())
        .map(|s| s.wire());
    let update = (event.kind == EventKind::Artifact).then(|| &event.artifacts[0]);
    let parts: Vec<String> = event
        .artifacts
        .iter()
        .flat_map(|a| texts(&Value::Array(a.parts.clone())))
        .collect();
    line(
        event.kind.wrapper(),
        state,
        update.map(|a| a.artifact_id.as_str()),
        update.is_some_and(|a| a.append),
        update.is_some_and(|a| a.last),
        after_terminal,
        &parts,
    )
}

/// Where two outcomes part, in words.
fn differences(sdk: &Outcome, model: &Outcome) -> Vec<String> {
    let mut out = Vec::new();
    let n = sdk.streams.len().max(model.streams.len());
    for i in 0..n {
        match (sdk.streams.get(i), model.streams.get(i)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) => out.push(format!(
                "stream {i}: sdk   client {} {}: {:?} -> {}\n              model client {} {}: {:?} -> {}",
                a.client, a.role, a.events, a.end, b.client, b.role, b.events, b.end
            )),
            (Some(a), None) => out.push(format!(
                "stream {i}: the model has none; sdk client {} {}: {:?} -> {}",
                a.client, a.role, a.events, a.end
            )),
            (None, Some(b)) => out.push(format!(
                "stream {i}: the sdk has none; model client {} {}: {:?} -> {}",
                b.client, b.role, b.events, b.end
            )),
            (None, None) => {}
        }
    }
    let (sdk, model) = (&sdk.settled, &model.settled);
    let mut field = |name: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{name}: sdk {a}, model {b}"));
        }
    };
    field(
        "stream",
        format!("{:?}", sdk.stream),
        format!("{:?}", model.stream),
    );
    field("GetTask", sdk.get_task.clone(), model.get_task.clone());
    field(
        "cancel",
        format!("{:?}", sdk.cancel_result),
        format!("{:?}", model.cancel_result),
    );
    field(
        "orphaned steps",
        sdk.orphaned_steps.to_string(),
        model.orphaned_steps.to_string(),
    );
    field(
        "executions",
        sdk.executions.to_string(),
        model.executions.to_string(),
    );
    out
}

/// Compares every 1.0 subscribe fixture of one SDK with the model; returns
/// how many were compared.
fn check_profile(folder: &str) -> usize {
    check_fixtures(folder, listed(&fixture_dir(folder).join("subscribe")))
}

/// Compares the given 1.0 fixtures of one SDK with the model; returns how
/// many were compared.
fn check_fixtures(folder: &str, fixtures: Vec<(String, Fixture)>) -> usize {
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut reproduced_but_listed = Vec::new();
    for (query, fixture) in fixtures {
        let query = query.as_str();
        if query.split('&').any(|p| p == "wire=0.3") {
            continue;
        }
        if !fixture.measurable() || UNSTABLE.contains(&(folder, query)) {
            continue;
        }
        let model = Outcome::modelled(&model_query(query, folder, Some(fixture.step_ms())));
        let runs = &fixture.recording.runs;
        let sdk = Outcome::recorded(&runs[0], query);
        for (i, run) in runs.iter().enumerate().skip(1) {
            assert_eq!(
                Outcome::recorded(run, query),
                sdk,
                "{folder} {query}: run {i} differs from run 0 in a stable fixture"
            );
        }
        let listed = NOT_YET_REPRODUCED.contains(&(folder, query));
        let diff = differences(&sdk, &model);
        match (diff.is_empty(), listed) {
            (true, true) => reproduced_but_listed.push(query.to_string()),
            (false, false) => failures.push(format!("{folder} {query}:\n  {}", diff.join("\n  "))),
            _ => {}
        }
        compared += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} {folder} subscribe fixtures differ from the model:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        reproduced_but_listed.is_empty(),
        "now reproduced, take them out of NOT_YET_REPRODUCED: {folder} {reproduced_but_listed:?}"
    );
    compared
}

#[test]
fn model_reproduces_every_python_sdk_subscribe_fixture() {
    let compared = check_profile("python");
    assert_eq!(compared, 38, "the 1.0 subscribe fixtures of a2a-sdk");
}

#[test]
fn model_reproduces_every_js_sdk_subscribe_fixture() {
    let compared = check_profile("js");
    assert_eq!(compared, 38, "the 1.0 subscribe fixtures of @a2a-js/sdk");
}

#[test]
fn model_reproduces_every_rust_sdk_subscribe_fixture() {
    let compared = check_profile("rust");
    assert_eq!(compared, 36, "the 1.0 subscribe fixtures of a2a-rs");
}

#[test]
fn model_reproduces_the_measured_combinations_of_both_sdks() {
    // The progress and result combinations (6 and 7), a retried message
    // under a subscription (3 each), and subscriptions across the
    // follow-up turns of an interrupted task (8 each).
    for (folder, expected) in [("python", 17), ("js", 18), ("rust", 17)] {
        let fixtures = combinations(&fixture_dir(folder).join("subscribe"));
        let compared = check_fixtures(folder, fixtures);
        assert_eq!(compared, expected, "{folder}: SPEC §14's combinations");
    }
}
