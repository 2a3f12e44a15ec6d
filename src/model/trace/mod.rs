//! The trace a simulation returns: rows with the columns of SPEC §4, the
//! streams they came on, and the metrics with their fixed names
//! (`metrics`).

use serde::{Deserialize, Serialize};

use crate::model::ledger::{Decision, Outcome, Reason, TaskLedger};
use crate::model::state::TaskState;
use crate::model::wire::RowWire;

mod metrics;

pub use metrics::{CancelResult, Metric, Metrics, PushMetrics, METRICS, PUSH_METRICS};

/// Who produced a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Source {
    /// The agent's `execute()`.
    #[serde(rename = "executor")]
    Executor,
    /// The agent's `cancel()`.
    #[serde(rename = "cancel()")]
    Cancel,
    /// The SDK's request handler (queue, stream, task store).
    #[serde(rename = "handler")]
    Handler,
    /// The A2A client.
    #[serde(rename = "client")]
    Client,
    /// The server process.
    #[serde(rename = "server")]
    Server,
    /// The client's webhook, receiving the agent's push notifications.
    #[serde(rename = "webhook")]
    Webhook,
}

impl Source {
    /// Every source that has a lane in every timeline, in lane order (the
    /// webhook's lane is added when a trace has pushes).
    pub const ALL: [Source; 5] = [
        Source::Executor,
        Source::Cancel,
        Source::Handler,
        Source::Client,
        Source::Server,
    ];

    /// The spelling used in exports and the page.
    pub fn label(self) -> &'static str {
        match self {
            Source::Executor => "executor",
            Source::Cancel => "cancel()",
            Source::Handler => "handler",
            Source::Client => "client",
            Source::Server => "server",
            Source::Webhook => "webhook",
        }
    }
}

/// What happened to a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Disposition {
    /// Reached its consumer (the stream's client, or a blocking call's
    /// result aggregator and task store).
    Delivered,
    /// Refused by the terminal-state guard.
    DroppedByGuard,
    /// Delivered although the task was already terminal.
    AfterTerminal,
    /// Work done after a cancel whose output nobody receives.
    Orphaned,
    /// Lost with the server's memory.
    Lost,
    /// A lookup hit in the ledger: nothing changed.
    Duplicate,
    /// Refused by the ledger with a reason.
    Rejected,
    /// The same artifact coordinate with different bytes, recorded.
    Incident,
    /// Processed by the server but not received by the client.
    NotDelivered,
}

impl Disposition {
    /// How a ledger decision shows in a row, decided here for the
    /// simulator, the presets and the capture judge alike: `None` where the
    /// event passes. `guard`: the task's state where the lab's guard stands
    /// in front of delivery and storage (the simulator with `guard=on`), so
    /// that a refusal of what comes after the end is the guard dropping it;
    /// `None` where the ledger only judges (a preset, a capture), and a
    /// refusal is a rejection.
    pub fn of_decision(decision: &Decision, guard: Option<TaskState>) -> Option<Disposition> {
        Some(match decision {
            Decision::Duplicate(_) | Decision::New(Outcome::Replayed { .. }) => {
                Disposition::Duplicate
            }
            Decision::New(Outcome::Incident { .. }) => Disposition::Incident,
            Decision::New(Outcome::Rejected { reason }) => match reason {
                Reason::AfterTerminal | Reason::ResultSetClosed if guard.is_some() => {
                    Disposition::DroppedByGuard
                }
                Reason::IllegalTransition if guard.is_some_and(TaskState::is_terminal) => {
                    Disposition::DroppedByGuard
                }
                _ => Disposition::Rejected,
            },
            Decision::New(_) => return None,
        })
    }

    /// Every disposition, for legends.
    pub const ALL: [Disposition; 9] = [
        Disposition::Delivered,
        Disposition::DroppedByGuard,
        Disposition::AfterTerminal,
        Disposition::Orphaned,
        Disposition::Lost,
        Disposition::Duplicate,
        Disposition::Rejected,
        Disposition::Incident,
        Disposition::NotDelivered,
    ];

    /// The kebab-case spelling.
    pub fn label(self) -> &'static str {
        match self {
            Disposition::Delivered => "delivered",
            Disposition::DroppedByGuard => "dropped-by-guard",
            Disposition::AfterTerminal => "after-terminal",
            Disposition::Orphaned => "orphaned",
            Disposition::Lost => "lost",
            Disposition::Duplicate => "duplicate",
            Disposition::Rejected => "rejected",
            Disposition::Incident => "incident",
            Disposition::NotDelivered => "not-delivered",
        }
    }
}

