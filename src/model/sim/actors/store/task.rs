//! One task's record in the store: its ledger, the task as stored, and
//! whether the SDK still takes its events. Every actor may read it; only
//! the store (this module's parent) changes it.

use crate::model::ledger::TaskLedger;
use crate::model::state::TaskState;
use crate::model::wire::{SimEvent, StoredArtifact};

/// The task as the SDK's store holds it (guard applied).
#[derive(Debug, Clone)]
pub(in crate::model::sim::actors) struct StoredTask {
    pub(in crate::model::sim::actors) state: TaskState,
    /// When the stored status was written (its timestamp in a snapshot).
    pub(in crate::model::sim::actors) since_ms: u64,
    pub(in crate::model::sim::actors) artifacts: Vec<StoredArtifact>,
}

impl StoredTask {
    /// Task `task` as a snapshot sends it at virtual time `t_ms`.
    pub(in crate::model::sim::actors) fn snapshot(&self, task: usize, t_ms: u64) -> SimEvent {
        SimEvent::Snapshot {
            task,
            state: self.state,
            t_ms,
            artifacts: self.artifacts.clone(),
        }
    }
}

/// One task the scenario creates.
#[derive(Debug)]
pub(in crate::model::sim::actors) struct TaskSlot {
    /// Its ledger. With `guard=off` it only observes: it records what the
    /// guard would decide.
    pub(super) ledger: TaskLedger,
    /// The task as the SDK stores it; `None` until created and once lost.
    pub(super) stored: Option<StoredTask>,
    /// Set once the SDK stops taking events for this task (profiles that end
    /// the stream at the first final status).
    pub(super) bus_closed: bool,
    /// A returned blocking call's event loop still applies the task's
    /// events to it beside the current call's.
    pub(super) call_loop_left: bool,
}

impl TaskSlot {
    /// A task not yet stored, with an empty ledger.
    pub(in crate::model::sim::actors) fn new(task_id: &str) -> TaskSlot {
        TaskSlot {
            ledger: TaskLedger::new(task_id),
            stored: None,
            bus_closed: false,
            call_loop_left: false,
        }
    }

    /// Its ledger, to read (a verdict judged, not committed).
    pub(in crate::model::sim::actors) fn ledger(&self) -> &TaskLedger {
        &self.ledger
    }

    /// The task as the SDK stores it; `None` until created and once lost.
    pub(in crate::model::sim::actors) fn stored(&self) -> Option<&StoredTask> {
        self.stored.as_ref()
    }

    /// Whether the SDK stopped taking events for this task.
    pub(in crate::model::sim::actors) fn bus_closed(&self) -> bool {
        self.bus_closed
    }
}
