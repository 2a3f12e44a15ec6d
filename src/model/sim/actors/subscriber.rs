//! SubscribeToTask (SPEC §9): client 1 reconnecting after its stream dropped
//! (`resubscribe=k`) or broke in a restart, and a second client subscribing
//! after client 1's event k (`second_client=k`). What a subscriber receives
//! first, when its stream ends and what a finished or lost task answers
//! follow the recordings of both SDKs (`tests/fidelity/fixtures/*/subscribe/`);
//! where the SDKs differ, the profile says which way.

use super::state::{Call, ClientId, Exec, SecondClient};
use super::{Act, Sim};
use crate::model::sim::profile::{
    IdleSubscription, SubscriptionEnd, TASK_NOT_FOUND, UNSUPPORTED_OPERATION,
};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source, StreamOutcome, StreamRole};
use crate::model::wire;

/// The most SubscribeToTask calls client 1 makes (as the recorders do: one
/// after its own drop, one more after a stream the server broke).
const MAX_SUBSCRIPTIONS: u32 = 2;

impl Sim<'_> {
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

    /// SubscribeToTask by `client` on the task client 1 follows: an error
    /// for a lost or finished task; otherwise the task as stored (never
    /// SUBMITTED: WORKING is stored before any request gets through), then
    /// what comes later.
    pub(super) fn subscribe(&mut self, client: ClientId) {
        let task = self.client.task;
        let (role, label, call) = match client {
            ClientId::First => {
                self.client.subscriptions += 1;
                self.client.subscribed = true;
                self.client.call = Call::Open;
                self.client.number += 1;
                self.client.last_activity = self.now;
                let label = "client calls SubscribeToTask to read on";
                (StreamRole::Resubscribe, label, self.client.number)
            }
            ClientId::Second => {
                let label = "second client calls SubscribeToTask";
                (StreamRole::SecondClient, label, 0)
            }
        };
        let stream = self.open_stream(client, role);
        match client {
            ClientId::First => self.client.stream = Some(stream),
            ClientId::Second => {
                self.second = Some(SecondClient {
                    call: Call::Open,
                    task,
                    last_activity: self.now,
                    stream,
                })
            }
        }
        self.record(Entry::action(Source::Client, label).client(client.number()));
        if let Some(ms) = self.sc.timeout_ms {
            self.schedule(self.now + u64::from(ms), Act::Timeout { client, call });
        }
        let Some(stored) = self.tasks[task].stored.as_ref() else {
            let text = "SubscribeToTask → TaskNotFoundError (-32001): the task was lost";
            return self.refuse(client, stream, TASK_NOT_FOUND, text.into());
        };
        let state = stored.state;
        if state.is_terminal() {
            let text = format!(
                "SubscribeToTask → UnsupportedOperationError (-32004): the task is already {}",
                state.label()
            );
            return self.refuse(client, stream, UNSUPPORTED_OPERATION, text);
        }
        let parts: usize = stored.artifacts.iter().map(|a| a.parts.len()).sum();
        let snapshot = wire::task_snapshot(task, state, stored.since_ms, &stored.artifacts);
        let label = format!(
            "Task snapshot {}: the task as stored, holding {parts} artifact part(s); none is sent again",
            state.label()
        );
        self.record_on(
            Some(stream),
            Entry::event(Source::Handler, label, Disposition::Delivered)
                .wire(Some(snapshot))
                .client(client.number()),
        );
        if client == ClientId::First {
            self.after_client_received();
        }
        let running = self
            .executor
            .runs
            .iter()
            .any(|r| r.task == task && r.state == Exec::Running);
        if running && !self.tasks[task].bus_closed {
            return;
        }
        let closes = self.profile.idle_subscription == IdleSubscription::ClosesUnlessInterrupted
            && !state.is_interrupted();
        let (call, label) = if closes {
            self.end_stream(Some(stream), StreamOutcome::Closed);
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
        self.set_call(client, call);
        self.record(Entry::action(Source::Handler, label).client(client.number()));
    }

    /// SubscribeToTask answered with a JSON-RPC error instead of a stream.
    fn refuse(&mut self, client: ClientId, stream: usize, code: i32, text: String) {
        self.set_call(client, Call::Closed);
        self.end_stream(Some(stream), StreamOutcome::Error(code));
        let entry = Entry::action(Source::Handler, text).disposition(Disposition::NotDelivered);
        self.record(entry.client(client.number()));
    }

    /// A subscription's queue closes (the executor returned, a cancel, or
    /// the first final status where the profile ends streams there): the
    /// profile says whether the subscription ends too. Returns the call's
    /// new state.
    pub(super) fn subscription_ends(&mut self, client: ClientId, label: &str) -> Call {
        let stream = match client {
            ClientId::First => self.client.stream,
            ClientId::Second => self.second.as_ref().map(|s| s.stream),
        };
        let terminal = self.task_state().is_some_and(TaskState::is_terminal);
        if self.profile.subscription_end == SubscriptionEnd::AtTerminal && !terminal {
            let label = format!("{label}; the subscription stays open until a terminal status");
            self.record(Entry::action(Source::Handler, label).client(client.number()));
            return Call::Stranded;
        }
        self.end_stream(stream, StreamOutcome::Closed);
        self.record(Entry::action(Source::Handler, label).client(client.number()));
        Call::Closed
    }

    /// The second client's stream, where client 1's closes (`label` says
    /// why) for the same task.
    pub(super) fn close_second(&mut self, task: usize, label: &str) {
        let open = self
            .second
            .as_ref()
            .is_some_and(|s| s.task == task && s.call == Call::Open);
        if open {
            let call = self.subscription_ends(ClientId::Second, label);
            self.set_call(ClientId::Second, call);
        }
    }

    /// A restart breaks the second client's stream; it does not subscribe
    /// again.
    pub(super) fn break_second(&mut self) {
        let Some(second) = self.second.as_mut() else {
            return;
        };
        if !matches!(second.call, Call::Open | Call::Stranded) {
            return;
        }
        second.call = Call::Closed;
        let stream = Some(second.stream);
        self.end_stream(stream, StreamOutcome::Broken);
        let entry = Entry::action(Source::Client, "subscription broken by the restart");
        self.record(entry.client(ClientId::Second.number()));
    }

    /// At the end: the second client's subscription, if nothing ended it,
    /// hangs.
    pub(super) fn second_hangs(&mut self) {
        if self
            .second
            .as_ref()
            .is_some_and(|s| matches!(s.call, Call::Open | Call::Stranded))
        {
            let label = "subscription still open: nothing will ever end it (hung)";
            let entry = Entry::action(Source::Client, label).disposition(Disposition::NotDelivered);
            self.record(entry.client(ClientId::Second.number()));
        }
    }

    /// At the end: a subscriber key whose event k never came says so.
    pub(super) fn note_subscribers_never_called(&mut self) {
        let first_stream = self.streams.first().map_or(0, |s| s.rows.len());
        if let Some(k) = self.sc.resubscribe {
            if self.client.subscriptions == 0
                && self.sc.client == crate::model::sim::scenario::Client::Stream
            {
                let label = format!(
                    "resubscribe={k}: the stream ended after {first_stream} events, before event {k}, so the client never dropped it"
                );
                let entry = Entry::action(Source::Client, label);
                self.record(entry.disposition(Disposition::NotDelivered));
            }
        }
        if let Some(k) = self.sc.second_client {
            if self.second.is_none() {
                let got = self.client.received;
                let label = format!(
                    "second_client={k}: client 1 received {got} events, never event {k}, so the second client never subscribed"
                );
                let entry = Entry::action(Source::Client, label);
                self.record(
                    entry
                        .disposition(Disposition::NotDelivered)
                        .client(ClientId::Second.number()),
                );
            }
        }
    }

    /// Sets the call state of `client`.
    pub(super) fn set_call(&mut self, client: ClientId, call: Call) {
        match client {
            ClientId::First => self.client.call = call,
            ClientId::Second => {
                if let Some(second) = self.second.as_mut() {
                    second.call = call;
                }
            }
        }
    }
}
