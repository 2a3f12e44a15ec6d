//! The replay-safe task ledger of seed 000: one durable authority per task
//! that decides every event from its identity, never from connection luck.
//!
//! Rules, each in one place:
//! - duplicate: an event id already seen is a lookup hit returning the
//!   earlier receipt ([`TaskLedger::apply`]);
//! - illegal-transition and the terminal freeze ([`TaskState::allows`]);
//! - authorization-receipt-required (leaving auth-required);
//! - stale: a producer's source sequence that does not advance;
//! - compare-and-set on the task version ([`TaskLedger::compare_and_set`]);
//! - cancel as a request ([`Body::CancelRequest`]), settled by whichever
//!   terminal status the authority accepts first.

use std::collections::HashMap;

use super::receipt_index::{id_hash, ReceiptIndex};

use serde::{Deserialize, Serialize};

use super::artifacts::{ArtifactCursor, ArtifactStore, Coordinate, Part, PartOutcome};
use super::digest::sha256_fields;
use super::state::TaskState;

/// One event offered to the authority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEvent {
    /// The task the event belongs to.
    pub task_id: String,
    /// Durable event identity; a repeat is a duplicate.
    pub event_id: String,
    /// Who emitted it (`executor`, `cancel()`, `client`, …).
    pub producer: String,
    /// The producer's own sequence number, when it has one.
    pub source_seq: Option<u64>,
    /// Digest of the payload, to tell an exact replay from a conflict.
    pub digest: String,
    /// When the authority observed it, in virtual milliseconds.
    pub observed_ms: u64,
    /// What the event says.
    pub body: Body,
}

/// The payload of a ledger event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Body {
    /// A status change. `status` is kept as text because anything outside
    /// the eight concrete states must be rejected, not unrepresentable.
    Status {
        /// Kebab-case state name.
        status: String,
        /// Reference to an authorization decision (never the credential).
        authorization_receipt: Option<String>,
        /// A manifest id that closes the result set with this status.
        manifest: Option<String>,
    },
    /// An artifact part.
    Part(Part),
    /// A request to cancel: recorded, not a state change.
    CancelRequest,
    /// A submission, identified by its idempotency key (the event id): a
    /// retry with the same key is a lookup hit returning the existing task.
    Submit,
}

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

/// The durable record of one decision. Text fields are boxed slices: a
/// ledger keeps one receipt per event, so each byte counts a million times.
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

/// The answer to [`TaskLedger::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A new event, decided now; the receipt is in the ledger.
    New(Outcome),
    /// A lookup hit: the event id was decided before; nothing changed.
    Duplicate(Receipt),
}

impl Decision {
    /// The outcome, whether decided now or earlier.
    pub fn outcome(&self) -> &Outcome {
        match self {
            Decision::New(outcome) => outcome,
            Decision::Duplicate(receipt) => &receipt.outcome,
        }
    }
}

/// A recorded cancel request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelRequest {
    /// The request's event id.
    pub event_id: String,
    /// When it arrived.
    pub observed_ms: u64,
    /// The state the task was in when it arrived.
    pub state_then: TaskState,
}

/// Why a compare-and-set lost, classified after reloading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossClass {
    /// The winner already wrote this very event.
    Duplicate,
    /// Still a legal next event: retry at the current version.
    LegalNext,
    /// Overtaken: no longer legal or not newer than what was accepted.
    Stale,
}

/// A lost compare-and-set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CasLoss {
    /// The version the loser must reload.
    pub current_version: u64,
    /// What the event is at that version.
    pub class: LossClass,
}

/// The authority for one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "LedgerRecord", into = "LedgerRecord")]
pub struct TaskLedger {
    task_id: String,
    state: TaskState,
    sequence: u64,
    receipts: Vec<Receipt>,
    index: ReceiptIndex,
    last_source_seq: HashMap<String, u64>,
    cancel_requests: Vec<CancelRequest>,
    artifacts: ArtifactStore,
    entered_state_ms: u64,
    owner: Option<String>,
}

/// The serialized form: receipts in arrival order; indexes are rebuilt.
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
    producer_sequences: std::collections::BTreeMap<String, u64>,
}

impl From<TaskLedger> for LedgerRecord {
    fn from(l: TaskLedger) -> Self {
        LedgerRecord {
            task_id: l.task_id,
            state: l.state,
            sequence: l.sequence,
            receipts: l.receipts,
            cancel_requests: l.cancel_requests,
            artifacts: l.artifacts,
            entered_state_ms: l.entered_state_ms,
            owner: l.owner,
            producer_sequences: l.last_source_seq.into_iter().collect(),
        }
    }
}