/// Whether a row is an A2A event or an action around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowKind {
    /// A task, status-update or artifact-update event.
    Event,
    /// A request, a stream ending, a restart, a computed step.
    Action,
    /// A POST of a push notification to the client's webhook (SPEC §12).
    Push,
}

/// One row of the decision trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Position in the trace, from 0.
    pub index: usize,
    /// Virtual time in milliseconds.
    pub t_ms: u64,
    /// Who produced it.
    pub source: Source,
    /// Which client received it or acted (SPEC §9): 1, or 2 for the second
    /// client. Written only when it is not 1, so traces without a second
    /// client keep their bytes.
    #[serde(default = "first_client", skip_serializing_if = "is_first_client")]
    pub client: u8,
    /// A short label for people.
    pub event: String,
    /// What happened to it.
    pub disposition: Disposition,
    /// The stored task state after it, `None` once lost.
    #[serde(with = "crate::model::state::wire_form")]
    pub state_after: Option<TaskState>,
    /// For a status event, the state it moves to (or tried to move to, when
    /// it was dropped or rejected).
    #[serde(with = "crate::model::state::wire_form")]
    pub target: Option<TaskState>,
    /// The exact wire JSON, for a row the client received (for a push,
    /// the body as sent); written out by [`RowWire::json`].
    pub wire: Option<RowWire>,
    /// For a push notification (SPEC §12): what was sent and answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<PushRecord>,
    /// Event or action.
    pub kind: RowKind,
    /// Behaviour the seed did not measure: modelled, labelled as assumed.
    pub assumed: bool,
}

/// A push record's answer where the webhook answered so close to the
/// sender's timeout that it races it (SPEC §14): neither answered nor
/// lost for sure.
pub const PUSH_RACED: &str = "race";

/// One POST to the webhook as its row shows it (SPEC §12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushRecord {
    /// The names of the headers sent, in order (values never shown).
    pub headers: Vec<String>,
    /// `200`, `500`, `refused`, `timeout`, or `race` ([`PUSH_RACED`]).
    pub answer: String,
    /// When the webhook answered (virtual ms), `None` when it did not.
    pub answered_ms: Option<u64>,
}

fn first_client() -> u8 {
    1
}

fn is_first_client(client: &u8) -> bool {
    *client == 1
}

/// A row as an actor describes it: the trace numbers it and stamps its
/// time and the state after it ([`Entry::row`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    source: Source,
    client: u8,
    event: String,
    disposition: Disposition,
    kind: RowKind,
    wire: Option<RowWire>,
    push: Option<PushRecord>,
    target: Option<TaskState>,
    assumed: bool,
}

impl Entry {
    /// An action (a request, a stream ending, a restart), delivered.
    pub fn action(source: Source, event: impl Into<String>) -> Entry {
        Entry {
            source,
            client: 1,
            event: event.into(),
            disposition: Disposition::Delivered,
            kind: RowKind::Action,
            wire: None,
            push: None,
            target: None,
            assumed: false,
        }
    }

    /// An A2A event with what happened to it.
    pub fn event(source: Source, event: impl Into<String>, disposition: Disposition) -> Entry {
        Entry {
            kind: RowKind::Event,
            disposition,
            ..Entry::action(source, event)
        }
    }

    /// A POST to the webhook (SPEC §12), with what happened to it.
    pub fn push_event(event: impl Into<String>, disposition: Disposition) -> Entry {
        Entry {
            kind: RowKind::Push,
            disposition,
            ..Entry::action(Source::Webhook, event)
        }
    }

    /// What happened to it.
    pub fn disposition(self, disposition: Disposition) -> Entry {
        Entry {
            disposition,
            ..self
        }
    }

    /// The wire JSON the client received.
    pub fn wire(self, wire: Option<RowWire>) -> Entry {
        Entry { wire, ..self }
    }

    /// The state a status event moves to (or tried to).
    pub fn target(self, target: Option<TaskState>) -> Entry {
        Entry { target, ..self }
    }

    /// A POST to the webhook: what was sent and answered.
    pub fn push(self, push: PushRecord) -> Entry {
        Entry {
            push: Some(push),
            ..self
        }
    }

    /// Which client received it or acted (1 unless said).
    pub fn client(self, client: u8) -> Entry {
        Entry { client, ..self }
    }

    /// Modelled without a measurement behind it.
    pub fn assumed(self, assumed: bool) -> Entry {
        Entry { assumed, ..self }
    }

