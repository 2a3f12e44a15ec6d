//! One POST as the push sender builds it, and how the webhook met it: what
//! the messages carry between the sender and the webhook (their own file,
//! so that the inputs name them without importing either actor).

use crate::model::state::TaskState;
use crate::model::wire::{SimEvent, Wire};

/// One POST as the sender builds it.
#[derive(Debug, Clone)]
pub(super) struct Post {
    /// The task it tells of.
    pub(super) task: usize,
    pub(super) body: SimEvent,
    /// The wire it is written on.
    pub(super) on: Wire,
    /// The task state the body tells, if it tells one.
    pub(super) state: Option<TaskState>,
    /// What the body is, for the row's label.
    pub(super) what: String,
    /// The consumer waits for its answer.
    pub(super) holds: bool,
}

/// How the webhook met one POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reply {
    /// It answered with this HTTP status at this virtual time.
    Status(u16, u64),
    /// Nothing listens: the connection was refused at once.
    Refused,
}
