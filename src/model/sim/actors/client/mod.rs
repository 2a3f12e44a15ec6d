//! The A2A client: its streaming or blocking call, the resume after an
//! interruption, a retried submission, its own timeout and its
//! SubscribeToTask calls; CancelTask in [`cancel`].

mod cancel;

use super::effect::{Effect, View};
use super::inputs::{ClientIn, ExecutorIn, PushIn, SecondIn, StoreIn};
use super::state::{CallState, ClientId, Stage};
use super::subscription;
use super::timeout::{timeout_due, Due};
use crate::model::ledger::{authorization_receipt_for, Body};
use crate::model::sim::scenario::{Client, Push, PushFollowup, ReceiptMode};
use crate::model::state::TaskState;
use crate::model::trace::{
    CallEnd, CancelResult, Disposition, Entry, Source, StreamEnd, StreamRole,
};
use crate::model::wire::{self, RowWire, SimEvent};

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

    /// The client resumes its interrupted task after `stage`: a new call,
    /// with its own timeout.
    fn resume(&mut self, view: &View, stage: Stage) -> Vec<Effect> {
        let mut effects = vec![];
        if self.subscribed {
            // Measured (SPEC §14): the subscription it read stays open
            // beside the resumed call and gets the next turn's events; the
            // resume streams on client 1's message stream again.
            if matches!(self.call, CallState::Open | CallState::Stranded) {
                self.lingering = self.stream.map(|s| (self.task, s));
            }
            self.subscribed = false;
            self.stream = self.message_stream;
        }
        let still_open = view.sc.client == Client::Stream && self.call == CallState::Open;
        self.call = CallState::Open;
        self.number += 1;
        self.last_activity = view.now;
        let beside = still_open && view.profile.republish_ends_open_stream.is_some();
        if beside {
            // Measured (SPEC §14): the follow-up streams on a connection of
            // its own, beside the first stream the SDK kept open.
            self.left_open = self.stream;
            self.stream = Some(view.next_stream);
            self.message_stream = self.stream;
            effects.push(Effect::OpenStream(ClientId::First, StreamRole::Send));
        } else {
            // The resume's stream continues the first one's record, open
            // again (a stream that nothing ends is hung).
            effects.push(Effect::EndStream(self.stream, StreamEnd::Hung));
        }
        effects.extend([
            Effect::to(StoreIn::ReopenBus(0)),
            Effect::to(SecondIn::Resumed { task: self.task }),
        ]);
        if let Some(ms) = view.sc.timeout_ms {
            let call = self.number;
            effects.push(Effect::at(
                view.now + u64::from(ms),
                ClientIn::Timeout { call },
            ));
        }
        let receipt = match (stage, view.sc.receipt) {
            (Stage::Auth, ReceiptMode::Valid) => Some(authorization_receipt_for(CLIENT_CREDENTIAL)),
            _ => None,
        };
        let label = match (stage, &receipt) {
            (Stage::Auth, Some(r)) => format!("client authorizes and resumes (receipt {r})"),
            (Stage::Auth, None) => "client resumes without an authorization receipt".into(),
            (Stage::Input, _) => "client supplies the delivery postcode and resumes".into(),
        };
        let label = if beside {
            format!("{label} on a connection of its own, its first stream still open")
        } else {
            label
        };
        effects.push(Effect::Row(Entry::action(Source::Client, label)));
        if view.sc.push != Push::Off && view.sc.push_followup == PushFollowup::Repeat {
            effects.push(Effect::to(PushIn::ConfigRepeated));
        }
        effects.push(Effect::to(ExecutorIn::Resume { stage, receipt }));
        effects
    }

    /// The resumed `execute()` published `task` again: the message stream
    /// the SDK kept open at the interruption refuses it and ends with the
    /// profile's error.
    fn republished(&mut self, view: &View, task: usize) -> Vec<Effect> {
        let Some(error) = view.profile.republish_ends_open_stream else {
            return vec![];
        };
        if task != self.task {
            return vec![];
        }
        let Some(stream) = self.left_open.take() else {
            return vec![];
        };
        let state = view.followed_state.map_or("?".into(), TaskState::label);
        let label = format!(
            "the first turn's stream, left open at {state}, gets the Task again and ends with JSON-RPC {} (UnsupportedOperationError): \"{}\"; the resumed call streams on",
            error.code, error.message
        );
        vec![
            Effect::EndStream(Some(stream), StreamEnd::Error(error.code)),
            Effect::Row(Entry::action(Source::Handler, label)),
        ]
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

    /// After a restart broke its stream: it subscribes again, as the
    /// recorders' client does, while it has subscriptions left.
    fn resubscribe_after_break(&self, view: &View) -> Vec<Effect> {
        if view.sc.resubscribe.is_some() && self.subscriptions < MAX_SUBSCRIPTIONS {
            return vec![Effect::request(view.now, ClientIn::Subscribe)];
        }
        vec![]
    }

    /// It calls SubscribeToTask on the task it follows.
    fn subscribe(&mut self, view: &View) -> Vec<Effect> {
        let client = ClientId::First;
        let stream = view.next_stream;
        self.subscriptions += 1;
        self.subscribed = true;
        self.call = CallState::Open;
        self.number += 1;
        self.last_activity = view.now;
        self.stream = Some(stream);
        let mut effects = vec![
            Effect::OpenStream(client, StreamRole::Resubscribe),
            Effect::Row(Entry::action(
                Source::Client,
                "client calls SubscribeToTask to read on",
            )),
        ];
        if let Some(ms) = view.sc.timeout_ms {
            let call = self.number;
            let t = view.now + u64::from(ms);
            effects.push(Effect::at(t, ClientIn::Timeout { call }));
        }
        effects.extend(subscription::answer(view, client, stream, view.followed));
        effects
    }

    /// A restart broke its connections: a subscription beside a resumed
    /// call, and its open call.
    fn broken(&mut self, view: &View, assumed: bool) -> Vec<Effect> {
        let mut effects = vec![];
        if let Some(stream) = self.left_open.take() {
            let entry = Entry::action(
                Source::Client,
                "the first turn's stream broken by the restart",
            );
            effects.extend([
                Effect::EndStream(Some(stream), StreamEnd::Broken),
                Effect::Row(entry.assumed(assumed)),
            ]);
        }
        if let Some((_, stream)) = self.lingering.take() {
            let entry = Entry::action(Source::Client, "subscription broken by the restart");
            effects.extend([
                Effect::EndStream(Some(stream), StreamEnd::Broken),
                Effect::Row(entry.assumed(assumed)),
            ]);
        }
        if matches!(view.client_call, CallState::Open | CallState::Stranded) {
            effects.extend(self.call_broken(view, assumed));
        }
        effects
    }

    /// A restart broke its open call.
    fn call_broken(&mut self, view: &View, assumed: bool) -> Vec<Effect> {
        self.call = match view.sc.client {
            Client::Stream => CallState::Closed,
            Client::Block => CallState::Failed,
        };
        let label = match view.sc.client {
            Client::Stream => "stream broken by the restart",
            Client::Block => "SendMessage fails: connection reset by the restart",
        };
        vec![
            Effect::EndStream(self.stream, StreamEnd::Broken),
            Effect::Row(Entry::action(Source::Client, label).assumed(assumed)),
        ]
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

    fn return_blocking_call(&mut self, view: &View, why: &str) -> Vec<Effect> {
        let Some((state, count, snapshot)) =
            self.pending_result.take().or_else(|| self.snapshot(view))
        else {
            return vec![];
        };
        let label = format!(
            "{why}: Task {} with {count} artifact{}",
            state.label(),
            s_if_many(count)
        );
        self.blocking_result = Some(count);
        self.call = CallState::Returned;
        let entry = Entry::action(Source::Handler, label).wire(Some(RowWire::sim(snapshot)));
        vec![Effect::Row(entry)]
    }

    /// The queue closed: a stream ends (a subscription as the profile
    /// says); a blocking call still waiting returns the task as it is.
    fn end_call(&mut self, view: &View, label: &str, error: Option<i32>) -> Vec<Effect> {
        let mut effects = self.end_lingering(view, label);
        if self.call != CallState::Open {
            return effects;
        }
        effects.extend(self.end_open_call(view, label, error));
        effects
    }

    /// The queue closed: its subscription beside a resumed call ends as
    /// the profile says (a2a-sdk's stays open until a terminal status).
    fn end_lingering(&mut self, view: &View, label: &str) -> Vec<Effect> {
        let Some((task, stream)) = self.lingering else {
            return vec![];
        };
        if subscription::stays_open(view, task) {
            return vec![];
        }
        self.lingering = None;
        let label = format!("{label}: client 1's subscription ends too");
        vec![
            Effect::EndStream(Some(stream), StreamEnd::Closed),
            Effect::Row(Entry::action(Source::Handler, label)),
        ]
    }

    /// The queue closed on its open call; a stream ended by an error event
    /// keeps its code, which a capture's stream shows as its last event.
    fn end_open_call(&mut self, view: &View, label: &str, error: Option<i32>) -> Vec<Effect> {
        match view.sc.client {
            Client::Stream if self.subscribed => subscription::ends(
                view,
                ClientId::First,
                (self.task, self.stream),
                label,
                error,
            ),
            Client::Stream => {
                self.call = CallState::Closed;
                let end = error.map_or(StreamEnd::Closed, StreamEnd::Error);
                vec![
                    Effect::EndStream(self.stream, end),
                    Effect::Row(Entry::action(Source::Handler, label)),
                ]
            }
            Client::Block => {
                self.return_blocking_call(view, "SendMessage returns as the queue closes")
            }
        }
    }

    /// At the end: a `resubscribe=k` whose event k never came says so
    /// (`first_stream`: how many rows its first stream carried).
    pub(super) fn never_resubscribed(&self, view: &View, first_stream: usize) -> Vec<Effect> {
        match view.sc.resubscribe {
            Some(k) if self.subscriptions == 0 && view.sc.client == Client::Stream => {
                let label = format!(
                    "resubscribe={k}: the stream ended after {first_stream} events, before event {k}, so the client never dropped it"
                );
                let entry = Entry::action(Source::Client, label);
                vec![Effect::Row(entry.disposition(Disposition::NotDelivered))]
            }
            _ => vec![],
        }
    }

    /// At the end: a call or stream that nothing ended hangs (a hung
    /// blocking call is counted: `true`).
    pub(super) fn hangs(&self, view: &View) -> (Vec<Effect>, bool) {
        let mut effects = vec![];
        if self.left_open.is_some() {
            let label = "the first turn's stream, left open beside the resumed call: nothing will ever end it (hung)";
            let entry = Entry::action(Source::Client, label).disposition(Disposition::NotDelivered);
            effects.push(Effect::Row(entry));
        }
        if self.lingering.is_some() {
            let label = "client 1's subscription beside its resumed call still open: nothing will ever end it (hung)";
            let entry = Entry::action(Source::Client, label).disposition(Disposition::NotDelivered);
            effects.push(Effect::Row(entry));
        }
        if !matches!(self.call, CallState::Open | CallState::Stranded) {
            return (effects, false);
        }
        let (label, hung_call) = match (view.sc.client, self.subscribed) {
            (Client::Stream, false) => {
                ("stream still open: nothing will ever end it (hung)", false)
            }
            (Client::Stream, true) => (
                "subscription still open: nothing will ever end it (hung)",
                false,
            ),
            (Client::Block, _) => ("SendMessage never returns (hung call)", true),
        };
        let entry = Entry::action(Source::Client, label).disposition(Disposition::NotDelivered);
        effects.push(Effect::Row(entry));
        (effects, hung_call)
    }

    /// How its call ended, as the run's metrics and call end say: a
    /// stream's end, or a blocking call's.
    pub(super) fn ending(&self, view: &View) -> (Option<StreamEnd>, Option<CallEnd>) {
        match (view.sc.client, self.call) {
            (Client::Block, CallState::Open) => (None, Some(CallEnd::Hung)),
            (Client::Block, CallState::TimedOut) => (None, Some(CallEnd::TimedOut)),
            (Client::Block, CallState::Failed) => (None, Some(CallEnd::Failed)),
            (Client::Block, _) => (None, Some(CallEnd::Returned)),
            (Client::Stream, CallState::Open | CallState::Stranded) => {
                (Some(StreamEnd::Hung), None)
            }
            (Client::Stream, CallState::TimedOut) => (Some(StreamEnd::TimedOut), None),
            (Client::Stream, _) => (Some(StreamEnd::Closed), None),
        }
    }
}

fn s_if_many(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
