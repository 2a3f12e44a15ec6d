//! The eight concrete A2A task states, their classification and the seed's
//! exhaustive application transition allowlist.

use serde::{Deserialize, Serialize};

/// A concrete A2A 1.0 task state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    /// Accepted by the server, not yet started.
    Submitted,
    /// The executor is making progress.
    Working,
    /// Progress is blocked until the client supplies input.
    InputRequired,
    /// Progress is blocked until the client is authorized.
    AuthRequired,
    /// Terminal: finished successfully.
    Completed,
    /// Terminal: finished with an error.
    Failed,
    /// Terminal: canceled on request.
    Canceled,
    /// Terminal: the agent declined the task.
    Rejected,
}

impl TaskState {
    /// All eight states, in the seed's order.
    pub const ALL: [TaskState; 8] = [
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::AuthRequired,
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::Rejected,
    ];

    /// Completed, failed, canceled and rejected never reopen.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// Input-required and auth-required pause progress without ending it.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// The ProtoJSON spelling used on the A2A 1.0 wire (`TASK_STATE_WORKING`).
    pub fn wire(self) -> &'static str {
        match self {
            TaskState::Submitted => "TASK_STATE_SUBMITTED",
            TaskState::Working => "TASK_STATE_WORKING",
            TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
            TaskState::Completed => "TASK_STATE_COMPLETED",
            TaskState::Failed => "TASK_STATE_FAILED",
            TaskState::Canceled => "TASK_STATE_CANCELED",
            TaskState::Rejected => "TASK_STATE_REJECTED",
        }
    }

    /// The wire spelling without its prefix (`INPUT_REQUIRED`), as the
    /// page shows a stored state.
    pub fn short(self) -> &'static str {
        &self.wire()["TASK_STATE_".len()..]
    }

    /// The seed ledger's kebab-case spelling (`input-required`).
    pub fn kebab(self) -> &'static str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::InputRequired => "input-required",
            TaskState::AuthRequired => "auth-required",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Canceled => "canceled",
            TaskState::Rejected => "rejected",
        }
    }

    /// A short upper-case label for people (`INPUT-REQUIRED`).
    pub fn label(self) -> String {
        self.kebab().to_ascii_uppercase()
    }

    /// Parses the kebab-case form; anything else is not a concrete state.
    pub fn from_kebab(s: &str) -> Option<TaskState> {
        // A match, not a search through `kebab()`: the ledger parses a
        // status per event, and constant comparisons inline.
        Some(match s {
            "submitted" => TaskState::Submitted,
            "working" => TaskState::Working,
            "input-required" => TaskState::InputRequired,
            "auth-required" => TaskState::AuthRequired,
            "completed" => TaskState::Completed,
            "failed" => TaskState::Failed,
            "canceled" => TaskState::Canceled,
            "rejected" => TaskState::Rejected,
            _ => return None,
        })
    }

    /// Parses the wire form; anything else is not a concrete state.
    pub fn from_wire(s: &str) -> Option<TaskState> {
        TaskState::ALL.into_iter().find(|st| st.wire() == s)
    }

    /// The seed's exhaustive declared application allowlist: A2A defines the
    /// states and terminality but no normative transition table, so this is
    /// local policy, and nothing leaves a terminal state.
    pub fn allows(self, to: TaskState) -> bool {
        use TaskState::*;
        match self {
            Submitted => to != Submitted,
            Working => !matches!(to, Submitted | Working),
            InputRequired => !matches!(to, Submitted | InputRequired),
            AuthRequired => !matches!(to, Submitted | AuthRequired),
            Completed | Failed | Canceled | Rejected => false,
        }
    }

    /// Every allowed edge, for the state diagram.
    pub fn allowlist_edges() -> Vec<(TaskState, TaskState)> {
        let mut edges = Vec::new();
        for from in TaskState::ALL {
            for to in TaskState::ALL {
                if from.allows(to) {
                    edges.push((from, to));
                }
            }
        }
        edges
    }
}

/// Serde for an optional state in its A2A 1.0 wire spelling
/// (`TASK_STATE_WORKING`, or `null`), as trace rows and metrics write it:
/// the one place that spelling enters an export.
pub mod wire_form {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::TaskState;

    /// Writes `TASK_STATE_…` or `null`.
    pub fn serialize<S: Serializer>(state: &Option<TaskState>, s: S) -> Result<S::Ok, S::Error> {
        match state {
            Some(state) => s.serialize_some(state.wire()),
            None => s.serialize_none(),
        }
    }

    /// Reads `TASK_STATE_…` or `null`; any other text is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TaskState>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| {
            TaskState::from_wire(&t)
                .ok_or_else(|| D::Error::custom(format!("`{t}` is not a task state")))
        })
        .transpose()
    }
}
