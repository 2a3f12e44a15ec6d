//! SPEC §4's table of numbers, one named test per row, each computed by the
//! model from its scenario query.

use crate::model_support;

use a2a_lab::model::state::TaskState;
use a2a_lab::model::trace::CancelResult;
use a2a_lab::model::trace::StreamEnd;
use a2a_lab::model::trace::{Disposition, Metrics, RowKind};
use a2a_lab::model::wire::answer::read_value;
use model_support::wire_json;
use model_support::{metrics, run};

fn state(m: &Metrics) -> Option<&str> {
    m.final_state.map(TaskState::wire)
}

#[test]
fn defaults_deliver_6_events_and_complete() {
    let r = run("");
    let m = &r.trace.metrics;
    assert_eq!(m.events_delivered, 6);
    assert_eq!(state(m), Some("TASK_STATE_COMPLETED"));
    assert_eq!(m.stream, Some(StreamEnd::Closed));
    let kinds: Vec<&str> = r
        .trace
        .rows
        .iter()
        .filter_map(wire_json)
        .map(|w| read_value(&w, None).unwrap().kind.wrapper())
        .collect();
    assert_eq!(
        kinds,
        [
            "task",
            "statusUpdate",
            "artifactUpdate",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate"
        ]
    );
}

#[test]
fn ending_return_closes_the_stream_and_leaves_the_task_working() {
    let m = metrics("ending=return");
    assert_eq!(m.stream, Some(StreamEnd::Closed));
    assert_eq!(state(&m), Some("TASK_STATE_WORKING"));
    assert_eq!(m.tasks_non_terminal, 1);
    assert_eq!((m.hung_streams, m.hung_calls), (0, 0));
}

#[test]
fn ending_never_hangs_one_stream() {
    let m = metrics("ending=never");
    assert_eq!(m.hung_streams, 1);
    assert_eq!(m.stream, Some(StreamEnd::Hung));
}

#[test]
fn ending_never_with_a_blocking_client_hangs_one_call() {
    let m = metrics("ending=never&client=block");
    assert_eq!(m.hung_calls, 1);
    assert_eq!(m.stream, None);
    assert_eq!(m.blocking_result_artifacts, None);
}

#[test]
fn ending_never_cancel_after_chunk_3_writes_canceled_and_frees_the_stream() {
    let m = metrics("ending=never&cancel=3");
    assert_eq!(state(&m), Some("TASK_STATE_CANCELED"));
    assert_eq!(m.cancel_result, Some(CancelResult::Canceled));
    assert_eq!(m.hung_streams, 0);
    assert_eq!(m.stream, Some(StreamEnd::Closed));
}

#[test]
fn late_artifact_immediately_or_300ms_later_is_delivered_after_terminal_and_stored() {
    for q in ["late=0", "late=300"] {
        let m = metrics(q);
        assert_eq!(m.events_delivered, 7, "{q}");
        assert_eq!(m.events_after_terminal, 1, "{q}");
        assert_eq!(m.get_task_artifacts, Some(2), "{q}");
    }
}

#[test]
fn late_artifact_with_blocking_client_result_lists_1_get_task_lists_2() {
    let m = metrics("late=0&client=block");
    assert_eq!(m.blocking_result_artifacts, Some(1));
    assert_eq!(m.get_task_artifacts, Some(2));
}

#[test]
fn late_artifact_is_dropped_by_the_guard_back_to_6_events() {
    let m = metrics("late=0&guard=on");
    assert_eq!(m.events_delivered, 6);
    assert_eq!(m.dropped_by_guard, 1);
    assert_eq!(m.events_after_terminal, 0);
    assert_eq!(m.get_task_artifacts, Some(1));
}

#[test]
fn cancel_after_chunk_1_cancels_after_4_events_with_0_orphaned_steps() {
    let m = metrics("cancel=1");
    assert_eq!(state(&m), Some("TASK_STATE_CANCELED"));
    assert_eq!(m.events_delivered, 4);
    assert_eq!(m.orphaned_steps, 0);
}

