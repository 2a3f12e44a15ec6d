//! SPEC §9's subscribers in the simulator: what the metrics count per
//! stream, the subscriber's own timeout, and where the two SDK profiles
//! part. The fixtures themselves are compared in `fidelity_subscribe.rs`.

use crate::model_support;

use a2a_lab::model::trace::{Run, StreamEnd, StreamRole};
use model_support::run;

fn ends(run: &Run) -> Vec<(u8, StreamRole, StreamEnd)> {
    run.streams
        .iter()
        .map(|s| (s.client, s.role, s.end))
        .collect()
}

#[test]
fn a_second_client_that_never_sees_an_end_is_a_second_hung_stream() {
    let r = run("ending=never&second_client=3");
    assert_eq!(r.trace.metrics.hung_streams, 2);
    assert_eq!(r.trace.metrics.stream, Some(StreamEnd::Hung));
    // Both streams' events count: 5 for client 1, the snapshot and 2 chunks
    // for client 2.
    assert_eq!(r.trace.metrics.events_delivered, 8);
}

#[test]
fn the_subscribers_own_timeout_turns_its_hung_stream_into_timed_out() {
    let r = run("ending=never&second_client=3&timeout_ms=700");
    assert_eq!(
        ends(&r),
        [
            (1, StreamRole::Send, StreamEnd::TimedOut),
            (2, StreamRole::SecondClient, StreamEnd::TimedOut),
        ]
    );
    assert_eq!(r.trace.metrics.hung_streams, 0);
    let r = run("ending=input&resubscribe=3&timeout_ms=700");
    assert_eq!(r.trace.metrics.stream, Some(StreamEnd::TimedOut));
    assert_eq!(r.trace.metrics.hung_streams, 0);
}

#[test]
fn a_python_subscription_stays_open_at_input_required_and_a_js_one_closes() {
    let python = run("ending=input&second_client=3");
    let js = run("ending=input&second_client=3&sdk=js");
    assert_eq!(python.streams[1].end, StreamEnd::Hung);
    assert_eq!(js.streams[1].end, StreamEnd::Closed);
    // Opened once the task waits for input, it hangs on both.
    for sdk in ["python", "js"] {
        let r = run(&format!("ending=input&resubscribe=6&sdk={sdk}"));
        assert_eq!(r.streams[1].end, StreamEnd::Hung, "{sdk}");
        assert_eq!(r.streams[1].rows.len(), 1, "{sdk}: only the snapshot");
    }
}

#[test]
fn subscribe_to_a_finished_task_is_32004_and_to_a_lost_one_32001() {
    let r = run("resubscribe=6");
    assert_eq!(r.streams[1].end, StreamEnd::Error(-32004));
    assert_eq!(r.trace.metrics.stream, Some(StreamEnd::Closed));
    let r = run("restart=2&resubscribe=5");
    assert_eq!(
        ends(&r),
        [
            (1, StreamRole::Send, StreamEnd::Broken),
            (1, StreamRole::Resubscribe, StreamEnd::Error(-32001)),
        ]
    );
}

#[test]
fn the_late_artifact_reaches_python_subscribers_after_the_terminal_status_and_nobody_on_js() {
    let python = run("late=300&second_client=3");
    let js = run("late=300&second_client=3&sdk=js");
    assert_eq!(python.trace.metrics.events_after_terminal, 2);
    assert_eq!(js.trace.metrics.events_after_terminal, 0);
    assert_eq!(python.trace.metrics.get_task_artifacts, Some(2));
    assert_eq!(js.trace.metrics.get_task_artifacts, Some(1));
}

#[test]
fn a_drop_that_never_comes_is_said_in_the_trace() {
    // With a cancel after chunk 1 the stream closes after 4 events.
    let r = run("cancel=1&resubscribe=6");
    assert_eq!(ends(&r), [(1, StreamRole::Send, StreamEnd::Closed)]);
    let last = r.trace.rows.last().unwrap();
    assert!(last.event.contains("never dropped it"), "{}", last.event);
    let r = run("cancel=1&second_client=6");
    let last = r.trace.rows.last().unwrap();
    assert_eq!(last.client, 2);
    assert!(last.event.contains("never subscribed"), "{}", last.event);
}

#[test]
fn the_executor_keeps_running_after_the_client_drops() {
    let r = run("resubscribe=3");
    assert_eq!(r.trace.metrics.orphaned_steps, 0);
    assert_eq!(r.trace.metrics.get_task_artifacts, Some(1));
    // Chunks 2 and 3 and COMPLETED reach the subscription.
    assert_eq!(r.streams[1].rows.len(), 4);
}

/// A stream that ends with a JSON-RPC error event keeps the error's code
/// in its record (what a capture of it shows last), while the `stream`
/// metric still says the server closed it, as the recorders write it.
#[test]
fn a_stream_ended_by_an_error_event_keeps_its_code() {
    for sdk in ["", "&sdk=rust"] {
        let r = run(&format!("ending=raise{sdk}"));
        assert_eq!(r.streams[0].end, StreamEnd::Error(-32603), "{sdk}");
        assert_eq!(r.trace.metrics.stream, Some(StreamEnd::Closed), "{sdk}");
    }
    // @a2a-js/sdk publishes FAILED for a raise, and its stream closes.
    assert_eq!(run("ending=raise&sdk=js").streams[0].end, StreamEnd::Closed);
    // a2a-rs ends the stream with cancel()'s error as an event, and with
    // the store's refusal when a chunk follows a CANCELED it wrote first.
    let raised = run("cancel=1&cancel_impl=raise&sdk=rust");
    assert!(matches!(raised.streams[0].end, StreamEnd::Error(_)));
    let refused = run("cancel=1&cancel_impl=noop&sdk=rust");
    assert_eq!(refused.streams[0].end, StreamEnd::Error(-32600));
    // A stream the server simply closes says so.
    assert_eq!(run("").streams[0].end, StreamEnd::Closed);
    assert_eq!(
        run("cancel=1&cancel_impl=raise").streams[0].end,
        StreamEnd::Closed
    );
}
