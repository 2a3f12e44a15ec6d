//! The BBS-1042 order-status agent on a2a-rs (`a2a-server-lf` 0.5.3), shared by the
//! `order-status-agent` binary (what tests/agents/start.sh runs and the recorder's
//! server child) and the fidelity `recorder`.
//!
//! It is the same executor as the Python and JavaScript recorders' `serve` children
//! (tests/fidelity/python/recorder.py, tests/fidelity/js/recorder.mjs): the same
//! scenario keys, event ids, texts, flags and side channel, so the three SDKs are
//! measured on one agent.

pub mod executor;
pub mod ojson;
pub mod scenario;
pub mod server;
pub mod side;

/// The SDK this agent and its fixtures measure.
pub const SDK: &str = "a2a-server-lf 0.5.3";
