//! The examples menu: every example is a valid scenario URL, in the seed's
//! order, and the ones the seed gives numbers for reproduce them.

use crate::model_support;

use a2a_lab::model::pictures::examples::EXAMPLES;
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::state::TaskState;
use a2a_lab::model::trace::CancelResult;

/// The metrics of the example whose label starts `label_prefix`.
fn metrics_of(label_prefix: &str) -> a2a_lab::model::trace::Metrics {
    let example = EXAMPLES
        .iter()
        .find(|e| e.label.starts_with(label_prefix))
        .expect(label_prefix);
    model_support::metrics(example.query)
}

#[test]
fn every_example_is_a_canonical_scenario_query() {
    for e in EXAMPLES {
        let s = Scenario::from_query(e.query).unwrap_or_else(|err| panic!("{}: {err}", e.label));
        assert_eq!(
            s.to_query(),
            e.query,
            "{} is not in canonical form",
            e.label
        );
    }
    assert_eq!(EXAMPLES[0].query, "", "the defaults come first");
}

#[test]
fn the_controlled_comparisons_come_in_the_seeds_order_and_reproduce_its_numbers() {
    let order: Vec<&str> = EXAMPLES.iter().map(|e| e.query).collect();
    let pos = |q: &str| order.iter().position(|x| *x == q).unwrap();
    assert!(pos("ending=return") < pos("ending=never"));
    assert!(pos("ending=never") < pos("ending=never&cancel=3"));
    assert!(pos("ending=never&cancel=3") < pos("late=0"));
    assert!(pos("late=0&guard=on") < pos("cancel=1"));
    assert!(pos("cancel=1&cancel_impl=raise") < pos("restart=2"));
    assert_eq!(metrics_of("Defaults").events_delivered, 6);
    assert_eq!(metrics_of("execute() never returns").hung_streams, 1);
    assert_eq!(
        metrics_of("A late artifact right after").events_delivered,
        7
    );
    assert_eq!(
        metrics_of("Late artifact, your own guard").events_delivered,
        6
    );
    assert_eq!(
        metrics_of("Cancel after chunk 1, asyncio").orphaned_steps,
        2
    );
    assert_eq!(
        metrics_of("cancel() raises")
            .final_state
            .map(TaskState::wire),
        Some("TASK_STATE_FAILED")
    );
    assert!(metrics_of("Restart after chunk 2, in-memory").task_lost);
    assert_eq!(
        metrics_of("Seed 000: T-42")
            .final_state
            .map(TaskState::wire),
        Some("TASK_STATE_COMPLETED")
    );
    assert_eq!(
        metrics_of("Seed 000: T-43")
            .final_state
            .map(TaskState::wire),
        Some("TASK_STATE_REJECTED")
    );
}

/// SPEC §16: where a2a-rs differs from both other SDKs, an example shows
/// it: a raising `cancel()` leaves the task FAILED on a2a-sdk, COMPLETED
/// on @a2a-js/sdk and CANCELED on a2a-rs.
#[test]
fn an_example_shows_where_a2a_rs_differs_from_both_other_sdks() {
    let state = |query: &str| {
        model_support::metrics(query)
            .final_state
            .map(TaskState::wire)
    };
    let rust = metrics_of("…a2a-rs: CANCELED anyway");
    assert_eq!(
        rust.final_state.map(TaskState::wire),
        Some("TASK_STATE_CANCELED")
    );
    assert_eq!(
        state("cancel=1&cancel_impl=raise"),
        Some("TASK_STATE_FAILED")
    );
    assert_eq!(
        state("cancel=1&cancel_impl=raise&sdk=js"),
        Some("TASK_STATE_COMPLETED")
    );
}

#[test]
fn the_subscriber_examples_show_what_the_sdks_were_measured_to_do() {
    use a2a_lab::model::trace::StreamEnd;
    // Client 1: 3 events, then the snapshot, two chunks and COMPLETED.
    assert_eq!(
        metrics_of("Connection drops after chunk 1").events_delivered,
        7
    );
    assert_eq!(
        metrics_of("…at input-required: a2a-sdk").stream,
        Some(StreamEnd::Hung)
    );
    assert_eq!(
        metrics_of("…@a2a-js/sdk closes it").stream,
        Some(StreamEnd::Closed)
    );
    // Both clients get COMPLETED and the late receipt on a2a-sdk.
    assert_eq!(metrics_of("…and a late artifact").events_after_terminal, 2);
    assert_eq!(
        metrics_of("…@a2a-js/sdk drops the late artifact").events_after_terminal,
        0
    );
}

#[test]
fn the_push_examples_show_a_webhook_left_at_working_and_a_held_stream() {
    let raise = metrics_of("Push: execute() raises").push.unwrap();
    assert_eq!(raise.push_last_state, Some(TaskState::Working));
    assert_eq!(raise.pushes, 5);
    let slow = metrics_of("Push: a slow webhook").push.unwrap();
    assert_eq!(slow.pushes, 6);
    assert!(slow.client_done_ms.unwrap() >= 6 * 2000);
}

#[test]
fn the_shapes_of_other_stacks_show_progress_passing_the_guard_and_a_late_cancel() {
    let progress = metrics_of("Progress updates");
    // The Task, WORKING, 2 updates before each of 3 chunks, COMPLETED.
    assert_eq!(progress.events_delivered, 2 + 3 * 3 + 1);
    assert_eq!(progress.dropped_by_guard, 0);
    assert_eq!(progress.rejected, 0);
    let late_cancel = metrics_of("The whole result at the end");
    assert_eq!(late_cancel.cancel_result, Some(CancelResult::NotCancelable));
    assert_eq!(late_cancel.final_state, Some(TaskState::Completed));
}

#[test]
fn the_push_across_turns_examples_show_every_turn_pushed_and_a_repeated_config_doubling() {
    // SUBMITTED, WORKING, INPUT_REQUIRED; then WORKING, 3 chunks, COMPLETED.
    let turns = metrics_of("Push across the turns").push.unwrap();
    assert_eq!(turns.pushes, 8);
    assert_eq!(turns.push_duplicates, 0);
    // @a2a-js/sdk re-publishes the task, and every event after the repeated
    // config goes to two configs.
    let repeated = metrics_of("…each turn repeats the config").push.unwrap();
    assert_eq!(repeated.pushes, 3 + 2 * 6);
    assert_eq!(repeated.push_duplicates, 6);
}

#[test]
fn the_combination_examples_show_two_tasks_a_silent_restart_a_race_and_a_subscriber_across_turns() {
    // Two tasks, six POSTs each.
    let retried = metrics_of("A retried message with a push config");
    assert_eq!(retried.executions, 2);
    assert_eq!(retried.push.unwrap().pushes, 12);
    // The webhook last heard WORKING; nothing after the kill.
    let restart = metrics_of("Restart under a push config").push.unwrap();
    assert_eq!(restart.push_last_state, Some(TaskState::Working));
    assert_eq!(restart.pushes, 4);
    // No POST counted as answered for sure.
    let race = metrics_of("A webhook at @a2a-js/sdk's 5 s timeout")
        .push
        .unwrap();
    assert_eq!((race.pushes, race.pushes_answered), (6, 0));
    // Both subscriptions end with the task, not hung.
    let across = metrics_of("A subscriber across the turns");
    assert_eq!(across.hung_streams, 0);
    assert_eq!(across.final_state, Some(TaskState::Completed));
}
