//! How client 1's calls and streams end: the blocking call's answer, a
//! stream closed, one left open beside a resumed call, one that hangs.

use super::FirstClient;
use crate::model::sim::actors::effect::{Effect, View};
use crate::model::sim::actors::state::{CallState, ClientId};
use crate::model::sim::actors::subscription;
use crate::model::sim::scenario::Client;
use crate::model::trace::{CallEnd, Disposition, Entry, Source, StreamEnd};
use crate::model::wire::RowWire;

impl FirstClient {
    /// The blocking call returns (`why`): the task as it was held for the
    /// answer, else as stored now, with its artifacts counted.
    pub(super) fn return_blocking_call(&mut self, view: &View, why: &str) -> Vec<Effect> {
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
    pub(super) fn end_call(
        &mut self,
        view: &View,
        label: &str,
        error: Option<crate::model::wire::RpcCode>,
    ) -> Vec<Effect> {
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
    fn end_open_call(
        &mut self,
        view: &View,
        label: &str,
        error: Option<crate::model::wire::RpcCode>,
    ) -> Vec<Effect> {
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
    pub(in crate::model::sim::actors) fn never_resubscribed(
        &self,
        view: &View,
        first_stream: usize,
    ) -> Vec<Effect> {
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
    pub(in crate::model::sim::actors) fn hangs(&self, view: &View) -> (Vec<Effect>, bool) {
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
    pub(in crate::model::sim::actors) fn ending(
        &self,
        view: &View,
    ) -> (Option<StreamEnd>, Option<CallEnd>) {
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

/// The plural's "s" for `n`.
fn s_if_many(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