    /// The row at position `index`, virtual time `t_ms`, with the stored
    /// state after it.
    pub fn row(self, index: usize, t_ms: u64, state_after: Option<TaskState>) -> Row {
        Row {
            index,
            t_ms,
            source: self.source,
            client: self.client,
            event: self.event,
            disposition: self.disposition,
            state_after,
            target: self.target,
            wire: self.wire,
            push: self.push,
            kind: self.kind,
            assumed: self.assumed,
        }
    }
}

/// How a blocking call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallEnd {
    /// It returned a result.
    Returned,
    /// The client's timeout gave up on it.
    TimedOut,
    /// It never returns.
    Hung,
    /// The connection broke.
    Failed,
}

/// A complete simulation result: playback is only an index into `rows`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// The rows, in time order.
    pub rows: Vec<Row>,
    /// The metrics.
    pub metrics: Metrics,
}

/// A finished simulation: the trace and the ledgers behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Rows and metrics.
    pub trace: Trace,
    /// The ledger of each task (one, or two for the release drill or a
    /// retry without the guard). With `guard=off` it only observes: it
    /// records what the guard would decide.
    pub ledgers: Vec<TaskLedger>,
    /// How a blocking client's last call ended; `None` for a streaming
    /// client.
    pub call_end: Option<CallEnd>,
    /// Every stream a client read, in the order they opened (empty for a
    /// blocking client and a preset).
    pub streams: Vec<StreamRecord>,
}

/// Why a client opened a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamRole {
    /// Client 1's SendStreamingMessage (a resume continues it).
    Send,
    /// Client 1's SendStreamingMessage again with the same message id
    /// (`retry`), after it dropped the first.
    Retry,
    /// Client 1's SubscribeToTask after its stream dropped or broke.
    Resubscribe,
    /// The second client's SubscribeToTask.
    SecondClient,
}

impl StreamRole {
    /// Whether the stream is a SubscribeToTask stream (of either client).
    pub fn is_subscription(self) -> bool {
        matches!(self, StreamRole::Resubscribe | StreamRole::SecondClient)
    }
}

/// How a stream ended, in the words of the fidelity recordings: each
/// stream's record, and the `stream` metric (client 1's message stream,
/// which ends closed, hung or timed out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamEnd {
    /// The server ended it.
    Closed,
    /// Nothing will ever end it.
    Hung,
    /// The client's own timeout gave up on it.
    TimedOut,
    /// The client dropped the connection (`resubscribe`).
    DroppedByClient,
    /// The server went away (a restart).
    Broken,
    /// A JSON-RPC error with this code instead of any event.
    Error(crate::model::wire::RpcCode),
}

impl StreamEnd {
    /// `closed`, `hung`, `timed_out`, `dropped_by_client`, `broken` or
    /// `error`, as the recorders write a stream's `end`.
    pub fn label(self) -> &'static str {
        match self {
            StreamEnd::Closed => "closed",
            StreamEnd::Hung => "hung",
            StreamEnd::TimedOut => "timed_out",
            StreamEnd::DroppedByClient => "dropped_by_client",
            StreamEnd::Broken => "broken",
            StreamEnd::Error(_) => "error",
        }
    }
}

/// Written as its label; an error's code is kept in the stream's record,
/// not in the metric.
impl Serialize for StreamEnd {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.label())
    }
}

impl<'de> Deserialize<'de> for StreamEnd {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let label = <std::borrow::Cow<str>>::deserialize(deserializer)?;
        const LABELS: &[&str] = &[
            "closed",
            "hung",
            "timed_out",
            "dropped_by_client",
            "broken",
            "error",
        ];
        Ok(match label.as_ref() {
            "closed" => StreamEnd::Closed,
            "hung" => StreamEnd::Hung,
            "timed_out" => StreamEnd::TimedOut,
            "dropped_by_client" => StreamEnd::DroppedByClient,
            "broken" => StreamEnd::Broken,
            "error" => StreamEnd::Error(0),
            other => return Err(serde::de::Error::unknown_variant(other, LABELS)),
        })
    }
}

/// One stream a client read: who, why, the rows it carried and its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRecord {
    /// 1, or 2 for the second client.
    pub client: u8,
    /// Why it was opened.
    pub role: StreamRole,
    /// When it was opened, virtual ms.
    pub opened_ms: u64,
    /// The rows of the events it carried, in order.
    pub rows: Vec<usize>,
    /// How it ended ([`StreamEnd::Hung`] until something ends it).
    pub end: StreamEnd,
}
