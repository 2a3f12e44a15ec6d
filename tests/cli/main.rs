//! The `a2a-lab` commands and the lab's servers, one binary: the command line's
//! output and exit codes, captures and webhook logs read by `check`, the probe's
//! report, gRPC (descriptor, TLS, hostile stand-ins), the server stack and the
//! webhook. Each module is one part, named as its file.
#![cfg(not(target_arch = "wasm32"))]
// Tests may panic on what they did not expect; that is how they fail.
#![allow(clippy::unwrap_used)]

#[path = "../cli_support/mod.rs"]
mod cli_support;
#[path = "../grpc_standin/mod.rs"]
mod grpc_standin;
#[path = "../model_support/mod.rs"]
mod model_support;

mod capture;
mod ci_report;
mod cli;
mod grpc_descriptor;
mod grpc_hostile;
mod grpc_tls;
mod live;
mod live_push;
mod other_stacks;
mod probe_report;
mod push_log;
mod servers;
mod webhook;
