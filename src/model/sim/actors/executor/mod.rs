//! The agent's `execute()`: the Task, WORKING, any interruption, one
//! artifact chunk per courier lookup step, then the ending (and a late
//! artifact, in `ending`); and what a cancel leaves of it.

mod ending;

use super::effect::{Effect, View};
use super::inputs::{ClientIn, ExecutorIn, HandlerIn, SecondIn, StoreIn};
use super::state::{tracking_chunk, tracking_result, CallState, Interruption, Payload};
use crate::model::ledger::Body;
use crate::model::sim::scenario::{Interrupt, ResultShape, Scenario, Work};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Source};
use crate::model::wire::{self};

/// Why a stream outlives the `execute()` that interrupted it at
/// AUTH_REQUIRED, where the profile keeps it open.
const KEPT_OPEN: &str =
    "the SDK keeps an auth-required task's channel open, so the stream stays open";

/// Where one `execute()` call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exec {
    Running,
    /// A cancel stopped it; `dropped` once the handler dropped its stream
    /// at the step in progress (where the profile drops it there).
    Cancelled {
        flag_step_done: bool,
        dropped: bool,
    },
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
    interrupts: Vec<Interruption>,
    /// How much later the first chunk comes, one step per interruption.
    offset_ms: u64,
}

impl Executor {
    /// The executor before any `execute()` call, with the interruptions
    /// the scenario asks for.
    pub(super) fn new(sc: &Scenario) -> Executor {
        let interrupts = match sc.interrupt {
            Interrupt::None => vec![],
            Interrupt::Auth => vec![Interruption::Auth],
            Interrupt::Input => vec![Interruption::Input],
            Interrupt::Both => vec![Interruption::Auth, Interruption::Input],
        };
        Executor {
            offset_ms: interrupts.len() as u64 * u64::from(sc.step_ms),
            interrupts,
            ..Executor::default()
        }
    }

