//! The SDK's request handler and its queue: every event is described here,
//! passes the store (which holds the guard's ledger) and comes back to be
//! delivered to the clients that read it; a broken stream is resent from
//! what the client actually received.

use super::effect::{Effect, View};
use super::inputs::{ClientIn, Delivery, HandlerIn, SecondIn, StoreIn};
use super::state::{tracking_chunk, CallState, ClientId, Event, Interruption, Payload};
use crate::model::digest::sha256_fields;
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::Body;
use crate::model::sim::scenario::Client;
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source};
use crate::model::wire::{
    self, Chunk, RowWire, SimEvent, TaskRef, RECEIPT_ARTIFACT, TRACKING_ARTIFACT,
};

/// The request handler: the events it numbered and the ones the streaming
/// client received.
#[derive(Debug, Default)]
pub(super) struct Handler {
    /// Events emitted so far (their ids are `E1`, `E2`, …).
    emitted: u32,
    /// Every event the streaming client received, in order: a resend
    /// repeats one of these, never an event rebuilt from a numbering.
    sent: Vec<Event>,
    /// Whether the `dup=k` break already happened (it happens once).
    resent: bool,
}

impl Handler {
    /// Handles one input.
    pub(super) fn handle(&mut self, view: &View, input: HandlerIn) -> Vec<Effect> {
        match input {
            HandlerIn::Emit {
                exec,
                task,
                source,
                payload,
                resume,
            } => self.emit(view, (exec, task), source, payload, resume),
            HandlerIn::Deliver(delivery) => self.deliver(view, delivery),
            HandlerIn::MaybeBreak => self.maybe_break_stream(view),
        }
    }

    /// One event from execution `exec` on `task` (put there by the
    /// executor, `cancel()` or the handler): numbered, described and handed
    /// to the store. `resume` marks the resumed execution's WORKING.
    fn emit(
        &mut self,
        view: &View,
        (exec, task): (usize, usize),
        source: Source,
        payload: Payload,
        resume: Option<Interruption>,
    ) -> Vec<Effect> {
        self.emitted += 1;
        let event_id = format!("E{}", self.emitted);
        let event = self.prepare(view, (exec, task), source, payload, event_id);
        vec![Effect::to(StoreIn::Decide {
            event: Box::new(event),
            resend: false,
            resume,
        })]
    }

    /// Describes an event: its label, wire JSON, ledger body and digest.
    fn prepare(
        &self,
        view: &View,
        (exec, task): (usize, usize),
        source: Source,
        payload: Payload,
        event_id: String,
    ) -> Event {
        let (label, wire, body, digest) = self.describe(view, exec, task, &payload);
        let target = match payload {
            Payload::Task => Some(TaskState::Submitted),
            Payload::TaskAgain => view.tasks[task].stored().map(|t| t.state),
            Payload::Status { state, .. } => Some(state),
            Payload::Progress { .. } => Some(TaskState::Working),
            Payload::Chunk { .. } => None,
        };
        Event {
            exec,
            task,
            source,
            payload,
            event_id,
            label,
            wire,
            body,
            digest,
            target,
        }
    }

    fn describe(&self, view: &View, exec: usize, task: usize, payload: &Payload) -> Described {
        let suffix = if task > 0 {
            format!(" (task {})", task + 1)
        } else if exec > 0 {
            format!(" (execution {})", exec + 1)
        } else {
            String::new()
        };
        match payload {
            Payload::Task => (
                format!("Task SUBMITTED enqueued{suffix}"),
                SimEvent::Submitted(task),
                Body::Submit,
                sha256_fields(&["task", &wire::task_id(task)]),
            ),
            Payload::TaskAgain => {
                let (state, artifacts) = view.tasks[task]
                    .stored()
                    .map_or((TaskState::Submitted, &[][..]), |t| {
                        (t.state, &t.artifacts[..])
                    });
                (
                    format!(
                        "Task {} published again as the resumed execute() starts{suffix}",
                        state.label()
                    ),
                    SimEvent::Snapshot {
                        task,
                        state,
                        t_ms: view.now,
                        artifacts: artifacts.to_vec(),
                    },
                    Body::Submit,
                    sha256_fields(&["task-again", &self.emitted.to_string()]),
                )
            }
            Payload::Status { state, receipt } => {
                let manifest = state.is_terminal().then(|| "manifest".to_string());
                (
                    format!("status {}{suffix}", state.label()),
                    SimEvent::Status {
                        task: TaskRef::Nth(task),
                        state: *state,
                        t_ms: view.now,
                        progress: None,
                    },
                    Body::Status {
                        status: (*state).into(),
                        authorization_receipt: receipt.clone(),
                        manifest,
                    },
                    sha256_fields(&["status", state.kebab(), &exec.to_string()]),
                )
            }
            Payload::Progress { step, update, of } => {
                progress(view, task, (*step, *update, *of), &suffix)
            }
            Payload::Chunk { chunk, part } => artifact(view, task, chunk, *part, &suffix),
        }
    }

