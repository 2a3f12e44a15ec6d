//! A ledger's stored form: its receipts in arrival order, from which the
//! id index is rebuilt when it is read back.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::artifacts::ArtifactStore;
use super::authority::{CancelRequest, TaskLedger};
use super::id_index::Lookup;
use super::receipt_log::{NewReceipt, ReceiptLog};
use super::verdict::Receipt;
use crate::model::state::TaskState;

/// The serialized form: receipts in arrival order; the index is rebuilt.
#[derive(Serialize, Deserialize)]
struct LedgerRecord {
    task_id: String,
    state: TaskState,
    sequence: u64,
    receipts: Vec<Receipt>,
    cancel_requests: Vec<CancelRequest>,
    artifacts: ArtifactStore,
    entered_state_ms: u64,
    owner: Option<String>,
    producer_sequences: BTreeMap<String, u64>,
}

impl From<TaskLedger> for LedgerRecord {
    fn from(l: TaskLedger) -> Self {
        let receipts = l.receipts().collect();
        // Inserted one by one: collecting into a map sorts first, and that
        // sort would be one more copy of the sorting code in the page.
        let mut producer_sequences = BTreeMap::new();
        for (producer, seq) in l.last_source_seq {
            producer_sequences.insert(producer, seq);
        }
        LedgerRecord {
            task_id: l.task_id,
            state: l.state,
            sequence: l.sequence,
            receipts,
            cancel_requests: l.cancel_requests,
            artifacts: l.artifacts,
            entered_state_ms: l.entered_state_ms,
            owner: l.owner,
            producer_sequences,
        }
    }
}

/// A stored ledger with two receipts for one event id: a ledger decides
/// each id once, so it was not written by one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwoReceipts {
    /// The event id.
    pub event_id: String,
}

impl std::fmt::Display for TwoReceipts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "two receipts for event id {:?}: a ledger decides each id once",
            self.event_id
        )
    }
}

impl TryFrom<LedgerRecord> for TaskLedger {
    type Error = TwoReceipts;

    fn try_from(r: LedgerRecord) -> Result<Self, TwoReceipts> {
        let mut receipts = ReceiptLog::default();
        for receipt in r.receipts {
            let Lookup::Vacant(vacancy) = receipts.find(&receipt.event_id) else {
                return Err(TwoReceipts {
                    event_id: receipt.event_id.into(),
                });
            };
            let fields = NewReceipt {
                event_id: &receipt.event_id,
                producer: &receipt.producer,
                observed_ms: receipt.observed_ms,
                digest: &receipt.digest,
                authorization_receipt: receipt.authorization_receipt.as_deref(),
            };
            receipts.push(vacancy, fields, receipt.outcome);
        }
        Ok(TaskLedger {
            task_id: r.task_id,
            state: r.state,
            sequence: r.sequence,
            receipts,
            last_source_seq: r.producer_sequences.into_iter().collect(),
            cancel_requests: r.cancel_requests,
            artifacts: r.artifacts,
            entered_state_ms: r.entered_state_ms,
            owner: r.owner,
        })
    }
}

/// Written as its stored form.
impl Serialize for TaskLedger {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        LedgerRecord::from(self.clone()).serialize(serializer)
    }
}

/// Read from its stored form, the id index rebuilt.
impl<'de> Deserialize<'de> for TaskLedger {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TaskLedger, D::Error> {
        let record = LedgerRecord::deserialize(deserializer)?;
        TaskLedger::try_from(record).map_err(serde::de::Error::custom)
    }
}
