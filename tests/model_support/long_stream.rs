//! A long task as an LLM agent streams it (issue 40): one 0.3 stream of
//! `chunks` appended chunks of one artifact, ended by a final status of
//! any state, as JSON values (to write as a capture) or read as events.
//! Shared by tests/model/scenario_of.rs, tests/cli/cli.rs and benches/explain.rs.
#![allow(dead_code)]

use a2a_lab::model::wire::answer::{read_value, OwnedEvent};
use serde_json::{json, Value};

/// The stream's events as the 0.3 wire sends them: the task, WORKING,
/// the chunks, then a final status of `last` (`submitted`: a state no SDK
/// ends a stream with, so that no scenario reproduces it).
pub fn long_stream_values(chunks: usize, last: &str) -> Vec<Value> {
    let (t, c) = ("task-long", "ctx-long");
    let mut events: Vec<Value> = vec![
        json!({"kind": "task", "id": t, "contextId": c, "status": {"state": "submitted"}}),
        json!({"kind": "status-update", "taskId": t, "contextId": c, "status": {"state": "working"}, "final": false}),
    ];
    for i in 0..chunks {
        let mut chunk = json!({"kind": "artifact-update", "taskId": t, "contextId": c,
            "artifact": {"artifactId": "a-long", "parts": [{"kind": "text", "text": format!("token {i}")}]}});
        if i > 0 {
            chunk["append"] = json!(true);
        }
        if i + 1 == chunks {
            chunk["lastChunk"] = json!(true);
        }
        events.push(chunk);
    }
    events.push(json!({"kind": "status-update", "taskId": t, "contextId": c, "status": {"state": last}, "final": true}));
    events
}

/// The same stream read as events.
pub fn long_stream(chunks: usize, last: &str) -> Vec<OwnedEvent> {
    long_stream_values(chunks, last)
        .iter()
        .map(|e| read_value(e, None).expect("a 0.3 event"))
        .collect()
}

/// The same stream as a capture in JSON Lines, each event a JSON-RPC
/// response.
pub fn long_stream_jsonl(chunks: usize, last: &str) -> String {
    long_stream_values(chunks, last)
        .into_iter()
        .map(|e| json!({"jsonrpc": "2.0", "id": 1, "result": e}).to_string() + "\n")
        .collect()
}
