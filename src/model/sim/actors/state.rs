//! The vocabulary the actors share: which client, where a call stands,
//! the interruption stages, the events that pass between them. Types only,
//! so that the actors' files and the world import these and nothing
//! imports back (and the tracking artifact's chunks, which the executor
//! sends and the handler's conflicting resend alters).

use crate::model::ledger::Body;
use crate::model::state::TaskState;
use crate::model::trace::Source;
use crate::model::wire::{Chunk, SimEvent, TRACKING_ARTIFACT};

// ----- the clients -----------------------------------------------------

/// Which client acts: the one that sends the message, or the second client
/// of `second_client=k`, which only subscribes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ClientId {
    /// The client that sends the message (and may subscribe again).
    First,
    /// The second client: one SubscribeToTask stream.
    Second,
}

impl ClientId {
    /// How the trace numbers the client (1 or 2).
    pub(super) fn number(self) -> u8 {
        match self {
            ClientId::First => 1,
            ClientId::Second => 2,
        }
    }
}

// ----- the executor ----------------------------------------------------

/// An interruption the executor asks for after WORKING.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Interruption {
    /// Authorization.
    Auth,
    /// Input.
    Input,
}

// ----- the client ------------------------------------------------------

/// Where the client's current call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CallState {
    /// Waiting for what comes next.
    Open,
    /// A subscription still open although nothing will come on it any
    /// more: it hangs unless the client's timeout ends it.
    Stranded,
    /// Ended by the server, or dropped by the client.
    Closed,
    /// The client gave up at its timeout.
    TimedOut,
    /// A blocking call returned its result.
    Returned,
    /// A blocking call failed (its connection was reset).
    Failed,
}

// ----- the handler -----------------------------------------------------

/// What the executor (or cancel(), or the handler) puts on the queue.
#[derive(Debug, Clone)]
pub(super) enum Payload {
    /// The Task, SUBMITTED.
    Task,
    /// The task published again at the start of a resumed `execute()`.
    TaskAgain,
    /// A status update (a resume's WORKING carries the client's receipt).
    Status {
        state: TaskState,
        receipt: Option<String>,
    },
    /// An artifact chunk, part `part` of its artifact.
    Chunk { chunk: Chunk, part: u32 },
    /// Progress (SPEC §14): WORKING again with an agent message, update
    /// `update` of `of` before step `step`.
    Progress { step: u32, update: u32, of: u32 },
}

/// One event as the handler processes it: what it is, how it is decided,
/// stored and shown. Kept whole once the client received it, so that a
/// resend repeats exactly what was sent.
#[derive(Debug, Clone)]
pub(super) struct Event {
    /// The execution it comes from.
    pub(super) exec: usize,
    /// The task it is about.
    pub(super) task: usize,
    /// Who put it on the queue.
    pub(super) source: Source,
    pub(super) payload: Payload,
    /// Its id (`E1`, `E2`, …; a resend keeps the id it repeats).
    pub(super) event_id: String,
    /// What its row says.
    pub(super) label: String,
    /// The event as the wire carries it.
    pub(super) wire: SimEvent,
    /// What the ledger judges.
    pub(super) body: Body,
    /// The digest the ledger compares a repeated id by.
    pub(super) digest: String,
    /// The state a status event moves to (or tries to).
    pub(super) target: Option<TaskState>,
}

/// The whole tracking artifact in one event, every step's part
/// (`result=last`).
pub(super) fn tracking_result(n: u32) -> Chunk {
    Chunk {
        parts: (1..=n)
            .flat_map(|step| tracking_chunk(step, n, false).parts)
            .collect(),
        append: false,
        last_chunk: true,
        ..tracking_chunk(1, n, false)
    }
}

/// The k-th chunk of the tracking artifact (k from 1).
pub(super) fn tracking_chunk(step: u32, n: u32, conflicting: bool) -> Chunk {
    let what = if conflicting {
        "delivered to a neighbour".to_string()
    } else if step == n {
        "out for delivery".to_string()
    } else if step == 1 {
        "packed at the Belgavi warehouse".to_string()
    } else if step == 2 {
        "handed to the courier".to_string()
    } else {
        format!("in transit, checkpoint {step}")
    };
    Chunk {
        artifact_id: TRACKING_ARTIFACT.into(),
        name: "courier-tracking".into(),
        parts: vec![format!("BBS-1042 courier step {step}/{n}: {what}")],
        append: step > 1,
        last_chunk: step == n,
    }
}
