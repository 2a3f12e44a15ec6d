//! The model against the push recordings of both SDKs (SPEC §12): every
//! fixture in `tests/fidelity/fixtures/{python,js}/push/` must be
//! reproduced POST by POST (how many, in order, each body's kind and the
//! state it tells, the header names, the answer), with the stream's events,
//! its end, GetTask, and the stream's timing class: held up by a slow
//! webhook or not. Times may differ otherwise.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use a2a_lab::model::trace::RowKind;
use a2a_lab::model::wire::task_id;
use model_support::fidelity::{
    combinations, fixture_dir, listed, model_query, spelled, Aspect, Fixture,
};
use model_support::recorded::{RecordedRun, Recording};
use model_support::run;
use model_support::wire_json;
use serde_json::Value;

/// Fixtures the model does not reproduce, by SDK folder and scenario, with
/// the reason. The test fails when another one differs, and when one of
/// these starts to match (then it leaves this list).
const NOT_REPRODUCED: &[(&str, &str, &str)] = &[(
    "python",
    "push=inline&webhook_delay_ms=4995",
    "the stream's first event waits for a POST answered at 4,995 ms plus the agent's own few ms, \
     past the recorder client's 5 s read timeout: no event came; the model's clock has no such \
     overhead, so its client gets the first event at 4,995 ms",
)];

/// Keys the lab adds to a recorded scenario, by SDK folder and scenario,
/// with the reason: what the recorder's client did that the scenario's own
/// keys leave out.
const ADDED_KEYS: &[(&str, &str, &str, &str)] = &[
    (
        "python",
        "push=inline&webhook_delay_ms=2000&client=block",
        "timeout_ms=5000",
        "the recorder's SDK client kept httpx's 5 s read timeout; the lab's client has none unless timeout_ms says so",
    ),
    (
        "python",
        "push=inline&webhook_delay_ms=2000&client=block&wire=0.3",
        "timeout_ms=5000",
        "the recorder's raw 0.3 client kept httpx's 5 s read timeout; the lab's client has none unless timeout_ms says so",
    ),
    (
        "python",
        "push=inline&webhook_delay_ms=5005",
        "timeout_ms=5000",
        "the recorder's SDK client kept httpx's 5 s read timeout; the lab's client has none unless timeout_ms says so",
    ),
];

/// A webhook that answers within the sender's race window (SPEC §14):
/// every run is compared with the model, whose POSTs each say `race`
/// where a run's was answered or abandoned.
const TIMEOUT_RACES: &[&str] = &["push=inline&webhook_delay_ms=4995"];

/// Measured combinations whose POST order differs from run to run (SPEC
/// §14: said, not picked): a retried message makes a second task, and the
/// two tasks' POSTs interleave as their consumers race. Each task's own
/// POSTs keep their order, and that is what is compared. (a2a-sdk's 0.3
/// runs happened to interleave alike three times; the race is the same.)
const INTERLEAVED: &[&str] = &[
    "push=inline&retry=on",
    "push=inline&retry=on&wire=0.3",
    "push=inline&retry=on&second_client=2",
];

/// Measured combinations whose runs differ as a restart races the POSTs
/// and the stream (SPEC §14: said, not picked): how many events reached
/// the webhook and the stream before the process died. The model must
/// reproduce one of the recorded runs exactly; the page says it is a race.
const RACES: &[&str] = &[
    "push=inline&restart=2&store=database",
    "push=inline&restart=2&store=database&resubscribe=5",
    "push=inline&restart=2&store=database&resubscribe=5&wire=0.3",
];

/// Races whose every run the model misses, with the reason. Each must
/// still differ: one the model starts to reproduce leaves this list.
const RACES_MISSED: &[(&str, &str, &str)] = &[(
    "python",
    "push=inline&restart=2&store=database&resubscribe=5&wire=0.3",
    "in all three runs the stream was one event behind the webhook when the process died \
     (the SSE write after the POST had not reached the client); the model delivers both",
)];

/// Everything compared for one scenario.
#[derive(Debug, PartialEq)]
struct Outcome {
    /// `task: kind STATE answer [headers]` per POST attempted, in order
    /// (the task numbered from 1, in the order of its first POST).
    posts: Vec<String>,
    /// The client's stream events (`kind STATE`), or a blocking result.
    events: Vec<String>,
    /// `closed`, `hung`, `timed_out`, or a blocking call's end.
    end: String,
    get_task: String,
    /// `held` when the client finished only after the webhook's delays.
    timing: &'static str,
}

