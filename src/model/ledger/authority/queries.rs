//! The ledger read: its state and sequence, its receipts, what it
//! accepted and refused, a reconnect's suffix, the terminal receipt and
//! the operator's panel. Reading only: every change goes through
//! [`TaskLedger::commit`].

use super::{CancelRequest, TaskLedger};
use crate::model::digest::sha256_fields;
use crate::model::ledger::artifacts::{ArtifactCursor, ArtifactStore};
use crate::model::ledger::id_index::Lookup;
use crate::model::ledger::panel::{ArtifactCompletion, LedgerPanel, Suffix, TerminalReceipt};
use crate::model::ledger::verdict::{Reason, Receipt};
use crate::model::state::TaskState;

impl TaskLedger {
    /// The task id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// Which accepted status owns the task now.
    pub fn state(&self) -> TaskState {
        self.state
    }

    /// The last accepted sequence number (also the compare-and-set version).
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// How many receipts: one per distinct event id decided.
    pub fn receipt_count(&self) -> usize {
        self.receipts.len()
    }

    /// Every receipt, in arrival order.
    pub fn receipts(&self) -> impl ExactSizeIterator<Item = Receipt> + '_ {
        (0..self.receipts.len()).map(|i| self.receipts.receipt(i))
    }

    /// The earlier receipt for an event id.
    pub fn receipt(&self, event_id: &str) -> Option<Receipt> {
        match self.receipts.find(event_id) {
            Lookup::Found(i) => Some(self.receipts.receipt(i)),
            Lookup::Vacant(_) => None,
        }
    }

    /// Accepted status event ids, in accepted order.
    pub fn accepted(&self) -> Vec<&str> {
        self.accepted_ids().collect()
    }

    /// [`TaskLedger::accepted`] without collecting.
    pub fn accepted_ids(&self) -> impl Iterator<Item = &str> + '_ {
        let log = &self.receipts;
        (0..log.len())
            .filter(|&i| log.accepted_sequence(i).is_some())
            .map(|i| log.id(i))
    }

    /// Rejected event ids with their reasons, in arrival order.
    pub fn rejected(&self) -> Vec<(&str, Reason)> {
        self.rejected_ids().collect()
    }

    /// [`TaskLedger::rejected`] without collecting.
    pub fn rejected_ids(&self) -> impl Iterator<Item = (&str, Reason)> + '_ {
        let log = &self.receipts;
        (0..log.len()).filter_map(|i| log.rejection(i).map(|reason| (log.id(i), reason)))
    }

    /// Cancel requests, whether or not cancellation won.
    pub fn cancel_requests(&self) -> &[CancelRequest] {
        &self.cancel_requests
    }

    /// Output refused because the task was already terminal.
    pub fn quarantined(&self) -> Vec<Receipt> {
        let log = &self.receipts;
        (0..log.len())
            .filter(|&i| log.rejection(i) == Some(Reason::AfterTerminal))
            .map(|i| log.receipt(i))
            .collect()
    }

    /// The artifact store.
    pub fn artifacts(&self) -> &ArtifactStore {
        &self.artifacts
    }

    /// The accepted status receipts after the one whose event id is the
    /// client's cursor (all of them for an unknown cursor).
    pub fn status_suffix(&self, cursor: Option<&str>) -> Vec<Receipt> {
        let log = &self.receipts;
        let after = match cursor.map(|id| log.find(id)) {
            Some(Lookup::Found(i)) => log.accepted_sequence(i).unwrap_or(0),
            _ => 0,
        };
        (0..log.len())
            .filter(|&i| log.accepted_sequence(i).is_some_and(|s| s > after))
            .map(|i| log.receipt(i))
            .collect()
    }

    /// What a reconnecting client lacks: status receipts after its status
    /// cursor and artifact parts after its artifact cursor.
    pub fn reconnect(&self, status_cursor: Option<&str>, artifacts: &ArtifactCursor) -> Suffix<'_> {
        Suffix {
            statuses: self.status_suffix(status_cursor),
            parts: self.artifacts.suffix(artifacts),
        }
    }

    /// The receipt that made the task terminal, with its digest.
    pub fn terminal_receipt(&self) -> Option<TerminalReceipt> {
        if !self.state.is_terminal() {
            return None;
        }
        // Nothing is accepted after a terminal status, so the terminal
        // receipt is the one carrying the last accepted sequence.
        let log = &self.receipts;
        let at = (0..log.len())
            .rev()
            .find(|&i| log.accepted_sequence(i) == Some(self.sequence))?;
        let sequence = self.sequence.to_string();
        Some(TerminalReceipt {
            event_id: log.id(at).to_string(),
            sequence: self.sequence,
            state: self.state,
            digest: sha256_fields(&[
                &self.task_id,
                log.id(at),
                &sequence,
                self.state.kebab(),
                log.digest(at),
            ]),
        })
    }

    /// The operator's view at virtual time `now_ms`: everything needed to say
    /// which accepted status owns the task without connection logs.
    pub fn panel(&self, now_ms: u64) -> LedgerPanel {
        LedgerPanel {
            task_id: self.task_id.clone(),
            state: self.state,
            owner: self.owner.clone(),
            age_in_state_ms: now_ms.saturating_sub(self.entered_state_ms),
            last_accepted_sequence: self.sequence,
            rejected_count: self.rejected_ids().count(),
            duplicate_free_receipts: self.receipts.len(),
            cancel_requests: self.cancel_requests.len(),
            incidents: self.artifacts.incidents.len(),
            artifacts: self
                .artifacts
                .artifacts
                .iter()
                .map(|(id, record)| ArtifactCompletion {
                    artifact_id: id.clone(),
                    parts_stored: record.parts.len() as u32,
                    parts_expected: record.final_part.map(|p| p + 1),
                    complete: record.is_complete(),
                })
                .collect(),
            manifest: self.artifacts.manifest.as_ref().map(|m| m.id.clone()),
            terminal_receipt: self.terminal_receipt(),
        }
    }
}
