//! The A2A client: its streaming or blocking call, the resume after an
//! interruption, a retried submission, its own timeout and CancelTask.

use super::effect::View;
use super::state::{Call, ClientId, Stage};
use super::store::{ledger_event, TaskSlot};
use super::subscriber;
use super::{Act, Sim};
use crate::model::ledger::{authorization_receipt_for, Body, Decision};
use crate::model::sim::profile::{RaisingCancel, TASK_NOT_CANCELABLE};
use crate::model::sim::scenario::{CancelImpl, Client, ReceiptMode};
use crate::model::state::TaskState;
use crate::model::trace::{CancelResult, Disposition, Entry, Source, StreamOutcome, StreamRole};
use crate::model::wire::{self};

/// The credential Jenya's client holds; only its receipt reference may reach
/// the ledger.
const CLIENT_CREDENTIAL: &str = "jenya-oauth-access-token";

/// The most SubscribeToTask calls client 1 makes (as the recorders do: one
/// after its own drop, one more after a stream the server broke).
const MAX_SUBSCRIPTIONS: u32 = 2;

impl Sim<'_> {
    /// `retry=on`: right after the first chunk the client drops its stream
    /// and sends the identical request again.
    pub(super) fn maybe_retry(&mut self, task: usize) {
        if self.sc.retry && !self.client.retried && task == 0 {
            self.client.retried = true;
            self.retry();
        }
    }

    pub(super) fn resume(&mut self, stage: Stage) {
        self.client.call = Call::Open;
        // The resume's stream continues the first one's record, open again
        // (a stream that nothing ends is hung).
        self.end_stream(self.client.stream, StreamOutcome::Hung);
        self.client.number += 1;
        self.tasks[0].bus_closed = false;
        self.client.last_activity = self.now;
        if let Some(ms) = self.sc.timeout_ms {
            let call = self.client.number;
            let client = ClientId::First;
            self.schedule(self.now + u64::from(ms), Act::Timeout { client, call });
        }
        let receipt = match (stage, self.sc.receipt) {
            (Stage::Auth, ReceiptMode::Valid) => Some(authorization_receipt_for(CLIENT_CREDENTIAL)),
            _ => None,
        };
        let label = match (stage, &receipt) {
            (Stage::Auth, Some(r)) => format!("client authorizes and resumes (receipt {r})"),
            (Stage::Auth, None) => "client resumes without an authorization receipt".into(),
            (Stage::Input, _) => "client supplies the delivery postcode and resumes".into(),
        };
        self.action(Source::Client, label);
        let effects = self.executor.resume(&view!(self), stage, receipt);
        self.apply(effects);
    }

    pub(super) fn retry(&mut self) {
        let id = format!("submit:{}", wire::MESSAGE_ID);
        let event = ledger_event(&view!(self), Source::Client, id, "submit", Body::Submit);
        let decision = self.tasks[0].ledger.apply(&event);
        let what = format!(
            "client drops the stream and retries SendMessage with the same messageId {}",
            wire::MESSAGE_ID
        );
        if self.sc.guard && matches!(decision, Decision::Duplicate(_)) {
            let label = format!("{what}: lookup hit, the existing task is returned and followed");
            self.record(Entry::action(Source::Client, label).disposition(Disposition::Duplicate));
            return;
        }
        let label = format!("{what}: the SDK creates a second task and executes again");
        self.action(Source::Client, label);
        let task = self.tasks.len();
        self.tasks.push(TaskSlot::new(&wire::task_id(task)));
        self.client.task = task;
        self.start(task);
    }

    /// Client 1's timeout ([`timeout_due`]); `call` tells which of its
    /// calls set it, so that an old call's timeout is ignored.
    pub(super) fn timeout(&mut self, call: u32) {
        if call != self.client.number {
            return;
        }
        let (streaming, what) = match self.sc.client {
            Client::Stream => (true, "stream"),
            Client::Block => (false, "call"),
        };
        let view = view!(self);
        match timeout_due(
            &view,
            self.client.call,
            self.client.last_activity,
            streaming,
        ) {
            Due::Ignored => {}
            Due::Later(due) => {
                let client = ClientId::First;
                self.schedule(due, Act::Timeout { client, call });
            }
            Due::Now(limit) => {
                self.client.call = Call::TimedOut;
                self.end_stream(self.client.stream, StreamOutcome::TimedOut);
                let label = format!(
                    "client timeout after {limit} ms without an answer: gives up on the {what}"
                );
                self.action(Source::Client, label);
            }
        }
    }

    /// Client 1 received an event (a snapshot included): it may drop its
    /// first stream here (`resubscribe`), and the second client may
    /// subscribe now (`second_client`).
    pub(super) fn after_client_received(&mut self) {
        self.client.received += 1;
        if let Some(k) = self.sc.resubscribe {
            let first = self
                .client
                .stream
                .and_then(|i| self.streams.get(i))
                .filter(|s| s.role == StreamRole::Send);
            if first.is_some_and(|s| s.rows.len() == k as usize) {
                self.client.call = Call::Closed;
                self.end_stream(self.client.stream, StreamOutcome::DroppedByClient);
                let label = format!(
                    "the connection drops after event {k} (resubscribe={k}); the client will call SubscribeToTask"
                );
                self.action(Source::Client, label);
                self.schedule_request(
                    self.now,
                    Act::Subscribe {
                        client: ClientId::First,
                    },
                );
            }
        }
        if self.sc.second_client == Some(self.client.received) {
            self.schedule_request(
                self.now,
                Act::Subscribe {
                    client: ClientId::Second,
                },
            );
        }
    }

    /// After a restart broke client 1's stream: it subscribes again, as the
    /// recorders' client does, while it has subscriptions left.
    pub(super) fn resubscribe_after_break(&mut self) {
        if self.sc.resubscribe.is_some() && self.client.subscriptions < MAX_SUBSCRIPTIONS {
            self.schedule_request(
                self.now,
                Act::Subscribe {
                    client: ClientId::First,
                },
            );
        }
    }

    /// Client 1 calls SubscribeToTask on the task it follows.
    pub(super) fn subscribe(&mut self) {
        let client = ClientId::First;
        self.client.subscriptions += 1;
        self.client.subscribed = true;
        self.client.call = Call::Open;
        self.client.number += 1;
        self.client.last_activity = self.now;
        let stream = self.open_stream(client, StreamRole::Resubscribe);
        self.client.stream = Some(stream);
        self.action(Source::Client, "client calls SubscribeToTask to read on");
        if let Some(ms) = self.sc.timeout_ms {
            let call = self.client.number;
            self.schedule(self.now + u64::from(ms), Act::Timeout { client, call });
        }
        let running = self.executor.is_running(self.client.task);
        let effects = subscriber::answer(&view!(self), client, stream, running);
        self.apply(effects);
    }

    /// At the end: a `resubscribe=k` whose event k never came says so.
    pub(super) fn note_never_resubscribed(&mut self) {
        let first_stream = self.streams.first().map_or(0, |s| s.rows.len());
        if let Some(k) = self.sc.resubscribe {
            if self.client.subscriptions == 0 && self.sc.client == Client::Stream {
                let label = format!(
                    "resubscribe={k}: the stream ended after {first_stream} events, before event {k}, so the client never dropped it"
                );
                let entry = Entry::action(Source::Client, label);
                self.record(entry.disposition(Disposition::NotDelivered));
            }
        }
    }

    /// A restart broke client 1's connection.
    pub(super) fn break_client(&mut self, assumed: bool) {
        self.client.call = match self.sc.client {
            Client::Stream => Call::Closed,
            Client::Block => Call::Failed,
        };
        self.end_stream(self.client.stream, StreamOutcome::Broken);
        let label = match self.sc.client {
            Client::Stream => "stream broken by the restart",
            Client::Block => "SendMessage fails: connection reset by the restart",
        };
        self.record(Entry::action(Source::Client, label).assumed(assumed));
    }

    pub(super) fn cancel(&mut self) {
        let event = ledger_event(
            &view!(self),
            Source::Client,
            "cancel:1".into(),
            "cancel",
            Body::CancelRequest,
        );
        self.tasks[self.client.task].ledger.apply(&event);
        self.action(Source::Client, "client sends CancelTask");
        let Some(state) = self.task_state() else {
            self.client.cancel_result = Some(CancelResult::Error);
            self.action(
                Source::Handler,
                "CancelTask → TaskNotFoundError (-32001): the task is gone",
            );
            return;
        };
        if state.is_terminal() {
            self.client.cancel_result = Some(CancelResult::NotCancelable);
            let label = format!("CancelTask → TaskNotCancelableError ({TASK_NOT_CANCELABLE}): the task is already {}", state.label());
            self.action(Source::Handler, label);
            return;
        }
        match self.sc.cancel_impl {
            CancelImpl::Write => {
                self.emit_cancel_status(Source::Cancel, TaskState::Canceled);
                self.client.cancel_result =
                    Some(if self.task_state() == Some(TaskState::Canceled) {
                        CancelResult::Canceled
                    } else {
                        CancelResult::Error
                    });
                self.stop_executions();
            }
            CancelImpl::Raise => {
                self.action(Source::Cancel, "cancel() raises NotImplementedError");
                self.client.cancel_result = Some(CancelResult::Error);
                match self.profile.raising_cancel {
                    RaisingCancel::FailsTask => {
                        self.emit_cancel_status(Source::Handler, TaskState::Failed);
                        self.stop_executions();
                    }
                    RaisingCancel::ErrorOnly => {
                        let label = format!(
                            "CancelTask → JSON-RPC error {}; the executor runs on",
                            self.profile.raising_cancel_code
                        );
                        self.action(Source::Handler, label);
                    }
                }
            }
            CancelImpl::Noop => {
                let label = "cancel() returns without writing a status".to_string();
                self.action(Source::Cancel, label);
                self.stop_executions();
                if self.profile.noop_cancel_stores_canceled {
                    // The SDK stores CANCELED itself after the queue closed:
                    // the stream never carries it.
                    self.emit_cancel_status(Source::Handler, TaskState::Canceled);
                }
                if self.task_state() == Some(TaskState::Canceled) {
                    self.client.cancel_result = Some(CancelResult::Canceled);
                } else {
                    let still = self.task_state().map_or("gone".into(), |s| s.label());
                    self.client.cancel_result = Some(CancelResult::NotCancelable);
                    let label = format!(
                        "CancelTask → TaskNotCancelableError ({TASK_NOT_CANCELABLE}): the task is still {still}"
                    );
                    self.action(Source::Handler, label);
                }
            }
        }
    }

    pub(super) fn emit_cancel_status(&mut self, source: Source, state: TaskState) {
        let client_task = self.client.task;
        let exec = self.executor.latest_on(client_task);
        self.emit_status(exec, source, state);
    }

    pub(super) fn maybe_return_blocking_call(&mut self) {
        if self.sc.client != Client::Block || self.client.call != Call::Open {
            return;
        }
        let Some(state) = self.task_state() else {
            return;
        };
        if state == TaskState::Failed && !self.profile.blocking_returns_at_failed {
            // Measured: the result is the task as it was at FAILED, but the
            // call only returns once execute() does.
            if self.client.pending_result.is_none() {
                self.client.pending_result = self.snapshot();
            }
            return;
        }
        if state.is_terminal() || state.is_interrupted() {
            self.return_blocking_call("SendMessage returns");
        }
    }

    /// The client's task as a blocking result lists it: state, artifact
    /// count and wire JSON.
    pub(super) fn snapshot(&self) -> Option<(TaskState, u32, serde_json::Value)> {
        let task = self.client.task;
        let stored = self.tasks[task].stored.as_ref()?;
        let count = stored.artifacts.len() as u32;
        Some((
            stored.state,
            count,
            wire::task_snapshot(task, stored.state, self.now, &stored.artifacts),
        ))
    }

    pub(super) fn return_blocking_call(&mut self, why: &str) {
        let Some((state, count, snapshot)) = self
            .client
            .pending_result
            .take()
            .or_else(|| self.snapshot())
        else {
            return;
        };
        let label = format!(
            "{why}: Task {} with {count} artifact{}",
            state.label(),
            plural(count)
        );
        self.client.blocking_result = Some(count);
        self.client.call = Call::Returned;
        self.record(Entry::action(Source::Handler, label).wire(Some(snapshot)));
    }

    /// The queue closed: a stream ends (a subscription as the profile
    /// says); a blocking call still waiting returns the task as it is.
    pub(super) fn end_call(&mut self, label: &str) {
        if self.client.call != Call::Open {
            return;
        }
        match self.sc.client {
            Client::Stream if self.client.subscribed => {
                let view = view!(self);
                let effects = subscriber::ends(&view, ClientId::First, self.client.stream, label);
                self.apply(effects);
            }
            Client::Stream => {
                self.client.call = Call::Closed;
                self.end_stream(self.client.stream, StreamOutcome::Closed);
                self.action(Source::Handler, label);
            }
            Client::Block => self.return_blocking_call("SendMessage returns as the queue closes"),
        }
    }
}

/// What a client's timeout finds when it is due.
pub(super) enum Due {
    /// The call already ended.
    Ignored,
    /// Something arrived since: an inactivity timeout is due again then.
    Later(u64),
    /// The client gives up now, after this many ms.
    Now(u64),
}

/// A client's timeout, for either client: a stream's (and a
/// subscription's) is an inactivity timeout where the profile says so (it
/// restarts with every event received, as httpx's read timeout does); a
/// blocking call's runs from the request.
pub(super) fn timeout_due(view: &View, call: Call, last_activity: u64, streaming: bool) -> Due {
    if !matches!(call, Call::Open | Call::Stranded) {
        return Due::Ignored;
    }
    let limit = u64::from(view.sc.timeout_ms.unwrap_or(0));
    let due = last_activity + limit;
    if view.profile.timeout_is_inactivity && streaming && view.now < due {
        return Due::Later(due);
    }
    Due::Now(limit)
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
