//! The SDK's request handler and its queue: every event passes the guard
//! (when on), the task store and the client's stream here; a broken stream
//! is resent from what the client actually received.

use super::executor::tracking_chunk;
use super::state::{Call, ClientId, Event, Payload};
use super::store::{store_chunk, StoredTask};
use super::Sim;
use crate::model::digest::sha256_fields;
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::{Body, Decision, LedgerEvent, Outcome, Reason};
use crate::model::sim::profile::StreamEnd;
use crate::model::sim::scenario::Client;
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source};
use crate::model::wire::{self, RECEIPT_ARTIFACT, TRACKING_ARTIFACT};

impl Sim<'_> {
    /// A status event with no authorization receipt.
    pub(super) fn emit_status(&mut self, exec: usize, source: Source, state: TaskState) {
        self.emit(
            exec,
            source,
            Payload::Status {
                state,
                receipt: None,
            },
        );
    }

    /// One event from the executor, `cancel()` or the handler: through the
    /// guard (when on), into the store, out to the client. Returns how the
    /// guard refused it, if it did.
    pub(super) fn emit(
        &mut self,
        exec: usize,
        source: Source,
        payload: Payload,
    ) -> Option<Disposition> {
        self.handler.emitted += 1;
        let event_id = format!("E{}", self.handler.emitted);
        let event = self.prepare(exec, source, payload, event_id);
        self.process(event, false)
    }

    /// Describes an event: its label, wire JSON, ledger body and digest.
    pub(super) fn prepare(
        &self,
        exec: usize,
        source: Source,
        payload: Payload,
        event_id: String,
    ) -> Event {
        let task = self.executor.task_of(exec);
        let (label, wire, body, digest) = self.describe(exec, task, &payload);
        let target = match payload {
            Payload::Task => Some(TaskState::Submitted),
            Payload::TaskAgain => self.tasks[task].stored.as_ref().map(|t| t.state),
            Payload::Status { state, .. } => Some(state),
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

    /// Decides an event in the task's ledger (which refuses it when the
    /// guard is on), stores it, and delivers it. Returns how the guard
    /// refused it, if it did: the ledger's decision, not a count.
    pub(super) fn process(&mut self, event: Event, resend: bool) -> Option<Disposition> {
        let task = event.task;
        let source = event.source;
        let target = event.target;
        let ledger_event = LedgerEvent {
            task_id: wire::task_id(task),
            event_id: event.event_id.clone(),
            producer: source.label().into(),
            source_seq: None,
            digest: event.digest.clone(),
            observed_ms: self.now,
            body: event.body.clone(),
        };
        let decision = self.tasks[task].ledger.apply(&ledger_event);
        let label = if resend {
            format!("{} (resent after reconnect)", event.label)
        } else {
            event.label.clone()
        };
        if self.sc.guard {
            if let Some(disposition) = guard_refusal(&decision, self.tasks[task].ledger.state()) {
                let label = match decision.outcome() {
                    Outcome::Rejected { reason } => format!("{label}: {}", reason.code()),
                    _ => label,
                };
                self.record(Entry::event(source, label, disposition).target(target));
                return Some(disposition);
            }
        }
        let payload = &event.payload;
        if self.tasks[task].bus_closed {
            // Work that goes on after the SDK stopped reading is orphaned:
            // its output reaches nobody and nothing stores it.
            let step = matches!(payload, Payload::Chunk { chunk, .. } if chunk.artifact_id == TRACKING_ARTIFACT);
            if step {
                self.executor.count_orphan();
            }
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
            self.record(
                Entry::event(source, format!("{label}: {why}"), disposition).target(target),
            );
            return None;
        }
        let was_terminal = self.tasks[task]
            .stored
            .as_ref()
            .is_some_and(|t| t.state.is_terminal());
        match (payload, self.tasks[task].stored.as_mut()) {
            (Payload::TaskAgain, _) => {}
            (Payload::Task, stored) => {
                if stored.is_none() {
                    self.tasks[task].stored = Some(StoredTask {
                        state: TaskState::Submitted,
                        since_ms: self.now,
                        artifacts: Vec::new(),
                    });
                }
            }
            (_, None) => return None,
            (Payload::Status { state, .. }, Some(stored)) => {
                stored.state = *state;
                stored.since_ms = self.now;
            }
            (Payload::Chunk { chunk, part }, Some(stored)) => {
                store_chunk(stored, chunk, *part as usize)
            }
        }
        let final_status = matches!(payload, Payload::Status { state, .. }
            if state.is_terminal() || *state == TaskState::InputRequired);
        let status_change = matches!(payload, Payload::Status { .. });
        self.deliver(event, label, was_terminal, status_change);
        if final_status && self.profile.stream_end == StreamEnd::FirstFinalStatus {
            self.tasks[task].bus_closed = true;
            let label = "stream closed at the first final status";
            if task == self.client.task {
                self.end_call(label);
            }
            self.close_second(task, label);
        }
        None
    }

    pub(super) fn describe(
        &self,
        exec: usize,
        task: usize,
        payload: &Payload,
    ) -> (String, serde_json::Value, Body, String) {
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
                wire::task_submitted(task),
                Body::Submit,
                sha256_fields(&["task", &wire::task_id(task)]),
            ),
            Payload::TaskAgain => {
                let (state, artifacts) = self.tasks[task]
                    .stored
                    .as_ref()
                    .map_or((TaskState::Submitted, &[][..]), |t| {
                        (t.state, &t.artifacts[..])
                    });
                (
                    format!(
                        "Task {} published again as the resumed execute() starts{suffix}",
                        state.label()
                    ),
                    wire::task_snapshot(task, state, self.now, artifacts),
                    Body::Submit,
                    sha256_fields(&["task-again", &self.handler.emitted.to_string()]),
                )
            }
            Payload::Status { state, receipt } => {
                let manifest = state.is_terminal().then(|| "manifest".to_string());
                (
                    format!("status {}{suffix}", state.label()),
                    wire::status_update(task, *state, self.now),
                    Body::Status {
                        status: state.kebab().into(),
                        authorization_receipt: receipt.clone(),
                        manifest,
                    },
                    sha256_fields(&["status", state.kebab(), &exec.to_string()]),
                )
            }
            Payload::Chunk { chunk, part } => {
                let label = if chunk.artifact_id == RECEIPT_ARTIFACT {
                    format!("late artifact {}{suffix}", chunk.artifact_id)
                } else {
                    format!("artifact chunk {}/{}{suffix}", part + 1, self.sc.chunks)
                };
                let ledger_part =
                    Part::text(&chunk.artifact_id, *part, &chunk.text, chunk.last_chunk);
                let digest = sha256_fields(&[
                    "part",
                    &chunk.artifact_id,
                    &part.to_string(),
                    &ledger_part.checksum,
                ]);
                (
                    label,
                    wire::artifact_update(task, chunk),
                    Body::Part(ledger_part),
                    digest,
                )
            }
        }
    }

    /// Hands a stored event to its consumers: the streaming client if it
    /// follows this task and its stream is open (a blocking call's result
    /// aggregator consumes everything server-side), and the second client's
    /// open subscription; one row per client that receives it.
    pub(super) fn deliver(
        &mut self,
        event: Event,
        label: String,
        was_terminal: bool,
        status_change: bool,
    ) {
        let task = event.task;
        let followed = task == self.client.task;
        let received =
            followed && self.sc.client == Client::Stream && self.client.call == Call::Open;
        let consumed = received || (followed && self.sc.client == Client::Block);
        let second = self.second.open_on(task);
        let disposition = match (consumed, was_terminal) {
            (true, true) => Disposition::AfterTerminal,
            (true, false) => Disposition::Delivered,
            (false, _) => Disposition::NotDelivered,
        };
        let label = if followed {
            label
        } else {
            format!("{label}: nobody follows this task any more")
        };
        if consumed || second.is_none() {
            let wire = received.then(|| event.wire.clone());
            let stream = self.client.stream.filter(|_| received);
            self.record_on(
                stream,
                Entry::event(event.source, label.clone(), disposition)
                    .wire(wire)
                    .target(event.target),
            );
        }
        if let Some(stream) = second {
            let disposition = if was_terminal {
                Disposition::AfterTerminal
            } else {
                Disposition::Delivered
            };
            self.record_on(
                Some(stream),
                Entry::event(event.source, label, disposition)
                    .wire(Some(event.wire.clone()))
                    .target(event.target)
                    .client(ClientId::Second.number()),
            );
            self.second.received(self.now);
        }
        if received {
            self.client.last_activity = self.now;
            self.handler.sent.push(event);
            self.maybe_break_stream();
            self.after_client_received();
        }
        // A blocking call answers a status change, not a republished task.
        if followed && status_change {
            self.maybe_return_blocking_call();
        }
    }

    /// `dup=k`: after delivered event k the stream breaks, the client
    /// reconnects and the server resends event k exactly as it was sent
    /// (with other bytes at the same coordinate when `conflict=on` and
    /// event k is an artifact chunk), before the suffix.
    pub(super) fn maybe_break_stream(&mut self) {
        let Some(k) = self.sc.dup else { return };
        if self.handler.resent || self.handler.sent.len() != k as usize {
            return;
        }
        self.handler.resent = true;
        let label = format!("stream breaks after event {k}; client reconnects");
        self.action(Source::Client, label);
        let Some(sent) = self.handler.sent.last().cloned() else {
            return;
        };
        let resend = match &sent.payload {
            Payload::Chunk { chunk, part }
                if self.sc.conflict && chunk.artifact_id == TRACKING_ARTIFACT =>
            {
                let other = Payload::Chunk {
                    chunk: tracking_chunk(part + 1, self.sc.chunks, true),
                    part: *part,
                };
                let mut conflicting = self.prepare(sent.exec, Source::Server, other, sent.event_id);
                conflicting.label = sent.label;
                conflicting
            }
            _ if self.sc.conflict => Event {
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
        self.process(resend, true);
    }
}

/// How the guard's ledger decision shows in the trace, when it stops the
/// event before delivery and storage.
fn guard_refusal(decision: &Decision, state: TaskState) -> Option<Disposition> {
    match decision {
        Decision::Duplicate(_) => Some(Disposition::Duplicate),
        Decision::New(Outcome::Incident { .. }) => Some(Disposition::Incident),
        Decision::New(Outcome::Replayed { .. }) => Some(Disposition::Duplicate),
        Decision::New(Outcome::Rejected { reason }) => Some(match reason {
            Reason::AfterTerminal | Reason::ResultSetClosed => Disposition::DroppedByGuard,
            Reason::IllegalTransition if state.is_terminal() => Disposition::DroppedByGuard,
            _ => Disposition::Rejected,
        }),
        Decision::New(_) => None,
    }
}
