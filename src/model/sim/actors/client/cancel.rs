//! Client 1's CancelTask: the cancel request reaches the task's ledger,
//! the handler answers from the task as stored, and `cancel()` writes a
//! status, raises or does nothing, as the scenario and the profile say.

use super::FirstClient;
use crate::model::ledger::Body;
use crate::model::sim::actors::effect::{Effect, View};
use crate::model::sim::actors::inputs::{ClientIn, ExecutorIn, SecondIn, StoreIn};
use crate::model::sim::profile::{RaisingCancel, TASK_NOT_CANCELABLE};
use crate::model::sim::scenario::CancelImpl;
use crate::model::state::TaskState;
use crate::model::trace::{CancelResult, Entry, Source};

impl FirstClient {
    /// It sends CancelTask: the handler answers from the task as stored,
    /// and `cancel()` writes a status, raises or does nothing, as the
    /// scenario says; what CancelTask answers may wait for the status
    /// ([`FirstClient::cancel_answered`]).
    pub(super) fn cancel(&mut self, view: &View) -> Vec<Effect> {
        let event = view.ledger_event(
            Source::Client,
            "cancel:1".into(),
            "cancel",
            Body::CancelRequest,
        );
        let mut effects = vec![
            Effect::to(StoreIn::Ledger(view.followed, event)),
            Effect::Row(Entry::action(Source::Client, "client sends CancelTask")),
        ];
        let handler = |label: String| Effect::Row(Entry::action(Source::Handler, label));
        let Some(state) = view.followed_state else {
            self.cancel_result = Some(CancelResult::Error);
            let label = "CancelTask → TaskNotFoundError (-32001): the task is gone";
            effects.push(handler(label.into()));
            return effects;
        };
        if state.is_terminal() {
            self.cancel_result = Some(CancelResult::NotCancelable);
            let label = format!("CancelTask → TaskNotCancelableError ({TASK_NOT_CANCELABLE}): the task is already {}", state.label());
            effects.push(handler(label));
            return effects;
        }
        let status = |source, state| Effect::to(ExecutorIn::CancelStatus { source, state });
        let how = view.sc.cancel_impl;
        match how {
            CancelImpl::Write => effects.extend([
                status(Source::Cancel, TaskState::Canceled),
                Effect::to(ClientIn::CancelAnswered(how)),
                Effect::to(ExecutorIn::Stop),
            ]),
            CancelImpl::Raise => {
                let label = "cancel() raises NotImplementedError";
                effects.extend(stored_first(view));
                effects.push(Effect::Row(Entry::action(Source::Cancel, label)));
                self.cancel_result = Some(CancelResult::Error);
                match view.profile.raising_cancel {
                    RaisingCancel::FailsTask => effects.extend([
                        status(Source::Handler, TaskState::Failed),
                        Effect::to(ExecutorIn::Stop),
                    ]),
                    RaisingCancel::ErrorOnly => effects.push(handler(format!(
                        "CancelTask → JSON-RPC error {}; the executor runs on",
                        view.profile.raising_cancel_code
                    ))),
                    RaisingCancel::EndsStream => {
                        let code = view.profile.raising_cancel_code;
                        let label = format!(
                            "the stream ends with cancel()'s JSON-RPC error {code} as an event"
                        );
                        effects.extend([
                            handler(format!("CancelTask → JSON-RPC error {code}")),
                            Effect::to(ClientIn::end_call_by_error(label.clone(), code)),
                            Effect::to(SecondIn::Closed {
                                task: view.followed,
                                label,
                            }),
                            Effect::to(ExecutorIn::Stop),
                        ]);
                    }
                }
            }
            CancelImpl::Noop => {
                let label = "cancel() returns without writing a status";
                effects.extend(stored_first(view));
                effects.push(Effect::Row(Entry::action(Source::Cancel, label)));
                effects.push(Effect::to(ExecutorIn::Stop));
                if view.profile.noop_cancel_stores_canceled {
                    // The SDK stores CANCELED itself after the queue closed:
                    // the stream never carries it.
                    effects.push(status(Source::Handler, TaskState::Canceled));
                }
                effects.push(Effect::to(ClientIn::CancelAnswered(how)));
            }
        }
        effects
    }

    /// CancelTask's answer, read from the task as stored once `cancel()`
    /// (implemented as `how`) did its part.
    pub(super) fn cancel_answered(&mut self, view: &View, how: CancelImpl) -> Vec<Effect> {
        let canceled = view.followed_state == Some(TaskState::Canceled);
        match how {
            CancelImpl::Noop if !canceled => {
                let still = view.followed_state.map_or("gone".into(), |s| s.label());
                self.cancel_result = Some(CancelResult::NotCancelable);
                let label = format!(
                    "CancelTask → TaskNotCancelableError ({TASK_NOT_CANCELABLE}): the task is still {still}"
                );
                vec![Effect::Row(Entry::action(Source::Handler, label))]
            }
            _ if canceled => {
                self.cancel_result = Some(CancelResult::Canceled);
                vec![]
            }
            _ => {
                self.cancel_result = Some(CancelResult::Error);
                vec![]
            }
        }
    }
}

/// Where the profile says so, the handler stores CANCELED before it calls
/// `cancel()`, neither streamed nor pushed (a `cancel()` that writes one
/// streams its own).
fn stored_first(view: &View) -> Option<Effect> {
    view.profile.cancel_stored_first?;
    Some(Effect::to(StoreIn::StoreSilently {
        task: view.followed,
        state: TaskState::Canceled,
        label: "the handler stores CANCELED before it calls cancel(): not streamed, not pushed"
            .into(),
    }))
}
