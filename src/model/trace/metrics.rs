//! The metrics of SPEC §4 and §12: their values, their fixed names and
//! order, and each one's value as JSON for the page and for comparisons.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::StreamEnd;
use crate::model::state::TaskState;

/// The metrics of SPEC §4, names fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metrics {
    /// A2A events that reached their consumer.
    pub events_delivered: u32,
    /// Of those, delivered although the task was already terminal.
    pub events_after_terminal: u32,
    /// Refused by the terminal-state guard.
    pub dropped_by_guard: u32,
    /// The stored state at the end, `None` if lost.
    #[serde(with = "crate::model::state::wire_form")]
    pub final_state: Option<TaskState>,
    /// How the stream ended; `None` for a blocking client.
    pub stream: Option<StreamEnd>,
    /// Streams that never end.
    pub hung_streams: u32,
    /// Blocking calls that never return.
    pub hung_calls: u32,
    /// Tasks left neither terminal nor lost.
    pub tasks_non_terminal: u32,
    /// Lookup steps computed after a cancel, output going nowhere.
    pub orphaned_steps: u32,
    /// Artifacts in the blocking result (`None` when streaming or when the
    /// call never returned).
    pub blocking_result_artifacts: Option<u32>,
    /// Artifacts GetTask lists once every actor has finished or hung.
    pub get_task_artifacts: Option<u32>,
    /// What CancelTask answered, `None` without a cancel.
    pub cancel_result: Option<CancelResult>,
    /// The task was lost.
    pub task_lost: bool,
    /// How many times the work ran for one submission.
    pub executions: u32,
    /// Lookup hits in the ledger.
    pub duplicates: u32,
    /// Events the ledger refused with a reason.
    pub rejected: u32,
    /// Conflicting-coordinate incidents.
    pub incidents: u32,
    /// Push notifications (SPEC §12), only when `push` is on.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub push: Option<PushMetrics>,
}

/// The metrics of SPEC §12, present only when `push` is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushMetrics {
    /// POSTs the agent attempted, answered or not.
    pub pushes: u32,
    /// POSTs answered 2xx in time.
    pub pushes_answered: u32,
    /// The last task state the webhook was told.
    #[serde(with = "crate::model::state::wire_form")]
    pub push_last_state: Option<TaskState>,
    /// POSTs after the one that carried the terminal state.
    pub push_after_terminal: u32,
    /// POSTs whose body repeats an earlier one byte for byte.
    pub push_duplicates: u32,
    /// When the client's stream or call ended, `None` if it never did.
    pub client_done_ms: Option<u64>,
}

impl Metrics {
    /// Every metric with its value as JSON, in the fixed order.
    pub fn entries(&self) -> Vec<(Metric, Value)> {
        let push: &[Metric] = if self.push.is_some() {
            &PUSH_METRICS
        } else {
            &[]
        };
        METRICS
            .iter()
            .chain(push)
            .map(|&m| (m, self.value(m)))
            .collect()
    }

    /// A metric's value as the export writes it (a test holds the two
    /// together); written by hand so that the page's metrics need no
    /// serializer.
    pub fn value(&self, metric: Metric) -> Value {
        fn state(s: Option<TaskState>) -> Value {
            s.map_or(Value::Null, |s| s.wire().into())
        }
        let push = self.push.as_ref();
        let pushed = |f: fn(&PushMetrics) -> u32| push.map_or(Value::Null, |p| f(p).into());
        match metric {
            Metric::EventsDelivered => self.events_delivered.into(),
            Metric::EventsAfterTerminal => self.events_after_terminal.into(),
            Metric::DroppedByGuard => self.dropped_by_guard.into(),
            Metric::FinalState => state(self.final_state),
            Metric::Stream => self.stream.map_or(Value::Null, |s| s.label().into()),
            Metric::HungStreams => self.hung_streams.into(),
            Metric::HungCalls => self.hung_calls.into(),
            Metric::TasksNonTerminal => self.tasks_non_terminal.into(),
            Metric::OrphanedSteps => self.orphaned_steps.into(),
            Metric::BlockingResultArtifacts => self.blocking_result_artifacts.into(),
            Metric::GetTaskArtifacts => self.get_task_artifacts.into(),
            Metric::CancelResult => self.cancel_result.map_or(Value::Null, |c| c.label().into()),
            Metric::TaskLost => self.task_lost.into(),
            Metric::Executions => self.executions.into(),
            Metric::Duplicates => self.duplicates.into(),
            Metric::Rejected => self.rejected.into(),
            Metric::Incidents => self.incidents.into(),
            Metric::Pushes => pushed(|p| p.pushes),
            Metric::PushesAnswered => pushed(|p| p.pushes_answered),
            Metric::PushLastState => state(push.and_then(|p| p.push_last_state)),
            Metric::PushAfterTerminal => pushed(|p| p.push_after_terminal),
            Metric::PushDuplicates => pushed(|p| p.push_duplicates),
            Metric::ClientDoneMs => push.and_then(|p| p.client_done_ms).into(),
        }
    }
}

