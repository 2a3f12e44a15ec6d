//! The replay-safe ledger of seed 000 (SPEC §2–§3): one authority per task
//! that judges every event from its identity ([`TaskLedger`]), the receipts
//! it keeps ([`verdict`]), compactly (the private receipt log), and the
//! artifact store addressed by coordinate ([`artifacts`]).

pub mod artifacts;
mod authority;
mod receipt_log;
pub mod verdict;

pub use authority::{
    authorization_receipt_for, ArtifactCompletion, Body, BodyRef, CancelRequest, CasLoss, Decision,
    EventRef, LedgerEvent, LedgerPanel, LossClass, Suffix, TaskLedger, TerminalReceipt, Verdict,
};
pub use verdict::{Outcome, Reason, Receipt};
