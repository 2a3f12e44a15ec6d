//! A2A 1.0 wire events (ProtoJSON, as a2a-sdk 1.3.0 speaks it): exactly one
//! of `task`, `statusUpdate`, `artifactUpdate`, `message`; camelCase; no
//! `kind`, no `final`; `append` and `lastChunk` omitted when false.

use serde_json::{json, Map, Value};

use crate::model::state::TaskState;

/// The fixed task id of the BBS-1042 scenario (exports are byte-stable).
pub const TASK_ID: &str = "task-bbs-1042";
/// The fixed context id.
pub const CONTEXT_ID: &str = "ctx-bbs-1042";
/// The user's message id.
pub const MESSAGE_ID: &str = "msg-bbs-1042-1";
/// What Jenya asks.
pub const QUESTION: &str = "Where is my order BBS-1042?";
/// The tracking artifact's id.
pub const TRACKING_ARTIFACT: &str = "BBS-1042-tracking";
/// The late artifact's id.
pub const RECEIPT_ARTIFACT: &str = "BBS-1042-receipt";
/// Virtual time 0 on the wire: 2026-11-02T10:00:00.000Z, in Unix ms.
pub const EPOCH_UNIX_MS: u64 = 1_793_613_600_000;

/// The user message that opens the task.
pub fn user_message() -> Value {
    json!({"messageId": MESSAGE_ID, "role": "ROLE_USER", "parts": [{"text": QUESTION}]})
}

/// The id of the n-th task the scenario creates (a retry without the guard
/// creates a second one).
pub fn task_id(n: usize) -> String {
    if n == 0 {
        TASK_ID.to_string()
    } else {
        format!("{TASK_ID}-{}", n + 1)
    }
}

/// The context id of the n-th task.
pub fn context_id(n: usize) -> String {
    if n == 0 {
        CONTEXT_ID.to_string()
    } else {
        format!("{CONTEXT_ID}-{}", n + 1)
    }
}

/// `{"task": …}` as the executor first enqueues it.
pub fn task_submitted(n: usize) -> Value {
    json!({"task": {
        "id": task_id(n),
        "contextId": context_id(n),
        "status": {"state": TaskState::Submitted.wire()},
        "history": [user_message()],
    }})
}

/// `{"statusUpdate": …}` for task `n` at virtual time `t_ms`.
pub fn status_update(n: usize, state: TaskState, t_ms: u64) -> Value {
    json!({"statusUpdate": {
        "taskId": task_id(n),
        "contextId": context_id(n),
        "status": {"state": state.wire(), "timestamp": timestamp(t_ms)},
    }})
}

/// `{"statusUpdate": …}` reporting progress (SPEC §14): the task's state
/// again, with an agent message, as `TaskUpdater.update_status` sends it.
pub fn progress_update(n: usize, state: TaskState, t_ms: u64, id: &str, text: &str) -> Value {
    let message = json!({"messageId": id, "role": "ROLE_AGENT", "parts": [{"text": text}]});
    json!({"statusUpdate": {
        "taskId": task_id(n),
        "contextId": context_id(n),
        "status": {"state": state.wire(), "message": message, "timestamp": timestamp(t_ms)},
    }})
}

/// One artifact chunk as streamed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Artifact id.
    pub artifact_id: String,
    /// Artifact name.
    pub name: String,
    /// Its text parts: one per step, or every step's at once (the whole
    /// result of `result=last`).
    pub parts: Vec<String>,
    /// Appends to earlier chunks.
    pub append: bool,
    /// Closes the artifact.
    pub last_chunk: bool,
}

/// `{"artifactUpdate": …}` for a chunk of task `n`.
pub fn artifact_update(n: usize, chunk: &Chunk) -> Value {
    let mut update = Map::new();
    update.insert("taskId".into(), json!(task_id(n)));
    update.insert("contextId".into(), json!(context_id(n)));
    update.insert(
        "artifact".into(),
        json!({"artifactId": chunk.artifact_id, "name": chunk.name, "parts": text_parts(&chunk.parts)}),
    );
    if chunk.append {
        update.insert("append".into(), json!(true));
    }
    if chunk.last_chunk {
        update.insert("lastChunk".into(), json!(true));
    }
    json!({ "artifactUpdate": Value::Object(update) })
}

fn text_parts(texts: &[String]) -> Vec<Value> {
    texts.iter().map(|t| json!({"text": t})).collect()
}

/// A stored artifact as GetTask or a blocking result lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredArtifact {
    /// Artifact id.
    pub artifact_id: String,
    /// Artifact name.
    pub name: String,
    /// Its text parts, in order.
    pub parts: Vec<String>,
}

/// `{"task": …}` for task `n` as a blocking call or GetTask returns it.
pub fn task_snapshot(n: usize, state: TaskState, t_ms: u64, artifacts: &[StoredArtifact]) -> Value {
    let artifacts: Vec<Value> = artifacts
        .iter()
        .map(
            |a| json!({"artifactId": a.artifact_id, "name": a.name, "parts": text_parts(&a.parts)}),
        )
        .collect();
    let mut task = Map::new();
    task.insert("id".into(), json!(task_id(n)));
    task.insert("contextId".into(), json!(context_id(n)));
    task.insert(
        "status".into(),
        json!({"state": state.wire(), "timestamp": timestamp(t_ms)}),
    );
    if !artifacts.is_empty() {
        task.insert("artifacts".into(), Value::Array(artifacts));
    }
    task.insert("history".into(), json!([user_message()]));
    json!({ "task": Value::Object(task) })
}

/// RFC 3339 UTC with milliseconds for virtual time `t_ms`.
pub fn timestamp(t_ms: u64) -> String {
    let unix_ms = EPOCH_UNIX_MS + t_ms;
    let secs = unix_ms / 1000;
    let millis = unix_ms % 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
