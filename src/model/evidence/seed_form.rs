//! The seed's own event form (`{"id","status","authorizationReceipt"?}`) and
//! the answer `a2a-lab reduce` prints, decided by [`TaskLedger`] so that the
//! lab and the seed's reference reducer agree on every sequence.

use std::borrow::Cow;
use std::io::Write;

use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};

use crate::model::ledger::{Body, EventRef, LedgerEvent, TaskLedger};
use crate::model::state::SentState;

/// An event as the seed's reference reducer takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedEvent {
    /// Event identity.
    pub id: String,
    /// Target status, kebab-case (anything else is rejected by the ledger).
    pub status: String,
    /// Authorization receipt reference, when resuming from auth-required.
    #[serde(
        rename = "authorizationReceipt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub authorization_receipt: Option<String>,
}

impl SeedEvent {
    /// The ledger event for this seed event: no producer, no digest, so the
    /// ledger decides it exactly as the seed does.
    pub fn to_ledger_event(&self, task_id: &str) -> LedgerEvent {
        LedgerEvent {
            task_id: task_id.to_string(),
            event_id: self.id.clone(),
            producer: String::new(),
            source_seq: None,
            digest: String::new(),
            observed_ms: 0,
            body: Body::Status {
                status: SentState::read(self.status.clone()),
                authorization_receipt: self.authorization_receipt.clone(),
                manifest: None,
            },
        }
    }
}

/// A seed-form event parsed in place: its text borrowed from the input
/// unless it had escapes to undo. Same fields and rules as [`SeedEvent`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedEventRef<'a> {
    /// Event identity.
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    /// Target status, kebab-case.
    #[serde(borrow)]
    pub status: Cow<'a, str>,
    /// Authorization receipt reference.
    #[serde(rename = "authorizationReceipt", default, borrow)]
    pub authorization_receipt: Option<Cow<'a, str>>,
}

impl SeedEventRef<'_> {
    /// The event as the ledger reads it, decided exactly as
    /// [`SeedEvent::to_ledger_event`].
    pub fn view(&self) -> EventRef<'_> {
        EventRef::seed(
            &self.id,
            SentState::read(self.status.as_ref()),
            self.authorization_receipt.as_deref(),
        )
    }
}

/// A rejected event in the seed's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedRejection {
    /// The event id.
    pub id: String,
    /// `illegal-transition` or `authorization-receipt-required`.
    pub reason: String,
}

/// The seed reducer's observable state after a sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedOutcome {
    /// Final status, kebab-case.
    pub status: String,
    /// Accepted sequence.
    pub sequence: u64,
    /// Accepted ids in order.
    pub accepted: Vec<String>,
    /// Rejected ids in order with reasons.
    pub rejected: Vec<SeedRejection>,
}

impl SeedOutcome {
    /// Reads the seed-form answer off a ledger.
    pub fn of(ledger: &TaskLedger) -> SeedOutcome {
        SeedOutcome {
            status: ledger.state().kebab().to_string(),
            sequence: ledger.sequence(),
            accepted: ledger.accepted().into_iter().map(String::from).collect(),
            rejected: ledger
                .rejected()
                .into_iter()
                .map(|(id, reason)| SeedRejection {
                    id: id.to_string(),
                    reason: reason.code().to_string(),
                })
                .collect(),
        }
    }
}

/// Writes the seed-form answer as JSON, reading the ids straight out of
/// the ledger: nothing the size of the answer is built in memory.
pub fn write_answer(ledger: &TaskLedger, out: &mut dyn Write) -> std::io::Result<()> {
    struct Ids<'a>(&'a TaskLedger);
    impl Serialize for Ids<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.accepted_ids())
        }
    }
    struct Rejections<'a>(&'a TaskLedger);
    impl Serialize for Rejections<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(
                self.0
                    .rejected_ids()
                    .map(|(id, reason)| Rejection(id, reason.code())),
            )
        }
    }
    struct Rejection<'a>(&'a str, &'static str);
    impl Serialize for Rejection<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(2))?;
            map.serialize_entry("id", self.0)?;
            map.serialize_entry("reason", self.1)?;
            map.end()
        }
    }
    struct SeedAnswer<'a>(&'a TaskLedger);
    impl Serialize for SeedAnswer<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut answer = s.serialize_struct("SeedAnswer", 4)?;
            answer.serialize_field("status", self.0.state().kebab())?;
            answer.serialize_field("sequence", &self.0.sequence())?;
            answer.serialize_field("accepted", &Ids(self.0))?;
            answer.serialize_field("rejected", &Rejections(self.0))?;
            answer.end()
        }
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer(&mut out, &SeedAnswer(ledger))?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Applies seed-form events in order to a fresh task that starts
/// `submitted` (the seed's `start()`).
pub fn reduce<'a>(events: impl IntoIterator<Item = &'a SeedEvent>) -> SeedOutcome {
    let mut ledger = TaskLedger::new("seed");
    for event in events {
        ledger.apply(&event.to_ledger_event("seed"));
    }
    SeedOutcome::of(&ledger)
}