    /// Handles one input.
    pub(super) fn handle(&mut self, view: &View, input: ExecutorIn) -> Vec<Effect> {
        match input {
            ExecutorIn::Start(task) => self.start(view, task),
            ExecutorIn::Step { exec, step } => self.step(view, exec, step),
            ExecutorIn::Ending { exec } => self.ending(view, exec),
            ExecutorIn::Late { exec } => self.late(view, exec),
            ExecutorIn::Returns(exec) => self.returns(view, exec),
            ExecutorIn::Resume { stage, receipt } => self.resume(view, stage, receipt),
            ExecutorIn::Resumed {
                exec,
                stage,
                refused,
            } => self.resumed(view, exec, stage, refused),
            ExecutorIn::CancelStatus { source, state } => {
                vec![self.cancel_status(view, source, state)]
            }
            ExecutorIn::Stop => self.stop(view),
            ExecutorIn::OrphanedStep => {
                self.orphaned += 1;
                vec![]
            }
            ExecutorIn::Killed => {
                for run in &mut self.runs {
                    run.state = Exec::Dead;
                }
                vec![]
            }
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

    /// The tasks an execution still works on, one bit per task (a
    /// scenario makes a few tasks at most).
    pub(super) fn running(&self) -> u64 {
        self.runs
            .iter()
            .filter(|r| r.state == Exec::Running && r.task < 64)
            .fold(0, |bits, r| bits | 1 << r.task)
    }

    /// `execute()` is called for `task`: the submission reaches the
    /// ledger, the Task and WORKING go out, then the work starts.
    fn start(&mut self, view: &View, task: usize) -> Vec<Effect> {
        self.executions += 1;
        self.runs.push(Execution {
            state: Exec::Running,
            task,
        });
        let exec = self.runs.len() - 1;
        let id = format!("submit:{}", wire::MESSAGE_ID);
        let submit = view.ledger_event(Source::Client, id, "submit", Body::Submit);
        let mut effects = vec![
            Effect::to(StoreIn::Ledger(task, submit)),
            self.emit(exec, Payload::Task),
            self.status(exec, TaskState::Working),
        ];
        if view.sc.chunks == 0 {
            // Through the queue: the client retries once it has what was
            // enqueued before (a consumer awaiting a POST holds it).
            effects.push(Effect::queued(ClientIn::MaybeRetry { task }));
        }
        effects.extend(self.after_working(view, exec, 0));
        effects
    }

    fn emit(&self, exec: usize, payload: Payload) -> Effect {
        Effect::queued(HandlerIn::Emit {
            exec,
            task: self.runs[exec].task,
            source: Source::Executor,
            payload,
            resume: None,
        })
    }

    /// `cancel()` (or the handler in its place, `source`) publishes
    /// `state` for the latest execution on the task client 1 follows.
    fn cancel_status(&self, view: &View, source: Source, state: TaskState) -> Effect {
        let task = view.followed;
        // Every task is created together with its execute() call.
        let exec = self
            .runs
            .iter()
            .rposition(|r| r.task == task)
            .expect("the followed task has an execution");
        Effect::queued(HandlerIn::Emit {
            exec,
            task,
            source,
            payload: Payload::Status {
                state,
                receipt: None,
            },
            resume: None,
        })
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
                    Interruption::Auth => TaskState::AuthRequired,
                    Interruption::Input => TaskState::InputRequired,
                };
                return vec![
                    self.status(exec, state),
                    Effect::to(ExecutorIn::Returns(exec)),
                    Effect::at(view.now + step_ms, ClientIn::Resume { stage }),
                ];
            }
        }
        if view.sc.chunks == 0 {
            vec![Effect::at(view.now, ExecutorIn::Ending { exec })]
        } else {
            let step = ExecutorIn::Step { exec, step: 1 };
            let mut effects = self.progress(view, exec, 1);
            effects.push(Effect::at(view.now + step_ms, step));
            effects
        }
    }

    /// The client resumed the first execution after `stage`: it runs again
    /// and publishes WORKING (with the client's receipt), unless the server
    /// lost it or the task.
    fn resume(&mut self, view: &View, stage: Interruption, receipt: Option<String>) -> Vec<Effect> {
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
        // (ExecutorIn::Resumed).
        effects.push(Effect::queued(HandlerIn::Emit {
            exec,
            task: self.runs[exec].task,
            source: Source::Executor,
            payload: Payload::Status {
                state: TaskState::Working,
                receipt,
            },
            resume: Some(stage),
        }));
        effects
    }

    /// The resume's WORKING was decided: refused by the guard, the
    /// execution does not go on; otherwise it goes on after `stage`.
    fn resumed(
        &mut self,
        view: &View,
        exec: usize,
        stage: Interruption,
        refused: bool,
    ) -> Vec<Effect> {
        if refused {
            self.runs[exec].state = Exec::Finished;
            let task = self.runs[exec].task;
            let terminal = view.tasks[task]
                .stored()
                .is_some_and(|t| t.state.is_terminal());
            let label = if terminal && view.profile.cancel_stored_first.is_some() {
                "stream closed: the task store refused the resume"
            } else {
                "stream closed: the guard refused the resume"
            };
            return vec![Effect::queued(ClientIn::end_call(label))];
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
    fn step(&mut self, view: &View, exec: usize, step: u32) -> Vec<Effect> {
        let n = view.sc.chunks;
        let next = Effect::at(
            view.now + u64::from(view.sc.step_ms),
            ExecutorIn::Step {
                exec,
                step: step + 1,
            },
        );
        match self.runs[exec].state {
            Exec::Running => {
                let mut effects = self.artifact(view, exec, step);
                if step < n {
                    effects.extend(self.progress(view, exec, step + 1));
                    effects.push(next);
                } else {
                    effects.push(Effect::at(view.now, ExecutorIn::Ending { exec }));
                }
                effects
            }
            Exec::Cancelled { dropped: false, .. } if view.profile.terminal_drops_executor => {
                self.dropped_at(view, exec, step)
            }
            Exec::Cancelled { flag_step_done, .. } => match view.sc.work {
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
                        dropped: false,
                    };
                    let why = "the step in progress finishes, then the thread sees the flag";
                    vec![self.orphan(view, step, why)]
                }
                Work::Flag => vec![],
            },
            Exec::Finished | Exec::Dead => vec![],
        }
    }

    /// The first step after a cancel, where the handler drops the
    /// executor's stream at its next event: the step in progress finishes
    /// and its chunk is dropped (a blocking thread runs on, a flag-checking
    /// one stops: the drop sets its flag), and the calls still reading the
    /// task end (a stream the handler's stored CANCELED left open, with the
    /// error the store gives the chunk).
    fn dropped_at(&mut self, view: &View, exec: usize, step: u32) -> Vec<Effect> {
        self.runs[exec].state = Exec::Cancelled {
            flag_step_done: true,
            dropped: true,
        };
        let dropped = "the handler drops its chunk and execute()'s stream";
        let why = match view.sc.work {
            Work::Await => format!("the step in progress finishes; {dropped}"),
            Work::ToThread => format!(
                "the blocking call in {} runs on; {dropped}",
                view.profile.thread_name
            ),
            Work::Flag => format!("the step in progress finishes; {dropped}, which sets the flag"),
        };
        let mut effects = vec![self.orphan(view, step, &why)];
        if view.sc.work == Work::ToThread && step < view.sc.chunks {
            effects.push(Effect::at(
                view.now + u64::from(view.sc.step_ms),
                ExecutorIn::Step {
                    exec,
                    step: step + 1,
                },
            ));
        }
        let (label, error) = match view.profile.cancel_stored_first {
            Some(error) if view.client_call == CallState::Open => (format!(
                "the chunk cannot be stored on the CANCELED task: the stream ends with JSON-RPC error {} (\"{}\")",
                error.code, error.message
            ), Some(error.code)),
            _ => ("the handler dropped execute()'s stream".to_string(), None),
        };
        let task = self.runs[exec].task;
        let end = ClientIn::EndCall {
            label: label.clone(),
            error,
        };
        effects.extend([
            Effect::queued(end),
            Effect::queued(SecondIn::Closed { task, label }),
        ]);
        effects
    }

    /// What step `step` hands over: its chunk, or with `result=last` the
    /// whole artifact once the last step is done; client 1 may retry after
    /// the first artifact it sees.
    fn artifact(&self, view: &View, exec: usize, step: u32) -> Vec<Effect> {
        let n = view.sc.chunks;
        let chunk = match view.sc.result {
            ResultShape::Chunks => tracking_chunk(step, n, false),
            ResultShape::Last if step == n => tracking_result(n),
            ResultShape::Last => return vec![],
        };
        let part = match view.sc.result {
            ResultShape::Chunks => step - 1,
            ResultShape::Last => 0,
        };
        let mut effects = vec![self.emit(exec, Payload::Chunk { chunk, part })];
        if step == 1 || view.sc.result == ResultShape::Last {
            let task = self.runs[exec].task;
            effects.push(Effect::queued(ClientIn::MaybeRetry { task }));
        }
        effects
    }

    /// `progress=k`: k WORKING status updates with a message before step
    /// `step`, as the agent starts it.
    fn progress(&self, view: &View, exec: usize, step: u32) -> Vec<Effect> {
        let of = view.sc.progress;
        (1..=of)
            .map(|update| self.emit(exec, Payload::Progress { step, update, of }))
            .collect()
    }

    fn orphan(&mut self, view: &View, step: u32, why: &str) -> Effect {
        self.orphaned += 1;
        let label = format!(
            "courier step {step}/{} computed after the cancel: {why}",
            view.sc.chunks
        );
        Effect::Row(Entry::action(Source::Executor, label).disposition(Disposition::Orphaned))
    }
}
