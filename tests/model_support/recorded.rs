//! The recorders' files under `tests/fidelity/fixtures/` as typed records:
//! a fixture (one scenario run a few times against a real SDK agent) and
//! the `index.json` that lists a folder's fixtures. Reading them through
//! these types makes a misspelled field a compile error rather than a
//! silent `Null`, and a file that lacks a field every test counts on fails
//! to read, naming the file.
//!
//! A field is an `Option` only where some recordings lack it (a push
//! field on a run with no webhook) or where the recorder writes `null`;
//! a field that every file writes but may be `null` is read with
//! [`nullable`], so a file that drops it still fails. What an agent sent
//! on the wire (`wire`, the answers' bodies) stays JSON: that is the data
//! the lab's reader is tested on, not the recorder's shape.

use std::path::Path;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A field every recording writes, `null` where there was nothing to
/// record: unlike a bare `Option`, a file without it does not read.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer)
}

/// `path` read as `T`; a file that is missing or does not read as `T`
/// fails the test, naming it and the field at fault.
pub fn read_recorded<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One fixture file: a scenario the recorder ran against an SDK's agent,
/// with each run's record.
#[derive(Debug, Deserialize)]
pub struct Recording {
    /// The scenario's query (`cancel=1&client=block`, or `defaults`).
    pub scenario: String,
    /// The step the recorder's agent took between events.
    pub step_ms: u64,
    /// `false` where the SDK has no counterpart of the scenario (a2a-rs:
    /// the 0.3 wire, a database store); the earlier recordings do not
    /// write it.
    #[serde(default)]
    pub measurable: Option<bool>,
    /// Whether every run gave the same outcome; `null` where nothing was
    /// measured to compare.
    #[serde(deserialize_with = "nullable")]
    pub stable: Option<bool>,
    /// Each run as recorded, in order.
    pub runs: Vec<RecordedRun>,
}

/// One run of a scenario: what the clients received, what the agent did,
/// and how the task settled.
#[derive(Debug, Deserialize)]
pub struct RecordedRun {
    /// Client 1's events, normalized by the recorder (over all its
    /// streams, or a blocking call's result).
    pub events: Vec<RecordedEvent>,
    /// How a blocking call ended (`returned`, `timed_out`); `null` for a
    /// streaming client.
    #[serde(deserialize_with = "nullable")]
    pub call: Option<String>,
    /// How client 1's last stream ended (`closed`, `hung`); `null` for a
    /// blocking client.
    #[serde(deserialize_with = "nullable")]
    pub stream: Option<String>,
    /// The error that ended client 1's call, as the recorder's client
    /// said it.
    #[serde(deserialize_with = "nullable")]
    pub end_error: Option<String>,
    /// How many times the agent's executor ran.
    pub executions: u64,
    /// GetTask once the task settled.
    pub get_task_settled: GetTaskSettled,
    /// The artifacts of a blocking call's answer; the push recorders do
    /// not write it.
    #[serde(default)]
    pub blocking_result_artifacts: Option<u64>,
    /// The parts of a blocking call's answer; the earlier recordings do
    /// not write it.
    #[serde(default)]
    pub blocking_result_parts: Option<u64>,
    /// What CancelTask answered; the push recorders do not write it.
    #[serde(default)]
    pub cancel_result: Option<String>,
    /// The executor's steps after the task ended; the push recorders do
    /// not write it.
    #[serde(default)]
    pub orphaned_steps: Option<u64>,
    /// Each stream the clients opened, in the order they opened; the
    /// subscribe recordings and some push ones keep them apart.
    #[serde(default)]
    pub streams: Option<Vec<RecordedStream>>,
    /// Client 1's wire events as received, where the run keeps one list
    /// rather than [`RecordedRun::streams`].
    #[serde(default)]
    pub wire: Option<Vec<Value>>,
    /// The raw SSE body client 1 received, where the run keeps one.
    #[serde(default)]
    pub sse_raw: Option<String>,
    /// The agent's log lines.
    pub server_log: Vec<String>,
    /// Each call of a retried message (its task and how it ended).
    #[serde(default)]
    pub attempts: Option<Vec<Attempt>>,
    /// How many tasks the run made (a retried message makes two).
    #[serde(default)]
    pub distinct_tasks: Option<u64>,
    /// The agent's restart, where the scenario restarts it.
    #[serde(default)]
    pub restart: Option<Restart>,
    /// When client 1 was done; only the push recorders write it.
    #[serde(default)]
    pub client_done_ms: Option<u64>,
    /// Each POST the webhook received, in order; only push recordings.
    #[serde(default)]
    pub posts: Option<Vec<RecordedPost>>,
    /// POSTs the agent's log says failed (a webhook that was down).
    #[serde(default)]
    pub pushes_failed_logged: Option<u64>,
    /// POSTs the webhook received.
    #[serde(default)]
    pub pushes_received: Option<u64>,
    /// The state the webhook was told last.
    #[serde(default)]
    pub push_last_state: Option<String>,
    /// POSTs after the one that told a terminal state.
    #[serde(default)]
    pub push_after_terminal: Option<u64>,
    /// POSTs whose bytes were sent before.
    #[serde(default)]
    pub push_duplicates: Option<u64>,
}

