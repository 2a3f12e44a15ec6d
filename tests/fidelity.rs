//! The model against the real SDK: every committed fixture recorded from
//! a2a-sdk 1.3.0 (`tests/fidelity/python/`) must be reproduced in order and
//! count (timing may differ).

use std::path::Path;

use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::sim::simulate;
use a2a_lab::model::trace::RowKind;
use a2a_lab::model::trace::Run;
use a2a_lab::model::wire::answer::read_value;
use serde_json::Value;

/// What is compared: event kinds/states/after-terminal in order, how the
/// stream or call ended, artifact counts, the cancel result, orphaned steps
/// and executions.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<String>,
    stream: Option<String>,
    call: Option<String>,
    blocking_result_artifacts: Option<u64>,
    get_task: String,
    cancel_result: Option<String>,
    orphaned_steps: u64,
    executions: u64,
}

fn signature(kind: &str, state: Option<&str>, after_terminal: bool) -> String {
    format!(
        "{kind}:{}{}",
        state.unwrap_or("-"),
        if after_terminal { "!" } else { "" }
    )
}

fn from_fixture(run: &Value) -> Outcome {
    let events = run["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            signature(
                e["kind"].as_str().unwrap(),
                e["state"].as_str(),
                e["after_terminal"].as_bool().unwrap(),
            )
        })
        .collect();
    let get_task = match &run["get_task_settled"] {
        Value::String(s) => s.clone(),
        g => format!("{} with {}", g["state"].as_str().unwrap(), g["artifacts"]),
    };
    Outcome {
        events,
        stream: run["stream"].as_str().map(String::from),
        call: run["call"].as_str().map(String::from),
        blocking_result_artifacts: run["blocking_result_artifacts"].as_u64(),
        get_task,
        cancel_result: run["cancel_result"].as_str().map(String::from),
        orphaned_steps: run["orphaned_steps"].as_u64().unwrap(),
        executions: run["executions"].as_u64().unwrap(),
    }
}

/// A value as the export spells it (`timed_out`, `not_cancelable`), the
/// spelling the recorders write.
fn spelled<T: serde::Serialize>(value: &T) -> Option<String> {
    serde_json::to_value(value).ok()?.as_str().map(String::from)
}

fn from_model(run: &Run) -> Outcome {
    let m = &run.trace.metrics;
    let events = run
        .trace
        .rows
        .iter()
        .filter_map(|row| {
            let wire = row.wire.as_ref()?;
            let after = row.kind == RowKind::Event && row.disposition.label() == "after-terminal";
            let event = read_value(wire, None).unwrap();
            let state = event.state.and_then(|s| s.known()).map(|s| s.wire());
            Some(signature(event.kind.wrapper(), state, after))
        })
        .collect();
    let get_task = match (&m.final_state, m.get_task_artifacts) {
        (Some(state), Some(n)) => format!("{} with {n}", state.wire()),
        _ => "lost".to_string(),
    };
    Outcome {
        events,
        stream: spelled(&m.stream),
        call: spelled(&run.call_end),
        blocking_result_artifacts: m.blocking_result_artifacts.map(u64::from),
        get_task,
        cancel_result: spelled(&m.cancel_result),
        orphaned_steps: u64::from(m.orphaned_steps),
        executions: u64::from(m.executions),
    }
}

#[test]
fn model_reproduces_every_python_sdk_fixture() {
    check_profile("python", "");
}

#[test]
fn model_reproduces_every_js_sdk_fixture() {
    check_profile("js", "&sdk=js");
}

/// Compares every fixture of one SDK with the model under that profile.
fn check_profile(folder: &str, sdk_key: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fidelity/fixtures")
        .join(folder);
    let mut compared = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures are committed") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") || path.file_name().unwrap() == "index.json"
        {
            continue;
        }
        let fixture: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if fixture["measurable"] == Value::Bool(false) {
            continue;
        }
        let query = fixture["scenario"].as_str().unwrap();
        let query = if query == "defaults" { "" } else { query };
        let step = fixture["step_ms"].as_u64().unwrap();
        let query = format!("{query}{sdk_key}");
        let query = query.trim_start_matches('&');
        let scenario = Scenario::from_query(query)
            .and_then(|s| s.with("step_ms", &step.to_string()))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let model = from_model(&simulate(&scenario));
        for run in fixture["runs"].as_array().unwrap() {
            let sdk = from_fixture(run);
            if sdk != model {
                failures.push(format!("{query}:\n  sdk   {sdk:?}\n  model {model:?}"));
                break;
            }
        }
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
