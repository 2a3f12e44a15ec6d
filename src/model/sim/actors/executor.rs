//! The agent's `execute()`: the Task, WORKING, any interruption, one
//! artifact chunk per courier lookup step, then the ending (and a late
//! artifact); and what a cancel leaves of it.

use super::effect::{Effect, View};
use super::state::{Call, Payload, Stage};
use super::store::ledger_event;
use super::Act;
use crate::model::ledger::Body;
use crate::model::sim::profile::StreamEnd;
use crate::model::sim::scenario::{CancelImpl, Ending, Interrupt, Scenario, Work};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source};
use crate::model::wire::{self, Chunk, RECEIPT_ARTIFACT, TRACKING_ARTIFACT};

/// Where one `execute()` call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exec {
    Running,
    Cancelled { flag_step_done: bool },
    Finished,
    Dead,
}

/// One `execute()` call and the task it works on.
#[derive(Debug, Clone, Copy)]
struct Execution {
    state: Exec,
    task: usize,
}

/// The executor: every `execute()` call (a retry and a resume call it
/// again) and what they left behind.
#[derive(Debug, Default)]
pub(super) struct Executor {
    runs: Vec<Execution>,
    /// How many times `execute()` was called.
    executions: u32,
    /// Lookup steps computed after a cancel, output going nowhere.
    orphaned: u32,
    /// The interruptions to ask for, in order.
    interrupts: Vec<Stage>,
    /// How much later the first chunk comes, one step per interruption.
    offset_ms: u64,
}

impl Executor {
    /// The executor before any `execute()` call, with the interruptions
    /// the scenario asks for.
    pub(super) fn new(sc: &Scenario) -> Executor {
        let interrupts = match sc.interrupt {
            Interrupt::None => vec![],
            Interrupt::Auth => vec![Stage::Auth],
            Interrupt::Input => vec![Stage::Input],
            Interrupt::Both => vec![Stage::Auth, Stage::Input],
        };
        Executor {
            offset_ms: interrupts.len() as u64 * u64::from(sc.step_ms),
            interrupts,
            ..Executor::default()
        }
    }

    /// How much later than its step the first chunk comes.
    pub(super) fn offset_ms(&self) -> u64 {
        self.offset_ms
    }

    /// How many times `execute()` was called.
    pub(super) fn executions(&self) -> u32 {
        self.executions
    }

    /// Lookup steps computed with their output going nowhere.
    pub(super) fn orphaned(&self) -> u32 {
        self.orphaned
    }

    /// Whether an execution still works on `task`.
    pub(super) fn is_running(&self, task: usize) -> bool {
        self.runs
            .iter()
            .any(|r| r.task == task && r.state == Exec::Running)
    }

    /// A step computed after the stream ended: its output went nowhere.
    pub(super) fn orphaned_step(&mut self) {
        self.orphaned += 1;
    }

    /// The server process died, and every execution with it.
    pub(super) fn killed(&mut self) {
        for run in &mut self.runs {
            run.state = Exec::Dead;
        }
    }

    /// `execute()` is called for `task`: the submission reaches the
    /// ledger, the Task and WORKING go out, then the work starts.
    pub(super) fn start(&mut self, view: &View, task: usize) -> Vec<Effect> {
        self.executions += 1;
        self.runs.push(Execution {
            state: Exec::Running,
            task,
        });
        let exec = self.runs.len() - 1;
        let id = format!("submit:{}", wire::MESSAGE_ID);
        let submit = ledger_event(view, Source::Client, id, "submit", Body::Submit);
        let mut effects = vec![
            Effect::Ledger(task, submit),
            self.emit(exec, Payload::Task),
            self.status(exec, TaskState::Working),
        ];
        if view.sc.chunks == 0 {
            effects.push(Effect::MaybeRetry { task });
        }
        effects.extend(self.after_working(view, exec, 0));
        effects
    }

