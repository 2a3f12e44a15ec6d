//! The SDK's task store as the lab models it: each task's stored state and
//! artifacts, beside the ledger that judges its events. The store decides
//! what becomes of an event (refused by the guard through the ledger's
//! decision, orphaned on a closed bus, or stored) and hands what it kept
//! back to the handler for delivery.

pub(super) mod task;

pub(super) use task::{StoredTask, TaskSlot};

use super::effect::{Effect, Facts};
use super::inputs::{ClientIn, Delivery, ExecutorIn, PushIn, SecondIn, StoreIn};
use super::state::{Event, Interruption, Payload};
use crate::model::ledger::{Body, LedgerEvent, Outcome, TaskLedger};
use crate::model::sim::profile::StreamCloses;
use crate::model::sim::scenario::Store as Keeping;
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source};
use crate::model::wire;
use crate::model::wire::{Chunk, StoredArtifact, TRACKING_ARTIFACT};

/// The store: every task the scenario creates, in order (client 1's first
/// task, then one per retried submission the SDK takes as new).
#[derive(Debug)]
pub(super) struct TaskStore {
    tasks: Vec<TaskSlot>,
}

impl TaskStore {
    /// The store as the scenario starts: the first task, not yet stored.
    pub(super) fn new() -> TaskStore {
        TaskStore {
            tasks: vec![TaskSlot::new(wire::TASK_ID)],
        }
    }

    /// Every task, for the view.
    pub(super) fn tasks(&self) -> &[TaskSlot] {
        &self.tasks
    }

    /// Every task's ledger, in order, once the run is over.
    pub(super) fn into_ledgers(self) -> Vec<TaskLedger> {
        self.tasks.into_iter().map(|t| t.ledger).collect()
    }

    /// Handles one input. The store reads its own tasks, so it is given
    /// the facts of the world without them.
    pub(super) fn handle(&mut self, facts: &Facts, input: StoreIn) -> Vec<Effect> {
        match input {
            StoreIn::Ledger(task, event) => {
                self.tasks[task].ledger.apply(&event);
                vec![]
            }
            StoreIn::Decide {
                event,
                resend,
                resume,
            } => self.decide(facts, *event, resend, resume),
            StoreIn::CloseBus(task) => self.close_bus(facts, task),
            StoreIn::ReopenBus(task) => {
                self.tasks[task].bus_closed = false;
                vec![]
            }
            StoreIn::CallLoopLeft(task) => {
                self.tasks[task].call_loop_left = true;
                vec![]
            }
            StoreIn::CreateTask => {
                let task = self.tasks.len();
                self.tasks.push(TaskSlot::new(&wire::task_id(task)));
                vec![]
            }
            StoreIn::Restarted { assumed } => self.restarted(facts, assumed),
            StoreIn::StoreSilently { task, state, label } => {
                self.store_silently(facts, task, state, label)
            }
        }
    }

    /// An event from the handler (`resend` when the server repeats one the
    /// client received): decided in the task's ledger, which refuses it
    /// when the guard is on; dropped if the SDK stopped reading the task;
    /// otherwise stored and handed back for delivery. A resumed
    /// execution's WORKING (`resume`) tells the executor how it was
    /// decided, after all it led to.
    fn decide(
        &mut self,
        view: &Facts,
        event: Event,
        resend: bool,
        resume: Option<Interruption>,
    ) -> Vec<Effect> {
        let exec = event.exec;
        let (mut effects, refused) = self.take(view, event, resend);
        if let Some(stage) = resume {
            effects.push(Effect::to(ExecutorIn::Resumed {
                exec,
                stage,
                refused,
            }));
        }
        effects
    }

    /// [`Store::decide`], and whether the event was refused (by the guard,
    /// through the ledger's decision, or by a store that keeps terminal
    /// tasks as they are): the decision, not a count.
    fn take(&mut self, view: &Facts, event: Event, resend: bool) -> (Vec<Effect>, bool) {
        let slot = &mut self.tasks[event.task];
        let label = if resend {
            format!("{} (resent after reconnect)", event.label)
        } else {
            event.label.clone()
        };
        let refused = |row: Entry| (vec![Effect::Row(row.target(event.target))], true);
        if let Some(row) = apply_to_ledger(slot, view, &event, &label) {
            return refused(row);
        }
        if slot.bus_closed {
            return (dropped(&event, label), false);
        }
        if let Some(row) = store_refusal(slot, view, &event, &label, resend) {
            return refused(row);
        }
        (keep(slot, view, event, label, resend), false)
    }

