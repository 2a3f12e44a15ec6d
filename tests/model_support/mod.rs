//! Shared by the model's tests: a scenario's run and its export, what a
//! streaming client of the simulated agent received (as wire events or as
//! the SSE body a client would have captured), captures made and read, and
//! the fuzz tests' case count; `fidelity` finds the fixtures recorded from
//! the real SDKs, `recorded` reads them as typed records, `probe` reads
//! the probe's recorded runs. Nothing here needs a process or the command
//! line, so the tests that also build for wasm32 can use it. (Each test
//! crate uses some of it.)
#![allow(dead_code)]

pub mod fidelity;
pub mod long_stream;
pub mod probe;
pub mod recorded;

use a2a_lab::model::evidence::capture::{CaptureReader, CaptureReport, Wire};
use a2a_lab::model::evidence::export::export_json;
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::sim::simulate;
use a2a_lab::model::trace::Row;
use a2a_lab::model::trace::{Metrics, Run};
use a2a_lab::model::wire::read_error::ReadError;
use serde_json::{json, Value};

/// The scenario of `query`; a query that does not parse fails the test,
/// naming it.
pub fn scenario(query: &str) -> Scenario {
    Scenario::from_query(query).unwrap_or_else(|e| panic!("{query}: {e}"))
}

/// The simulator's run of `query`: the tests of the trace, the pictures
/// and the subscribers read it.
pub fn run(query: &str) -> Run {
    simulate(&scenario(query))
}

/// The metrics of the run of `query`.
pub fn metrics(query: &str) -> Metrics {
    run(query).trace.metrics
}

/// The rows of the exported trace of `query` that carry a wire event, in
/// order, as the export writes them (`event`, `client`, `wire`, …).
pub fn wire_rows(query: &str) -> Vec<Value> {
    let export: Value = serde_json::from_str(&export_json(&scenario(query))).unwrap();
    export["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["wire"].is_object())
        .cloned()
        .collect()
}

/// Every wire event of the trace of `query`, in order.
pub fn wire_events(query: &str) -> Vec<Value> {
    wire_rows(query)
        .into_iter()
        .map(|mut r| r["wire"].take())
        .collect()
}

/// The same events as an SSE body.
pub fn sse(query: &str) -> String {
    wire_events(query)
        .iter()
        .map(|e| format!("data: {e}\n\n"))
        .collect()
}

/// `events` as JSON Lines, each the JSON-RPC result that answers request
/// `id`: a capture as a client that logs its answers keeps it.
pub fn jsonl(events: &[Value], id: Value) -> Vec<u8> {
    events
        .iter()
        .map(|e| format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "result": e})))
        .collect::<String>()
        .into_bytes()
}

/// What the capture reader makes of `files` read as one capture, the wire
/// told from the events; a capture it refuses fails the test.
pub fn capture_report<F: AsRef<[u8]>>(files: &[F]) -> CaptureReport {
    let files: Vec<&[u8]> = files.iter().map(AsRef::as_ref).collect();
    read_capture(&files, None).unwrap()
}

/// Cases per property for the parsers' fuzz tests: `default`, or what
/// `FUZZ_CASES` says for a soak (`FUZZ_CASES=1000000 cargo test --release
/// --test model fuzz_parsers::`).
pub fn fuzz_cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Reads a whole capture held in memory, each file in turn, as `check`
/// streams them.
pub fn read_capture(files: &[&[u8]], forced: Option<Wire>) -> Result<CaptureReport, ReadError> {
    let mut reader = CaptureReader::new(forced);
    for bytes in files {
        reader.read_bytes(bytes)?;
    }
    Ok(reader.finish())
}

/// The wire JSON a trace row carries, written out.
pub fn wire_json(row: &Row) -> Option<Value> {
    row.wire.as_ref().map(|w| w.json().into_owned())
}