/// A state in the wire form of 1.0, whichever wire it came on.
fn state_10(state: &str) -> String {
    if state.starts_with("TASK_STATE_") {
        return state.to_string();
    }
    format!("TASK_STATE_{}", state.replace('-', "_").to_uppercase())
}

/// A body's kind and the state it tells: a 1.0 `StreamResponse` or a 0.3
/// event.
fn kind_and_state(body: &Value) -> (String, Option<String>) {
    if let Some(kind) = body.get("kind").and_then(Value::as_str) {
        let state = body.pointer("/status/state").and_then(Value::as_str);
        return (kind.to_string(), state.map(state_10));
    }
    let Some((key, inner)) = body.as_object().and_then(|m| m.iter().next()) else {
        return (String::new(), None);
    };
    let state = inner.pointer("/status/state").and_then(Value::as_str);
    (key.clone(), state.map(state_10))
}

fn post_line(kind: &str, state: Option<&str>, answer: &str, headers: &[String]) -> String {
    format!(
        "{kind} {} {answer} [{}]",
        state.unwrap_or("-"),
        headers.join(",")
    )
}

/// The task a model POST tells of, numbered from 1.
fn model_task(body: &Value) -> usize {
    let id = body
        .pointer("/task/id")
        .or_else(|| body.get("taskId"))
        .or_else(|| body.get("id"))
        .or_else(|| {
            body.as_object()
                .and_then(|m| m.values().next()?.get("taskId"))
        })
        .and_then(Value::as_str)
        .unwrap_or_default();
    (0..4).find(|&n| task_id(n) == id).map_or(0, |n| n + 1)
}

/// One task's POSTs, in order.
fn of_task(posts: &[String], task: usize) -> Vec<&str> {
    let prefix = format!("{task}: ");
    posts
        .iter()
        .filter_map(|p| p.strip_prefix(&prefix))
        .collect()
}

fn timing(done: Option<u64>, delay: Option<u64>) -> &'static str {
    match (done, delay) {
        (Some(done), Some(delay)) if done >= delay => "held",
        (None, _) => "never",
        _ => "free",
    }
}

fn delay_of(scenario: &str) -> Option<u64> {
    scenario
        .split('&')
        .find_map(|kv| kv.strip_prefix("webhook_delay_ms="))
        .and_then(|v| v.parse().ok())
}

