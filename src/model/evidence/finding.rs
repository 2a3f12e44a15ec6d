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
    /// An event or answer that breaks its wire version's schema (SPEC §13).
    WireShape,
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
    /// A message that continues a task (it names the task's `taskId`) was
    /// answered by another task: the agent must continue the task the
    /// message names (A2A 1.0 §3.4.3, Multi-Turn Conversation Patterns).
    ContinuationNewTask,
    /// A message that continues a task in its context (it names the task's
    /// `taskId` and `contextId`) was answered in another context (A2A 1.0
    /// §3.4.3, Multi-Turn Conversation Patterns).
    ContinuationDroppedContext,
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
            FindingCode::WireShape => "wire-shape",
            FindingCode::Refused(reason) => reason.code(),
            FindingCode::Differs => "differs",
            FindingCode::PushedAfterTerminal => "pushed-after-terminal",
            FindingCode::PushDuplicate => "push-duplicate",
            FindingCode::PushMissingTerminal => "push-missing-terminal",
            FindingCode::ContinuationNewTask => "continuation-new-task",
            FindingCode::ContinuationDroppedContext => "continuation-dropped-context",
        }
    }
}

impl FindingCode {
    /// What to fix, in a sentence: the help of the code's rule in SARIF,
    /// and the advice beside a finding on the page.
    pub fn advice(self) -> &'static str {
        match self {
            FindingCode::AfterTerminal => {
                "An event came after the task's terminal status: stop emitting once the task is \
                 final (a terminal-state guard), and emit the last artifact before complete()."
            }
            FindingCode::MissingTerminal => {
                "The stream ended while the task was still working: end every path of execute() \
                 with a final status (complete, fail, or an interruption)."
            }
            FindingCode::ArtifactGap => {
                "An append arrived for an artifact the client holds no start of: send the first \
                 chunk without append, and never skip a chunk."
            }
            FindingCode::WireShape => {
                "An event breaks its wire version's schema, so clients of that version cannot \
                 read it: send every required field, spell states and roles as the version does, \
                 and write timestamps in UTC with a Z."
            }
            FindingCode::Duplicate => {
                "The same event came twice: a client must treat a re-delivered event as already \
                 applied (a replay-safe ledger)."
            }
            FindingCode::ConflictingCoordinate => {
                "The same artifact part came again with other bytes: never rewrite a part that was \
                 sent; send a new part or a new artifact."
            }
            FindingCode::IllegalTransition | FindingCode::Refused(_) => {
                "A state change outside the lifecycle: a terminal state is final, and each state \
                 moves only along the allowed edges (leaving auth-required needs a receipt)."
            }
            FindingCode::Differs => {
                "The export does not re-simulate to itself: it was edited, or made by another \
                 version of the lab."
            }
            FindingCode::PushedAfterTerminal => {
                "The webhook was sent more after it was told the task ended: stop pushing once the \
                 task is final, and push the last artifact before complete()."
            }
            FindingCode::PushDuplicate => {
                "The webhook was sent the same body twice: a webhook must treat a repeated POST \
                 as already applied (keep what it was told by task and state)."
            }
            FindingCode::PushMissingTerminal => {
                "The webhook was never told how the task ended: read GetTask when the pushes stop, \
                 and make the agent push its final status on every path (a raised exception too)."
            }
            FindingCode::ContinuationNewTask | FindingCode::ContinuationDroppedContext => {
                "A message that continues a task was answered by another task or in another \
                 context: continue the task named by the message's taskId in its contextId; a \
                 new task only when the message names none (A2A 1.0 §3.4.3)."
            }
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
