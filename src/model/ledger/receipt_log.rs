//! The ledger's receipts, stored so that a million of them stay small and
//! the per-event cost stays flat: every event id is appended to one text
//! buffer, each receipt is a fixed 24-byte slot (16 in WebAssembly), and the
//! fields the seed's own events never carry (producer, digest, observed
//! time, authorization receipt, an outcome with a coordinate) live in a side
//! table that consecutive receipts share when they are equal.
//!
//! Lookup by id goes through an open-addressing table of 8-byte buckets (a
//! 32-bit hash tag and the receipt's position). A probe is
//! bounded: an id whose run of occupied buckets is too long goes to an
//! ordered overflow map, so ids crafted to collide cost a logarithmic
//! lookup each, never a quadratic run. The answer is always exact: a tag
//! only selects which ids to compare.

use super::artifacts::Coordinate;
use super::id_index::{id_hash, same_text, tag_of, IdTable, Lookup, Vacancy};
use super::verdict::{Outcome, Reason, Receipt};
use crate::model::state::TaskState;

/// Where a receipt's text lives in a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// The outcomes the seed's events produce, packed; anything else is kept
/// whole in the receipt's [`Extra`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Packed {
    Accepted { sequence: u32, state: TaskState },
    CancelRequested,
    Submitted,
    Rejected(Reason),
    InExtra,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    /// End of this receipt's id in `ids`; it starts where the previous ends.
    id_end: usize,
    /// Index into `extras`, or [`NO_EXTRA`].
    extra: u32,
    outcome: Packed,
}

const NO_EXTRA: u32 = u32::MAX;

/// The rare fields of a receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Extra {
    producer: Span,
    digest: Span,
    authorization_receipt: Option<Span>,
    observed_ms: u64,
    outcome: Option<Unpacked>,
}

/// An outcome a slot cannot pack: a part's, with its coordinate's artifact
/// id in the text buffer (so that storing a part allocates nothing here),
/// or any other whole.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unpacked {
    Part {
        kind: PartKind,
        artifact: Span,
        part: u32,
    },
    Whole(Outcome),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartKind {
    Stored,
    Replayed,
    Incident,
}

/// The fields of a receipt as offered to [`ReceiptLog::push`].
#[derive(Debug, Clone, Copy)]
pub struct NewReceipt<'a> {
    /// The event decided.
    pub event_id: &'a str,
    /// Who emitted it.
    pub producer: &'a str,
    /// When it was observed.
    pub observed_ms: u64,
    /// Payload digest as offered.
    pub digest: &'a str,
    /// The authorization receipt an accepted resume carried.
    pub authorization_receipt: Option<&'a str>,
}

/// Every receipt of one ledger, in arrival order, with a lookup by id.
#[derive(Debug, Clone, Default)]
pub struct ReceiptLog {
    ids: String,
    slots: Vec<Slot>,
    extras: Vec<Extra>,
    text: String,
    table: IdTable,
}

/// Two logs are equal when they hold the same receipts in the same order,
/// however their side tables happen to be shared.
impl PartialEq for ReceiptLog {
    fn eq(&self, other: &Self) -> bool {
        self.ids == other.ids
            && self.len() == other.len()
            && (0..self.len()).all(|i| self.receipt(i) == other.receipt(i))
    }
}

impl Eq for ReceiptLog {}

impl ReceiptLog {
    /// How many receipts.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Forgets every receipt and keeps the memory, for the next task.
    pub fn clear(&mut self) {
        self.ids.clear();
        self.slots.clear();
        self.extras.clear();
        self.text.clear();
        self.table.clear();
    }

    /// The receipt for `id`, or where a new one would go.
    pub fn find(&self, id: &str) -> Lookup {
        self.find_hashed(id, id_hash(id))
    }

    /// [`ReceiptLog::find`] with the id's [`id_hash`] already computed.
    pub fn find_hashed(&self, id: &str, hash: u64) -> Lookup {
        self.table.find(hash, id, |pos| self.id(pos))
    }

    /// Reads the index bucket an id (given by its [`id_hash`]) starts at,
    /// so that a lookup soon after finds it in cache; the value means
    /// nothing.
    pub fn touch(&self, hash: u64) -> u64 {
        let table = &self.table;
        table
            .entries
            .get(table.home(tag_of(hash)))
            .copied()
            .unwrap_or(0)
    }