/// A metric of SPEC §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// `events_delivered`
    EventsDelivered,
    /// `events_after_terminal`
    EventsAfterTerminal,
    /// `dropped_by_guard`
    DroppedByGuard,
    /// `final_state`
    FinalState,
    /// `stream`
    Stream,
    /// `hung_streams`
    HungStreams,
    /// `hung_calls`
    HungCalls,
    /// `tasks_non_terminal`
    TasksNonTerminal,
    /// `orphaned_steps`
    OrphanedSteps,
    /// `blocking_result_artifacts`
    BlockingResultArtifacts,
    /// `get_task_artifacts`
    GetTaskArtifacts,
    /// `cancel_result`
    CancelResult,
    /// `task_lost`
    TaskLost,
    /// `executions`
    Executions,
    /// `duplicates`
    Duplicates,
    /// `rejected`
    Rejected,
    /// `incidents`
    Incidents,
    /// `pushes`
    Pushes,
    /// `pushes_answered`
    PushesAnswered,
    /// `push_last_state`
    PushLastState,
    /// `push_after_terminal`
    PushAfterTerminal,
    /// `push_duplicates`
    PushDuplicates,
    /// `client_done_ms`
    ClientDoneMs,
}

/// Every metric, in the order of SPEC §4 then §12, with its fixed name (the
/// export's, the CLI's and the page's `data-metric`) and its label for
/// people: the one table of both.
#[rustfmt::skip]
const METRIC_TABLE: [(Metric, &str, &str); 23] = [
    (Metric::EventsDelivered, "events_delivered", "events delivered"),
    (Metric::EventsAfterTerminal, "events_after_terminal", "after terminal"),
    (Metric::DroppedByGuard, "dropped_by_guard", "dropped by guard"),
    (Metric::FinalState, "final_state", "final state"),
    (Metric::Stream, "stream", "stream"),
    (Metric::HungStreams, "hung_streams", "hung streams"),
    (Metric::HungCalls, "hung_calls", "hung calls"),
    (Metric::TasksNonTerminal, "tasks_non_terminal", "non-terminal tasks"),
    (Metric::OrphanedSteps, "orphaned_steps", "orphaned steps"),
    (Metric::BlockingResultArtifacts, "blocking_result_artifacts", "blocking result artifacts"),
    (Metric::GetTaskArtifacts, "get_task_artifacts", "GetTask artifacts"),
    (Metric::CancelResult, "cancel_result", "cancel result"),
    (Metric::TaskLost, "task_lost", "task lost"),
    (Metric::Executions, "executions", "executions"),
    (Metric::Duplicates, "duplicates", "duplicates"),
    (Metric::Rejected, "rejected", "rejected"),
    (Metric::Incidents, "incidents", "incidents"),
    (Metric::Pushes, "pushes", "pushes"),
    (Metric::PushesAnswered, "pushes_answered", "pushes answered"),
    (Metric::PushLastState, "push_last_state", "webhook's last state"),
    (Metric::PushAfterTerminal, "push_after_terminal", "pushed after terminal"),
    (Metric::PushDuplicates, "push_duplicates", "push duplicates"),
    (Metric::ClientDoneMs, "client_done_ms", "client done (ms)"),
];

/// Every metric, in the order of SPEC §4.
pub const METRICS: [Metric; 17] = {
    let mut all = [Metric::EventsDelivered; 17];
    let mut i = 0;
    while i < 17 {
        all[i] = METRIC_TABLE[i].0;
        i += 1;
    }
    all
};

/// The push metrics of SPEC §12, present only when `push` is on.
pub const PUSH_METRICS: [Metric; 6] = [
    Metric::Pushes,
    Metric::PushesAnswered,
    Metric::PushLastState,
    Metric::PushAfterTerminal,
    Metric::PushDuplicates,
    Metric::ClientDoneMs,
];

impl Metric {
    fn row(self) -> (Metric, &'static str, &'static str) {
        // The table lists every metric in declaration order.
        METRIC_TABLE[self as usize]
    }

    /// The fixed name: the export's, the CLI's, the page's `data-metric`.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// A short label for people.
    pub fn label(self) -> &'static str {
        self.row().2
    }

    /// The metric named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Metric> {
        METRIC_TABLE
            .into_iter()
            .map(|(m, ..)| m)
            .find(|m| m.name() == name)
    }
}

impl Serialize for Metric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// What CancelTask answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelResult {
    /// The task was canceled.
    Canceled,
    /// TaskNotCancelableError: the task was already terminal (or stayed
    /// where it was).
    NotCancelable,
    /// Any other error.
    Error,
}

impl CancelResult {
    /// The snake_case spelling the export writes.
    pub fn label(self) -> &'static str {
        match self {
            CancelResult::Canceled => "canceled",
            CancelResult::NotCancelable => "not_cancelable",
            CancelResult::Error => "error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pictures::examples::EXAMPLES;
    use crate::model::sim::scenario::Scenario;
    use crate::model::sim::simulate;

    #[test]
    fn each_metric_s_value_is_what_the_export_writes() {
        let mut pushes = 0;
        for example in EXAMPLES {
            let scenario = Scenario::from_query(example.query).expect("an example reads");
            let metrics = simulate(&scenario).trace.metrics;
            pushes += usize::from(metrics.push.is_some());
            let Ok(Value::Object(written)) = serde_json::to_value(&metrics) else {
                panic!("metrics write as an object");
            };
            let entries = metrics.entries();
            let expected = METRICS.len() + metrics.push.as_ref().map_or(0, |_| PUSH_METRICS.len());
            assert_eq!(entries.len(), expected, "{}", example.query);
            for (metric, value) in entries {
                assert_eq!(
                    Some(&value),
                    written.get(metric.name()),
                    "{}: {}",
                    example.query,
                    metric.name()
                );
            }
        }
        assert!(pushes > 0, "an example pushes");
    }
}
