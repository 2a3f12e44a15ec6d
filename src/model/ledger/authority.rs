//! The replay-safe task ledger of seed 000: one durable authority per task
//! that decides every event from its identity, never from connection luck.
//!
//! Every event is first judged by reading only ([`TaskLedger::judge`]
//! returns a [`Verdict`]), then the verdict is carried out
//! ([`TaskLedger::commit`]): a duplicate provably changes nothing, a
//! rejection adds only its receipt, and "what would happen if" needs no
//! copy of the ledger.
//!
//! Rules, each in one place:
//! - duplicate: an event id already seen is a lookup hit returning the
//!   earlier receipt ([`TaskLedger::judge`]);
//! - illegal-transition and the terminal freeze ([`TaskState::allows`]);
//! - authorization-receipt-required (leaving auth-required);
//! - stale: a producer's source sequence that does not advance;
//! - compare-and-set on the task version ([`TaskLedger::compare_and_set`]);
//! - cancel as a request ([`Body::CancelRequest`]), settled by whichever
//!   terminal status the authority accepts first.

mod queries;

use std::collections::HashMap;

use super::id_index::{id_hash, Lookup, Vacancy};
use super::receipt_log::{NewReceipt, ReceiptLog};
use super::verdict::{Outcome, Reason, Receipt};

use serde::{Deserialize, Serialize};

use super::artifacts::{ArtifactStore, PartOutcome, PartRef};
use super::event::{BodyRef, EventRef, LedgerEvent};
use crate::model::digest::sha256_fields;
use crate::model::state::TaskState;

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

/// A judgement reached by reading only: what committing the event would
/// do. Hand it back to [`TaskLedger::commit`] on the same, unchanged ledger.
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'e> {
    event: EventRef<'e>,
    judged: Judgement,
}

#[derive(Debug, Clone, Copy)]
enum Judgement {
    /// A lookup hit: the receipt at this position answers it.
    Duplicate(usize),
    /// A new id, decided; its receipt goes where the index said.
    New(Vacancy, OutcomeKind),
    /// An id decided before, offered again with other bytes: answered, and
    /// never given a second receipt.
    Conflict(OutcomeKind),
}

/// An [`Outcome`] without the coordinate a part outcome carries (that is
/// read from the event when the verdict is committed), so a verdict stays
/// a small copyable value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutcomeKind {
    Accepted { sequence: u64, state: TaskState },
    Stored,
    Replayed,
    Incident,
    CancelRequested,
    Submitted,
    Rejected(Reason),
}

impl Verdict<'_> {
    /// The judged event is a lookup hit.
    pub fn is_duplicate(&self) -> bool {
        matches!(self.judged, Judgement::Duplicate(_))
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

/// The authority for one task (serialized in its stored form, `record.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLedger {
    // Read and written by the authority; its stored form (`record.rs`)
    // takes it apart and puts it back together.
    pub(super) task_id: String,
    pub(super) state: TaskState,
    pub(super) sequence: u64,
    pub(super) receipts: ReceiptLog,
    pub(super) last_source_seq: HashMap<String, u64>,
    pub(super) cancel_requests: Vec<CancelRequest>,
    pub(super) artifacts: ArtifactStore,
    pub(super) entered_state_ms: u64,
    pub(super) owner: Option<String>,
}

impl TaskLedger {
    /// A fresh task in `submitted`, as the seed's `start()`.
    pub fn new(task_id: &str) -> TaskLedger {
        TaskLedger {
            task_id: task_id.to_string(),
            state: TaskState::Submitted,
            sequence: 0,
            receipts: ReceiptLog::default(),
            last_source_seq: HashMap::new(),
            cancel_requests: Vec::new(),
            artifacts: ArtifactStore::default(),
            entered_state_ms: 0,
            owner: None,
        }
    }