    /// Hands an event the store kept to its consumers: the streaming client
    /// if it follows this task and its stream is open (a blocking call's
    /// result aggregator consumes everything server-side), and the second
    /// client's open subscription; one row per client that receives it.
    fn deliver(&mut self, view: &View, delivery: Delivery) -> Vec<Effect> {
        let Delivery {
            event,
            label,
            was_terminal,
            status_change,
            resend,
        } = delivery;
        let event = *event;
        let task = event.task;
        let followed = task == view.followed;
        let received =
            followed && view.sc.client == Client::Stream && view.client_call == CallState::Open;
        let consumed = received || (followed && view.sc.client == Client::Block);
        let second = view.second_on(task).filter(|_| !resend);
        let lingering = view.lingering_on(task).filter(|_| !resend);
        let republished = followed && !resend && matches!(event.payload, Payload::TaskAgain);
        let disposition = match (consumed, was_terminal) {
            (true, true) => Disposition::AfterTerminal,
            (true, false) => Disposition::Delivered,
            (false, _) => Disposition::NotDelivered,
        };
        let label = if followed || second.is_some() || lingering.is_some() {
            label
        } else {
            format!("{label}: nobody follows this task any more")
        };
        let mut effects = vec![];
        if consumed || (second.is_none() && lingering.is_none()) {
            let wire = received.then(|| RowWire::sim(event.wire.clone()));
            let stream = view.client_stream.filter(|_| received);
            effects.push(Effect::RowOn(
                stream,
                Entry::event(event.source, label.clone(), disposition)
                    .wire(wire)
                    .target(event.target),
            ));
        }
        // The stream the SDK kept open refuses the task as it is published,
        // whoever else reads it.
        if republished {
            effects.push(Effect::to(ClientIn::Republished { task }));
        }
        // A subscription gets every event, after the end too.
        let subscribed = match was_terminal {
            true => Disposition::AfterTerminal,
            false => Disposition::Delivered,
        };
        let on_subscription = |client: ClientId, stream: usize, label: String| {
            Effect::RowOn(
                Some(stream),
                Entry::event(event.source, label, subscribed)
                    .wire(Some(RowWire::sim(event.wire.clone())))
                    .target(event.target)
                    .client(client.number()),
            )
        };
        if let Some(stream) = lingering {
            let label = format!("{label}, on client 1's subscription too");
            effects.push(on_subscription(ClientId::First, stream, label));
        }
        if let Some(stream) = second {
            effects.push(on_subscription(ClientId::Second, stream, label));
            effects.push(Effect::to(SecondIn::Received));
        }
        if received {
            self.sent.push(event);
            // The client takes the event in first: it may drop the stream
            // itself at this event (`resubscribe`).
            effects.push(Effect::to(ClientIn::Received { task }));
            effects.push(Effect::to(HandlerIn::MaybeBreak));
        }
        // A blocking call answers a status change, not a republished task.
        if followed && status_change {
            effects.push(Effect::to(ClientIn::StatusChanged));
        }
        effects
    }

