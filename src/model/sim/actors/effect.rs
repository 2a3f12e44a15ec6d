//! What an actor hands back to the world: effects as data, applied by the
//! world in order (a message to another actor is carried out, with all it
//! leads to, before the next effect), and what an actor may read of the
//! world it does not own ([`Facts`], and [`View`] with the tasks).

use std::ops::Deref;

use super::inputs::{QueueIn, To};
use super::state::{CallState, ClientId};
use super::store::task::TaskSlot;
use crate::model::digest::sha256_fields;
use crate::model::ledger::{Body, LedgerEvent};
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::Scenario;
use crate::model::state::TaskState;
use crate::model::trace::{Entry, Source, StreamEnd, StreamRole};
use crate::model::wire;

/// What every actor may read of the world while it handles an input: the
/// clock, the scenario and a few facts about the others, copied when the
/// input is handed over.
#[derive(Debug, Clone, Copy)]
pub(super) struct Facts<'a> {
    /// The virtual time.
    pub(super) now: u64,
    /// The scenario simulated.
    pub(super) sc: &'a Scenario,
    /// The SDK's behaviour, as data.
    pub(super) profile: &'static Profile,
    /// The task client 1 follows.
    pub(super) followed: usize,
    /// The stored state of that task (`None` once lost).
    pub(super) followed_state: Option<TaskState>,
    /// The tasks an execution still works on, one bit per task.
    pub(super) running: u64,
    /// Where client 1's call stands.
    pub(super) client_call: CallState,
    /// The record of the stream client 1 reads now.
    pub(super) client_stream: Option<usize>,
    /// How many rows the stream `resubscribe=k` counts carried (client 1's
    /// message stream, or with `retry=on` its retried one), while that is
    /// the stream it reads.
    pub(super) dropped_stream_rows: Option<usize>,
    /// The second client's subscription while it is open to receive: its
    /// task and the record of its stream.
    pub(super) second_open: Option<(usize, usize)>,
    /// The record the next stream opened gets.
    pub(super) next_stream: usize,
    /// Client 1's subscription still open beside its resumed call: its
    /// task and the record of its stream.
    pub(super) lingering: Option<(usize, usize)>,
}

/// The stream of an open subscription, if it is to `task`.
fn stream_on(open: Option<(usize, usize)>, task: usize) -> Option<usize> {
    open.filter(|&(on, _)| on == task).map(|(_, stream)| stream)
}

impl Facts<'_> {
    /// Whether an execution still works on `task`.
    pub(super) fn is_running(&self, task: usize) -> bool {
        task < 64 && self.running & (1 << task) != 0
    }

    /// The stream of the second client's subscription to `task`, while it
    /// is open to receive.
    pub(super) fn second_on(&self, task: usize) -> Option<usize> {
        stream_on(self.second_open, task)
    }

    /// The stream of client 1's subscription to `task` beside its resumed
    /// call, while open.
    pub(super) fn lingering_on(&self, task: usize) -> Option<usize> {
        stream_on(self.lingering, task)
    }

    /// A ledger event from `source` (a submission, a cancel request) about
    /// the task client 1 follows.
    pub(super) fn ledger_event(
        &self,
        source: Source,
        event_id: String,
        what: &str,
        body: Body,
    ) -> LedgerEvent {
        LedgerEvent {
            task_id: wire::task_id(self.followed),
            digest: sha256_fields(&[what, &event_id]),
            event_id,
            producer: source.label().into(),
            source_seq: None,
            observed_ms: self.now,
            body,
        }
    }
}

/// [`Facts`] and every task as the store holds it: what an actor other
/// than the store reads (the store reads its own tasks, which it may be
/// changing, and gets the facts alone).
pub(super) struct View<'a> {
    facts: Facts<'a>,
    /// Every task, as the store holds it.
    pub(super) tasks: &'a [TaskSlot],
}

impl<'a> View<'a> {
    /// The facts, with the store's tasks beside them.
    pub(super) fn new(facts: Facts<'a>, tasks: &'a [TaskSlot]) -> View<'a> {
        View { facts, tasks }
    }
}

impl<'a> Deref for View<'a> {
    type Target = Facts<'a>;

    fn deref(&self) -> &Facts<'a> {
        &self.facts
    }
}

/// One thing an actor asks the world to do: write a row or a stream's
/// record, schedule a message, or hand a message to an actor now.
#[derive(Debug)]
pub(super) enum Effect {
    /// Write a row (the world numbers and stamps it).
    Row(Entry),
    /// Write a row a stream carried, and note it in the stream's record.
    RowOn(Option<usize>, Entry),
    /// Open a stream record for a client (the next in order).
    OpenStream(ClientId, StreamRole),
    /// Record how a stream ended.
    EndStream(Option<usize>, StreamEnd),
    /// A message due at a virtual time.
    Schedule(u64, To),
    /// A client's new request at a virtual time, due after the server's
    /// work at that instant.
    Request(u64, To),
    /// A message handled now.
    Send(To),
}

impl Effect {
    /// A message for an actor, handled now.
    pub(super) fn to(input: impl Into<To>) -> Effect {
        Effect::Send(input.into())
    }

    /// A message that reaches its actor through the SDK's event queue: in
    /// its turn, after what the consumer still has to do.
    pub(super) fn queued(input: impl Into<To>) -> Effect {
        Effect::to(QueueIn::Consume(Box::new(input.into())))
    }

    /// A message due at `t`.
    pub(super) fn at(t: u64, input: impl Into<To>) -> Effect {
        Effect::Schedule(t, input.into())
    }

    /// A client's request at `t`.
    pub(super) fn request(t: u64, input: impl Into<To>) -> Effect {
        Effect::Request(t, input.into())
    }
}