    /// Makes room for `more` receipts, so that a stream of known length
    /// grows the index once rather than at every doubling. A hint: more
    /// receipts than reserved still fit.
    pub fn reserve(&mut self, more: usize) {
        let Self {
            ids, slots, table, ..
        } = self;
        slots.reserve(more);
        table.reserve(slots.len().saturating_add(more), &|pos| {
            id_in(ids, slots, pos)
        });
    }

    /// Appends a receipt for an id that [`ReceiptLog::find`] reported
    /// vacant; returns its position.
    pub fn push(
        &mut self,
        vacancy: Vacancy,
        fields: NewReceipt<'_>,
        outcome: impl std::borrow::Borrow<Outcome>,
    ) -> usize {
        let outcome = outcome.borrow();
        let at = self.slots.len();
        self.ids.push_str(fields.event_id);
        let packed = pack(outcome);
        let needs_extra = !fields.producer.is_empty()
            || !fields.digest.is_empty()
            || fields.observed_ms != 0
            || fields.authorization_receipt.is_some()
            || packed == Packed::InExtra;
        let extra = if needs_extra {
            let whole = (packed == Packed::InExtra).then_some(outcome);
            self.extra_for(fields, whole)
        } else {
            NO_EXTRA
        };
        self.slots.push(Slot {
            id_end: self.ids.len(),
            extra,
            outcome: packed,
        });
        let Self {
            ids, slots, table, ..
        } = self;
        table.insert(vacancy, at, |pos| id_in(ids, slots, pos));
        at
    }

    /// The side-table entry for these fields, shared with the previous
    /// receipt's when they are the same (a run of resumes carrying one
    /// authorization receipt costs one entry).
    fn extra_for(&mut self, fields: NewReceipt<'_>, outcome: Option<&Outcome>) -> u32 {
        if let Some(last) = self.extras.last() {
            let same = outcome.is_none()
                && last.outcome.is_none()
                && last.observed_ms == fields.observed_ms
                && same_text(self.text_at(last.producer), fields.producer)
                && same_text(self.text_at(last.digest), fields.digest)
                && match (last.authorization_receipt, fields.authorization_receipt) {
                    (Some(kept), Some(offered)) => same_text(self.text_at(kept), offered),
                    (None, None) => true,
                    _ => false,
                };
            if same {
                return (self.extras.len() - 1) as u32;
            }
        }
        let mut keep = |s: &str| {
            let start = self.text.len();
            self.text.push_str(s);
            Span {
                start,
                end: self.text.len(),
            }
        };
        let part = |kind, c: &Coordinate, keep: &mut dyn FnMut(&str) -> Span| Unpacked::Part {
            kind,
            artifact: keep(&c.artifact_id),
            part: c.part,
        };
        let outcome = outcome.map(|outcome| match outcome {
            Outcome::Stored { coordinate } => part(PartKind::Stored, coordinate, &mut keep),
            Outcome::Replayed { coordinate } => part(PartKind::Replayed, coordinate, &mut keep),
            Outcome::Incident { coordinate } => part(PartKind::Incident, coordinate, &mut keep),
            other => Unpacked::Whole(other.clone()),
        });
        let extra = Extra {
            producer: keep(fields.producer),
            digest: keep(fields.digest),
            authorization_receipt: fields.authorization_receipt.map(&mut keep),
            observed_ms: fields.observed_ms,
            outcome,
        };
        self.extras.push(extra);
        (self.extras.len() - 1) as u32
    }

    fn text_at(&self, span: Span) -> &str {
        // Spans are cut from this text when the entries are written.
        &self.text[span.start..span.end]
    }

    fn extra(&self, pos: usize) -> Option<&Extra> {
        let slot = self.slots.get(pos)?;
        self.extras.get(slot.extra as usize)
    }

    /// The event id of the receipt at `pos`.
    pub fn id(&self, pos: usize) -> &str {
        id_in(&self.ids, &self.slots, pos)
    }

    /// The payload digest of the receipt at `pos`.
    pub fn digest(&self, pos: usize) -> &str {
        self.extra(pos).map_or("", |e| self.text_at(e.digest))
    }

    /// Whether the receipt at `pos` was offered with this digest.
    pub fn digest_is(&self, pos: usize, digest: &str) -> bool {
        same_text(self.digest(pos), digest)
    }

