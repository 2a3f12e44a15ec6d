//! The pure core: no DOM, no clock, no randomness. Everything the lab shows
//! is computed here from its inputs.

pub mod artifacts;
pub mod digest;
pub mod ledger;
pub mod seed_form;
pub mod state;