    /// Makes this ledger a fresh one for `task_id`, equal to
    /// [`TaskLedger::new`], keeping the memory its receipts used (a reader
    /// of many short tasks reuses a finished task's ledger for the next).
    pub fn reset(&mut self, task_id: &str) {
        self.task_id.clear();
        self.task_id.push_str(task_id);
        self.state = TaskState::Submitted;
        self.sequence = 0;
        self.receipts.clear();
        self.last_source_seq.clear();
        self.cancel_requests.clear();
        self.artifacts = ArtifactStore::default();
        self.entered_state_ms = 0;
        self.owner = None;
    }

    /// Decides one event: [`TaskLedger::judge`], then
    /// [`TaskLedger::commit`]. Every new event id gets exactly one
    /// receipt, rejected ones included, so a repeat of a rejected event is
    /// a lookup hit too (as in the seed's reducer).
    pub fn apply(&mut self, event: &LedgerEvent) -> Decision {
        self.apply_view(event.view())
    }

    /// [`TaskLedger::apply`] for a borrowed event.
    pub fn apply_view(&mut self, event: EventRef<'_>) -> Decision {
        let verdict = self.judge(event);
        self.commit(verdict)
    }

    /// Judges an event by reading only: a duplicate, or a new decision
    /// with its outcome. Nothing changes until [`TaskLedger::commit`].
    pub fn judge<'e>(&self, event: EventRef<'e>) -> Verdict<'e> {
        self.judge_hashed(event, id_hash(event.event_id))
    }

    #[inline]
    fn judge_hashed<'e>(&self, event: EventRef<'e>, hash: u64) -> Verdict<'e> {
        let judged = match self.receipts.find_hashed(event.event_id, hash) {
            Lookup::Found(i) if self.receipts.digest_is(i, event.digest) => Judgement::Duplicate(i),
            Lookup::Found(_) => Judgement::Conflict(self.judge_conflicting_replay(event)),
            Lookup::Vacant(vacancy) => Judgement::New(vacancy, self.judge_new(event)),
        };
        Verdict { event, judged }
    }

    /// Carries out a verdict this ledger reached (and has not changed
    /// since): a duplicate changes nothing; a new event adds its receipt
    /// and, when accepted, stored or recorded, its effect.
    pub fn commit(&mut self, verdict: Verdict<'_>) -> Decision {
        match verdict.judged {
            Judgement::Duplicate(at) => Decision::Duplicate(self.receipts.receipt(at)),
            _ => Decision::New(self.record(verdict)),
        }
    }

    /// Writes a new verdict's effect and receipt and returns its outcome.
    fn record(&mut self, verdict: Verdict<'_>) -> Outcome {
        let Verdict { event, judged } = verdict;
        match judged {
            Judgement::New(vacancy, kind) => self.record_new(event, vacancy, kind),
            Judgement::Conflict(kind) => self.carry_out(event, kind),
            // Never asked of a duplicate, which writes nothing.
            Judgement::Duplicate(_) => Outcome::Rejected {
                reason: Reason::ConflictingEvent,
            },
        }
    }

    /// Carries out a new id's judged outcome and appends its receipt.
    #[inline]
    fn record_new(&mut self, event: EventRef<'_>, vacancy: Vacancy, kind: OutcomeKind) -> Outcome {
        let outcome = self.carry_out(event, kind);
        let authorization_receipt = match (kind, event.body) {
            (
                OutcomeKind::Accepted { .. },
                BodyRef::Status {
                    authorization_receipt,
                    ..
                },
            ) => authorization_receipt,
            _ => None,
        };
        let fields = NewReceipt {
            event_id: event.event_id,
            producer: event.producer,
            observed_ms: event.observed_ms,
            digest: event.digest,
            authorization_receipt,
        };
        self.receipts.push(vacancy, fields, &outcome);
        outcome
    }

    /// [`TaskLedger::judge`] then [`TaskLedger::commit`] for a stream, by
    /// the same judging and committing functions but without building a
    /// verdict or answering a duplicate with a copy of its receipt.
    #[inline]
    fn offer(&mut self, event: EventRef<'_>, hash: u64) {
        match self.receipts.find_hashed(event.event_id, hash) {
            Lookup::Found(i) if self.receipts.digest_is(i, event.digest) => {}
            Lookup::Found(_) => {
                let kind = self.judge_conflicting_replay(event);
                self.carry_out(event, kind);
            }
            Lookup::Vacant(vacancy) => {
                let kind = self.judge_new(event);
                self.record_new(event, vacancy, kind);
            }
        }
    }

    /// Decides events in order, exactly as [`TaskLedger::apply_view`] on
    /// each, for callers that need only the ledger afterwards. It works a
    /// batch at a time: first it reads the index buckets of every id in
    /// the batch, in a loop tight enough that the processor has many of
    /// those reads in flight at once, then it decides the events against a
    /// warm index. A long stream thus waits on memory once per batch rather
    /// than once per event, on any processor, WebAssembly included.
    pub fn apply_all<'a>(&mut self, events: impl IntoIterator<Item = EventRef<'a>>) {
        const BATCH: usize = 64;
        let mut events = events.into_iter();
        // Every event may be a new id: size the log for the stream once
        // (up to a few million, so an absurd hint cannot exhaust memory).
        self.receipts.reserve(events.size_hint().0.min(1 << 22));
        let mut batch = Vec::with_capacity(BATCH);
        loop {
            batch.clear();
            batch.extend(
                events
                    .by_ref()
                    .take(BATCH)
                    .map(|e| (e, id_hash(e.event_id))),
            );
            if batch.is_empty() {
                return;
            }
            let mut touched = 0;
            for &(_, hash) in &batch {
                touched ^= self.receipts.touch(hash);
            }
            // Keeps the reads: their only purpose is to fill the cache.
            std::hint::black_box(touched);
            for &(event, hash) in &batch {
                self.offer(event, hash);
            }
        }
    }

    /// Applies `event` only if the task is still at `expected_version`
    /// (the number of accepted statuses). Of two producers racing for the
    /// same version exactly one wins; the loser learns what its event is at
    /// the version it must reload, judged without changing the ledger.
    pub fn compare_and_set(
        &mut self,
        expected_version: u64,
        event: &LedgerEvent,
    ) -> Result<Decision, CasLoss> {
        let verdict = self.judge(event.view());
        if expected_version == self.sequence {
            return Ok(self.commit(verdict));
        }
        let class = match verdict.judged {
            Judgement::Duplicate(_) | Judgement::Conflict(_) => LossClass::Duplicate,
            Judgement::New(_, OutcomeKind::Accepted { .. }) => LossClass::LegalNext,
            Judgement::New(..) => LossClass::Stale,
        };
        Err(CasLoss {
            current_version: self.sequence,
            class,
        })
    }

    /// The same event id with other bytes never replaces the decision. A
    /// part is still checked at its coordinate, so that other bytes there
    /// are recorded as an incident where an operator looks for it; a part
    /// at a coordinate not yet stored is not stored by a conflicting replay.
    fn judge_conflicting_replay(&self, event: EventRef<'_>) -> OutcomeKind {
        if let BodyRef::Part(part) = event.body {
            if self.artifacts.judge(part) == PartOutcome::ConflictingCoordinate {
                return OutcomeKind::Incident;
            }
        }
        OutcomeKind::Rejected(Reason::ConflictingEvent)
    }

    /// What a new event id would be decided as, by reading only.
    #[inline]
    fn judge_new(&self, event: EventRef<'_>) -> OutcomeKind {
        let reject = OutcomeKind::Rejected;
        match event.body {
            BodyRef::CancelRequest => OutcomeKind::CancelRequested,
            BodyRef::Submit => OutcomeKind::Submitted,
            BodyRef::Part(part) => {
                if self.state.is_terminal() {
                    return reject(Reason::AfterTerminal);
                }
                if self.is_stale(event) {
                    return reject(Reason::Stale);
                }
                match self.artifacts.judge(part) {
                    PartOutcome::Stored => OutcomeKind::Stored,
                    PartOutcome::Replay => OutcomeKind::Replayed,
                    PartOutcome::ConflictingCoordinate => OutcomeKind::Incident,
                    PartOutcome::ResultSetClosed => reject(Reason::ResultSetClosed),
                }
            }
            BodyRef::Status {
                status,
                authorization_receipt,
                ..
            } => {
                // Nothing leaves a terminal state, whatever the status
                // says, so a late event is refused without reading it.
                if self.state.is_terminal() {
                    return reject(Reason::IllegalTransition);
                }
                let Some(to) = status.known() else {
                    return reject(Reason::IllegalTransition);
                };
                if !self.state.allows(to) {
                    return reject(Reason::IllegalTransition);
                }
                let has_receipt = authorization_receipt.is_some_and(|r| !r.is_empty());
                if self.state == TaskState::AuthRequired && !has_receipt {
                    return reject(Reason::AuthorizationReceiptRequired);
                }
                if self.is_stale(event) {
                    return reject(Reason::Stale);
                }
                OutcomeKind::Accepted {
                    sequence: self.sequence + 1,
                    state: to,
                }
            }
        }
    }

    /// Writes the effect of a judged outcome and returns it in full.
    #[inline]
    fn carry_out(&mut self, event: EventRef<'_>, kind: OutcomeKind) -> Outcome {
        let part_outcome = |part: PartRef<'_>, outcome| (part.coordinate(), outcome);
        match (kind, event.body) {
            (OutcomeKind::Accepted { sequence, state }, body) => {
                self.advance_producer(event);
                self.state = state;
                self.sequence = sequence;
                self.entered_state_ms = event.observed_ms;
                if !event.producer.is_empty() && self.owner.as_deref() != Some(event.producer) {
                    self.owner = Some(event.producer.to_string());
                }
                if let BodyRef::Status {
                    manifest: Some(id), ..
                } = body
                {
                    self.artifacts.close(id);
                }
                Outcome::Accepted { sequence, state }
            }
            (OutcomeKind::Stored, BodyRef::Part(part)) => {
                let (coordinate, outcome) = part_outcome(part, PartOutcome::Stored);
                self.artifacts.commit(part, &outcome);
                self.advance_producer(event);
                Outcome::Stored { coordinate }
            }
            (OutcomeKind::Incident, BodyRef::Part(part)) => {
                let (coordinate, outcome) = part_outcome(part, PartOutcome::ConflictingCoordinate);
                self.artifacts.commit(part, &outcome);
                Outcome::Incident { coordinate }
            }
            (OutcomeKind::Replayed, BodyRef::Part(part)) => Outcome::Replayed {
                coordinate: part.coordinate(),
            },
            (OutcomeKind::CancelRequested, _) => {
                self.cancel_requests.push(CancelRequest {
                    event_id: event.event_id.to_string(),
                    observed_ms: event.observed_ms,
                    state_then: self.state,
                });
                Outcome::CancelRequested
            }
            (OutcomeKind::Submitted, _) => Outcome::Submitted,
            (OutcomeKind::Rejected(reason), _) => Outcome::Rejected { reason },
            // A part outcome is only ever judged for a part.
            (OutcomeKind::Stored | OutcomeKind::Incident | OutcomeKind::Replayed, _) => {
                Outcome::Rejected {
                    reason: Reason::IllegalTransition,
                }
            }
        }
    }

    fn is_stale(&self, event: EventRef<'_>) -> bool {
        let Some(seq) = event.source_seq else {
            return false;
        };
        self.last_source_seq
            .get(event.producer)
            .is_some_and(|&last| seq <= last)
    }

    fn advance_producer(&mut self, event: EventRef<'_>) {
        if let Some(seq) = event.source_seq {
            self.last_source_seq.insert(event.producer.to_string(), seq);
        }
    }
}

/// Turns a credential into the reference the ledger may keep. The credential
/// itself never enters an event, a receipt or an export.
pub fn authorization_receipt_for(credential: &str) -> String {
    let digest = sha256_fields(&["authorization", credential]);
    format!("authz:{}", &digest[..16])
}
