//! The model against the real SDKs: every committed fixture recorded from
//! a2a-sdk 1.3.0 (`tests/fidelity/python/`), @a2a-js/sdk 1.3.0
//! (`tests/fidelity/js/`) and a2a-rs (`tests/fidelity/rust/`) must be
//! reproduced in order and count under its profile (timing may differ).

use crate::model_support;

use a2a_lab::model::trace::RowKind;
use a2a_lab::model::wire::answer::read_value;
use model_support::fidelity::{
    every, fixture_dir, model_query, runs_against, spelled, Aspect, Settled,
};
use model_support::recorded::RecordedRun;
use model_support::run;
use model_support::wire_json;

/// What is compared: event kinds/states/after-terminal in order, how the
/// call ended, artifact counts, and how the run settled (the stream's end,
/// GetTask, the cancel result, orphaned steps and executions).
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<String>,
    call: Option<String>,
    blocking_result_artifacts: Option<u64>,
    settled: Settled,
}

fn signature(kind: &str, state: Option<&str>, after_terminal: bool) -> String {
    format!(
        "{kind}:{}{}",
        state.unwrap_or("-"),
        if after_terminal { "!" } else { "" }
    )
}

impl Aspect for Outcome {
    fn recorded(run: &RecordedRun, _scenario: &str) -> Outcome {
        let events = run
            .events
            .iter()
            .map(|e| signature(&e.kind, e.state.as_deref(), e.after_terminal))
            .collect();
        Outcome {
            events,
            call: run.call.clone(),
            blocking_result_artifacts: run.blocking_result_artifacts,
            settled: Settled::of_recorded(run),
        }
    }
    fn modelled(query: &str) -> Outcome {
        let run = &run(query);
        let m = &run.trace.metrics;
        let events = run
            .trace
            .rows
            .iter()
            .filter_map(|row| {
                let wire = &wire_json(row)?;
                let after =
                    row.kind == RowKind::Event && row.disposition.label() == "after-terminal";
                let event = read_value(wire, None).unwrap();
                let state = event.state.and_then(|s| s.known()).map(|s| s.wire());
                Some(signature(event.kind.wrapper(), state, after))
            })
            .collect();
        Outcome {
            events,
            call: spelled(&run.call_end),
            blocking_result_artifacts: m.blocking_result_artifacts.map(u64::from),
            settled: Settled::of_model(run),
        }
    }
}

#[test]
fn model_reproduces_every_python_sdk_fixture() {
    check_profile("python");
}

#[test]
fn model_reproduces_every_js_sdk_fixture() {
    check_profile("js");
}

#[test]
fn model_reproduces_every_rust_sdk_fixture() {
    check_profile("rust");
}

/// Compares every fixture of one SDK with the model under that profile.
fn check_profile(folder: &str) {
    let mut compared = 0;
    let mut failures = Vec::new();
    for fixture in every(&fixture_dir(folder)) {
        if !fixture.measurable() {
            continue;
        }
        let recorded = fixture.recording.scenario.as_str();
        let query = model_query(recorded, folder, Some(fixture.step_ms()));
        let model = Outcome::modelled(&query);
        // The first run that differs says enough.
        let differ = runs_against(&query, recorded, &fixture, &model, |a, b| a == b);
        failures.extend(differ.into_iter().take(1));
        compared += 1;
    }
    assert!(compared >= 40, "only {compared} fixtures found");
    assert!(
        failures.is_empty(),
        "{} of {compared} scenarios differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
