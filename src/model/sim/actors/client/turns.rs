//! Client 1's follow-up turn after an interruption: the answer it sends
//! to the task's question (or its authorization), and what it does when
//! the resumed execution publishes the task again.

use super::{FirstClient, CLIENT_CREDENTIAL};
use crate::model::ledger::authorization_receipt_for;
use crate::model::sim::actors::effect::{Effect, View};
use crate::model::sim::actors::inputs::{ClientIn, ExecutorIn, PushIn, SecondIn, StoreIn};
use crate::model::sim::actors::state::{CallState, ClientId, Interruption};
use crate::model::sim::scenario::{Client, Push, PushFollowup, ReceiptMode};
use crate::model::state::TaskState;
use crate::model::trace::{Entry, Source, StreamEnd, StreamRole};

impl FirstClient {
    /// The client resumes its interrupted task after `stage`: a new call,
    /// with its own timeout.
    pub(super) fn resume(&mut self, view: &View, stage: Interruption) -> Vec<Effect> {
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
            (Interruption::Auth, ReceiptMode::Valid) => {
                Some(authorization_receipt_for(CLIENT_CREDENTIAL))
            }
            _ => None,
        };
        let label = match (stage, &receipt) {
            (Interruption::Auth, Some(r)) => format!("client authorizes and resumes (receipt {r})"),
            (Interruption::Auth, None) => "client resumes without an authorization receipt".into(),
            (Interruption::Input, _) => "client supplies the delivery postcode and resumes".into(),
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
    pub(super) fn republished(&mut self, view: &View, task: usize) -> Vec<Effect> {
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
}