    /// The outcome of the receipt at `pos`.
    pub fn outcome(&self, pos: usize) -> Outcome {
        match self.slots.get(pos).map(|s| s.outcome) {
            Some(Packed::Accepted { sequence, state }) => Outcome::Accepted {
                sequence: u64::from(sequence),
                state,
            },
            Some(Packed::CancelRequested) => Outcome::CancelRequested,
            Some(Packed::Submitted) => Outcome::Submitted,
            Some(Packed::Rejected(reason)) => Outcome::Rejected { reason },
            Some(Packed::InExtra) | None => {
                match self.extra(pos).and_then(|e| e.outcome.as_ref()) {
                    Some(Unpacked::Whole(outcome)) => outcome.clone(),
                    Some(&Unpacked::Part {
                        kind,
                        artifact,
                        part,
                    }) => {
                        let coordinate = Coordinate {
                            artifact_id: self.text_at(artifact).into(),
                            part,
                        };
                        match kind {
                            PartKind::Stored => Outcome::Stored { coordinate },
                            PartKind::Replayed => Outcome::Replayed { coordinate },
                            PartKind::Incident => Outcome::Incident { coordinate },
                        }
                    }
                    None => Outcome::Rejected {
                        reason: Reason::IllegalTransition,
                    },
                }
            }
        }
    }

    /// The accepted sequence number of the receipt at `pos`, if it is an
    /// accepted status.
    pub fn accepted_sequence(&self, pos: usize) -> Option<u64> {
        match self.slots.get(pos)?.outcome {
            Packed::Accepted { sequence, .. } => Some(u64::from(sequence)),
            Packed::InExtra => match self.extra(pos)?.outcome {
                Some(Unpacked::Whole(Outcome::Accepted { sequence, .. })) => Some(sequence),
                _ => None,
            },
            _ => None,
        }
    }

    /// The rejection reason of the receipt at `pos`, if it was rejected.
    pub fn rejection(&self, pos: usize) -> Option<Reason> {
        match self.slots.get(pos)?.outcome {
            Packed::Rejected(reason) => Some(reason),
            Packed::InExtra => match self.extra(pos)?.outcome {
                Some(Unpacked::Whole(Outcome::Rejected { reason })) => Some(reason),
                _ => None,
            },
            _ => None,
        }
    }

    /// The whole receipt at `pos`, as an owned value.
    pub fn receipt(&self, pos: usize) -> Receipt {
        let extra = self.extra(pos);
        let text = |f: fn(&Extra) -> Span| extra.map_or("", |e| self.text_at(f(e)));
        Receipt {
            event_id: self.id(pos).into(),
            producer: text(|e| e.producer).into(),
            observed_ms: extra.map_or(0, |e| e.observed_ms),
            digest: text(|e| e.digest).into(),
            outcome: self.outcome(pos),
            authorization_receipt: extra
                .and_then(|e| e.authorization_receipt)
                .map(|s| self.text_at(s).into()),
        }
    }
}

fn id_in<'a>(ids: &'a str, slots: &[Slot], pos: usize) -> &'a str {
    let start = match pos.checked_sub(1) {
        Some(prev) => slots.get(prev).map_or(0, |s| s.id_end),
        None => 0,
    };
    let end = slots.get(pos).map_or(start, |s| s.id_end);
    // Slots record where each id ends in `ids`, in order.
    &ids[start..end]
}

