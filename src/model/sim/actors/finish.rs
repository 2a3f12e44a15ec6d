//! The run's metrics, counted at the end from the rows, the streams, the
//! tasks as stored and what the actors report of themselves.

use super::client::FirstClient;
use super::executor::Executor;
use super::store::TaskSlot;
use crate::model::sim::scenario::{Client, Scenario};
use crate::model::trace::{
    Disposition, Metrics, PushMetrics, Row, RowKind, StreamEnd, StreamRecord,
};

/// What the metrics are counted from once nothing is left to happen.
pub(super) struct Ended<'a> {
    pub(super) sc: &'a Scenario,
    pub(super) rows: &'a [Row],
    pub(super) streams: &'a [StreamRecord],
    pub(super) tasks: &'a [TaskSlot],
    pub(super) client: &'a FirstClient,
    pub(super) executor: &'a Executor,
    /// How client 1's stream ended (`None` for a blocking call).
    pub(super) stream: Option<StreamEnd>,
    /// Whether client 1's blocking call hangs.
    pub(super) hung_call: bool,
    /// The push metrics, with push on.
    pub(super) push: Option<PushMetrics>,
}

/// Counts the run's metrics.
pub(super) fn metrics(end: Ended) -> Metrics {
    let count = |d: Disposition| {
        end.rows
            .iter()
            .filter(|r| r.kind == RowKind::Event && r.disposition == d)
            .count() as u32
    };
    let any = |d: Disposition| {
        end.rows
            .iter()
            .filter(|r| r.kind != RowKind::Push && r.disposition == d)
            .count() as u32
    };
    let client_task = end.tasks[end.client.task()].stored();
    Metrics {
        events_delivered: count(Disposition::Delivered) + count(Disposition::AfterTerminal),
        events_after_terminal: count(Disposition::AfterTerminal),
        dropped_by_guard: count(Disposition::DroppedByGuard),
        final_state: client_task.map(|t| t.state),
        stream: end.stream,
        hung_streams: end
            .streams
            .iter()
            .filter(|s| s.end == StreamEnd::Hung)
            .count() as u32,
        hung_calls: u32::from(end.hung_call),
        tasks_non_terminal: end
            .tasks
            .iter()
            .filter_map(|t| t.stored())
            .filter(|t| !t.state.is_terminal())
            .count() as u32,
        orphaned_steps: end.executor.orphaned(),
        blocking_result_artifacts: if end.sc.client == Client::Block {
            end.client.blocking_result()
        } else {
            None
        },
        get_task_artifacts: client_task.map(|t| t.artifacts.len() as u32),
        cancel_result: end.client.cancel_result(),
        task_lost: client_task.is_none(),
        executions: end.executor.executions(),
        duplicates: any(Disposition::Duplicate),
        rejected: any(Disposition::Rejected),
        incidents: any(Disposition::Incident),
        push: end.push,
    }
}