#[test]
fn cancel_after_chunk_1_orphans_two_steps_in_to_thread() {
    let m = metrics("cancel=1&work=to_thread");
    assert_eq!(m.orphaned_steps, 2);
    assert_eq!(state(&m), Some("TASK_STATE_CANCELED"));
}

#[test]
fn cancel_after_chunk_1_orphans_one_step_with_a_flag() {
    assert_eq!(metrics("cancel=1&work=flag").orphaned_steps, 1);
}

#[test]
fn cancel_that_raises_ends_the_task_failed() {
    let m = metrics("cancel=1&cancel_impl=raise");
    assert_eq!(state(&m), Some("TASK_STATE_FAILED"));
    assert_eq!(m.cancel_result, Some(CancelResult::Error));
}

#[test]
fn restart_after_chunk_2_with_memory_store_loses_the_task() {
    let r = run("restart=2&store=memory");
    let m = &r.trace.metrics;
    assert!(m.task_lost);
    assert_eq!(m.final_state, None);
    assert_eq!(m.get_task_artifacts, None);
    assert_eq!(r.trace.rows.last().unwrap().state_after, None);
    assert!(r
        .trace
        .rows
        .iter()
        .any(|row| row.disposition == Disposition::Lost));
}

#[test]
fn restart_after_chunk_2_with_database_store_stays_working_with_nothing_resuming_it() {
    let m = metrics("restart=2&store=database");
    assert!(!m.task_lost);
    assert_eq!(state(&m), Some("TASK_STATE_WORKING"));
    assert_eq!(m.tasks_non_terminal, 1);
    assert_eq!(m.hung_streams, 0);
}

#[test]
fn cancel_after_the_last_chunk_loses_the_race_to_complete() {
    let m = metrics("cancel=3");
    assert_eq!(state(&m), Some("TASK_STATE_COMPLETED"));
    assert_eq!(m.cancel_result, Some(CancelResult::NotCancelable));
}

#[test]
fn client_timeout_ends_a_hung_stream_as_timed_out() {
    let m = metrics("ending=never&timeout_ms=1000");
    assert_eq!(m.stream, Some(StreamEnd::TimedOut));
    assert_eq!(m.hung_streams, 0);
    let m = metrics("ending=never&client=block&timeout_ms=1000");
    assert_eq!(m.hung_calls, 0);
}

#[test]
fn resent_event_reaches_the_client_twice_without_the_guard_and_is_a_lookup_hit_with_it() {
    let off = metrics("dup=3");
    assert_eq!(off.events_delivered, 7);
    assert_eq!(off.duplicates, 0);
    let on = metrics("dup=3&guard=on");
    assert_eq!(on.events_delivered, 6);
    assert_eq!(on.duplicates, 1);
}

#[test]
fn conflicting_part_silently_replaces_without_the_guard_and_is_an_incident_with_it() {
    let off = run("dup=4&conflict=on");
    assert_eq!(off.trace.metrics.incidents, 0);
    let on = run("dup=4&conflict=on&guard=on");
    assert_eq!(on.trace.metrics.incidents, 1);
    assert_eq!(on.ledgers[0].artifacts().incidents.len(), 1);
    let stored = &on.ledgers[0].artifacts().artifacts["BBS-1042-tracking"].parts[&1].text;
    assert!(
        stored.contains("handed to the courier"),
        "the first bytes stay: {stored}"
    );
}

#[test]
fn retried_submission_executes_twice_without_the_guard_once_with_it() {
    assert_eq!(metrics("retry=on").executions, 2);
    let on = metrics("retry=on&guard=on");
    assert_eq!(on.executions, 1);
    assert_eq!(on.duplicates, 1);
}

#[test]
fn resume_without_receipt_is_rejected_only_with_the_guard() {
    let off = metrics("interrupt=auth&receipt=missing");
    assert_eq!(off.rejected, 0);
    assert_eq!(state(&off), Some("TASK_STATE_COMPLETED"));
    let on = metrics("interrupt=auth&receipt=missing&guard=on");
    assert_eq!(on.rejected, 1);
    assert_eq!(state(&on), Some("TASK_STATE_AUTH_REQUIRED"));
    let r = run("interrupt=auth&receipt=missing&guard=on");
    assert!(r
        .trace
        .rows
        .iter()
        .any(|row| row.event.contains("authorization-receipt-required")));
}

