//! Issue 58, item 1: the explanation's budget has no hole. A reading
//! that no scenario takes (a count past its key's limit in the table) is
//! charged and paced like any other candidate, so that a stream longer
//! than the lab's largest scenario is explained in time linear in its
//! events, the page's Stop is heard before each candidate, and the answer
//! says why no scenario takes it: never a wrong "reproduces".
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use a2a_lab::model::evidence::scenario_of::pushes::{scenario_of_pushes, Pushed};
use a2a_lab::model::evidence::scenario_of::{
    at_once, scenario_of_paced, scenario_of_within, sdk_order, Budget, Pacer, ScenarioOf, Search,
};
use a2a_lab::model::sim::keys::{Values, KEYS};
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::wire::answer::{read_value, OwnedEvent};
use model_support::long_stream::long_stream_values;
use proptest::prelude::*;
use serde_json::{json, Value};

/// The most one candidate may spend past the budget, for a task of
/// `events` events: what reading it costs (the task's events) or one
/// simulation of it (about as many rows, a few more for its ending and a
/// resubscription's snapshot), whichever is more.
fn one_candidate(events: usize) -> usize {
    2 * events + 64
}

fn events_of(values: &[Value]) -> Vec<OwnedEvent> {
    values
        .iter()
        .map(|v| read_value(v, None).unwrap())
        .collect()
}

/// `task` explained within the budget for its length, with what the
/// search spent.
fn explained(task: &[OwnedEvent]) -> (ScenarioOf, Budget, usize) {
    let budget = Budget::for_events(task.len());
    let rows = task
        .len()
        .saturating_mul(Budget::PER_EVENT)
        .max(Budget::FLOOR);
    let mut search = Search::new(sdk_order(None), budget);
    let found = scenario_of_within(task, None, &mut search);
    (found, search.budget(), rows)
}

/// The budget held: spent rows within it and one candidate more, and a
/// task the search could not settle said to be the closest within it.
fn within_budget(task: &[OwnedEvent]) -> ScenarioOf {
    let (found, budget, rows) = explained(task);
    let spent = budget.spent();
    assert!(
        spent <= rows + one_candidate(task.len()),
        "{} events: spent {spent} rows of a budget of {rows} ({found:?})",
        task.len()
    );
    if found.reproduces {
        // Never a scenario the lab cannot run.
        assert!(Scenario::from_query(&found.query).is_ok(), "{found:?}");
    }
    found
}

#[test]
fn a_stream_past_the_lab_s_largest_scenario_is_charged_for_every_candidate() {
    for chunks in [11_000usize, 30_000] {
        let task = events_of(&long_stream_values(chunks, "submitted"));
        let found = within_budget(&task);
        let (_, budget, _) = explained(&task);
        assert!(!found.reproduces, "{found:?}");
        assert!(found.budget_ran_out, "{chunks} chunks: {found:?}");
        assert!(budget.spent() >= Budget::PER_EVENT * task.len());
        assert_eq!(
            found.to_string(),
            format!(
                "scenario: ?chunks={chunks}&ending=return&wire=0.3 (closest within the budget; \
                 chunks={chunks} is past the lab's limit of 10000)"
            )
        );
    }
}

#[test]
fn a_stream_past_the_limit_that_an_sdk_could_end_so_is_not_reproduced_either() {
    let task = events_of(&long_stream_values(11_000, "completed"));
    let found = within_budget(&task);
    assert!(!found.reproduces, "{found:?}");
    assert_eq!(
        found.first_difference.as_deref(),
        Some("chunks=11000 is past the lab's limit of 10000")
    );
}

/// Stops the search at its `at`-th pause, counting them.
struct StopAt {
    at: usize,
    pauses: Rc<Cell<usize>>,
}

impl Pacer for StopAt {
    fn pause(&mut self) -> Option<Pin<Box<dyn Future<Output = bool>>>> {
        self.pauses.set(self.pauses.get() + 1);
        let go_on = self.pauses.get() < self.at;
        Some(Box::pin(async move { go_on }))
    }
}

#[test]
fn stop_is_heard_before_each_candidate_of_a_stream_past_the_limit() {
    let task = events_of(&long_stream_values(11_000, "submitted"));
    for at in 1..=4 {
        let pauses = Rc::new(Cell::new(0));
        let pacer = StopAt {
            at,
            pauses: Rc::clone(&pauses),
        };
        let mut search =
            Search::new(sdk_order(None), Budget::for_events(task.len())).paced(Box::new(pacer));
        let found = at_once(scenario_of_paced(&task, None, &mut search));
        assert!(search.stopped(), "stop at pause {at}: {found:?}");
        assert_eq!(pauses.get(), at);
        // Each candidate waits for a pause first: no more were read than
        // pauses were offered.
        assert!(
            search.budget().spent() <= (at - 1) * task.len(),
            "stopped at pause {at} after {} rows",
            search.budget().spent()
        );
    }
}

