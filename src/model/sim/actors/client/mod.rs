//! The A2A client: its streaming or blocking call, a retried submission
//! and its own timeout; the resume after an interruption in `turns`, its
//! SubscribeToTask calls in `subscribe`, how its calls and streams end in
//! `ending`, CancelTask in `cancel`.

mod cancel;
mod ending;
mod subscribe;
mod turns;

use super::effect::{Effect, View};
use super::inputs::{ClientIn, ExecutorIn, PushIn, SecondIn, StoreIn};
use super::state::{CallState, ClientId};
use super::timeout::{timeout_due, Due};
use crate::model::ledger::Body;
use crate::model::sim::scenario::{Client, Push};
use crate::model::state::TaskState;
use crate::model::trace::{CancelResult, Disposition, Entry, Source, StreamEnd, StreamRole};
use crate::model::wire::{self, SimEvent};

/// The credential Jenya's client holds; only its receipt reference may reach
/// the ledger.
const CLIENT_CREDENTIAL: &str = "jenya-oauth-access-token";

/// The most SubscribeToTask calls client 1 makes (as the recorders do: one
/// after its own drop, one more after a stream the server broke).
const MAX_SUBSCRIPTIONS: u32 = 2;

/// Client 1: which task it follows, how its call stands, and what it got.
#[derive(Debug)]
pub(super) struct FirstClient {
    /// The task the client follows now.
    task: usize,
    call: CallState,
    /// Which call this is (a resume makes a new one), so that an old
    /// call's timeout is ignored.
    number: u32,
    last_activity: u64,
    retried: bool,
    /// A blocking result captured before the call may return.
    pending_result: Option<(TaskState, u32, SimEvent)>,
    blocking_result: Option<u32>,
    cancel_result: Option<CancelResult>,
    /// The record of the stream the client reads now (`None` for a
    /// blocking client).
    stream: Option<usize>,
    /// Whether that stream is a SubscribeToTask stream.
    subscribed: bool,
    /// Events received over all its streams, snapshots included.
    received: u32,
    /// SubscribeToTask calls made so far.
    subscriptions: u32,
    /// Its subscription still open when it resumed the task: the task and
    /// the stream's record (it gets the next turns' events too).
    lingering: Option<(usize, usize)>,
    /// The record of the stream its last SendStreamingMessage opened.
    message_stream: Option<usize>,
    /// Its message stream the SDK kept open at AUTH_REQUIRED, beside the
    /// resumed call's, until the resumed `execute()` publishes the task
    /// again (where the profile says so).
    left_open: Option<usize>,
}

impl FirstClient {
    /// Client 1 before its request: following the first task, its call
    /// open.
    pub(super) fn new() -> FirstClient {
        FirstClient {
            task: 0,
            call: CallState::Open,
            number: 0,
            last_activity: 0,
            retried: false,
            pending_result: None,
            blocking_result: None,
            cancel_result: None,
            stream: None,
            subscribed: false,
            received: 0,
            subscriptions: 0,
            lingering: None,
            message_stream: None,
            left_open: None,
        }
    }

    /// Handles one input.
    pub(super) fn handle(&mut self, view: &View, input: ClientIn) -> Vec<Effect> {
        match input {
            ClientIn::Open => {
                self.stream = Some(view.next_stream);
                self.message_stream = self.stream;
                vec![Effect::OpenStream(ClientId::First, StreamRole::Send)]
            }
            ClientIn::Resume { stage } => self.resume(view, stage),
            ClientIn::Cancel => self.cancel(view),
            ClientIn::Timeout { call } => self.timeout(view, call),
            ClientIn::Subscribe => self.subscribe(view),
            ClientIn::MaybeRetry { task } => self.maybe_retry(view, task),
            ClientIn::Follow(task) => self.set(|c| c.task = task),
            ClientIn::SetCall(call) => self.set(|c| c.call = call),
            ClientIn::Received { task } => self.received_event(view, task),
            ClientIn::StatusChanged => self.status_changed(view),
            ClientIn::CancelAnswered(how) => self.cancel_answered(view, how),
            ClientIn::EndCall { label, error } => self.end_call(view, &label, error),
            ClientIn::Broken { assumed } => self.broken(view, assumed),
            ClientIn::ResubscribeAfterBreak => self.resubscribe_after_break(view),
            ClientIn::Republished { task } => self.republished(view, task),
        }
    }

    /// A change that leads to nothing else.
    fn set(&mut self, change: impl FnOnce(&mut FirstClient)) -> Vec<Effect> {
        change(self);
        vec![]
    }

    /// The task it follows.
    pub(super) fn task(&self) -> usize {
        self.task
    }

    /// Where its call stands.
    pub(super) fn call(&self) -> CallState {
        self.call
    }

    /// The record of the stream it reads now.
    pub(super) fn stream(&self) -> Option<usize> {
        self.stream
    }

    /// Events it received, snapshots included.
    pub(super) fn received(&self) -> u32 {
        self.received
    }

    /// Its subscription still open beside a resumed call: the task and the
    /// stream's record.
    pub(super) fn lingering(&self) -> Option<(usize, usize)> {
        self.lingering
    }

    /// What CancelTask answered, if it was sent.
    pub(super) fn cancel_result(&self) -> Option<CancelResult> {
        self.cancel_result
    }

    /// The artifacts a blocking call's result listed, if it returned one.
    pub(super) fn blocking_result(&self) -> Option<u32> {
        self.blocking_result
    }

    /// `retry=on`: right after the first chunk the client drops its stream
    /// and sends the identical request again.
    fn maybe_retry(&mut self, view: &View, task: usize) -> Vec<Effect> {
        if view.sc.retry && !self.retried && task == 0 {
            self.retried = true;
            return self.retry(view);
        }
        vec![]
    }