    /// `dup=k`: after the k-th event streamed to client 1 (on whichever
    /// of its streams carries it) that stream breaks, the client
    /// reconnects and the server resends event k exactly as it was sent
    /// (with other bytes at the same coordinate when `conflict=on` and
    /// event k is an artifact chunk), before the suffix. Where the client
    /// dropped the stream at that event itself, nothing is resent.
    fn maybe_break_stream(&mut self, view: &View) -> Vec<Effect> {
        let Some(k) = view.sc.dup else {
            return vec![];
        };
        if self.resent || self.sent.len() != k as usize {
            return vec![];
        }
        self.resent = true;
        if view.client_call != CallState::Open {
            let label = format!(
                "dup={k}: the client dropped the stream at event {k} itself, so nothing is resent on it"
            );
            let entry = Entry::action(Source::Client, label).disposition(Disposition::NotDelivered);
            return vec![Effect::Row(entry)];
        }
        let label = format!("stream breaks after event {k}; client reconnects");
        let broke = Effect::Row(Entry::action(Source::Client, label));
        let Some(sent) = self.sent.last().cloned() else {
            return vec![broke];
        };
        let resend = match &sent.payload {
            Payload::Chunk { chunk, part }
                if view.sc.conflict && chunk.artifact_id == TRACKING_ARTIFACT =>
            {
                // Other bytes at the same coordinate: the first part's text
                // altered, the rest of the chunk as it was sent.
                let mut chunk = chunk.clone();
                let altered = tracking_chunk(part + 1, view.sc.chunks, true).parts;
                if let (Some(first), Some(text)) =
                    (chunk.parts.first_mut(), altered.into_iter().next())
                {
                    *first = text;
                }
                let other = Payload::Chunk { chunk, part: *part };
                let at = (sent.exec, sent.task);
                let mut conflicting = self.prepare(view, at, Source::Server, other, sent.event_id);
                conflicting.label = sent.label;
                conflicting
            }
            _ if view.sc.conflict => Event {
                source: Source::Server,
                label: format!(
                    "{}, unchanged: event {k} is no artifact chunk for conflict=on to alter",
                    sent.label
                ),
                ..sent
            },
            _ => Event {
                source: Source::Server,
                ..sent
            },
        };
        vec![
            broke,
            Effect::to(StoreIn::Decide {
                event: Box::new(resend),
                resend: true,
                resume: None,
            }),
        ]
    }
}

/// What a progress update says: update `update` of `of` before step
/// `step` of `n`, as the recorders' agents word it.
fn progress_text(step: u32, n: u32, update: u32, of: u32) -> String {
    let update = if of > 1 {
        format!(", update {update}/{of}")
    } else {
        String::new()
    };
    format!("Looking up BBS-1042 (step {step}/{n}{update})")
}

/// What an event is: its row's label, its wire JSON, its ledger body and
/// the digest the ledger compares a repeated id by.
type Described = (String, SimEvent, Body, String);

/// A progress update (`step`, `update`, `of`): WORKING again with the
/// agent's message.
fn progress(
    view: &View,
    task: usize,
    (step, update, of): (u32, u32, u32),
    suffix: &str,
) -> Described {
    let text = progress_text(step, view.sc.chunks, update, of);
    let id = format!("progress-{step}-{update}");
    (
        format!("status WORKING, progress: {text}{suffix}"),
        SimEvent::Status {
            task: TaskRef::Nth(task),
            state: TaskState::Working,
            t_ms: view.now,
            progress: Some((id, text)),
        },
        Body::Status {
            status: TaskState::Working.into(),
            authorization_receipt: None,
            manifest: None,
        },
        sha256_fields(&["progress", &step.to_string(), &update.to_string()]),
    )
}

/// An artifact update: a chunk, the late receipt, or the whole result at
/// once (`result=last`).
fn artifact(view: &View, task: usize, chunk: &Chunk, part: u32, suffix: &str) -> Described {
    let ledger_part = Part::text(
        &chunk.artifact_id,
        part,
        &chunk.parts.join("\n"),
        chunk.last_chunk,
    );
    let (label, digest) = if chunk.parts.len() > 1 {
        let label = format!(
            "the whole artifact {}, {} parts, at once{suffix}",
            chunk.artifact_id,
            chunk.parts.len()
        );
        (label, sha256_fields(&["result", &chunk.artifact_id]))
    } else {
        let label = if chunk.artifact_id == RECEIPT_ARTIFACT {
            format!("late artifact {}{suffix}", chunk.artifact_id)
        } else {
            format!("artifact chunk {}/{}{suffix}", part + 1, view.sc.chunks)
        };
        let digest = sha256_fields(&[
            "part",
            &chunk.artifact_id,
            &part.to_string(),
            &ledger_part.checksum,
        ]);
        (label, digest)
    };
    (
        label,
        SimEvent::Artifact {
            task: TaskRef::Nth(task),
            chunk: chunk.clone(),
        },
        Body::Part(ledger_part),
        digest,
    )
}