/// What the push fidelity test compares of a run.
impl Aspect for Outcome {
    fn recorded(run: &RecordedRun, scenario: &str) -> Outcome {
        let posts = run.posts.as_deref().unwrap_or_default();
        let mut lines: Vec<String> = posts
            .iter()
            .map(|p| {
                // The webhook saw the agent give up: the sender's timeout.
                let answer = match p.answer.as_str() {
                    a if a.starts_with("not delivered (the agent closed") => "timeout",
                    a => a,
                };
                let line = post_line(&p.event.kind, p.event.state.as_deref(), answer, &p.headers);
                format!("{}: {line}", p.task_n.unwrap_or(1))
            })
            .collect();
        // Nothing listened: the agent's log counts its attempts.
        if posts.is_empty() {
            let failed = run.pushes_failed_logged.unwrap_or(0);
            lines = vec!["refused".to_string(); failed as usize];
        }
        let events = run
            .events
            .iter()
            .map(|e| format!("{} {}", e.kind, e.state.as_deref().unwrap_or("-")))
            .collect();
        let end = run
            .stream
            .as_deref()
            .or(run.call.as_deref())
            .unwrap_or("")
            .to_string();
        Outcome {
            posts: lines,
            events,
            get_task: run
                .get_task_settled
                .task()
                .map(|t| t.state.clone())
                .unwrap_or_default(),
            // A hung stream's time is the recorder's watchdog, not an end; a
            // client that gave up ended on its own clock.
            timing: match end.as_str() {
                "hung" => "never",
                "timed_out" => "gave up",
                _ => timing(run.client_done_ms, delay_of(scenario)),
            },
            end,
        }
    }
    fn modelled(query: &str) -> Outcome {
        let (run, scenario) = (&run(query), query);
        let rows = &run.trace.rows;
        let posts = rows
            .iter()
            .filter(|r| r.kind == RowKind::Push)
            .map(|r| {
                let push = r.push.as_ref().expect("a push row has its record");
                if push.answer == "refused" {
                    return "refused".to_string();
                }
                let body = wire_json(r).unwrap_or(Value::Null);
                let (kind, state) = kind_and_state(&body);
                let line = post_line(&kind, state.as_deref(), &push.answer, &push.headers);
                format!("{}: {line}", model_task(&body))
            })
            .collect();
        // Client 1's events over all its streams (a resume's, a retry's, a
        // resubscription's), as the recorder lists them.
        let mine: Vec<usize> = run
            .streams
            .iter()
            .filter(|s| s.client == 1)
            .flat_map(|s| s.rows.iter().copied())
            .collect();
        let events = (!run.streams.is_empty())
            .then_some(&mine)
            .map(|rows_of_client| {
                rows_of_client
                    .iter()
                    .map(|&i| {
                        let (kind, state) =
                            kind_and_state(&wire_json(&rows[i]).unwrap_or(Value::Null));
                        let kind = match kind.as_str() {
                            "status-update" => "statusUpdate".to_string(),
                            "artifact-update" => "artifactUpdate".to_string(),
                            _ => kind,
                        };
                        format!("{kind} {}", state.unwrap_or_else(|| "-".into()))
                    })
                    .collect()
            })
            .unwrap_or_else(|| {
                // A blocking call's result: the task as it returned.
                rows.iter()
                    .filter(|r| {
                        r.kind == RowKind::Action && r.event.starts_with("SendMessage returns")
                    })
                    .filter_map(wire_json)
                    .map(|w| {
                        let (_, state) = kind_and_state(&w);
                        format!("task {}", state.unwrap_or_else(|| "-".into()))
                    })
                    .collect()
            });
        let m = &run.trace.metrics;
        let end = match (m.stream, run.call_end) {
            (Some(s), _) => spelled(&s),
            (None, Some(c)) => spelled(&c),
            _ => None,
        }
        .unwrap_or_default();
        let push = m.push.as_ref().expect("push metrics with push on");
        let timing = match end.as_str() {
            "timed_out" => "gave up",
            _ => timing(push.client_done_ms, delay_of(scenario)),
        };
        Outcome {
            posts,
            events,
            end,
            get_task: m
                .final_state
                .map(|s| s.wire().to_string())
                .unwrap_or_default(),
            timing,
        }
    }
}

/// Compares the given push fixtures of one SDK with the model: the ones
/// that differ (or that are listed in NOT_REPRODUCED and now match), and
/// how many were compared.
fn compare(sdk: &str, fixtures: Vec<(String, Fixture)>, differ: &mut Vec<String>) -> usize {
    let mut checked = 0;
    for (scenario, fixture) in fixtures {
        let scenario = scenario.as_str();
        let interleaved = INTERLEAVED.contains(&scenario);
        let race = RACES.contains(&scenario) && !fixture.stable();
        let timeout_race = TIMEOUT_RACES.contains(&scenario) && sdk == "js";
        // What the SDK has no counterpart of (a2a-rs: the 0.3 wire, a
        // database store) was not measured; the model refuses it.
        if !fixture.measurable() {
            continue;
        }
        if !fixture.stable() && !interleaved && !race && !timeout_race {
            continue;
        }
        let step = fixture.step_ms();
        let mut query = model_query(scenario, sdk, Some(step));
        if let Some((.., added, _)) = ADDED_KEYS
            .iter()
            .find(|(s, q, ..)| *s == sdk && *q == scenario)
        {
            query.push('&');
            query.push_str(added);
        }
        let model = Outcome::modelled(&query);
        let want = Outcome::recorded(&fixture.recording.runs[0], scenario);
        checked += 1;
        if interleaved {
            compare_interleaved(&fixture.recording, scenario, &model, differ);
            continue;
        }
        if timeout_race {
            compare_timeout_race(&fixture.recording, scenario, &model, differ);
            continue;
        }
        if race {
            let runs = &fixture.recording.runs;
            let one_of = runs
                .iter()
                .map(|run| Outcome::recorded(run, scenario))
                .collect::<Vec<_>>();
            let missed = RACES_MISSED
                .iter()
                .any(|(s, q, _)| *s == sdk && *q == scenario);
            if one_of.contains(&model) == missed {
                differ.push(format!(
                    "{sdk} {scenario} (a race; listed as missed: {missed}):\n  model    {model:?}\n  recorded {one_of:?}"
                ));
            }
            continue;
        }
        let listed = NOT_REPRODUCED
            .iter()
            .any(|(s, q, _)| *s == sdk && *q == scenario);
        if (model != want) != listed {
            differ.push(format!(
                "{sdk} {scenario} ({}):\n  model    {model:?}\n  recorded {want:?}",
                if listed {
                    "listed but now reproduced"
                } else {
                    "differs"
                }
            ));
        }
    }
    checked
}

