//! One POST as the push sender builds it, and how the webhook met it: what
//! the messages carry between the sender and the webhook (a file of their
//! own, so that the inputs name them without importing either actor's
//! code).

use crate::model::state::TaskState;
use crate::model::wire::{SimEvent, Wire};

/// One POST as the sender builds it.
#[derive(Debug, Clone)]
pub(in crate::model::sim::actors) struct Post {
    /// The task it tells of.
    pub(in crate::model::sim::actors) task: usize,
    pub(in crate::model::sim::actors) body: SimEvent,
    /// The wire it is written on.
    pub(in crate::model::sim::actors) on: Wire,
    /// The task state the body tells, if it tells one.
    pub(in crate::model::sim::actors) state: Option<TaskState>,
    /// What the body is, for the row's label.
    pub(in crate::model::sim::actors) what: String,
    /// The consumer waits for its answer.
    pub(in crate::model::sim::actors) holds: bool,
}

/// How the webhook met one POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::model::sim::actors) enum Reply {
    /// It answered with this HTTP status at this virtual time.
    Status(u16, u64),
    /// Nothing listens: the connection was refused at once.
    Refused,
}
