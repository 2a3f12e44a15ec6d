//! A captured task as a [`Run`], so that the page's table, timeline and
//! state diagram show a real agent's events as they show a simulation's.

use crate::model::trace::{Disposition, Metrics, Row, RowKind, Run, StreamEnd, Trace};

/// The run of one captured task, from the rows the reader kept for it.
pub fn task_run(rows: Vec<Row>) -> Run {
    let count = |ds: &[Disposition]| {
        rows.iter()
            .filter(|r| r.kind == RowKind::Event && ds.contains(&r.disposition))
            .count() as u32
    };
    let final_state = rows.last().and_then(|r| r.state_after);
    let metrics = Metrics {
        events_delivered: count(&[Disposition::Delivered, Disposition::AfterTerminal]),
        events_after_terminal: count(&[Disposition::AfterTerminal]),
        dropped_by_guard: 0,
        final_state,
        stream: Some(StreamEnd::Closed),
        hung_streams: 0,
        hung_calls: 0,
        tasks_non_terminal: u32::from(final_state.is_some_and(|s| !s.is_terminal())),
        orphaned_steps: 0,
        blocking_result_artifacts: None,
        get_task_artifacts: None,
        cancel_result: None,
        task_lost: false,
        executions: 1,
        duplicates: count(&[Disposition::Duplicate]),
        rejected: count(&[Disposition::Rejected]),
        incidents: count(&[Disposition::Incident]),
        push: None,
    };
    Run {
        trace: Trace { rows, metrics },
        ledgers: Vec::new(),
        call_end: None,
        streams: Vec::new(),
    }
}
