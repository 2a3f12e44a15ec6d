//! Client 1's SubscribeToTask calls: after it dropped its own stream,
//! and after the server broke one (a restart).

use super::{FirstClient, MAX_SUBSCRIPTIONS};
use crate::model::sim::actors::effect::{Effect, View};
use crate::model::sim::actors::inputs::ClientIn;
use crate::model::sim::actors::state::{CallState, ClientId};
use crate::model::sim::actors::subscription;
use crate::model::sim::scenario::Client;
use crate::model::trace::{Entry, Source, StreamEnd, StreamRole};

impl FirstClient {
    /// After a restart broke its stream: it subscribes again, as the
    /// recorders' client does, while it has subscriptions left.
    pub(super) fn resubscribe_after_break(&self, view: &View) -> Vec<Effect> {
        if view.sc.resubscribe.is_some() && self.subscriptions < MAX_SUBSCRIPTIONS {
            return vec![Effect::request(view.now, ClientIn::Subscribe)];
        }
        vec![]
    }

    /// It calls SubscribeToTask on the task it follows.
    pub(super) fn subscribe(&mut self, view: &View) -> Vec<Effect> {
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
    pub(super) fn broken(&mut self, view: &View, assumed: bool) -> Vec<Effect> {
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
}