impl From<LedgerRecord> for TaskLedger {
    fn from(r: LedgerRecord) -> Self {
        let index = ReceiptIndex::build(&r.receipts);
        TaskLedger {
            task_id: r.task_id,
            state: r.state,
            sequence: r.sequence,
            receipts: r.receipts,
            index,
            last_source_seq: r.producer_sequences.into_iter().collect(),
            cancel_requests: r.cancel_requests,
            artifacts: r.artifacts,
            entered_state_ms: r.entered_state_ms,
            owner: r.owner,
        }
    }
}

impl TaskLedger {
    /// A fresh task in `submitted`, as the seed's `start()`.
    pub fn new(task_id: &str) -> TaskLedger {
        TaskLedger {
            task_id: task_id.to_string(),
            state: TaskState::Submitted,
            sequence: 0,
            receipts: Vec::new(),
            index: ReceiptIndex::default(),
            last_source_seq: HashMap::new(),
            cancel_requests: Vec::new(),
            artifacts: ArtifactStore::default(),
            entered_state_ms: 0,
            owner: None,
        }
    }

    /// Decides one event. Every new event id gets exactly one receipt,
    /// rejected ones included, so a repeat of a rejected event is a lookup
    /// hit too (as in the seed's reducer).
    pub fn apply(&mut self, event: &LedgerEvent) -> Decision {
        let h = id_hash(&event.event_id);
        if let Some(i) = self.index.get_hashed(h, &event.event_id, &self.receipts) {
            let earlier = &self.receipts[i];
            if *earlier.digest == *event.digest {
                return Decision::Duplicate(earlier.clone());
            }
            return Decision::New(self.conflicting_replay(event));
        }
        let outcome = self.decide(event);
        self.record(h, event, outcome.clone());
        Decision::New(outcome)
    }

    /// Applies `event` only if the task is still at `expected_version`
    /// (the number of accepted statuses). Of two producers racing for the
    /// same version exactly one wins; the loser learns what its event is at
    /// the version it must reload.
    pub fn compare_and_set(
        &mut self,
        expected_version: u64,
        event: &LedgerEvent,
    ) -> Result<Decision, CasLoss> {
        if expected_version == self.sequence {
            return Ok(self.apply(event));
        }
        let class = if self.index.get(&event.event_id, &self.receipts).is_some() {
            LossClass::Duplicate
        } else if matches!(self.decide_readonly(event), Outcome::Accepted { .. }) {
            LossClass::LegalNext
        } else {
            LossClass::Stale
        };
        Err(CasLoss {
            current_version: self.sequence,
            class,
        })
    }

    fn conflicting_replay(&mut self, event: &LedgerEvent) -> Outcome {
        // The same event id with other bytes never replaces the decision; a
        // part is still checked at its coordinate so the incident is recorded
        // where an operator looks for it.
        if let Body::Part(part) = &event.body {
            if let PartOutcome::ConflictingCoordinate = self.artifacts.put(part.clone()) {
                return Outcome::Incident {
                    coordinate: part.coordinate(),
                };
            }
        }
        Outcome::Rejected {
            reason: Reason::ConflictingEvent,
        }
    }

    fn decide_readonly(&self, event: &LedgerEvent) -> Outcome {
        self.clone().decide(event)
    }

    fn decide(&mut self, event: &LedgerEvent) -> Outcome {
        let reject = |reason| Outcome::Rejected { reason };
        match &event.body {
            Body::CancelRequest => {
                self.cancel_requests.push(CancelRequest {
                    event_id: event.event_id.clone(),
                    observed_ms: event.observed_ms,
                    state_then: self.state,
                });
                Outcome::CancelRequested
            }
            Body::Submit => Outcome::Submitted,
            Body::Part(part) => {
                if self.state.is_terminal() {
                    return reject(Reason::AfterTerminal);
                }
                if self.is_stale(event) {
                    return reject(Reason::Stale);
                }
                match self.artifacts.put(part.clone()) {
                    PartOutcome::Stored => {
                        self.advance_producer(event);
                        Outcome::Stored {
                            coordinate: part.coordinate(),
                        }
                    }
                    PartOutcome::Replay => Outcome::Replayed {
                        coordinate: part.coordinate(),
                    },
                    PartOutcome::ConflictingCoordinate => Outcome::Incident {
                        coordinate: part.coordinate(),
                    },
                    PartOutcome::ResultSetClosed => reject(Reason::ResultSetClosed),
                }
            }
            Body::Status {
                status,
                authorization_receipt,
                manifest,
            } => {
                let Some(to) = TaskState::from_kebab(status) else {
                    return reject(Reason::IllegalTransition);
                };
                if !self.state.allows(to) {
                    return reject(Reason::IllegalTransition);
                }
                let has_receipt = authorization_receipt
                    .as_deref()
                    .is_some_and(|r| !r.is_empty());
                if self.state == TaskState::AuthRequired && !has_receipt {
                    return reject(Reason::AuthorizationReceiptRequired);
                }
                if self.is_stale(event) {
                    return reject(Reason::Stale);
                }
                self.advance_producer(event);
                self.state = to;
                self.sequence += 1;
                self.entered_state_ms = event.observed_ms;
                if !event.producer.is_empty() {
                    self.owner = Some(event.producer.clone());
                }
                if let Some(id) = manifest {
                    self.artifacts.close(id);
                }
                Outcome::Accepted {
                    sequence: self.sequence,
                    state: to,
                }
            }
        }
    }

