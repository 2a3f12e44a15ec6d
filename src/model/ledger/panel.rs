//! What the ledger shows an operator and a reconnecting client: the panel
//! of seed 000's dashboard, the terminal receipt, the absent suffixes.

use serde::{Deserialize, Serialize};

use super::artifacts::Part;
use super::verdict::Receipt;
use crate::model::state::TaskState;

/// What a reconnecting client receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suffix<'a> {
    /// Accepted statuses after the status cursor.
    pub statuses: Vec<Receipt>,
    /// Parts after the artifact cursor.
    pub parts: Vec<&'a Part>,
}

/// The receipt that settled the task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerminalReceipt {
    /// The accepted terminal event.
    pub event_id: String,
    /// Its accepted sequence number.
    pub sequence: u64,
    /// The terminal state.
    pub state: TaskState,
    /// SHA-256 over task id, event id, sequence, state and payload digest.
    pub digest: String,
}

/// Completion of one artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactCompletion {
    /// The artifact.
    pub artifact_id: String,
    /// Parts stored so far.
    pub parts_stored: u32,
    /// Parts expected, once the final flag was seen.
    pub parts_expected: Option<u32>,
    /// Closed with every part present.
    pub complete: bool,
}

/// The operator's ledger panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerPanel {
    /// The task.
    pub task_id: String,
    /// The accepted status that owns the task now.
    pub state: TaskState,
    /// The producer of the last accepted status.
    pub owner: Option<String>,
    /// Virtual time since that status was accepted.
    pub age_in_state_ms: u64,
    /// The last accepted sequence number.
    pub last_accepted_sequence: u64,
    /// Rejected events.
    pub rejected_count: usize,
    /// Distinct event ids decided.
    pub duplicate_free_receipts: usize,
    /// Cancel requests recorded.
    pub cancel_requests: usize,
    /// Conflicting-coordinate incidents.
    pub incidents: usize,
    /// Completion per artifact.
    pub artifacts: Vec<ArtifactCompletion>,
    /// The manifest that closed the result set.
    pub manifest: Option<String>,
    /// The receipt that settled the task.
    pub terminal_receipt: Option<TerminalReceipt>,
}
