//! How the handler answers SubscribeToTask and ends a subscription, for
//! either client (SPEC §9). What a subscriber receives first, when its
//! stream ends and what a finished or lost task answers follow the
//! recordings of both SDKs (`tests/fidelity/fixtures/*/subscribe/`); where
//! the SDKs differ, the profile says which way.

use super::effect::{Effect, View};
use super::inputs::{self, ClientIn};
use super::state::{CallState, ClientId};
use crate::model::sim::profile::{
    IdleSubscription, SubscriptionEnd, TASK_NOT_FOUND, UNSUPPORTED_OPERATION,
};
use crate::model::sim::scenario::Interrupt;
use crate::model::trace::{Disposition, Entry, Source, StreamEnd};
use crate::model::wire::RowWire;

/// The handler's answer to SubscribeToTask by `client` on `task`: an error for a lost or finished task; otherwise the task as
/// stored (never SUBMITTED: WORKING is stored before any request gets
/// through), then what comes later, unless nothing runs for it any more
/// (`stream`: the record its stream got).
pub(super) fn answer(view: &View, client: ClientId, stream: usize, task: usize) -> Vec<Effect> {
    let number = client.number();
    let Some(stored) = view.tasks[task].stored() else {
        let text = "SubscribeToTask → TaskNotFoundError (-32001): the task was lost";
        return refuse(client, stream, TASK_NOT_FOUND, text.into());
    };
    let state = stored.state;
    let idle = !view.is_running(task) || view.tasks[task].bus_closed();
    if idle && !state.is_terminal() && view.profile.idle_subscription == IdleSubscription::NotFound
    {
        let text = format!(
            "SubscribeToTask → TaskNotFoundError (-32001): the task is {}, but no execution runs for it any more",
            state.label()
        );
        return refuse(client, stream, TASK_NOT_FOUND, text);
    }
    if state.is_terminal() {
        let text = format!(
            "SubscribeToTask → UnsupportedOperationError (-32004): the task is already {}",
            state.label()
        );
        return refuse(client, stream, UNSUPPORTED_OPERATION, text);
    }
    let snapshot = RowWire::sim(stored.snapshot(task, stored.since_ms));
    let parts = snapshot.task_parts();
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
        effects.push(Effect::to(ClientIn::Received { task }));
    }
    if view.is_running(task) && !view.tasks[task].bus_closed() {
        return effects;
    }
    let closes = view.profile.idle_subscription == IdleSubscription::ClosesUnlessInterrupted
        && !state.is_interrupted();
    let (call, label) = if closes {
        effects.push(Effect::EndStream(Some(stream), StreamEnd::Closed));
        (
            CallState::Closed,
            "nothing runs for the task: the SDK closes the stream after the snapshot",
        )
    } else if state.is_interrupted() && view.sc.interrupt != Interrupt::None {
        (
            CallState::Stranded,
            "the task waits for the client's next turn: the subscription stays open for it",
        )
    } else {
        (
            CallState::Stranded,
            "nothing runs for the task: the subscription stays open with nothing to come",
        )
    };
    effects.push(Effect::to(inputs::set_call(client, call)));
    effects.push(Effect::Row(
        Entry::action(Source::Handler, label).client(number),
    ));
    effects
}

/// SubscribeToTask answered with a JSON-RPC error instead of a stream.
fn refuse(
    client: ClientId,
    stream: usize,
    code: crate::model::wire::RpcCode,
    text: String,
) -> Vec<Effect> {
    let entry = Entry::action(Source::Handler, text).disposition(Disposition::NotDelivered);
    vec![
        Effect::to(inputs::set_call(client, CallState::Closed)),
        Effect::EndStream(Some(stream), StreamEnd::Error(code)),
        Effect::Row(entry.client(client.number())),
    ]
}

/// Whether a subscription to `task` stays open as its queue closes, as
/// the profile says (a2a-sdk's until a terminal status).
pub(super) fn stays_open(view: &View, task: usize) -> bool {
    let terminal = view.tasks[task]
        .stored()
        .is_some_and(|t| t.state.is_terminal());
    view.profile.subscription_end == SubscriptionEnd::AtTerminal && !terminal
}

/// A subscription's queue closes (the executor returned, a cancel, or the
/// first final status where the profile ends streams there): the profile
/// says whether the subscription of `client` to `task` on `stream` ends
/// too, by the error event that ended the queue (`error`) where one did.
pub(super) fn ends(
    view: &View,
    client: ClientId,
    (task, stream): (usize, Option<usize>),
    label: &str,
    error: Option<crate::model::wire::RpcCode>,
) -> Vec<Effect> {
    let number = client.number();
    if stays_open(view, task) {
        let label = format!("{label}; the subscription stays open until a terminal status");
        return vec![
            Effect::Row(Entry::action(Source::Handler, label).client(number)),
            Effect::to(inputs::set_call(client, CallState::Stranded)),
        ];
    }
    vec![
        Effect::EndStream(stream, error.map_or(StreamEnd::Closed, StreamEnd::Error)),
        Effect::Row(Entry::action(Source::Handler, label).client(number)),
        Effect::to(inputs::set_call(client, CallState::Closed)),
    ]
}
