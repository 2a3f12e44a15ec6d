//! How an `execute()` call ends after its last chunk: the ending's status
//! (or a raise, or a return without one), a late artifact, and a call
//! stopped where it was.

use super::{Exec, Executor, KEPT_OPEN};
use crate::model::sim::actors::effect::{Effect, View};
use crate::model::sim::actors::inputs::{
    ClientIn, ExecutorIn, HandlerIn, QueueIn, SecondIn, StoreIn,
};
use crate::model::sim::actors::state::{CallState, Payload};
use crate::model::sim::profile::StreamCloses;
use crate::model::sim::scenario::{CancelImpl, Client, Ending, Work};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source};
use crate::model::wire::{Chunk, RECEIPT_ARTIFACT};

impl Executor {
    /// After the last chunk: the ending's status, then the late artifact
    /// or the return.
    pub(super) fn ending(&self, view: &View, exec: usize) -> Vec<Effect> {
        if self.runs[exec].state != Exec::Running {
            return vec![];
        }
        let state = match view.sc.ending {
            Ending::Complete => Some(TaskState::Completed),
            Ending::Fail => Some(TaskState::Failed),
            Ending::Input => Some(TaskState::InputRequired),
            Ending::Auth => Some(TaskState::AuthRequired),
            Ending::Return => None,
            Ending::Raise => return self.raises(view, exec),
            Ending::Never => {
                let label = "execute() awaits forever and never returns";
                let entry = Entry::action(Source::Executor, label);
                return vec![Effect::Row(entry.disposition(Disposition::NotDelivered))];
            }
        };
        let mut effects: Vec<Effect> = state.map(|s| self.status(exec, s)).into_iter().collect();
        // Where the handler drops the executor at a terminal status, what
        // would come after it is never produced.
        let dropped =
            view.profile.terminal_drops_executor && state.is_some_and(TaskState::is_terminal);
        effects.push(match view.sc.late {
            Some(ms) if !dropped => Effect::at(view.now + u64::from(ms), ExecutorIn::Late { exec }),
            _ => Effect::at(view.now, QueueIn::Return { exec }),
        });
        effects
    }

    /// `ending=raise`: `execute()` raises after its last chunk. Where the
    /// profile says so the SDK publishes FAILED like any status; elsewhere
    /// it stores FAILED itself and the stream ends with a JSON-RPC error.
    fn raises(&self, view: &View, exec: usize) -> Vec<Effect> {
        let task = self.runs[exec].task;
        let raised = Entry::action(Source::Executor, "execute() raises an exception");
        let mut effects = vec![Effect::Row(raised)];
        if view.profile.push.raise_publishes_failed {
            effects.push(Effect::queued(HandlerIn::Emit {
                exec,
                task,
                source: Source::Handler,
                payload: Payload::Status {
                    state: TaskState::Failed,
                    receipt: None,
                },
                resume: None,
            }));
        } else {
            let error = crate::model::sim::profile::INTERNAL_ERROR;
            let label = if view.profile.raise_stores_failed {
                effects.push(Effect::queued(StoreIn::StoreSilently {
                    task,
                    state: TaskState::Failed,
                    label: "the handler stores FAILED itself: not streamed, not pushed".into(),
                }));
                format!("stream ends with JSON-RPC error {error} instead of a FAILED event")
            } else {
                format!("stream ends with JSON-RPC error {error}; nothing stores FAILED, the task stays as it was")
            };
            effects.push(Effect::queued(ClientIn::end_call_by_error(label, error)));
        }
        effects.push(Effect::at(view.now, QueueIn::Return { exec }));
        effects
    }

    /// `late=ms`: a second artifact after the ending, then the return.
    pub(super) fn late(&self, view: &View, exec: usize) -> Vec<Effect> {
        if self.runs[exec].state != Exec::Running {
            return vec![];
        }
        let chunk = Chunk {
            artifact_id: RECEIPT_ARTIFACT.into(),
            name: "delivery-receipt".into(),
            parts: vec!["BBS-1042 delivery receipt: signed for by Jenya".into()],
            append: false,
            last_chunk: true,
        };
        vec![
            self.emit(exec, Payload::Chunk { chunk, part: 0 }),
            Effect::at(view.now, QueueIn::Return { exec }),
        ]
    }

    /// `execute()` returns: the handler closes the queue where the profile
    /// says that ends the streams.
    pub(super) fn returns(&mut self, view: &View, exec: usize) -> Vec<Effect> {
        if self.runs[exec].state != Exec::Running {
            return vec![];
        }
        self.runs[exec].state = Exec::Finished;
        let task = self.runs[exec].task;
        let state = view.tasks[task].stored().map(|t| t.state);
        let settled = state.is_some_and(|s| s.is_terminal() || s.is_interrupted());
        let dropped =
            view.profile.terminal_drops_executor && state.is_some_and(|s| s.is_terminal());
        let returned = match (dropped, view.sc.late) {
            (true, Some(_)) => "the handler drops execute()'s stream at the terminal status: the late artifact is never produced",
            (true, None) => "the handler drops execute()'s stream at the terminal status",
            (false, _) if settled => "execute() returned",
            (false, _) => "execute() returned without a final status",
        };
        let followed = task == view.followed;
        let closes = match view.profile.stream_end {
            StreamCloses::ExecuteReturns => true,
            // An auth-required task keeps its channel open in this SDK.
            StreamCloses::FirstFinalStatus => state != Some(TaskState::AuthRequired),
        };
        let label = format!("{returned}; the handler closes the queue");
        let kept_open = followed && !closes && view.client_call == CallState::Open;
        let mut effects = vec![
            if followed && closes && view.client_call == CallState::Open {
                Effect::queued(ClientIn::end_call(label.clone()))
            } else if kept_open && view.sc.client == Client::Stream {
                let label = format!("{returned}; {KEPT_OPEN}");
                Effect::Row(Entry::action(Source::Executor, label))
            } else {
                Effect::Row(Entry::action(Source::Executor, returned))
            },
        ];
        if closes {
            effects.push(Effect::queued(SecondIn::Closed { task, label }));
        }
        effects
    }

    /// The handler stops the client's running `execute()` where the profile
    /// says a cancel interrupts it (and closes the queue); elsewhere only a
    /// cancel flag set by a writing `cancel()` stops flag-checking work.
    pub(super) fn stop(&mut self, view: &View) -> Vec<Effect> {
        let interrupts = view.profile.cancel_interrupts_awaiting;
        let flag_set = view.sc.work == Work::Flag && view.sc.cancel_impl == CancelImpl::Write;
        if !interrupts && !flag_set {
            return vec![];
        }
        for run in &mut self.runs {
            if run.state == Exec::Running && run.task == view.followed {
                run.state = Exec::Cancelled {
                    flag_step_done: false,
                    dropped: false,
                };
            }
        }
        // Where the handler drops the executor only at its next event, the
        // calls end there, or at the CANCELED they read.
        if interrupts
            && view.profile.stream_end == StreamCloses::ExecuteReturns
            && !view.profile.terminal_drops_executor
        {
            let label = "stream closed after the cancel";
            let task = view.followed;
            return vec![
                Effect::queued(ClientIn::end_call(label)),
                Effect::queued(SecondIn::Closed {
                    task,
                    label: label.into(),
                }),
            ];
        }
        vec![]
    }
}
