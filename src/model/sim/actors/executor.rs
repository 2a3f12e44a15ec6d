//! The agent's `execute()`: the Task, WORKING, any interruption, one
//! artifact chunk per courier lookup step, then the ending (and a late
//! artifact); and what a cancel leaves of it.

use super::state::{Call, Exec, Execution, Payload, Stage};
use super::{Act, Sim};
use crate::model::ledger::Body;
use crate::model::sim::profile::StreamEnd;
use crate::model::sim::scenario::{CancelImpl, Ending, Work};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source};
use crate::model::wire::{self, Chunk, RECEIPT_ARTIFACT, TRACKING_ARTIFACT};

impl Sim<'_> {
    pub(super) fn start_execution(&mut self, task: usize) {
        self.executor.executions += 1;
        let exec = self.new_execution(task);
        let id = format!("submit:{}", wire::MESSAGE_ID);
        let submit = self.ledger_event(Source::Client, id, "submit", Body::Submit);
        self.tasks[task].ledger.apply(&submit);
        self.emit(exec, Source::Executor, Payload::Task);
        self.emit_status(exec, Source::Executor, TaskState::Working);
        if self.sc.chunks == 0 {
            self.maybe_retry(exec);
        }
        self.after_working(exec, 0);
    }

    pub(super) fn new_execution(&mut self, task: usize) -> usize {
        self.executor.runs.push(Execution {
            state: Exec::Running,
            task,
        });
        self.executor.runs.len() - 1
    }

    /// What the executor does once it is WORKING: ask for the next
    /// interruption, or start the lookup steps.
    pub(super) fn after_working(&mut self, exec: usize, stages_done: usize) {
        if exec == 0 {
            if let Some(&stage) = self.executor.interrupts.get(stages_done) {
                let state = match stage {
                    Stage::Auth => TaskState::AuthRequired,
                    Stage::Input => TaskState::InputRequired,
                };
                self.emit_status(exec, Source::Executor, state);
                self.execute_returns(exec);
                let t = self.now + self.step_ms();
                self.schedule(t, Act::Resume { stage });
                return;
            }
        }
        if self.sc.chunks == 0 {
            self.schedule(self.now, Act::Ending { exec });
        } else {
            let t = self.now + self.step_ms();
            self.schedule(t, Act::Step { exec, step: 1 });
        }
    }

    pub(super) fn step(&mut self, exec: usize, step: u32) {
        let n = self.sc.chunks;
        let next = |sim: &mut Sim, exec| {
            if step < n {
                let t = sim.now + sim.step_ms();
                sim.schedule(
                    t,
                    Act::Step {
                        exec,
                        step: step + 1,
                    },
                );
            }
        };
        match self.executor.runs[exec].state {
            Exec::Running => {
                let chunk = tracking_chunk(step, n, false);
                self.emit(
                    exec,
                    Source::Executor,
                    Payload::Chunk {
                        chunk,
                        part: step - 1,
                    },
                );
                if step == 1 {
                    self.maybe_retry(exec);
                }
                if step < n {
                    next(self, exec);
                } else {
                    self.schedule(self.now, Act::Ending { exec });
                }
            }
            Exec::Cancelled { flag_step_done } => match self.sc.work {
                // Awaiting code stopped at its await: no step runs.
                Work::Await => {}
                Work::ToThread => {
                    let why = format!("the blocking call in {} runs on", self.profile.thread_name);
                    self.orphan(step, &why);
                    next(self, exec);
                }
                Work::Flag if !flag_step_done => {
                    self.orphan(
                        step,
                        "the step in progress finishes, then the thread sees the flag",
                    );
                    self.executor.runs[exec].state = Exec::Cancelled {
                        flag_step_done: true,
                    };
                }
                Work::Flag => {}
            },
            Exec::Finished | Exec::Dead => {}
        }
    }

    pub(super) fn orphan(&mut self, step: u32, why: &str) {
        self.executor.orphaned += 1;
        let label = format!(
            "courier step {step}/{} computed after the cancel: {why}",
            self.sc.chunks
        );
        self.record(Entry::action(Source::Executor, label).disposition(Disposition::Orphaned));
    }

    pub(super) fn ending(&mut self, exec: usize) {
        if self.executor.runs[exec].state != Exec::Running {
            return;
        }
        let state = match self.sc.ending {
            Ending::Complete => Some(TaskState::Completed),
            Ending::Fail => Some(TaskState::Failed),
            Ending::Input => Some(TaskState::InputRequired),
            Ending::Auth => Some(TaskState::AuthRequired),
            Ending::Return => None,
            Ending::Never => {
                self.record(
                    Entry::action(
                        Source::Executor,
                        "execute() awaits forever and never returns",
                    )
                    .disposition(Disposition::NotDelivered),
                );
                return;
            }
        };
        if let Some(state) = state {
            self.emit_status(exec, Source::Executor, state);
        }
        match self.sc.late {
            Some(ms) => self.schedule(self.now + u64::from(ms), Act::Late { exec }),
            None => self.schedule(self.now, Act::Return { exec }),
        }
    }

    pub(super) fn late(&mut self, exec: usize) {
        if self.executor.runs[exec].state != Exec::Running {
            return;
        }
        let chunk = Chunk {
            artifact_id: RECEIPT_ARTIFACT.into(),
            name: "delivery-receipt".into(),
            text: "BBS-1042 delivery receipt: signed for by Jenya".into(),
            append: false,
            last_chunk: true,
        };
        self.emit(exec, Source::Executor, Payload::Chunk { chunk, part: 0 });
        self.schedule(self.now, Act::Return { exec });
    }

    pub(super) fn execute_returns(&mut self, exec: usize) {
        if self.executor.runs[exec].state != Exec::Running {
            return;
        }
        self.executor.runs[exec].state = Exec::Finished;
        let task = self.executor.runs[exec].task;
        let state = self.tasks[task].stored.as_ref().map(|t| t.state);
        let settled = state.is_some_and(|s| s.is_terminal() || s.is_interrupted());
        let returned = if settled {
            "execute() returned"
        } else {
            "execute() returned without a final status"
        };
        let followed = task == self.client.task;
        let closes = match self.profile.stream_end {
            StreamEnd::ExecuteReturns => true,
            // An auth-required task keeps its channel open in this SDK.
            StreamEnd::FirstFinalStatus => state != Some(TaskState::AuthRequired),
        };
        let label = format!("{returned}; the handler closes the queue");
        if followed && closes && self.client.call == Call::Open {
            self.end_call(&label);
        } else {
            self.action(Source::Executor, returned);
        }
        if closes {
            self.close_second(task, &label);
        }
    }

    /// The handler stops the client's running `execute()` where the profile
    /// says a cancel interrupts it (and closes the queue); elsewhere only a
    /// cancel flag set by a writing `cancel()` stops flag-checking work.
    pub(super) fn stop_executions(&mut self) {
        let interrupts = self.profile.cancel_interrupts_awaiting;
        let flag_set = self.sc.work == Work::Flag && self.sc.cancel_impl == CancelImpl::Write;
        if !interrupts && !flag_set {
            return;
        }
        for run in &mut self.executor.runs {
            if run.state == Exec::Running && run.task == self.client.task {
                run.state = Exec::Cancelled {
                    flag_step_done: false,
                };
            }
        }
        if interrupts && self.profile.stream_end == StreamEnd::ExecuteReturns {
            let label = "stream closed after the cancel";
            self.end_call(label);
            self.close_second(self.client.task, label);
        }
    }
}

/// The k-th chunk of the tracking artifact (k from 1).
pub(super) fn tracking_chunk(step: u32, n: u32, conflicting: bool) -> Chunk {
    let what = if conflicting {
        "delivered to a neighbour".to_string()
    } else if step == n {
        "out for delivery".to_string()
    } else if step == 1 {
        "packed at the Belgavi warehouse".to_string()
    } else if step == 2 {
        "handed to the courier".to_string()
    } else {
        format!("in transit, checkpoint {step}")
    };
    Chunk {
        artifact_id: TRACKING_ARTIFACT.into(),
        name: "courier-tracking".into(),
        text: format!("BBS-1042 courier step {step}/{n}: {what}"),
        append: step > 1,
        last_chunk: step == n,
    }
}
