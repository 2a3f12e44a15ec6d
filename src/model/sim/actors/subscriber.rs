//! SubscribeToTask (SPEC §9): the second client of `second_client=k`, and
//! how the handler answers a subscription and ends it for either client.
//! What a subscriber receives first, when its stream ends and what a
//! finished or lost task answers follow the recordings of both SDKs
//! (`tests/fidelity/fixtures/*/subscribe/`); where the SDKs differ, the
//! profile says which way.

use super::effect::{Effect, View};
use super::state::{Call, ClientId};
use super::timeout::{timeout_due, Due};
use super::Act;
use crate::model::sim::profile::{
    IdleSubscription, SubscriptionEnd, TASK_NOT_FOUND, UNSUPPORTED_OPERATION,
};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source, StreamOutcome, StreamRole};
use crate::model::wire;

/// The second client's one SubscribeToTask stream.
#[derive(Debug)]
struct Subscription {
    call: Call,
    /// The task it subscribed to.
    task: usize,
    last_activity: u64,
    /// The record of its stream.
    stream: usize,
}

/// The second client of `second_client=k`: it subscribes once, after
/// client 1's event k, to the task client 1 follows.
#[derive(Debug, Default)]
pub(super) struct SecondClient {
    subscription: Option<Subscription>,
}

impl SecondClient {
    /// Its subscription while open to receive: the task and the record of
    /// its stream.
    pub(super) fn open(&self) -> Option<(usize, usize)> {
        self.subscription
            .as_ref()
            .filter(|s| s.call == Call::Open)
            .map(|s| (s.task, s.stream))
    }

    /// The subscription's call changed.
    pub(super) fn set_call(&mut self, call: Call) {
        if let Some(s) = self.subscription.as_mut() {
            s.call = call;
        }
    }

    /// An event reached it: its inactivity timeout starts again.
    pub(super) fn received(&mut self, now: u64) {
        if let Some(s) = self.subscription.as_mut() {
            s.last_activity = now;
        }
    }

    /// SubscribeToTask on the task client 1 follows; `stream` is the
    /// record its stream gets, `running` whether an execution still works
    /// on that task.
    pub(super) fn subscribe(&mut self, view: &View, stream: usize, running: bool) -> Vec<Effect> {
        let client = ClientId::Second;
        self.subscription = Some(Subscription {
            call: Call::Open,
            task: view.followed,
            last_activity: view.now,
            stream,
        });
        let label = "second client calls SubscribeToTask";
        let mut effects = vec![
            Effect::OpenStream(client, StreamRole::SecondClient),
            Effect::Row(Entry::action(Source::Client, label).client(client.number())),
        ];
        if let Some(ms) = view.sc.timeout_ms {
            let t = view.now + u64::from(ms);
            effects.push(Effect::Schedule(t, Act::Timeout { client, call: 0 }));
        }
        effects.extend(answer(view, client, stream, running));
        effects
    }

    /// Its own timeout, by the same rule as client 1's.
    pub(super) fn timeout(&mut self, view: &View) -> Vec<Effect> {
        let Some(s) = self.subscription.as_mut() else {
            return vec![];
        };
        let client = ClientId::Second;
        match timeout_due(view, s.call, s.last_activity, true) {
            Due::Ignored => vec![],
            Due::Later(due) => vec![Effect::Schedule(due, Act::Timeout { client, call: 0 })],
            Due::Now(limit) => {
                s.call = Call::TimedOut;
                let label = format!(
                    "client timeout after {limit} ms without an answer: gives up on the subscription"
                );
                vec![
                    Effect::EndStream(Some(s.stream), StreamOutcome::TimedOut),
                    Effect::Row(Entry::action(Source::Client, label).client(client.number())),
                ]
            }
        }
    }

    /// A restart breaks its stream; it does not subscribe again.
    pub(super) fn broken(&mut self) -> Vec<Effect> {
        let Some(s) = self.subscription.as_mut() else {
            return vec![];
        };
        if !matches!(s.call, Call::Open | Call::Stranded) {
            return vec![];
        }
        s.call = Call::Closed;
        let entry = Entry::action(Source::Client, "subscription broken by the restart");
        vec![
            Effect::EndStream(Some(s.stream), StreamOutcome::Broken),
            Effect::Row(entry.client(ClientId::Second.number())),
        ]
    }

    /// Client 1's queue for `task` closed (`label` says why): the second
    /// client's subscription to it ends as the profile says.
    pub(super) fn queue_closed(&self, view: &View, task: usize, label: &str) -> Vec<Effect> {
        match self.subscription.as_ref() {
            Some(s) if s.task == task && s.call == Call::Open => {
                ends(view, ClientId::Second, Some(s.stream), label)
            }
            _ => vec![],
        }
    }

