//! What an actor hands back to the world: effects as data, applied by the
//! world in order (an effect that reaches another actor is carried out,
//! with all it leads to, before the next one), and the read-only view an
//! actor gets of everything it does not own.

use super::state::{Call, ClientId, Payload, Stage};
use super::store::TaskSlot;
use super::Act;
use crate::model::ledger::LedgerEvent;
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::Scenario;
use crate::model::state::TaskState;
use crate::model::trace::{Entry, Source, StreamOutcome, StreamRole};

/// What an actor may read of the world while it handles an input.
pub(super) struct View<'a> {
    /// The virtual time.
    pub(super) now: u64,
    pub(super) sc: &'a Scenario,
    pub(super) profile: &'static Profile,
    /// The task client 1 follows.
    pub(super) followed: usize,
    /// Where client 1's call stands.
    pub(super) client_call: Call,
    /// Every task, as the store holds it.
    pub(super) tasks: &'a [TaskSlot],
}

impl View<'_> {
    /// The stored state of the task client 1 follows (`None` once lost).
    pub(super) fn followed_state(&self) -> Option<TaskState> {
        self.tasks[self.followed].stored.as_ref().map(|t| t.state)
    }
}

/// One thing an actor asks the world to do.
#[derive(Debug)]
pub(super) enum Effect {
    /// Write a row (the world numbers and stamps it).
    Row(Entry),
    /// Write a row a stream carried, and note it in the stream's record.
    RowOn(Option<usize>, Entry),
    /// Open a stream record for a client (the next in order).
    OpenStream(ClientId, StreamRole),
    /// A client's call changed.
    SetCall(ClientId, Call),
    /// Client 1 received an event (a snapshot included).
    ClientReceived,
    /// Schedule an act at a virtual time.
    Schedule(u64, Act),
    /// Record how a stream ended.
    EndStream(Option<usize>, StreamOutcome),
    /// The server process died: every execution with it.
    KillExecutions,
    /// An event for the handler to send through the guard, the store and
    /// the streams.
    Emit {
        exec: usize,
        source: Source,
        payload: Payload,
    },
    /// The resumed execution's WORKING (with the client's receipt), whose
    /// decision the executor waits for.
    EmitResume {
        exec: usize,
        stage: Stage,
        receipt: Option<String>,
    },
    /// An event the task's ledger decides without the handler (a
    /// submission, a cancel request).
    Ledger(usize, LedgerEvent),
    /// The first chunk (or none) went out: client 1 may retry now.
    MaybeRetry { task: usize },
    /// `execute()` returns.
    ExecuteReturns(usize),
    /// The queue closed: client 1's call ends (`label` says why).
    EndCall(String),
    /// The queue of `task` closed: the second client's subscription to it
    /// ends as the profile says.
    CloseSecond { task: usize, label: String },
    /// A restart broke client 1's connection.
    BreakClient { assumed: bool },
    /// A restart broke the second client's subscription.
    BreakSecond,
    /// A fresh in-memory store: every task is lost.
    LoseTasks,
    /// Client 1 subscribes again after its stream broke, if set to.
    ResubscribeAfterBreak,
}