/// Every run of an interleaved combination against the model: the same
/// POSTs per task in the same order, the rest as for any fixture.
fn compare_interleaved(
    fixture: &Recording,
    scenario: &str,
    model: &Outcome,
    differ: &mut Vec<String>,
) {
    for (i, run) in fixture.runs.iter().enumerate() {
        let want = Outcome::recorded(run, scenario);
        let same_tasks = (1..=2).all(|t| of_task(&model.posts, t) == of_task(&want.posts, t));
        let same_rest = (&model.events, &model.end, &model.get_task)
            == (&want.events, &want.end, &want.get_task);
        if !same_tasks || !same_rest || model.posts.len() != want.posts.len() {
            differ.push(format!(
                "{scenario} run {i}:\n  model    {model:?}\n  recorded {want:?}"
            ));
        }
    }
}

/// Every run of a webhook at the sender's timeout against the model: each
/// POST the model calls a race was answered (200) in some run or abandoned
/// (timeout), and the rest is as for any fixture.
fn compare_timeout_race(
    fixture: &Recording,
    scenario: &str,
    model: &Outcome,
    differ: &mut Vec<String>,
) {
    for (i, run) in fixture.runs.iter().enumerate() {
        let want = Outcome::recorded(run, scenario);
        let raced = model.posts.len() == want.posts.len()
            && model.posts.iter().zip(&want.posts).all(|(m, w)| {
                let either = |a: &str| m.replace(" race ", &format!(" {a} "));
                *w == either("200") || *w == either("timeout")
            });
        let same_rest = (&model.events, &model.end, &model.get_task)
            == (&want.events, &want.end, &want.get_task);
        if !raced || !same_rest {
            differ.push(format!(
                "{scenario} run {i} (a race with the timeout):\n  model    {model:?}\n  recorded {want:?}"
            ));
        }
    }
}

#[test]
fn the_model_pushes_what_both_sdks_were_measured_to_push() {
    let mut differ = Vec::new();
    let mut checked = 0;
    for sdk in ["python", "js"] {
        checked += compare(sdk, listed(&fixture_dir(sdk).join("push")), &mut differ);
    }
    assert_eq!(checked, 72, "36 push scenarios per SDK");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn the_model_pushes_in_the_measured_combinations_as_both_sdks_did() {
    let mut differ = Vec::new();
    let mut checked = 0;
    for sdk in ["python", "js"] {
        checked += compare(
            sdk,
            combinations(&fixture_dir(sdk).join("push")),
            &mut differ,
        );
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // Per SDK: 17 across the follow-up turns of an interrupted task, 3
    // beside a retry, 3 beside a subscriber, 3 under a restart and 2 with a
    // webhook at the sender's timeout.
    assert_eq!(checked, 56, "the push combinations of SPEC §14");
}

#[test]
fn the_model_pushes_what_a2a_rs_was_measured_to_push() {
    let mut differ = Vec::new();
    let checked = compare(
        "rust",
        listed(&fixture_dir("rust").join("push")),
        &mut differ,
    );
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // SPEC §12's 36 scenarios but the 18 on the 0.3 wire.
    assert_eq!(checked, 18, "the a2a-rs push scenarios");
}

#[test]
fn the_model_pushes_in_the_measured_combinations_as_a2a_rs_did() {
    let mut differ = Vec::new();
    let fixtures = combinations(&fixture_dir("rust").join("push"));
    let checked = compare("rust", fixtures, &mut differ);
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // The 19 measured on the 1.0 wire (the 0.3 and database ones have no
    // counterpart) but `interrupt=input&second_client=3`, a combination the
    // model takes for no SDK yet (`MODELLED_COMBINATIONS`).
    assert_eq!(checked, 18, "the a2a-rs push combinations of SPEC §14");
}
