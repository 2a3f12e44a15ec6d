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

/// A state as a producer sent it: one of the eight, or text that names
/// none. The ledger refuses the latter (SPEC §2), so it must be
/// representable; `T` holds its text, owned in a stored event and
/// borrowed where an event is judged in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SentState<T = String> {
    /// One of the eight.
    Known(TaskState),
    /// Anything else, as sent.
    Other(T),
}

impl<T: AsRef<str>> SentState<T> {
    /// Reads the seed's kebab-case form: a name of the eight, or other
    /// text kept as sent.
    pub fn read(text: T) -> SentState<T> {
        match TaskState::from_kebab(text.as_ref()) {
            Some(state) => SentState::Known(state),
            None => SentState::Other(text),
        }
    }

    /// The state, when it is one of the eight.
    pub fn known(&self) -> Option<TaskState> {
        match self {
            SentState::Known(state) => Some(*state),
            SentState::Other(_) => None,
        }
    }

    /// The kebab-case name, or the text as sent.
    pub fn text(&self) -> &str {
        match self {
            SentState::Known(state) => state.kebab(),
            SentState::Other(text) => text.as_ref(),
        }
    }

    /// The same state, its text borrowed.
    pub fn borrowed(&self) -> SentState<&str> {
        match self {
            SentState::Known(state) => SentState::Known(*state),
            SentState::Other(text) => SentState::Other(text.as_ref()),
        }
    }
}

impl<T> From<TaskState> for SentState<T> {
    fn from(state: TaskState) -> SentState<T> {
        SentState::Known(state)
    }
}

impl From<&str> for SentState {
    fn from(text: &str) -> SentState {
        SentState::read(text).owned()
    }
}

impl From<String> for SentState {
    fn from(text: String) -> SentState {
        SentState::read(text)
    }
}

impl SentState<&str> {
    /// The same state with its text owned.
    pub fn owned(self) -> SentState {
        match self {
            SentState::Known(state) => SentState::Known(state),
            SentState::Other(text) => SentState::Other(text.to_string()),
        }
    }
}

/// Written as its text, as the seed's events carry it.
impl<T: AsRef<str>> Serialize for SentState<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.text())
    }
}

impl<'de> Deserialize<'de> for SentState {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SentState, D::Error> {
        String::deserialize(deserializer).map(SentState::read)
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
