//! An event as the ledger reads it: owned ([`LedgerEvent`], [`Body`]) or
//! borrowed from a parsed stream ([`EventRef`], [`BodyRef`]).

use serde::{Deserialize, Serialize};

use super::artifacts::{Part, PartRef};
use crate::model::state::SentState;

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

impl LedgerEvent {
    /// The event as the ledger reads it.
    pub fn view(&self) -> EventRef<'_> {
        EventRef {
            event_id: &self.event_id,
            producer: &self.producer,
            source_seq: self.source_seq,
            digest: &self.digest,
            observed_ms: self.observed_ms,
            body: match &self.body {
                Body::Status {
                    status,
                    authorization_receipt,
                    manifest,
                } => BodyRef::Status {
                    status: status.borrowed(),
                    authorization_receipt: authorization_receipt.as_deref(),
                    manifest: manifest.as_deref(),
                },
                Body::Part(part) => BodyRef::Part(part.borrowed()),
                Body::CancelRequest => BodyRef::CancelRequest,
                Body::Submit => BodyRef::Submit,
            },
        }
    }
}

/// A borrowed [`LedgerEvent`], so that events parsed from a stream are
/// decided without copying their text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventRef<'a> {
    /// Durable event identity.
    pub event_id: &'a str,
    /// Who emitted it.
    pub producer: &'a str,
    /// The producer's own sequence number, when it has one.
    pub source_seq: Option<u64>,
    /// Digest of the payload.
    pub digest: &'a str,
    /// When the authority observed it.
    pub observed_ms: u64,
    /// What the event says.
    pub body: BodyRef<'a>,
}

impl<'a> EventRef<'a> {
    /// An event in the seed's own form: a status with an optional
    /// authorization receipt, and no producer, digest or time, so the
    /// ledger decides it exactly as the seed's reducer does.
    pub fn seed(
        id: &'a str,
        status: SentState<&'a str>,
        authorization_receipt: Option<&'a str>,
    ) -> Self {
        EventRef {
            event_id: id,
            producer: "",
            source_seq: None,
            digest: "",
            observed_ms: 0,
            body: BodyRef::Status {
                status,
                authorization_receipt,
                manifest: None,
            },
        }
    }
}

/// A borrowed [`Body`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRef<'a> {
    /// A status change.
    Status {
        /// The state offered.
        status: SentState<&'a str>,
        /// Reference to an authorization decision.
        authorization_receipt: Option<&'a str>,
        /// A manifest id that closes the result set.
        manifest: Option<&'a str>,
    },
    /// An artifact part.
    Part(PartRef<'a>),
    /// A request to cancel.
    CancelRequest,
    /// A submission.
    Submit,
}

/// The payload of a ledger event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Body {
    /// A status change. Anything outside the eight concrete states must be
    /// rejected, not unrepresentable: [`SentState`] keeps it as sent.
    Status {
        /// The state offered (written as its kebab-case name).
        status: SentState,
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
