//! The SDK's task store as the lab models it: each task's stored state and
//! artifacts, beside the ledger that judges its events.

use super::effect::View;
use crate::model::digest::sha256_fields;
use crate::model::ledger::{Body, LedgerEvent, TaskLedger};
use crate::model::state::TaskState;
use crate::model::trace::Source;
use crate::model::wire;
use crate::model::wire::{Chunk, StoredArtifact};

/// The task as the SDK's store holds it (guard applied).
#[derive(Debug, Clone)]
pub(super) struct StoredTask {
    pub(super) state: TaskState,
    /// When the stored status was written (its timestamp in a snapshot).
    pub(super) since_ms: u64,
    pub(super) artifacts: Vec<StoredArtifact>,
}

/// One task the scenario creates.
#[derive(Debug)]
pub(super) struct TaskSlot {
    /// Its ledger. With `guard=off` it only observes: it records what the
    /// guard would decide.
    pub(super) ledger: TaskLedger,
    /// The task as the SDK stores it; `None` until created and once lost.
    pub(super) stored: Option<StoredTask>,
    /// Set once the SDK stops taking events for this task (profiles that end
    /// the stream at the first final status).
    pub(super) bus_closed: bool,
}

impl TaskSlot {
    pub(super) fn new(task_id: &str) -> TaskSlot {
        TaskSlot {
            ledger: TaskLedger::new(task_id),
            stored: None,
            bus_closed: false,
        }
    }
}

/// The SDK's store: a chunk appends to its artifact (or replaces the part at
/// the same position: a conflicting resend silently wins); a new artifact id
/// adds an artifact.
pub(super) fn store_chunk(task: &mut StoredTask, chunk: &Chunk, part: usize) {
    match task
        .artifacts
        .iter_mut()
        .find(|a| a.artifact_id == chunk.artifact_id)
    {
        Some(artifact) if part < artifact.parts.len() => artifact.parts[part] = chunk.text.clone(),
        Some(artifact) => artifact.parts.push(chunk.text.clone()),
        None => task.artifacts.push(StoredArtifact {
            artifact_id: chunk.artifact_id.clone(),
            name: chunk.name.clone(),
            parts: vec![chunk.text.clone()],
        }),
    }
}

/// A ledger event from `source` (a submission, a cancel request) about the
/// task client 1 follows.
pub(super) fn ledger_event(
    view: &View,
    source: Source,
    event_id: String,
    what: &str,
    body: Body,
) -> LedgerEvent {
    LedgerEvent {
        task_id: wire::task_id(view.followed),
        digest: sha256_fields(&[what, &event_id]),
        event_id,
        producer: source.label().into(),
        source_seq: None,
        observed_ms: view.now,
        body,
    }
}
