//! The pure core: no DOM, no clock, no randomness. Everything the lab shows
//! is computed here from its inputs.

pub mod artifacts;
pub mod check;
pub mod cli;
pub mod compare;
pub mod diagram;
pub mod digest;
pub mod examples;
pub mod explain;
pub mod export;
pub mod json_array;
pub mod ledger;
pub mod presets;
pub mod profile;
pub mod receipt_log;
pub mod scenario;
pub mod seed_form;
pub mod simulate;
pub mod state;
pub mod timeline;
pub mod trace;
pub mod wire;
