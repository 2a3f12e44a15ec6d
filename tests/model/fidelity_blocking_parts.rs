//! The parts a blocking call's answer and GetTask hold after the follow-up
//! turns of an interrupted task, against the recordings of both SDKs on
//! both wires (`blocking_result_parts`, `get_task_settled.parts` and the
//! answers' own parts): @a2a-js/sdk's blocking call that returned at
//! AUTH_REQUIRED leaves its event loop running, which appends every later
//! chunk to the stored artifact once more (3 chunks make 5 parts: 1, 2,
//! 2, 3, 3), until a terminal or input-required status; a2a-sdk stores
//! each chunk once.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use a2a_lab::model::sim::get_task;
use a2a_lab::model::trace::{RowKind, Run};
use model_support::fidelity::{combinations, fixture_dir, listed, model_query, Aspect, Fixture};
use model_support::recorded::{RecordedRun, SettledTask};
use model_support::wire_json;
use model_support::{run, scenario};
use serde_json::Value;

/// A part by the courier step it tells (`2/3`), as the recorder's texts
/// differ from the lab's.
fn step(part: &Value) -> String {
    let text = part["text"].as_str().unwrap_or_default();
    let rest = text.split("courier step ").nth(1).unwrap_or(text);
    rest.split(':').next().unwrap_or(rest).to_string()
}

/// Every part of every artifact of a task (a 1.0 answer wraps it in
/// `task`), by step.
fn parts(task: &Value) -> Vec<String> {
    let task = task.get("task").unwrap_or(task);
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["parts"].as_array().unwrap().iter().map(step))
        .collect()
}

/// What a blocking flow ends with: the last answer's artifacts and parts,
/// and GetTask's.
#[derive(Debug, PartialEq)]
struct Held {
    answer_artifacts: u64,
    answer: Vec<String>,
    get_task_artifacts: u64,
    get_task_parts: u64,
}

/// The last answer client 1 got: a 1.0 recording's `wire`, or its last
/// stream's.
fn last_answer(run: &RecordedRun) -> &Value {
    let wire = match &run.streams {
        Some(streams) => &streams.last().unwrap().wire,
        None => run.wire.as_ref().unwrap(),
    };
    wire.last().unwrap()
}

/// GetTask's task once it settled; a run whose task was lost fails the
/// test.
fn settled(run: &RecordedRun) -> &SettledTask {
    run.get_task_settled
        .task()
        .unwrap_or_else(|| panic!("no task settled: {:?}", run.get_task_settled))
}

impl Aspect for Held {
    fn recorded(run: &RecordedRun, _scenario: &str) -> Held {
        let answer = last_answer(run);
        let task = answer.get("task").unwrap_or(answer);
        Held {
            answer_artifacts: task["artifacts"].as_array().map_or(0, |a| a.len() as u64),
            answer: parts(answer),
            get_task_artifacts: settled(run).artifacts,
            get_task_parts: settled(run).parts,
        }
    }
    fn modelled(query: &str) -> Held {
        let run: Run = run(query);
        let answer = run
            .trace
            .rows
            .iter()
            .rev()
            .find(|r| r.kind == RowKind::Action && r.event.starts_with("SendMessage returns"))
            .and_then(wire_json)
            .unwrap();
        let settled = get_task(&scenario(query)).unwrap();
        let m = &run.trace.metrics;
        Held {
            answer_artifacts: u64::from(m.blocking_result_artifacts.unwrap_or(0)),
            answer: parts(&answer),
            get_task_artifacts: u64::from(m.get_task_artifacts.unwrap()),
            get_task_parts: parts(&settled).len() as u64,
        }
    }
}

