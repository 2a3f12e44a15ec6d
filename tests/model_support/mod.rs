//! Shared by the model's native tests: what a streaming client of the
//! simulated agent received, as wire events or as the SSE body a client
//! would have captured. (Each test crate uses some of it.)
#![allow(dead_code)]

use a2a_lab::model::evidence::export::export_json;
use a2a_lab::model::sim::scenario::Scenario;
use serde_json::Value;

/// Every wire event of the trace of `query`, in order.
pub fn wire_events(query: &str) -> Vec<Value> {
    let scenario = Scenario::from_query(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    let export: Value = serde_json::from_str(&export_json(&scenario)).unwrap();
    export["trace"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["wire"].is_object())
        .map(|r| r["wire"].clone())
        .collect()
}

/// The same events as an SSE body.
pub fn sse(query: &str) -> String {
    wire_events(query)
        .iter()
        .map(|e| format!("data: {e}\n\n"))
        .collect()
}
