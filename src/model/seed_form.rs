//! The seed's own event form (`{"id","status","authorizationReceipt"?}`) and
//! the answer `a2a-lab reduce` prints, decided by [`TaskLedger`] so that the
//! lab and the seed's reference reducer agree on every sequence.

use serde::{Deserialize, Serialize};

use super::ledger::{Body, LedgerEvent, TaskLedger};

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
                status: self.status.clone(),
                authorization_receipt: self.authorization_receipt.clone(),
                manifest: None,
            },
        }
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

/// The seed-form answer as JSON, borrowing the ids from the ledger rather
/// than copying a million of them.
pub fn answer_json(ledger: &TaskLedger) -> String {
    #[derive(Serialize)]
    struct Rejection<'a> {
        id: &'a str,
        reason: &'static str,
    }
    #[derive(Serialize)]
    struct Answer<'a> {
        status: &'static str,
        sequence: u64,
        accepted: Vec<&'a str>,
        rejected: Vec<Rejection<'a>>,
    }
    let answer = Answer {
        status: ledger.state().kebab(),
        sequence: ledger.sequence(),
        accepted: ledger.accepted(),
        rejected: ledger
            .rejected()
            .into_iter()
            .map(|(id, reason)| Rejection {
                id,
                reason: reason.code(),
            })
            .collect(),
    };
    serde_json::to_string(&answer).unwrap_or_default()
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