/// The blocking follow-up recordings of one SDK: the 1.0 matrix's and the
/// 0.3 subscribe recorder's `interrupt=auth&client=block`, and the push
/// combinations' blocking turns (`auth`, `input`, `both`).
fn blocking_turns(sdk: &str) -> Vec<(String, Fixture)> {
    let dir = fixture_dir(sdk);
    let blocking = |q: &str| q.contains("interrupt=") && q.contains("client=block");
    listed(&dir)
        .into_iter()
        .chain(listed(&dir.join("subscribe")))
        .chain(combinations(&dir.join("push")))
        .filter(|(q, _)| blocking(q))
        .collect()
}

#[test]
fn a_blocking_flow_across_the_turns_holds_the_parts_each_sdk_stored() {
    let mut failures = Vec::new();
    let mut doubled = 0;
    let mut compared = 0;
    for sdk in ["python", "js"] {
        for (scenario, fixture) in blocking_turns(sdk) {
            let model = Held::modelled(&model_query(&scenario, sdk, Some(fixture.step_ms())));
            for (n, run) in fixture.recording.runs.iter().enumerate() {
                let want = Held::recorded(run, &scenario);
                doubled += usize::from(want.get_task_parts == 5);
                if want != model {
                    failures.push(format!(
                        "{sdk} {scenario} run {n}:\n  recorded {want:?}\n  model    {model:?}"
                    ));
                }
            }
            compared += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Per SDK: the 1.0 and the 0.3 `interrupt=auth&client=block`, and 7
    // blocking push combinations (auth, input and both, each with and
    // without a repeated config, and input repeated on 0.3).
    assert_eq!(compared, 18, "blocking follow-up recordings of both SDKs");
    // @a2a-js/sdk's auth flows, 3 runs each: the two plain ones and the
    // two push ones.
    assert_eq!(doubled, 12, "runs whose artifact ends with 5 parts");
}

/// The recorders write the blocking answer's parts: the field agrees with
/// the answer it counts, on both wires, in every run.
#[test]
fn the_recorded_blocking_result_parts_count_the_answers_parts() {
    for sdk in ["python", "js"] {
        let dir = fixture_dir(sdk);
        let plain: Vec<(String, Fixture)> = listed(&dir)
            .into_iter()
            .chain(listed(&dir.join("subscribe")))
            .filter(|(q, _)| q.starts_with("interrupt=auth&client=block"))
            .collect();
        assert_eq!(plain.len(), 2, "{sdk}: 1.0 and 0.3");
        let want = if sdk == "js" { 5 } else { 3 };
        for (scenario, fixture) in plain {
            for run in &fixture.recording.runs {
                let counted = run
                    .blocking_result_parts
                    .unwrap_or_else(|| panic!("{sdk} {scenario}: no blocking_result_parts"));
                assert_eq!(
                    counted as usize,
                    parts(last_answer(run)).len(),
                    "{sdk} {scenario}"
                );
                assert_eq!(counted, want, "{sdk} {scenario}");
                assert_eq!(
                    run.get_task_settled.task().map(|t| t.parts),
                    Some(want),
                    "{sdk} {scenario}"
                );
            }
        }
    }
}

/// a2a-rs stores each turn's parts once, as a2a-sdk does (its blocking
/// call's loop ends at the interruption): every measured blocking flow
/// across the turns holds what it stored.
#[test]
fn a_blocking_flow_across_the_turns_holds_the_parts_a2a_rs_stored() {
    let mut failures = Vec::new();
    let mut compared = 0;
    let measured = blocking_turns("rust")
        .into_iter()
        .filter(|(_, f)| f.measurable());
    for (scenario, fixture) in measured {
        let model = Held::modelled(&model_query(&scenario, "rust", Some(fixture.step_ms())));
        for (n, run) in fixture.recording.runs.iter().enumerate() {
            let want = Held::recorded(run, &scenario);
            if want != model {
                failures.push(format!(
                    "rust {scenario} run {n}:\n  recorded {want:?}\n  model    {model:?}"
                ));
            }
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // `interrupt=auth&client=block` and the 6 blocking push combinations
    // on the 1.0 wire (auth, input and both, with and without a repeated
    // config).
    assert_eq!(compared, 7, "blocking follow-up recordings of a2a-rs");
}
