//! The second client of `second_client=k` (SPEC §9): one SubscribeToTask
//! stream on the task client 1 follows, answered and ended as
//! [`subscription`](super::subscription) says for either client.

use super::effect::{Effect, View};
use super::inputs::{self, SecondIn};
use super::state::{CallState, ClientId};
use super::subscription::{answer, ends};
use super::timeout::{timeout_due, Due};
use crate::model::trace::{Disposition, Entry, Source, StreamEnd, StreamRole};

/// The second client's one SubscribeToTask stream.
#[derive(Debug)]
struct Subscription {
    call: CallState,
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
    /// Handles one input.
    pub(super) fn handle(&mut self, view: &View, input: SecondIn) -> Vec<Effect> {
        match input {
            SecondIn::Timeout => self.timeout(view),
            SecondIn::Subscribe { task } => self.subscribe(view, task),
            SecondIn::SetCall(call) => {
                if let Some(s) = self.subscription.as_mut() {
                    s.call = call;
                }
                vec![]
            }
            SecondIn::Closed { task, label } => self.queue_closed(view, task, &label),
            SecondIn::Broken => self.broken(),
            SecondIn::Received => {
                if let Some(s) = self.subscription.as_mut() {
                    s.last_activity = view.now;
                }
                vec![]
            }
            SecondIn::Resumed { task } => {
                // Measured on both SDKs (SPEC §14): a subscription to an
                // interrupted task gets the next turn's events.
                if let Some(s) = self.subscription.as_mut() {
                    if s.task == task && s.call == CallState::Stranded {
                        s.call = CallState::Open;
                    }
                }
                vec![]
            }
        }
    }

    /// Its subscription while open to receive: the task and the record of
    /// its stream.
    pub(super) fn open(&self) -> Option<(usize, usize)> {
        self.subscription
            .as_ref()
            .filter(|s| s.call == CallState::Open)
            .map(|s| (s.task, s.stream))
    }

    /// SubscribeToTask on `task`.
    fn subscribe(&mut self, view: &View, task: usize) -> Vec<Effect> {
        let client = ClientId::Second;
        let stream = view.next_stream;
        self.subscription = Some(Subscription {
            call: CallState::Open,
            task,
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
            effects.push(Effect::at(t, inputs::timeout(client, 0)));
        }
        effects.extend(answer(view, client, stream, task));
        effects
    }

    /// Its own timeout, by the same rule as client 1's.
    fn timeout(&mut self, view: &View) -> Vec<Effect> {
        let Some(s) = self.subscription.as_mut() else {
            return vec![];
        };
        let client = ClientId::Second;
        match timeout_due(view, s.call, s.last_activity, true) {
            Due::Ignored => vec![],
            Due::Later(due) => vec![Effect::at(due, inputs::timeout(client, 0))],
            Due::Now(limit) => {
                s.call = CallState::TimedOut;
                let label = format!(
                    "client timeout after {limit} ms without an answer: gives up on the subscription"
                );
                vec![
                    Effect::EndStream(Some(s.stream), StreamEnd::TimedOut),
                    Effect::Row(Entry::action(Source::Client, label).client(client.number())),
                ]
            }
        }
    }

    /// A restart breaks its stream; it does not subscribe again.
    fn broken(&mut self) -> Vec<Effect> {
        let Some(s) = self.subscription.as_mut() else {
            return vec![];
        };
        if !matches!(s.call, CallState::Open | CallState::Stranded) {
            return vec![];
        }
        s.call = CallState::Closed;
        let entry = Entry::action(Source::Client, "subscription broken by the restart");
        vec![
            Effect::EndStream(Some(s.stream), StreamEnd::Broken),
            Effect::Row(entry.client(ClientId::Second.number())),
        ]
    }

    /// Client 1's queue for `task` closed (`label` says why): the second
    /// client's subscription to it ends as the profile says.
    fn queue_closed(&self, view: &View, task: usize, label: &str) -> Vec<Effect> {
        match self.subscription.as_ref() {
            Some(s) if s.task == task && s.call == CallState::Open => {
                ends(view, ClientId::Second, (task, Some(s.stream)), label, None)
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
            Some(s) if matches!(s.call, CallState::Open | CallState::Stranded) => {
                let label = "subscription still open: nothing will ever end it (hung)";
                let entry =
                    Entry::action(Source::Client, label).disposition(Disposition::NotDelivered);
                vec![Effect::Row(entry.client(ClientId::Second.number()))]
            }
            _ => vec![],
        }
    }
}