#[test]
fn both_interruptions_resume_to_completion_with_a_valid_receipt() {
    let r = run("interrupt=both&guard=on");
    assert_eq!(state(&r.trace.metrics), Some("TASK_STATE_COMPLETED"));
    let states: Vec<&str> = r
        .trace
        .rows
        .iter()
        .filter(|row| row.kind == RowKind::Event)
        .filter_map(wire_json)
        .filter_map(|w| {
            read_value(&w, None)
                .unwrap()
                .state?
                .known()
                .map(|s| s.wire())
        })
        .collect();
    assert_eq!(
        states,
        [
            "TASK_STATE_SUBMITTED",
            "TASK_STATE_WORKING",
            "TASK_STATE_AUTH_REQUIRED",
            "TASK_STATE_WORKING",
            "TASK_STATE_INPUT_REQUIRED",
            "TASK_STATE_WORKING",
            "TASK_STATE_COMPLETED"
        ]
    );
}

#[test]
fn wire_chunks_carry_append_and_last_chunk_only_when_true_and_no_kind_or_final() {
    let r = run("");
    let chunks: Vec<serde_json::Value> = r
        .trace
        .rows
        .iter()
        .filter_map(wire_json)
        .filter_map(|mut w| w.get_mut("artifactUpdate").map(serde_json::Value::take))
        .collect();
    assert_eq!(chunks.len(), 3);
    assert!(chunks[0].get("append").is_none() && chunks[0].get("lastChunk").is_none());
    assert_eq!(chunks[1]["append"], true);
    assert!(chunks[1].get("lastChunk").is_none());
    assert_eq!(
        (
            chunks[2]["append"].as_bool(),
            chunks[2]["lastChunk"].as_bool()
        ),
        (Some(true), Some(true))
    );
    assert_eq!(
        chunks[2]["artifact"]["parts"][0]["text"],
        "BBS-1042 courier step 3/3: out for delivery"
    );
    for row in &r.trace.rows {
        let text = serde_json::to_string(&row.wire).unwrap();
        assert!(
            !text.contains("\"kind\"") && !text.contains("\"final\""),
            "{text}"
        );
    }
    let status = wire_json(&r.trace.rows[1]).unwrap();
    assert_eq!(
        status["statusUpdate"]["status"]["timestamp"],
        "2026-11-02T10:00:00.000Z"
    );
}

#[test]
fn presets_reproduce_the_seed_ledgers() {
    let t42 = run("preset=t42");
    assert_eq!(
        t42.trace.metrics.final_state.map(TaskState::wire),
        Some("TASK_STATE_COMPLETED")
    );
    assert_eq!(
        t42.ledgers[0].accepted(),
        ["E1", "E2", "E3", "E4", "E5", "E6"]
    );
    assert_eq!(t42.trace.metrics.duplicates, 1);
    assert_eq!(t42.trace.metrics.rejected, 1);
    let t43 = run("preset=t43");
    assert_eq!(
        t43.trace.metrics.final_state.map(TaskState::wire),
        Some("TASK_STATE_REJECTED")
    );
    assert_eq!(t43.trace.metrics.rejected, 1);
    let drill = run("preset=drill");
    assert_eq!(drill.ledgers.len(), 2);
    assert_eq!(drill.ledgers[0].state().kebab(), "completed");
    assert_eq!(drill.ledgers[1].state().kebab(), "rejected");
    let reasons: Vec<&str> = drill
        .ledgers
        .iter()
        .flat_map(|l| l.rejected())
        .map(|(_, r)| r.code())
        .collect();
    assert_eq!(
        reasons,
        ["authorization-receipt-required", "illegal-transition"]
    );
    assert_eq!(
        drill.trace.metrics.duplicates, 2,
        "the resent part and the retried submission"
    );
}

#[test]
fn ten_thousand_chunks_simulate_every_step() {
    let m = metrics("chunks=10000");
    assert_eq!(m.events_delivered, 10_003);
}
