//! The vocabulary the actors share (which client, where a call stands,
//! the interruption stages, the events that pass between them) and the
//! state client 1 and the handler hold. Types only, so that the actors'
//! files and the world import these and nothing imports back.

use crate::model::ledger::Body;
use crate::model::state::TaskState;
use crate::model::trace::{CancelResult, Source};
use crate::model::wire::Chunk;

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
pub(super) enum Stage {
    /// Authorization.
    Auth,
    /// Input.
    Input,
}

// ----- the client ------------------------------------------------------

/// Where the client's current call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Call {
    Open,
    /// A subscription still open although nothing will come on it any
    /// more: it hangs unless the client's timeout ends it.
    Stranded,
    Closed,
    TimedOut,
    Returned,
    Failed,
}

/// The client's state: which task it follows and how its call stands.
#[derive(Debug)]
pub(super) struct ClientCall {
    /// The task the client follows now.
    pub(super) task: usize,
    pub(super) call: Call,
    /// Which call this is (a resume makes a new one), so that an old
    /// call's timeout is ignored.
    pub(super) number: u32,
    pub(super) last_activity: u64,
    pub(super) retried: bool,
    /// A blocking result captured before the call may return.
    pub(super) pending_result: Option<(TaskState, u32, serde_json::Value)>,
    pub(super) blocking_result: Option<u32>,
    pub(super) cancel_result: Option<CancelResult>,
    /// The record of the stream the client reads now (`None` for a
    /// blocking client).
    pub(super) stream: Option<usize>,
    /// Whether that stream is a SubscribeToTask stream.
    pub(super) subscribed: bool,
    /// Events received over all its streams, snapshots included.
    pub(super) received: u32,
    /// SubscribeToTask calls made so far.
    pub(super) subscriptions: u32,
}

impl Default for ClientCall {
    fn default() -> Self {
        ClientCall {
            task: 0,
            call: Call::Open,
            number: 0,
            last_activity: 0,
            retried: false,
            pending_result: None,
            blocking_result: None,
            cancel_result: None,
            stream: None,
            subscribed: false,
            received: 0,
            subscriptions: 0,
        }
    }
}

// ----- the handler -----------------------------------------------------

/// What the executor (or cancel(), or the handler) puts on the queue.
#[derive(Debug, Clone)]
pub(super) enum Payload {
    Task,
    /// The task published again at the start of a resumed `execute()`.
    TaskAgain,
    Status {
        state: TaskState,
        receipt: Option<String>,
    },
    Chunk {
        chunk: Chunk,
        part: u32,
    },
}

/// One event as the handler processes it: what it is, how it is decided,
/// stored and shown. Kept whole once the client received it, so that a
/// resend repeats exactly what was sent.
#[derive(Debug, Clone)]
pub(super) struct Event {
    pub(super) exec: usize,
    pub(super) task: usize,
    pub(super) source: Source,
    pub(super) payload: Payload,
    pub(super) event_id: String,
    pub(super) label: String,
    pub(super) wire: serde_json::Value,
    pub(super) body: Body,
    pub(super) digest: String,
    /// The state a status event moves to (or tries to).
    pub(super) target: Option<TaskState>,
}

/// The handler's state.
#[derive(Debug, Default)]
pub(super) struct Handler {
    /// Events emitted so far (their ids are `E1`, `E2`, …).
    pub(super) emitted: u32,
    /// Every event the streaming client received, in order: a resend
    /// repeats one of these, never an event rebuilt from a numbering.
    pub(super) sent: Vec<Event>,
    pub(super) resent: bool,
}
