//! The pure core: no DOM, no clock, no randomness. Everything the lab shows
//! is computed here from its inputs.
//!
//! The vocabulary sits at the root (states, digests, trace rows, wire
//! JSON); the parts are folders, each importing only from the vocabulary
//! and the parts listed before it: [`ledger`], then [`sim`], then
//! [`evidence`] and [`pictures`] (docs/architecture.md).

pub mod digest;
pub mod state;
pub mod trace;
pub mod wire;
pub mod xml;

pub mod evidence;
pub mod ledger;
pub mod pictures;
pub mod sim;