    /// The identical SendMessage again: with the guard on, the ledger's
    /// verdict on the submission (read, not yet committed) says whether it
    /// is a lookup hit that returns the existing task; otherwise the SDK
    /// creates a second task and executes again.
    fn retry(&mut self, view: &View) -> Vec<Effect> {
        let id = format!("submit:{}", wire::MESSAGE_ID);
        let event = view.ledger_event(Source::Client, id, "submit", Body::Submit);
        let duplicate = view.tasks[0].ledger().judge(event.view()).is_duplicate();
        let what = format!(
            "client drops the stream and retries SendMessage with the same messageId {}",
            wire::MESSAGE_ID
        );
        let mut effects = vec![Effect::to(StoreIn::Ledger(0, event))];
        if view.sc.client == Client::Stream && self.call == CallState::Open {
            // The retried call streams on a connection of its own.
            effects.extend([
                Effect::EndStream(self.stream, StreamEnd::DroppedByClient),
                Effect::OpenStream(ClientId::First, StreamRole::Retry),
            ]);
            self.stream = Some(view.next_stream);
            self.message_stream = self.stream;
        }
        if view.sc.guard && duplicate {
            let label = format!("{what}: lookup hit, the existing task is returned and followed");
            let entry = Entry::action(Source::Client, label).disposition(Disposition::Duplicate);
            effects.push(Effect::Row(entry));
            return effects;
        }
        let label = format!("{what}: the SDK creates a second task and executes again");
        let task = view.tasks.len();
        // The client follows the new task only once the row about its
        // request is written (a row shows the followed task's state).
        effects.extend([
            Effect::Row(Entry::action(Source::Client, label)),
            Effect::to(StoreIn::CreateTask),
            Effect::to(ClientIn::Follow(task)),
            Effect::to(ExecutorIn::Start(task)),
        ]);
        effects
    }

    /// Its timeout ([`timeout_due`]); `call` tells which of its calls set
    /// it, so that an old call's timeout is ignored.
    fn timeout(&mut self, view: &View, call: u32) -> Vec<Effect> {
        if call != self.number {
            return vec![];
        }
        let (streaming, what) = match view.sc.client {
            Client::Stream => (true, "stream"),
            Client::Block => (false, "call"),
        };
        match timeout_due(view, self.call, self.last_activity, streaming) {
            Due::Ignored => vec![],
            Due::Later(due) => vec![Effect::at(due, ClientIn::Timeout { call })],
            Due::Now(limit) => {
                self.call = CallState::TimedOut;
                let label = format!(
                    "client timeout after {limit} ms without an answer: gives up on the {what}"
                );
                vec![
                    Effect::EndStream(self.stream, StreamEnd::TimedOut),
                    Effect::Row(Entry::action(Source::Client, label)),
                ]
            }
        }
    }

    /// It received an event (a snapshot included): its inactivity timeout
    /// starts again; it may drop its first stream here (`resubscribe`, when
    /// that stream is the one it reads), and the second client may
    /// subscribe now (`second_client`).
    fn received_event(&mut self, view: &View, task: usize) -> Vec<Effect> {
        let on_first = view.dropped_stream_rows;
        self.received += 1;
        self.last_activity = view.now;
        let mut effects = vec![];
        if let Some(k) = view.sc.resubscribe {
            if on_first == Some(k as usize) {
                self.call = CallState::Closed;
                let label = format!(
                    "the connection drops after event {k} (resubscribe={k}); the client will call SubscribeToTask"
                );
                effects.extend([
                    Effect::EndStream(self.stream, StreamEnd::DroppedByClient),
                    Effect::Row(Entry::action(Source::Client, label)),
                    Effect::request(view.now, ClientIn::Subscribe),
                ]);
            }
        }
        if view.sc.second_client == Some(self.received) {
            effects.push(Effect::request(view.now, SecondIn::Subscribe { task }));
        }
        effects
    }

    /// A status changed on the task it follows: a blocking call returns
    /// at a terminal or interrupted state (at FAILED only where the profile
    /// says so; elsewhere it keeps the result for when `execute()` returns).
    fn status_changed(&mut self, view: &View) -> Vec<Effect> {
        if view.sc.client != Client::Block || self.call != CallState::Open {
            return vec![];
        }
        let Some(state) = view.followed_state else {
            return vec![];
        };
        if state == TaskState::Failed && !view.profile.blocking_returns_at_failed {
            // Measured: the result is the task as it was at FAILED, but the
            // call only returns once execute() does.
            if self.pending_result.is_none() {
                self.pending_result = self.snapshot(view);
            }
            return vec![];
        }
        if state.is_terminal() || state.is_interrupted() {
            let mut effects = self.return_blocking_call(view, "SendMessage returns");
            if state == TaskState::AuthRequired && view.sc.push != Push::Off {
                effects.push(Effect::to(PushIn::CallLoopLeft));
            }
            if state == TaskState::AuthRequired && view.profile.auth_call_loop_reapplies_appends {
                effects.push(Effect::to(StoreIn::CallLoopLeft(self.task)));
            }
            return effects;
        }
        vec![]
    }

    /// The followed task as a blocking result lists it: state, artifact
    /// count and wire JSON.
    fn snapshot(&self, view: &View) -> Option<(TaskState, u32, SimEvent)> {
        let task = self.task;
        let stored = view.tasks[task].stored()?;
        let count = stored.artifacts.len() as u32;
        Some((stored.state, count, stored.snapshot(task, view.now)))
    }
}
