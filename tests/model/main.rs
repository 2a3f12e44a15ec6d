//! The pure core's tests, one binary: the ledger, the simulator, the codec, the
//! pictures, the readers of captures, the explanation, the probe's judge on
//! recorded runs and the model against the SDKs' recordings. Nothing here
//! starts a process; each module is one part, named as its file.
// Tests may panic on what they did not expect; that is how they fail.
#![allow(clippy::unwrap_used)]

#[path = "../model_support/mod.rs"]
mod model_support;
// The judge's tests on recorded answers are native only.
#[cfg(not(target_arch = "wasm32"))]
#[path = "../probe_expect/mod.rs"]
mod probe_expect;

mod architecture_doc;
mod binding_mismatch;
mod capture_fixtures;
mod combinations;
mod compare;
mod continuation;
mod drawn;
mod examples;
mod explain;
mod explain_budget;
mod fidelity;
mod fidelity_auth_stream;
mod fidelity_blocking_parts;
mod fidelity_events;
mod fidelity_push;
mod fidelity_push_timeout;
mod fidelity_subscribe;
mod fidelity_wire;
mod fuzz_parsers;
mod import;
mod keys_drawn;
mod ledger;
mod ledger_properties;
mod live;
mod live_pushes;
mod pictures;
mod probe_gate;
mod probe_judge;
mod profile_rust;
mod profiles;
mod required_fields;
mod round_trip;
mod scenario_codec;
mod scenario_of;
mod scenario_space;
mod simulate;
mod subscribers;