/// An event as the recorders normalize it, in A2A 1.0's words whatever
/// the wire.
#[derive(Debug, Deserialize)]
pub struct RecordedEvent {
    /// `task`, `statusUpdate`, `artifactUpdate` or `message`.
    pub kind: String,
    /// The state it tells (`TASK_STATE_WORKING`).
    #[serde(deserialize_with = "nullable")]
    pub state: Option<String>,
    /// An artifact update's artifact.
    #[serde(deserialize_with = "nullable")]
    pub artifact_id: Option<String>,
    /// An artifact update that appends to its artifact.
    pub append: bool,
    /// An artifact update that is its artifact's last chunk.
    pub last_chunk: bool,
    /// Any event after a terminal state.
    pub after_terminal: bool,
    /// The texts of its parts; the earlier recordings do not keep them.
    #[serde(default)]
    pub parts: Option<Vec<String>>,
}

/// Who opened a recorded stream, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedRole {
    /// Client 1's message.
    Send,
    /// Client 1's follow-up turn of an interrupted task.
    Resume,
    /// A subscription to the task after a dropped stream.
    Resubscribe,
    /// Client 1's message sent again.
    Retry,
    /// Another client's subscription.
    SecondClient,
}

impl RecordedRole {
    /// The role as the recorders spell it.
    pub fn name(self) -> &'static str {
        match self {
            RecordedRole::Send => "send",
            RecordedRole::Resume => "resume",
            RecordedRole::Resubscribe => "resubscribe",
            RecordedRole::Retry => "retry",
            RecordedRole::SecondClient => "second_client",
        }
    }
}

/// One stream a client of the run opened.
#[derive(Debug, Deserialize)]
pub struct RecordedStream {
    /// The client (1, or 2 for a second client).
    pub client: u64,
    /// Why it was opened.
    pub role: RecordedRole,
    /// Its events, normalized.
    pub events: Vec<RecordedEvent>,
    /// Its wire events as received.
    pub wire: Vec<Value>,
    /// How it ended (`closed`, `error`, `dropped_by_client`, …).
    pub end: String,
    /// The JSON-RPC error that ended it.
    #[serde(deserialize_with = "nullable")]
    pub rpc_error: Option<RpcError>,
    /// Its raw SSE body, where the recorder kept it.
    #[serde(default)]
    pub raw: Option<String>,
}

/// A JSON-RPC error as the recorder's client received it.
#[derive(Debug, Deserialize)]
pub struct RpcError {
    /// The error's code (`-32004`).
    pub code: i64,
    /// The error's message, word for word.
    pub message: String,
}

/// GetTask once the task settled: the task's state and counts, or what
/// the recorder wrote when there was no task to get.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum GetTaskSettled {
    /// The task as GetTask returned it.
    Task(SettledTask),
    /// No task (`lost`: a restart of a store in memory).
    Said(String),
}

impl GetTaskSettled {
    /// The task, where GetTask returned one.
    pub fn task(&self) -> Option<&SettledTask> {
        match self {
            GetTaskSettled::Task(task) => Some(task),
            GetTaskSettled::Said(_) => None,
        }
    }
}

/// The task GetTask returned once it settled, counted.
#[derive(Debug, Deserialize)]
pub struct SettledTask {
    /// Its state (`TASK_STATE_COMPLETED`).
    pub state: String,
    /// How many artifacts it held.
    pub artifacts: u64,
    /// How many parts all its artifacts held.
    pub parts: u64,
}

/// One call of a retried message, in a run kept as one list.
#[derive(Debug, Deserialize)]
pub struct Attempt {
    /// The task the call made.
    pub task_id: String,
    /// How its stream ended.
    pub end: String,
}

/// The agent's restart during a run.
#[derive(Debug, Deserialize)]
pub struct Restart {
    /// When the process was killed.
    pub killed_at_ms: u64,
    /// When it answered again.
    pub back_at_ms: u64,
}

/// One POST the webhook received.
#[derive(Debug, Deserialize)]
pub struct RecordedPost {
    /// The names of its headers, in order.
    pub headers: Vec<String>,
    /// Its body as received; `null` where it is the same as the POST at
    /// the same place in run 1, kept once there.
    #[serde(deserialize_with = "nullable")]
    pub body: Option<String>,
    /// How the webhook answered (`200`), or what became of it.
    pub answer: String,
    /// Its body's event, normalized.
    pub event: RecordedEvent,
    /// The task it told of, numbered from 1; the earlier push recordings
    /// do not write it.
    #[serde(default)]
    pub task_n: Option<u64>,
}

/// A folder's `index.json`: its fixtures, listed by the scenario each
/// records.
#[derive(Debug, Deserialize)]
pub struct FixtureIndex {
    /// SPEC's scenarios, one fixture each.
    pub scenarios: Vec<IndexEntry>,
    /// SPEC §14's combinations measured; the 1.0 matrix and the timeout
    /// boundary list none.
    #[serde(default)]
    pub combinations: Vec<IndexEntry>,
    /// The SDKs' own client timeouts measured; only the 1.0 matrix lists
    /// them.
    #[serde(default)]
    pub probes: Vec<IndexEntry>,
}

/// One fixture an index lists.
#[derive(Debug, Deserialize)]
pub struct IndexEntry {
    /// The scenario it records.
    pub scenario: String,
    /// Its file, in the index's folder.
    pub file: String,
}