    fn emit(&self, exec: usize, payload: Payload) -> Effect {
        Effect::Emit {
            exec,
            task: self.runs[exec].task,
            source: Source::Executor,
            payload,
            resume: None,
        }
    }

    /// `cancel()` (or the handler in its place, `source`) publishes
    /// `state` for the latest execution on the task client 1 follows.
    pub(super) fn cancel_status(&self, view: &View, source: Source, state: TaskState) -> Effect {
        let task = view.followed;
        // Every task is created together with its execute() call.
        let exec = self
            .runs
            .iter()
            .rposition(|r| r.task == task)
            .expect("the followed task has an execution");
        Effect::Emit {
            exec,
            task,
            source,
            payload: Payload::Status {
                state,
                receipt: None,
            },
            resume: None,
        }
    }

    fn status(&self, exec: usize, state: TaskState) -> Effect {
        self.emit(
            exec,
            Payload::Status {
                state,
                receipt: None,
            },
        )
    }

    /// What the executor does once it is WORKING: ask for the next
    /// interruption, or start the lookup steps.
    fn after_working(&self, view: &View, exec: usize, stages_done: usize) -> Vec<Effect> {
        let step_ms = u64::from(view.sc.step_ms);
        if exec == 0 {
            if let Some(&stage) = self.interrupts.get(stages_done) {
                let state = match stage {
                    Stage::Auth => TaskState::AuthRequired,
                    Stage::Input => TaskState::InputRequired,
                };
                return vec![
                    self.status(exec, state),
                    Effect::ExecuteReturns(exec),
                    Effect::Schedule(view.now + step_ms, Act::Resume { stage }),
                ];
            }
        }
        if view.sc.chunks == 0 {
            vec![Effect::Schedule(view.now, Act::Ending { exec })]
        } else {
            let step = Act::Step { exec, step: 1 };
            vec![Effect::Schedule(view.now + step_ms, step)]
        }
    }

    /// The client resumed the first execution after `stage`: it runs again
    /// and publishes WORKING (with the client's receipt), unless the server
    /// lost it or the task.
    pub(super) fn resume(
        &mut self,
        view: &View,
        stage: Stage,
        receipt: Option<String>,
    ) -> Vec<Effect> {
        let exec = 0;
        if self.runs[exec].state == Exec::Dead || view.tasks[0].stored().is_none() {
            return vec![];
        }
        self.runs[exec].state = Exec::Running;
        self.executions += 1;
        let mut effects = vec![];
        if view.profile.resume_publishes_task {
            effects.push(self.emit(exec, Payload::TaskAgain));
        }
        // The executor goes on only once it knows how this was decided
        // (Effect::Resumed).
        effects.push(Effect::Emit {
            exec,
            task: self.runs[exec].task,
            source: Source::Executor,
            payload: Payload::Status {
                state: TaskState::Working,
                receipt,
            },
            resume: Some(stage),
        });
        effects
    }

    /// The resume's WORKING was decided: refused by the guard, the
    /// execution does not go on; otherwise it goes on after `stage`.
    pub(super) fn resumed(
        &mut self,
        view: &View,
        exec: usize,
        stage: Stage,
        refused: bool,
    ) -> Vec<Effect> {
        if refused {
            self.runs[exec].state = Exec::Finished;
            return vec![Effect::EndCall(
                "stream closed: the guard refused the resume".into(),
            )];
        }
        let done = self
            .interrupts
            .iter()
            .position(|s| *s == stage)
            .map_or(0, |i| i + 1);
        self.after_working(view, exec, done)
    }

