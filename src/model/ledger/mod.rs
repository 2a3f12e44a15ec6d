//! The replay-safe ledger of seed 000 (SPEC §2–§3): one authority per task
//! that judges every event from its identity ([`TaskLedger`]) as it reads
//! it ([`LedgerEvent`]), the receipts it keeps ([`verdict`]), compactly (the
//! private receipt log and its id index), what it shows an operator
//! ([`LedgerPanel`]), and the artifact store addressed by coordinate
//! ([`artifacts`]).

pub mod artifacts;
mod authority;
mod event;
mod id_index;
mod panel;
mod receipt_log;
mod record;
pub mod verdict;

pub use authority::{
    authorization_receipt_for, CancelRequest, CasLoss, Decision, LossClass, TaskLedger, Verdict,
};
pub use event::{Body, BodyRef, EventRef, LedgerEvent};
pub use panel::{ArtifactCompletion, LedgerPanel, Suffix, TerminalReceipt};
pub use record::TwoReceipts;
pub use verdict::{Outcome, Reason, Receipt};
