//! SDK profiles (SPEC §7): the same scenario under a2a-sdk 1.3.0 (Python)
//! and @a2a-js/sdk 1.3.0, each measured difference by name.

use crate::model_support;

use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::state::TaskState;
use a2a_lab::model::trace::CancelResult;
use a2a_lab::model::trace::StreamEnd;
use model_support::metrics;

#[test]
fn js_ends_the_stream_at_the_first_terminal_status_and_drops_later_events_silently() {
    let py = metrics("late=0");
    let js = metrics("late=0&sdk=js");
    assert_eq!(
        (
            py.events_delivered,
            py.events_after_terminal,
            py.get_task_artifacts
        ),
        (7, 1, Some(2))
    );
    assert_eq!(
        (
            js.events_delivered,
            js.events_after_terminal,
            js.get_task_artifacts
        ),
        (6, 0, Some(1))
    );
    assert_eq!(
        metrics("late=0&client=block&sdk=js").get_task_artifacts,
        Some(1)
    );
}

#[test]
fn js_cancel_never_interrupts_awaiting_code() {
    assert_eq!(metrics("cancel=1").orphaned_steps, 0);
    let js = metrics("cancel=1&sdk=js");
    assert_eq!(js.orphaned_steps, 2);
    assert_eq!(
        js.final_state.map(TaskState::wire),
        Some("TASK_STATE_CANCELED")
    );
    assert_eq!(
        metrics("cancel=1&work=flag&sdk=js").orphaned_steps,
        1,
        "a flag still stops it"
    );
}

#[test]
fn js_cancel_that_throws_only_errors_the_caller_and_the_task_completes() {
    let js = metrics("cancel=1&cancel_impl=raise&sdk=js");
    assert_eq!(js.cancel_result, Some(CancelResult::Error));
    assert_eq!(
        js.final_state.map(TaskState::wire),
        Some("TASK_STATE_COMPLETED")
    );
    assert_eq!(js.events_delivered, 6);
    assert_eq!(
        metrics("cancel=1&cancel_impl=raise")
            .final_state
            .map(TaskState::wire),
        Some("TASK_STATE_FAILED")
    );
}

#[test]
fn js_stream_hangs_at_auth_required_because_the_sdk_keeps_the_channel_open() {
    assert_eq!(metrics("ending=auth&sdk=js").hung_streams, 1);
    assert_eq!(metrics("ending=auth").hung_streams, 0);
}

#[test]
fn js_timeout_is_a_deadline_not_an_inactivity_timeout() {
    // A stream still receiving events at 1000 ms: an inactivity timeout lets
    // it finish; a deadline cuts it off.
    assert_eq!(
        metrics("chunks=10&step_ms=200&timeout_ms=1000").stream,
        Some(StreamEnd::Closed)
    );
    assert_eq!(
        metrics("chunks=10&step_ms=200&timeout_ms=1000&sdk=js").stream,
        Some(StreamEnd::TimedOut)
    );
}

#[test]
fn the_sdk_key_round_trips_through_the_codec() {
    let s = Scenario::from_query("sdk=js&late=0").unwrap();
    assert_eq!(s.to_query(), "late=0&sdk=js");
    assert!(Scenario::from_query("sdk=go")
        .unwrap_err()
        .message
        .contains("python, js"));
}