    /// The SDK writes `state` itself, past the queue (a2a-sdk's FAILED
    /// when `execute()` raises): judged and stored, never streamed or
    /// pushed.
    fn store_silently(
        &mut self,
        view: &Facts,
        task: usize,
        state: TaskState,
        label: String,
    ) -> Vec<Effect> {
        let body = Body::Status {
            status: state.into(),
            authorization_receipt: None,
            manifest: state.is_terminal().then(|| "manifest".to_string()),
        };
        let id = format!("silent:{}", state.kebab());
        let event = view.ledger_event(Source::Handler, id, "status", body);
        let slot = &mut self.tasks[task];
        let _ = slot.ledger.apply(&event);
        if let Some(stored) = slot.stored.as_mut() {
            stored.state = state;
            stored.since_ms = view.now;
        }
        let entry = Entry::event(Source::Handler, label, Disposition::NotDelivered);
        vec![Effect::Row(entry.target(Some(state)))]
    }

    /// The SDK stops reading `task`'s events: the calls reading its queue
    /// end.
    fn close_bus(&mut self, view: &Facts, task: usize) -> Vec<Effect> {
        self.tasks[task].bus_closed = true;
        let label = match view.profile.stream_end {
            StreamCloses::FirstFinalStatus => "stream closed at the first final status",
            StreamCloses::ExecuteReturns => {
                "the handler stops at the terminal status: stream closed"
            }
        };
        let mut effects = vec![];
        if task == view.followed {
            effects.push(Effect::queued(ClientIn::end_call(label)));
        }
        effects.push(Effect::queued(SecondIn::Closed {
            task,
            label: label.into(),
        }));
        effects
    }

    /// The process restarted: an in-memory store starts empty, every task
    /// lost; a database keeps them, with nothing to resume them.
    fn restarted(&mut self, view: &Facts, assumed: bool) -> Vec<Effect> {
        let row = match view.sc.store {
            Keeping::Memory => {
                for task in &mut self.tasks {
                    task.stored = None;
                }
                Entry::action(
                    Source::Server,
                    "fresh server: the in-memory task store is empty, the task is lost",
                )
                .disposition(Disposition::Lost)
            }
            Keeping::Database => {
                let state = self.tasks[view.followed]
                    .stored
                    .as_ref()
                    .map_or("?".into(), |t| t.state.label());
                let label = format!(
                    "fresh server: the database still holds the task {state}; nothing resumes it"
                );
                Entry::action(Source::Server, label).disposition(Disposition::NotDelivered)
            }
        };
        vec![Effect::Row(row.assumed(assumed))]
    }
}

/// Applies `event` to its task's ledger (progress while WORKING is no
/// transition, SPEC §13, and is not applied): the ledger judges every
/// event, the guard on or off; the row of a refusal when the guard is on
/// and the ledger's decision refuses it.
fn apply_to_ledger(slot: &mut TaskSlot, view: &Facts, event: &Event, label: &str) -> Option<Entry> {
    let progress = matches!(event.payload, Payload::Progress { .. })
        && slot.ledger.state() == TaskState::Working;
    if progress {
        return None;
    }
    let decision = slot.ledger.apply(&LedgerEvent {
        task_id: wire::task_id(event.task),
        event_id: event.event_id.clone(),
        producer: event.source.label().into(),
        source_seq: None,
        digest: event.digest.clone(),
        observed_ms: view.now,
        body: event.body.clone(),
    });
    if !view.sc.guard {
        return None;
    }
    let disposition = Disposition::of_decision(&decision, Some(slot.ledger.state()))?;
    let label = match decision.outcome() {
        Outcome::Rejected { reason } => format!("{label}: {}", reason.code()),
        _ => label.to_string(),
    };
    Some(Entry::event(event.source, label, disposition))
}

/// Where the SDK stores CANCELED ahead of `cancel()`, its store refuses
/// any change to a terminal task (a2a-server-lf's
/// `task_store/inmemory.rs:58-63`): a follow-up turn on a task canceled
/// while it waited for input is refused, not run. A resend is not a
/// change.
fn store_refusal(
    slot: &TaskSlot,
    view: &Facts,
    event: &Event,
    label: &str,
    resend: bool,
) -> Option<Entry> {
    let error = view.profile.cancel_stored_first.filter(|_| !resend)?;
    let stored = slot.stored.as_ref().filter(|t| t.state.is_terminal())?;
    let label = format!(
        "{label}: refused by the task store, the task is {} (JSON-RPC {})",
        stored.state.label(),
        error.code
    );
    Some(Entry::event(event.source, label, Disposition::NotDelivered))
}

