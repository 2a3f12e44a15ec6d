//! What the ledger answers: why it refused an event ([`Reason`]), what it
//! decided about a new one ([`Outcome`]) and the durable record of that
//! decision ([`Receipt`]). Both the ledger and its receipt log read these.

use serde::{Deserialize, Serialize};

use super::artifacts::Coordinate;
use crate::model::state::TaskState;

/// Why the authority refused an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Not one of the eight states, after a terminal state, or outside the
    /// allowlist.
    IllegalTransition,
    /// Leaving auth-required without an authorization receipt.
    AuthorizationReceiptRequired,
    /// The producer's source sequence did not advance past what was accepted.
    Stale,
    /// An event id already decided, offered again with a different payload.
    ConflictingEvent,
    /// Output after the task became terminal (quarantined).
    AfterTerminal,
    /// A part after the manifest closed the result set.
    ResultSetClosed,
}

impl Reason {
    /// The kebab-case code used in exports and the CLI.
    pub fn code(self) -> &'static str {
        match self {
            Reason::IllegalTransition => "illegal-transition",
            Reason::AuthorizationReceiptRequired => "authorization-receipt-required",
            Reason::Stale => "stale",
            Reason::ConflictingEvent => "conflicting-event",
            Reason::AfterTerminal => "after-terminal",
            Reason::ResultSetClosed => "result-set-closed",
        }
    }
}

/// What the authority decided about a new event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "decision")]
pub enum Outcome {
    /// A status accepted with the next accepted sequence number.
    Accepted {
        /// The accepted sequence number (1, 2, …).
        sequence: u64,
        /// The task's state from now on.
        state: TaskState,
    },
    /// A part stored at its coordinate.
    Stored {
        /// Where.
        coordinate: Coordinate,
    },
    /// An exact replay of a stored part under a new event id.
    Replayed {
        /// Where.
        coordinate: Coordinate,
    },
    /// The same coordinate with different bytes: recorded, not stored.
    Incident {
        /// Where.
        coordinate: Coordinate,
    },
    /// A cancel request recorded.
    CancelRequested,
    /// A submission recorded; the task exists from now on.
    Submitted,
    /// Refused.
    Rejected {
        /// Why.
        reason: Reason,
    },
}

/// The durable record of one decision, as the ledger hands it out (it
/// stores receipts compactly in a `ReceiptLog`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// The event decided.
    pub event_id: Box<str>,
    /// Who emitted it.
    pub producer: Box<str>,
    /// When it was observed.
    pub observed_ms: u64,
    /// Payload digest as offered.
    pub digest: Box<str>,
    /// The decision.
    pub outcome: Outcome,
    /// The authorization receipt reference an accepted resume carried: the
    /// only trace of authorization the ledger keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_receipt: Option<Box<str>>,
}
