//! What the lab's checks can find: a leaf that every other evidence file
//! imports and that imports none of them. The one depth limit every reader
//! of untrusted JSON shares is the wire's, re-exported here.

use serde::Serialize;

use crate::model::ledger::Reason;
pub use crate::model::wire::event::{check_depth, MAX_DEPTH};

/// What a finding says is broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingCode {
    /// An event after the task was already terminal.
    AfterTerminal,
    /// The stream ended while the task was neither terminal nor interrupted.
    MissingTerminal,
    /// The same artifact coordinate with other bytes.
    ConflictingCoordinate,
    /// A transition outside the allowlist, or a state outside the eight.
    IllegalTransition,
    /// The same event again.
    Duplicate,
    /// An append to an artifact the client holds no start of.
    ArtifactGap,
    /// Any other refusal of the ledger, by its reason.
    Refused(Reason),
    /// An export that does not re-simulate to itself.
    Differs,
    /// A webhook was sent a POST after the one that told it a terminal
    /// state (SPEC §12).
    PushedAfterTerminal,
    /// A webhook was sent a body it had been sent before, byte for byte.
    PushDuplicate,
    /// A webhook's log ends while the last state it was told is neither
    /// terminal nor interrupted, though the stream or GetTask says the task
    /// ended.
    PushMissingTerminal,
}

impl FindingCode {
    /// The kebab-case code of SPEC §5 (a refusal's is its reason's).
    pub fn code(self) -> &'static str {
        match self {
            FindingCode::AfterTerminal => "after-terminal",
            FindingCode::MissingTerminal => "missing-terminal",
            FindingCode::ConflictingCoordinate => "conflicting-coordinate",
            FindingCode::IllegalTransition => "illegal-transition",
            FindingCode::Duplicate => "duplicate",
            FindingCode::ArtifactGap => "artifact-gap",
            FindingCode::Refused(reason) => reason.code(),
            FindingCode::Differs => "differs",
            FindingCode::PushedAfterTerminal => "pushed-after-terminal",
            FindingCode::PushDuplicate => "push-duplicate",
            FindingCode::PushMissingTerminal => "push-missing-terminal",
        }
    }
}

impl std::fmt::Display for FindingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for FindingCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}
