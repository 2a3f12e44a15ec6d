//! One POST as the push sender builds it: what the effects carry between
//! the sender and the world (its own file, so that the effects name it
//! without importing the sender).

use crate::model::state::TaskState;

/// One POST as the sender builds it.
#[derive(Debug, Clone)]
pub(super) struct Post {
    pub(super) body: serde_json::Value,
    /// The task state the body tells, if it tells one.
    pub(super) state: Option<TaskState>,
    /// What the body is, for the row's label.
    pub(super) what: String,
    /// The consumer waits for its answer.
    pub(super) holds: bool,
}