    /// Lookup step `step` of execution `exec`: a chunk while it runs; after
    /// a cancel, what the way the work runs leaves of it.
    pub(super) fn step(&mut self, view: &View, exec: usize, step: u32) -> Vec<Effect> {
        let n = view.sc.chunks;
        let next = Effect::Schedule(
            view.now + u64::from(view.sc.step_ms),
            Act::Step {
                exec,
                step: step + 1,
            },
        );
        match self.runs[exec].state {
            Exec::Running => {
                let chunk = tracking_chunk(step, n, false);
                let part = step - 1;
                let mut effects = vec![self.emit(exec, Payload::Chunk { chunk, part })];
                if step == 1 {
                    let task = self.runs[exec].task;
                    effects.push(Effect::MaybeRetry { task });
                }
                if step < n {
                    effects.push(next);
                } else {
                    effects.push(Effect::Schedule(view.now, Act::Ending { exec }));
                }
                effects
            }
            Exec::Cancelled { flag_step_done } => match view.sc.work {
                // Awaiting code stopped at its await: no step runs.
                Work::Await => vec![],
                Work::ToThread => {
                    let why = format!("the blocking call in {} runs on", view.profile.thread_name);
                    let mut effects = vec![self.orphan(view, step, &why)];
                    if step < n {
                        effects.push(next);
                    }
                    effects
                }
                Work::Flag if !flag_step_done => {
                    self.runs[exec].state = Exec::Cancelled {
                        flag_step_done: true,
                    };
                    let why = "the step in progress finishes, then the thread sees the flag";
                    vec![self.orphan(view, step, why)]
                }
                Work::Flag => vec![],
            },
            Exec::Finished | Exec::Dead => vec![],
        }
    }

    fn orphan(&mut self, view: &View, step: u32, why: &str) -> Effect {
        self.orphaned += 1;
        let label = format!(
            "courier step {step}/{} computed after the cancel: {why}",
            view.sc.chunks
        );
        Effect::Row(Entry::action(Source::Executor, label).disposition(Disposition::Orphaned))
    }

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
        effects.push(match view.sc.late {
            Some(ms) => Effect::Schedule(view.now + u64::from(ms), Act::Late { exec }),
            None => Effect::Schedule(view.now, Act::Return { exec }),
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
            effects.push(Effect::Emit {
                exec,
                task,
                source: Source::Handler,
                payload: Payload::Status {
                    state: TaskState::Failed,
                    receipt: None,
                },
                resume: None,
            });
        } else {
            effects.push(Effect::StoreSilently {
                task,
                state: TaskState::Failed,
                label: "the handler stores FAILED itself: not streamed, not pushed".into(),
            });
            effects.push(Effect::EndCall(format!(
                "stream ends with JSON-RPC error {} instead of a FAILED event",
                crate::model::sim::profile::INTERNAL_ERROR
            )));
        }
        effects.push(Effect::Schedule(view.now, Act::Return { exec }));
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
            text: "BBS-1042 delivery receipt: signed for by Jenya".into(),
            append: false,
            last_chunk: true,
        };
        vec![
            self.emit(exec, Payload::Chunk { chunk, part: 0 }),
            Effect::Schedule(view.now, Act::Return { exec }),
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
        let returned = if settled {
            "execute() returned"
        } else {
            "execute() returned without a final status"
        };
        let followed = task == view.followed;
        let closes = match view.profile.stream_end {
            StreamEnd::ExecuteReturns => true,
            // An auth-required task keeps its channel open in this SDK.
            StreamEnd::FirstFinalStatus => state != Some(TaskState::AuthRequired),
        };
        let label = format!("{returned}; the handler closes the queue");
        let mut effects = vec![if followed && closes && view.client_call == Call::Open {
            Effect::EndCall(label.clone())
        } else {
            Effect::Row(Entry::action(Source::Executor, returned))
        }];
        if closes {
            effects.push(Effect::CloseSecond { task, label });
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
                };
            }
        }
        if interrupts && view.profile.stream_end == StreamEnd::ExecuteReturns {
            let label = "stream closed after the cancel";
            let task = view.followed;
            return vec![
                Effect::EndCall(label.into()),
                Effect::CloseSecond {
                    task,
                    label: label.into(),
                },
            ];
        }
        vec![]
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