fn pack(outcome: &Outcome) -> Packed {
    match *outcome {
        Outcome::Accepted { sequence, state } => match u32::try_from(sequence) {
            Ok(sequence) => Packed::Accepted { sequence, state },
            Err(_) => Packed::InExtra,
        },
        Outcome::CancelRequested => Packed::CancelRequested,
        Outcome::Submitted => Packed::Submitted,
        Outcome::Rejected { reason } => Packed::Rejected(reason),
        Outcome::Stored { .. } | Outcome::Replayed { .. } | Outcome::Incident { .. } => {
            Packed::InExtra
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(id: &str) -> NewReceipt<'_> {
        NewReceipt {
            event_id: id,
            producer: "",
            observed_ms: 0,
            digest: "",
            authorization_receipt: None,
        }
    }

    fn add(log: &mut ReceiptLog, id: &str, outcome: Outcome) -> usize {
        match log.find(id) {
            Lookup::Vacant(v) => log.push(v, plain(id), outcome),
            Lookup::Found(_) => panic!("{id} was new"),
        }
    }

    #[test]
    fn a_million_ids_are_found_after_the_table_grew() {
        let mut log = ReceiptLog::default();
        for i in 0..1_000_000u32 {
            add(&mut log, &format!("e{i}"), Outcome::Submitted);
        }
        assert_eq!(log.len(), 1_000_000);
        for i in (0..1_000_000u32).step_by(997) {
            assert_eq!(log.find(&format!("e{i}")), Lookup::Found(i as usize));
        }
        assert!(matches!(log.find("e1000000"), Lookup::Vacant(_)));
        assert!(log.table.entries.len() >= 2 * log.len());
    }

    #[test]
    fn a_reserved_log_grows_its_index_once_and_still_takes_more() {
        let mut log = ReceiptLog::default();
        add(&mut log, "before", Outcome::Submitted);
        log.reserve(1000);
        let bits = log.table.bits;
        assert!(log.table.entries.len() >= 2 * 1001);
        for i in 0..1000 {
            add(&mut log, &format!("e{i}"), Outcome::Submitted);
        }
        assert_eq!(log.table.bits, bits, "no growth within the reservation");
        for i in 1000..5000 {
            add(&mut log, &format!("e{i}"), Outcome::Submitted);
        }
        assert!(log.table.bits > bits);
        assert_eq!(log.find("before"), Lookup::Found(0));
        for i in (0..5000).step_by(7) {
            assert_eq!(log.find(&format!("e{i}")), Lookup::Found(i + 1));
        }
    }

    #[test]
    fn a_vacancy_found_before_a_reservation_is_placed_anew() {
        let mut log = ReceiptLog::default();
        for i in 0..10 {
            add(&mut log, &format!("e{i}"), Outcome::Submitted);
        }
        let Lookup::Vacant(v) = log.find("late") else {
            panic!()
        };
        log.reserve(100_000);
        log.push(v, plain("late"), Outcome::Submitted);
        assert_eq!(log.find("late"), Lookup::Found(10));
    }

    #[test]
    fn every_field_comes_back_as_pushed() {
        let mut log = ReceiptLog::default();
        let coordinate = super::super::artifacts::Coordinate {
            artifact_id: "a".into(),
            part: 2,
        };
        let stored = Outcome::Stored { coordinate };
        let accepted = Outcome::Accepted {
            sequence: 3,
            state: TaskState::Working,
        };
        let big = Outcome::Accepted {
            sequence: u64::from(u32::MAX) + 1,
            state: TaskState::Completed,
        };
        let full = NewReceipt {
            event_id: "E1",
            producer: "executor",
            observed_ms: 40,
            digest: "d1",
            authorization_receipt: Some("authz:1"),
        };
        let Lookup::Vacant(v) = log.find("E1") else {
            panic!()
        };
        log.push(v, full, accepted.clone());
        let Lookup::Vacant(v) = log.find("E2") else {
            panic!()
        };
        log.push(
            v,
            NewReceipt {
                event_id: "E2",
                ..full
            },
            stored.clone(),
        );
        add(&mut log, "", big.clone());
        assert_eq!(log.outcome(0), accepted);
        assert_eq!(log.outcome(1), stored);
        assert_eq!(log.outcome(2), big);
        assert_eq!(log.accepted_sequence(2), Some(u64::from(u32::MAX) + 1));
        let r = log.receipt(0);
        assert_eq!(
            (&*r.event_id, &*r.producer, r.observed_ms, &*r.digest),
            ("E1", "executor", 40, "d1")
        );
        assert_eq!(r.authorization_receipt.as_deref(), Some("authz:1"));
        assert_eq!(log.id(2), "");
        assert_eq!(log.find(""), Lookup::Found(2));
        assert_eq!(log.receipt(1).digest.as_ref(), "d1");
        assert_eq!(log.receipt(2).authorization_receipt, None);
    }

    #[test]
    fn a_slot_is_24_bytes_natively_and_16_in_webassembly() {
        let want = if cfg!(target_pointer_width = "32") {
            16
        } else {
            24
        };
        assert_eq!(std::mem::size_of::<Slot>(), want);
    }

    #[test]
    fn equal_rare_fields_in_a_row_share_one_entry() {
        let mut log = ReceiptLog::default();
        for i in 0..100 {
            let id = format!("r{i}");
            let Lookup::Vacant(v) = log.find(&id) else {
                panic!()
            };
            let fields = NewReceipt {
                authorization_receipt: Some("authz:7"),
                ..plain(&id)
            };
            log.push(v, fields, Outcome::Submitted);
        }
        assert_eq!(log.extras.len(), 1);
        assert_eq!(
            log.receipt(99).authorization_receipt.as_deref(),
            Some("authz:7")
        );
    }
}