    fn is_stale(&self, event: &LedgerEvent) -> bool {
        let Some(seq) = event.source_seq else {
            return false;
        };
        self.last_source_seq
            .get(&event.producer)
            .is_some_and(|&last| seq <= last)
    }

    fn advance_producer(&mut self, event: &LedgerEvent) {
        if let Some(seq) = event.source_seq {
            self.last_source_seq.insert(event.producer.clone(), seq);
        }
    }

    fn record(&mut self, id_hash: u64, event: &LedgerEvent, outcome: Outcome) {
        let authorization_receipt = match (&outcome, &event.body) {
            (
                Outcome::Accepted { .. },
                Body::Status {
                    authorization_receipt,
                    ..
                },
            ) => authorization_receipt.as_deref().map(Box::from),
            _ => None,
        };
        self.index.insert_hashed(
            id_hash,
            &event.event_id,
            self.receipts.len(),
            &self.receipts,
        );
        self.receipts.push(Receipt {
            authorization_receipt,
            event_id: event.event_id.as_str().into(),
            producer: event.producer.as_str().into(),
            observed_ms: event.observed_ms,
            digest: event.digest.as_str().into(),
            outcome,
        });
    }

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

    /// Every receipt, in arrival order.
    pub fn receipts(&self) -> &[Receipt] {
        &self.receipts
    }

    /// The earlier receipt for an event id.
    pub fn receipt(&self, event_id: &str) -> Option<&Receipt> {
        self.index
            .get(event_id, &self.receipts)
            .map(|i| &self.receipts[i])
    }

    /// Accepted status event ids, in accepted order.
    pub fn accepted(&self) -> Vec<&str> {
        self.receipts
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Accepted { .. }))
            .map(|r| &*r.event_id)
            .collect()
    }

    /// Rejected event ids with their reasons, in arrival order.
    pub fn rejected(&self) -> Vec<(&str, Reason)> {
        self.receipts
            .iter()
            .filter_map(|r| match r.outcome {
                Outcome::Rejected { reason } => Some((&*r.event_id, reason)),
                _ => None,
            })
            .collect()
    }

    /// Cancel requests, whether or not cancellation won.
    pub fn cancel_requests(&self) -> &[CancelRequest] {
        &self.cancel_requests
    }

    /// Output refused because the task was already terminal.
    pub fn quarantined(&self) -> Vec<&Receipt> {
        self.receipts
            .iter()
            .filter(|r| {
                matches!(
                    r.outcome,
                    Outcome::Rejected {
                        reason: Reason::AfterTerminal
                    }
                )
            })
            .collect()
    }

    /// The artifact store.
    pub fn artifacts(&self) -> &ArtifactStore {
        &self.artifacts
    }

    /// The accepted status receipts after the one whose event id is the
    /// client's cursor (all of them for an unknown cursor).
    pub fn status_suffix(&self, cursor: Option<&str>) -> Vec<&Receipt> {
        let after = cursor
            .and_then(|id| self.receipt(id))
            .and_then(|r| match r.outcome {
                Outcome::Accepted { sequence, .. } => Some(sequence),
                _ => None,
            })
            .unwrap_or(0);
        self.receipts
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Accepted { sequence, .. } if sequence > after))
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
        let receipt = self.receipts.iter().rev().find(
            |r| matches!(r.outcome, Outcome::Accepted { state, .. } if state.is_terminal()),
        )?;
        let sequence = self.sequence.to_string();
        Some(TerminalReceipt {
            event_id: receipt.event_id.to_string(),
            sequence: self.sequence,
            state: self.state,
            digest: sha256_fields(&[
                &self.task_id,
                &receipt.event_id,
                &sequence,
                self.state.kebab(),
                &receipt.digest,
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
            rejected_count: self.rejected().len(),
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

/// What a reconnecting client receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suffix<'a> {
    /// Accepted statuses after the status cursor.
    pub statuses: Vec<&'a Receipt>,
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

/// Turns a credential into the reference the ledger may keep. The credential
/// itself never enters an event, a receipt or an export.
pub fn authorization_receipt_for(credential: &str) -> String {
    let digest = sha256_fields(&["authorization", credential]);
    format!("authz:{}", &digest[..16])
}