/// A key's largest value in the table.
fn limit(name: &str) -> u32 {
    let spec = KEYS.iter().find(|k| k.name == name).unwrap();
    match spec.kind {
        Values::Number { hi, .. } | Values::WordOrNumber { hi, .. } => hi,
        _ => panic!("{name} is no count"),
    }
}

/// A 0.3 status update of task-long.
fn status(state: &str, last: bool) -> Value {
    json!({"kind": "status-update", "taskId": "task-long", "contextId": "ctx-long",
        "status": {"state": state}, "final": last})
}

/// One appended chunk of task-long's artifact, `text` its part.
fn chunk(text: &str) -> Value {
    json!({"kind": "artifact-update", "taskId": "task-long", "contextId": "ctx-long", "append": true,
        "artifact": {"artifactId": "a-long", "parts": [{"kind": "text", "text": text}]}})
}

/// A stream whose chunks are read past `chunks`'s limit (a cancel's place
/// too, where it ends CANCELED).
fn past_chunks() -> impl Strategy<Value = Vec<Value>> {
    let most = limit("chunks") as usize;
    (
        most + 2..=most + 2_000,
        prop::sample::select(vec!["submitted", "completed", "failed", "canceled"]),
    )
        .prop_map(|(chunks, last)| long_stream_values(chunks, last))
}

/// One step after more progress updates than `progress` takes.
fn past_progress() -> impl Strategy<Value = Vec<Value>> {
    let most = limit("progress") as usize;
    (most + 1..=3_000, prop::bool::ANY).prop_map(|(updates, done)| {
        let mut stream = long_stream_values(1, if done { "completed" } else { "submitted" });
        let extra = std::iter::repeat_n(status("working", false), updates);
        stream.splice(2..2, extra);
        stream
    })
}

/// The largest scenario's stream, then one artifact after the end sent
/// again and again: each repeat a resend past `dup`'s limit.
fn past_dup() -> impl Strategy<Value = Vec<Value>> {
    let most = limit("chunks") as usize;
    (2usize..=40).prop_map(move |repeats| {
        let mut stream = long_stream_values(most, "completed");
        stream.extend(std::iter::repeat_n(chunk("receipt"), repeats));
        stream
    })
}

/// A first stream longer than any stream a resubscription can follow
/// (its chunks within the limit, a progress update before each), then a
/// subscription's snapshot and the end.
fn past_resubscribe() -> impl Strategy<Value = Vec<Value>> {
    let most = limit("resubscribe") as usize;
    (most / 2 + 1..=most / 2 + 500).prop_map(|chunks| {
        let mut stream = long_stream_values(chunks, "completed");
        let last = stream.pop().unwrap();
        let mut with_progress = stream[..2].to_vec();
        for c in &stream[2..] {
            with_progress.push(status("working", false));
            with_progress.push(c.clone());
        }
        with_progress.push(
            json!({"kind": "task", "id": "task-long", "contextId": "ctx-long",
            "status": {"state": "working"}}),
        );
        with_progress.push(last);
        with_progress
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_count_past_its_key_s_limit_is_charged_and_never_reproduced(
        stream in prop_oneof![past_chunks(), past_progress(), past_dup(), past_resubscribe()]
    ) {
        let task = events_of(&stream);
        let found = within_budget(&task);
        prop_assert!(!found.reproduces, "{found:?}");
    }

    #[test]
    fn a_webhook_log_past_the_chunks_limit_is_charged_for_every_candidate(
        chunks in limit("chunks") as usize + 2..=limit("chunks") as usize + 1_000
    ) {
        // POSTs that stop before the end: every restart up to the last
        // chunk is a candidate.
        let mut stream = long_stream_values(chunks, "completed");
        stream.pop();
        let posts: Vec<Pushed> = events_of(&stream)
            .into_iter()
            .map(|event| Pushed { event, headers: Vec::new(), answer: None })
            .collect();
        let found = scenario_of_pushes(&posts);
        prop_assert!(!found.reproduces, "{found:?}");
        prop_assert!(found.budget_ran_out, "{found:?}");
    }
}

#[test]
fn a_stream_past_the_limit_names_the_sdk_its_bytes_name() {
    use a2a_lab::model::sim::keys::Sdk;
    let task = events_of(&long_stream_values(11_000, "submitted"));
    let mut search = Search::new(sdk_order(Some(Sdk::Js)), Budget::for_events(task.len()));
    let found = scenario_of_within(&task, None, &mut search);
    assert_eq!(found.query, "chunks=11000&ending=return&sdk=js&wire=0.3");
    assert!(found.budget_ran_out, "{found:?}");
}