    /// At the end: a `second_client=k` whose event k never came says so
    /// (`received`: how many events client 1 got).
    pub(super) fn never_subscribed(&self, view: &View, received: u32) -> Vec<Effect> {
        match (&self.subscription, view.sc.second_client) {
            (None, Some(k)) => {
                let label = format!(
                    "second_client={k}: client 1 received {received} events, never event {k}, so the second client never subscribed"
                );
                let entry = Entry::action(Source::Client, label);
                vec![Effect::Row(
                    entry
                        .disposition(Disposition::NotDelivered)
                        .client(ClientId::Second.number()),
                )]
            }
            _ => vec![],
        }
    }

    /// At the end: a subscription that nothing ended hangs.
    pub(super) fn hangs(&self) -> Vec<Effect> {
        match &self.subscription {
            Some(s) if matches!(s.call, Call::Open | Call::Stranded) => {
                let label = "subscription still open: nothing will ever end it (hung)";
                let entry =
                    Entry::action(Source::Client, label).disposition(Disposition::NotDelivered);
                vec![Effect::Row(entry.client(ClientId::Second.number()))]
            }
            _ => vec![],
        }
    }
}

/// The handler's answer to SubscribeToTask by `client` on the task client
/// 1 follows: an error for a lost or finished task; otherwise the task as
/// stored (never SUBMITTED: WORKING is stored before any request gets
/// through), then what comes later, unless nothing runs for it any more.
pub(super) fn answer(view: &View, client: ClientId, stream: usize, running: bool) -> Vec<Effect> {
    let task = view.followed;
    let number = client.number();
    let Some(stored) = view.tasks[task].stored() else {
        let text = "SubscribeToTask → TaskNotFoundError (-32001): the task was lost";
        return refuse(client, stream, TASK_NOT_FOUND, text.into());
    };
    let state = stored.state;
    if state.is_terminal() {
        let text = format!(
            "SubscribeToTask → UnsupportedOperationError (-32004): the task is already {}",
            state.label()
        );
        return refuse(client, stream, UNSUPPORTED_OPERATION, text);
    }
    let parts: usize = stored.artifacts.iter().map(|a| a.parts.len()).sum();
    let snapshot = wire::task_snapshot(task, state, stored.since_ms, &stored.artifacts);
    let label = format!(
        "Task snapshot {}: the task as stored, holding {parts} artifact part(s); none is sent again",
        state.label()
    );
    let mut effects = vec![Effect::RowOn(
        Some(stream),
        Entry::event(Source::Handler, label, Disposition::Delivered)
            .wire(Some(snapshot))
            .client(number),
    )];
    if client == ClientId::First {
        effects.push(Effect::ClientReceived);
    }
    if running && !view.tasks[task].bus_closed() {
        return effects;
    }
    let closes = view.profile.idle_subscription == IdleSubscription::ClosesUnlessInterrupted
        && !state.is_interrupted();
    let (call, label) = if closes {
        effects.push(Effect::EndStream(Some(stream), StreamOutcome::Closed));
        (
            Call::Closed,
            "nothing runs for the task: the SDK closes the stream after the snapshot",
        )
    } else {
        (
            Call::Stranded,
            "nothing runs for the task: the subscription stays open with nothing to come",
        )
    };
    effects.push(Effect::SetCall(client, call));
    effects.push(Effect::Row(
        Entry::action(Source::Handler, label).client(number),
    ));
    effects
}

/// SubscribeToTask answered with a JSON-RPC error instead of a stream.
fn refuse(client: ClientId, stream: usize, code: i32, text: String) -> Vec<Effect> {
    let entry = Entry::action(Source::Handler, text).disposition(Disposition::NotDelivered);
    vec![
        Effect::SetCall(client, Call::Closed),
        Effect::EndStream(Some(stream), StreamOutcome::Error(code)),
        Effect::Row(entry.client(client.number())),
    ]
}

/// A subscription's queue closes (the executor returned, a cancel, or the
/// first final status where the profile ends streams there): the profile
/// says whether the subscription of `client` on `stream` ends too.
pub(super) fn ends(
    view: &View,
    client: ClientId,
    stream: Option<usize>,
    label: &str,
) -> Vec<Effect> {
    let number = client.number();
    let terminal = view.followed_state().is_some_and(TaskState::is_terminal);
    if view.profile.subscription_end == SubscriptionEnd::AtTerminal && !terminal {
        let label = format!("{label}; the subscription stays open until a terminal status");
        return vec![
            Effect::Row(Entry::action(Source::Handler, label).client(number)),
            Effect::SetCall(client, Call::Stranded),
        ];
    }
    vec![
        Effect::EndStream(stream, StreamOutcome::Closed),
        Effect::Row(Entry::action(Source::Handler, label).client(number)),
        Effect::SetCall(client, Call::Closed),
    ]
}