/// An event the store takes: stored (twice where the returned call's
/// event loop appends a chunk too), then handed on for delivery; the bus
/// closed after it where the SDK closes it there.
fn keep(
    slot: &mut TaskSlot,
    view: &Facts,
    event: Event,
    label: String,
    resend: bool,
) -> Vec<Effect> {
    let task = event.task;
    let payload = &event.payload;
    let was_terminal = slot.stored.as_ref().is_some_and(|t| t.state.is_terminal());
    let twice = match payload {
        Payload::Chunk { chunk, .. } if chunk.append && slot.call_loop_left => Some(chunk),
        _ => None,
    };
    let kept = match twice {
        Some(chunk) => appended_by_two_loops(slot, chunk),
        None => store(slot, payload, view.now),
    };
    if !kept {
        // Lost with the process: nothing stores it, nobody receives it.
        return vec![];
    }
    let final_status = matches!(payload, Payload::Status { state, .. }
        if state.is_terminal() || *state == TaskState::InputRequired);
    let label = match twice {
        Some(_) => format!("{label}; stored twice: the returned call's event loop appends it too"),
        None => label,
    };
    // That loop stops where the SDK's event queue stops.
    if final_status {
        slot.call_loop_left = false;
    }
    let status_change = matches!(payload, Payload::Status { .. });
    let terminal = matches!(payload, Payload::Status { state, .. } if state.is_terminal());
    let mut effects = vec![Effect::to(PushIn::Event(Delivery {
        event: Box::new(event),
        label,
        was_terminal,
        status_change,
        resend,
    }))];
    // The bus closes only after the delivery and all it leads to: a
    // resend it sets off still passes.
    if (final_status && view.profile.stream_end == StreamCloses::FirstFinalStatus)
        || (terminal && view.profile.terminal_drops_executor)
    {
        effects.push(Effect::to(StoreIn::CloseBus(task)));
    }
    effects
}

/// An event that reached a task whose events the SDK stopped reading:
/// work that goes on after that is orphaned, its output reaching nobody
/// and nothing storing it.
fn dropped(event: &Event, label: String) -> Vec<Effect> {
    let step = matches!(&event.payload, Payload::Chunk { chunk, .. } if chunk.artifact_id == TRACKING_ARTIFACT);
    let (why, disposition) = if step {
        (
            "courier step computed after the stream ended: dropped silently",
            Disposition::Orphaned,
        )
    } else {
        (
            "dropped silently, the SDK stopped reading this task",
            Disposition::NotDelivered,
        )
    };
    let row =
        Entry::event(event.source, format!("{label}: {why}"), disposition).target(event.target);
    if step {
        vec![Effect::to(ExecutorIn::OrphanedStep), Effect::Row(row)]
    } else {
        vec![Effect::Row(row)]
    }
}

/// An appended chunk as two event loops on the task store it: each loads
/// the stored task and adds the chunk's parts at the end of its artifact
/// (where there is none yet, the first adds it); `false` when the task is
/// lost.
fn appended_by_two_loops(slot: &mut TaskSlot, chunk: &Chunk) -> bool {
    let Some(task) = slot.stored.as_mut() else {
        return false;
    };
    for _ in 0..2 {
        match task
            .artifacts
            .iter_mut()
            .find(|a| a.artifact_id == chunk.artifact_id)
        {
            Some(artifact) => artifact.parts.extend(chunk.parts.iter().cloned()),
            None => task.artifacts.push(StoredArtifact {
                artifact_id: chunk.artifact_id.clone(),
                name: chunk.name.clone(),
                parts: chunk.parts.clone(),
            }),
        }
    }
    true
}

/// Stores what `payload` carries in the task; `false` when the task is
/// lost and nothing can be stored.
fn store(slot: &mut TaskSlot, payload: &Payload, now: u64) -> bool {
    match (payload, slot.stored.as_mut()) {
        (Payload::TaskAgain, _) => {}
        (Payload::Task, stored) => {
            if stored.is_none() {
                slot.stored = Some(StoredTask {
                    state: TaskState::Submitted,
                    since_ms: now,
                    artifacts: Vec::new(),
                });
            }
        }
        (_, None) => return false,
        (Payload::Status { state, .. }, Some(stored)) => {
            stored.state = *state;
            stored.since_ms = now;
        }
        (Payload::Progress { .. }, Some(stored)) => {
            stored.state = TaskState::Working;
            stored.since_ms = now;
        }
        (Payload::Chunk { chunk, part }, Some(stored)) => {
            store_chunk(stored, chunk, *part as usize)
        }
    }
    true
}

/// The SDK's store: a chunk appends to its artifact (or replaces the part at
/// the same position: a conflicting resend silently wins); a new artifact id
/// adds an artifact.
fn store_chunk(task: &mut StoredTask, chunk: &Chunk, part: usize) {
    match task
        .artifacts
        .iter_mut()
        .find(|a| a.artifact_id == chunk.artifact_id)
    {
        Some(artifact) => {
            for (at, text) in (part..).zip(&chunk.parts) {
                match artifact.parts.get_mut(at) {
                    Some(stored) => *stored = text.clone(),
                    None => artifact.parts.push(text.clone()),
                }
            }
        }
        None => task.artifacts.push(StoredArtifact {
            artifact_id: chunk.artifact_id.clone(),
            name: chunk.name.clone(),
            parts: chunk.parts.clone(),
        }),
    }
}
