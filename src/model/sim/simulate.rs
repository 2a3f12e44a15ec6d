//! The executor simulation of seed 004: the BBS-1042 order-status agent, the
//! cancel request, the request handler and its task store, the client and a
//! server restart, as actors on one virtual clock.
//!
//! Nothing here reads a clock: actions are scheduled on an agenda ordered by
//! (virtual time, scheduling order) and the whole trace is returned at once.
//! SDK-specific decisions come from [`Profile`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::model::digest::sha256_fields;
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::{
    authorization_receipt_for, Body, Decision, LedgerEvent, Outcome, Reason, TaskLedger,
};
use crate::model::sim::presets;
use crate::model::sim::profile::{Profile, RaisingCancel, StreamEnd, TASK_NOT_CANCELABLE};
use crate::model::sim::scenario::{
    CancelImpl, Client, Ending, Interrupt, ReceiptMode, Scenario, Store, Work,
};
use crate::model::state::TaskState;
use crate::model::trace::{
    CallEnd, CancelResult, Disposition, Entry, Metrics, Row, RowKind, Run, Source,
    StreamEnd as Ended, Trace,
};
use crate::model::wire::{
    self, Chunk, StoredArtifact, RECEIPT_ARTIFACT, TASK_ID, TRACKING_ARTIFACT,
};

/// Simulates a scenario to completion.
pub fn simulate(scenario: &Scenario) -> Run {
    if let Some(preset) = scenario.preset {
        return presets::play(preset);
    }
    let mut sim = Sim::new(scenario);
    sim.run();
    sim.finish()
}

/// The credential Jenya's client holds; only its receipt reference may reach
/// the ledger.
const CLIENT_CREDENTIAL: &str = "jenya-oauth-access-token";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Act {
    Start,
    Step { exec: usize, step: u32 },
    Ending { exec: usize },
    Late { exec: usize },
    Return { exec: usize },
    Resume { stage: Stage },
    Cancel,
    Restart,
    Timeout { call: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Auth,
    Input,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exec {
    Running,
    Cancelled { flag_step_done: bool },
    Finished,
    Dead,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Open,
    Closed,
    TimedOut,
    Returned,
    Failed,
}

/// What the executor (or cancel(), or the handler) puts on the queue.
#[derive(Debug, Clone)]
enum Payload {
    Task,
    /// The task published again at the start of a resumed `execute()`.
    TaskAgain,
    Status {
        state: TaskState,
        receipt: Option<String>,
    },
    Chunk {
        chunk: Chunk,
        part: u32,
    },
}

/// One event as the handler processes it: what it is, how it is decided,
/// stored and shown. Kept whole once the client received it, so that a
/// resend repeats exactly what was sent.
#[derive(Debug, Clone)]
struct Event {
    exec: usize,
    task: usize,
    source: Source,
    payload: Payload,
    event_id: String,
    label: String,
    wire: serde_json::Value,
    body: Body,
    digest: String,
    /// The state a status event moves to (or tries to).
    target: Option<TaskState>,
}

/// The task as the SDK's store holds it (guard applied).
#[derive(Debug, Clone)]
struct StoredTask {
    state: TaskState,
    artifacts: Vec<StoredArtifact>,
}

struct Sim<'a> {
    sc: &'a Scenario,
    profile: &'static Profile,
    agenda: BinaryHeap<Reverse<(u64, u64, Act)>>,
    scheduled: u64,
    now: u64,
    rows: Vec<Row>,
    /// One ledger per task the scenario creates.
    ledgers: Vec<TaskLedger>,
    /// The SDK's stored tasks; `None` once lost.
    tasks: Vec<Option<StoredTask>>,
    /// The task the client follows now.
    client_task: usize,
    execs: Vec<Exec>,
    /// Which task each execution works on.
    exec_task: Vec<usize>,
    /// How many times `execute()` was called.
    executions: u32,
    retried: bool,
    last_activity: u64,
    /// A blocking result captured before the call may return.
    pending_result: Option<(TaskState, u32, serde_json::Value)>,
    call: Call,
    call_number: u32,
    /// Set once the SDK stops taking events for this task (profiles that end
    /// the stream at the first final status).
    bus_closed: Vec<bool>,
    emitted: u32,
    /// Every event the streaming client received, in order: a resend
    /// repeats one of these, never an event rebuilt from a numbering.
    sent: Vec<Event>,
    resent: bool,
    orphaned: u32,
    blocking_result: Option<u32>,
    cancel_result: Option<CancelResult>,
    interrupts: Vec<Stage>,
    offset_ms: u64,
}

impl<'a> Sim<'a> {
    fn new(sc: &'a Scenario) -> Sim<'a> {
        let interrupts = match sc.interrupt {
            Interrupt::None => vec![],
            Interrupt::Auth => vec![Stage::Auth],
            Interrupt::Input => vec![Stage::Input],
            Interrupt::Both => vec![Stage::Auth, Stage::Input],
        };
        let offset_ms = interrupts.len() as u64 * u64::from(sc.step_ms);
        Sim {
            sc,
            profile: Profile::of(sc.sdk),
            agenda: BinaryHeap::new(),
            scheduled: 0,
            now: 0,
            rows: Vec::new(),
            ledgers: vec![TaskLedger::new(TASK_ID)],
            tasks: vec![None],
            client_task: 0,
            execs: Vec::new(),
            exec_task: Vec::new(),
            executions: 0,
            retried: false,
            last_activity: 0,
            pending_result: None,
            call: Call::Open,
            call_number: 0,
            bus_closed: vec![false],
            emitted: 0,
            sent: Vec::new(),
            resent: false,
            orphaned: 0,
            blocking_result: None,
            cancel_result: None,
            interrupts,
            offset_ms,
        }
    }

    fn step_ms(&self) -> u64 {
        u64::from(self.sc.step_ms)
    }

    /// When "after chunk k" happens: half a step after chunk k would have
    /// been emitted, so the request lands mid-way through the next step.
    fn after_chunk(&self, k: u32) -> u64 {
        self.offset_ms + u64::from(k) * self.step_ms() + self.step_ms() / 2
    }

    fn schedule(&mut self, t: u64, act: Act) {
        self.scheduled += 1;
        self.agenda.push(Reverse((t, self.scheduled, act)));
    }

    fn run(&mut self) {
        self.schedule(0, Act::Start);
        if let Some(k) = self.sc.cancel {
            self.schedule(self.after_chunk(k), Act::Cancel);
        }
        if let Some(k) = self.sc.restart {
            self.schedule(self.after_chunk(k), Act::Restart);
        }
        if let Some(ms) = self.sc.timeout_ms {
            self.schedule(u64::from(ms), Act::Timeout { call: 0 });
        }
        while let Some(Reverse((t, _, act))) = self.agenda.pop() {
            self.now = t;
            self.handle(act);
        }
    }

    fn handle(&mut self, act: Act) {
        match act {
            Act::Start => self.start_execution(0),
            Act::Step { exec, step } => self.step(exec, step),
            Act::Ending { exec } => self.ending(exec),
            Act::Late { exec } => self.late(exec),
            Act::Return { exec } => self.execute_returns(exec),
            Act::Resume { stage } => self.resume(stage),
            Act::Cancel => self.cancel(),
            Act::Restart => self.restart(),
            Act::Timeout { call } => self.timeout(call),
        }
    }

    // ----- the executor -------------------------------------------------

    fn start_execution(&mut self, task: usize) {
        self.executions += 1;
        let exec = self.new_execution(task);
        let id = format!("submit:{}", wire::MESSAGE_ID);
        let submit = self.ledger_event(Source::Client, id, "submit", Body::Submit);
        self.ledgers[task].apply(&submit);
        self.emit(exec, Source::Executor, Payload::Task);
        self.emit_status(exec, Source::Executor, TaskState::Working);
        if self.sc.chunks == 0 {
            self.maybe_retry(exec);
        }
        self.after_working(exec, 0);
    }

    fn new_execution(&mut self, task: usize) -> usize {
        self.execs.push(Exec::Running);
        self.exec_task.push(task);
        self.execs.len() - 1
    }

    /// `retry=on`: right after the first chunk the client drops its stream
    /// and sends the identical request again.
    fn maybe_retry(&mut self, exec: usize) {
        if self.sc.retry && !self.retried && self.exec_task[exec] == 0 {
            self.retried = true;
            self.retry();
        }
    }

    /// What the executor does once it is WORKING: ask for the next
    /// interruption, or start the lookup steps.
    fn after_working(&mut self, exec: usize, stages_done: usize) {
        if exec == 0 {
            if let Some(&stage) = self.interrupts.get(stages_done) {
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

    fn step(&mut self, exec: usize, step: u32) {
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
        match self.execs[exec] {
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
                    self.execs[exec] = Exec::Cancelled {
                        flag_step_done: true,
                    };
                }
                Work::Flag => {}
            },
            Exec::Finished | Exec::Dead => {}
        }
    }

    fn orphan(&mut self, step: u32, why: &str) {
        self.orphaned += 1;
        let label = format!(
            "courier step {step}/{} computed after the cancel: {why}",
            self.sc.chunks
        );
        self.record(Entry::action(Source::Executor, label).disposition(Disposition::Orphaned));
    }

    fn ending(&mut self, exec: usize) {
        if self.execs[exec] != Exec::Running {
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

    fn late(&mut self, exec: usize) {
        if self.execs[exec] != Exec::Running {
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

    fn execute_returns(&mut self, exec: usize) {
        if self.execs[exec] != Exec::Running {
            return;
        }
        self.execs[exec] = Exec::Finished;
        let task = self.exec_task[exec];
        let state = self.tasks[task].as_ref().map(|t| t.state);
        let settled = state.is_some_and(|s| s.is_terminal() || s.is_interrupted());
        let returned = if settled {
            "execute() returned"
        } else {
            "execute() returned without a final status"
        };
        let followed = task == self.client_task;
        let closes = match self.profile.stream_end {
            StreamEnd::ExecuteReturns => true,
            // An auth-required task keeps its channel open in this SDK.
            StreamEnd::FirstFinalStatus => state != Some(TaskState::AuthRequired),
        };
        if followed && closes && self.call == Call::Open {
            self.end_call(&format!("{returned}; the handler closes the queue"));
        } else {
            self.action(Source::Executor, returned);
        }
    }

    // ----- the client ---------------------------------------------------

    fn resume(&mut self, stage: Stage) {
        self.call = Call::Open;
        self.call_number += 1;
        self.bus_closed[0] = false;
        self.last_activity = self.now;
        if let Some(ms) = self.sc.timeout_ms {
            let call = self.call_number;
            self.schedule(self.now + u64::from(ms), Act::Timeout { call });
        }
        let receipt = match (stage, self.sc.receipt) {
            (Stage::Auth, ReceiptMode::Valid) => Some(authorization_receipt_for(CLIENT_CREDENTIAL)),
            _ => None,
        };
        let label = match (stage, &receipt) {
            (Stage::Auth, Some(r)) => format!("client authorizes and resumes (receipt {r})"),
            (Stage::Auth, None) => "client resumes without an authorization receipt".into(),
            (Stage::Input, _) => "client supplies the delivery postcode and resumes".into(),
        };
        self.action(Source::Client, label);
        let exec = 0;
        if self.execs[exec] == Exec::Dead || self.tasks[0].is_none() {
            return;
        }
        self.execs[exec] = Exec::Running;
        self.executions += 1;
        if self.profile.resume_publishes_task {
            self.emit(exec, Source::Executor, Payload::TaskAgain);
        }
        let before = self.ledgers[0].sequence();
        self.emit(
            exec,
            Source::Executor,
            Payload::Status {
                state: TaskState::Working,
                receipt,
            },
        );
        if self.sc.guard && self.ledgers[0].sequence() == before {
            // The guard refused the resume: the execution does not go on.
            self.execs[exec] = Exec::Finished;
            self.end_call("stream closed: the guard refused the resume");
            return;
        }
        let done = self
            .interrupts
            .iter()
            .position(|s| *s == stage)
            .map_or(0, |i| i + 1);
        self.after_working(exec, done);
    }

    fn retry(&mut self) {
        let id = format!("submit:{}", wire::MESSAGE_ID);
        let event = self.ledger_event(Source::Client, id, "submit", Body::Submit);
        let decision = self.ledgers[0].apply(&event);
        let what = format!(
            "client drops the stream and retries SendMessage with the same messageId {}",
            wire::MESSAGE_ID
        );
        if self.sc.guard && matches!(decision, Decision::Duplicate(_)) {
            let label = format!("{what}: lookup hit, the existing task is returned and followed");
            self.record(Entry::action(Source::Client, label).disposition(Disposition::Duplicate));
            return;
        }
        let label = format!("{what}: the SDK creates a second task and executes again");
        self.action(Source::Client, label);
        let task = self.tasks.len();
        self.tasks.push(None);
        self.bus_closed.push(false);
        self.ledgers.push(TaskLedger::new(&wire::task_id(task)));
        self.client_task = task;
        self.start_execution(task);
    }

    /// A client timeout: a stream's is an inactivity timeout (it restarts
    /// with every event received, as httpx's read timeout does); a blocking
    /// call's runs from the request.
    fn timeout(&mut self, call: u32) {
        if call != self.call_number || self.call != Call::Open {
            return;
        }
        let limit = u64::from(self.sc.timeout_ms.unwrap_or(0));
        let inactivity = self.profile.timeout_is_inactivity && self.sc.client == Client::Stream;
        if inactivity && self.now < self.last_activity + limit {
            let due = self.last_activity + limit;
            self.schedule(due, Act::Timeout { call });
            return;
        }
        self.call = Call::TimedOut;
        let what = match self.sc.client {
            Client::Stream => "stream",
            Client::Block => "call",
        };
        let label =
            format!("client timeout after {limit} ms without an answer: gives up on the {what}");
        self.action(Source::Client, label);
    }

    fn cancel(&mut self) {
        let event = self.ledger_event(
            Source::Client,
            "cancel:1".into(),
            "cancel",
            Body::CancelRequest,
        );
        self.ledgers[self.client_task].apply(&event);
        self.action(Source::Client, "client sends CancelTask");
        let Some(state) = self.task_state() else {
            self.cancel_result = Some(CancelResult::Error);
            self.action(
                Source::Handler,
                "CancelTask → TaskNotFoundError (-32001): the task is gone",
            );
            return;
        };
        if state.is_terminal() {
            self.cancel_result = Some(CancelResult::NotCancelable);
            let label = format!("CancelTask → TaskNotCancelableError ({TASK_NOT_CANCELABLE}): the task is already {}", state.label());
            self.action(Source::Handler, label);
            return;
        }
        match self.sc.cancel_impl {
            CancelImpl::Write => {
                self.emit_cancel_status(Source::Cancel, TaskState::Canceled);
                self.cancel_result = Some(if self.task_state() == Some(TaskState::Canceled) {
                    CancelResult::Canceled
                } else {
                    CancelResult::Error
                });
                self.stop_executions();
            }
            CancelImpl::Raise => {
                self.action(Source::Cancel, "cancel() raises NotImplementedError");
                self.cancel_result = Some(CancelResult::Error);
                match self.profile.raising_cancel {
                    RaisingCancel::FailsTask => {
                        self.emit_cancel_status(Source::Handler, TaskState::Failed);
                        self.stop_executions();
                    }
                    RaisingCancel::ErrorOnly => {
                        let label = format!(
                            "CancelTask → JSON-RPC error {}; the executor runs on",
                            self.profile.raising_cancel_code
                        );
                        self.action(Source::Handler, label);
                    }
                }
            }
            CancelImpl::Noop => {
                let label = "cancel() returns without writing a status".to_string();
                self.action(Source::Cancel, label);
                self.stop_executions();
                if self.profile.noop_cancel_stores_canceled {
                    // The SDK stores CANCELED itself after the queue closed:
                    // the stream never carries it.
                    self.emit_cancel_status(Source::Handler, TaskState::Canceled);
                }
                if self.task_state() == Some(TaskState::Canceled) {
                    self.cancel_result = Some(CancelResult::Canceled);
                } else {
                    let still = self.task_state().map_or("gone".into(), |s| s.label());
                    self.cancel_result = Some(CancelResult::NotCancelable);
                    let label = format!(
                        "CancelTask → TaskNotCancelableError ({TASK_NOT_CANCELABLE}): the task is still {still}"
                    );
                    self.action(Source::Handler, label);
                }
            }
        }
    }

    fn emit_cancel_status(&mut self, source: Source, state: TaskState) {
        let client_task = self.client_task;
        let exec = self
            .exec_task
            .iter()
            .rposition(|t| *t == client_task)
            .unwrap_or(0);
        self.emit_status(exec, source, state);
    }

    /// The handler stops the client's running `execute()` where the profile
    /// says a cancel interrupts it (and closes the queue); elsewhere only a
    /// cancel flag set by a writing `cancel()` stops flag-checking work.
    fn stop_executions(&mut self) {
        let interrupts = self.profile.cancel_interrupts_awaiting;
        let flag_set = self.sc.work == Work::Flag && self.sc.cancel_impl == CancelImpl::Write;
        if !interrupts && !flag_set {
            return;
        }
        for (exec, task) in self.execs.iter_mut().zip(&self.exec_task) {
            if *exec == Exec::Running && *task == self.client_task {
                *exec = Exec::Cancelled {
                    flag_step_done: false,
                };
            }
        }
        if interrupts && self.profile.stream_end == StreamEnd::ExecuteReturns {
            self.end_call("stream closed after the cancel");
        }
    }

    fn restart(&mut self) {
        let assumed = !self.profile.restart_measured;
        self.record(
            Entry::action(Source::Server, "server restarts: the process is killed")
                .assumed(assumed),
        );
        for exec in &mut self.execs {
            *exec = Exec::Dead;
        }
        if self.call == Call::Open {
            self.call = match self.sc.client {
                Client::Stream => Call::Closed,
                Client::Block => Call::Failed,
            };
            let label = match self.sc.client {
                Client::Stream => "stream broken by the restart",
                Client::Block => "SendMessage fails: connection reset by the restart",
            };
            self.record(Entry::action(Source::Client, label).assumed(assumed));
        }
        match self.sc.store {
            Store::Memory => {
                self.tasks.iter_mut().for_each(|t| *t = None);
                self.record(
                    Entry::action(
                        Source::Server,
                        "fresh server: the in-memory task store is empty, the task is lost",
                    )
                    .disposition(Disposition::Lost)
                    .assumed(assumed),
                );
            }
            Store::Database => {
                let state = self.task_state().map_or("?".into(), |s| s.label());
                let label = format!(
                    "fresh server: the database still holds the task {state}; nothing resumes it"
                );
                self.record(
                    Entry::action(Source::Server, label)
                        .disposition(Disposition::NotDelivered)
                        .assumed(assumed),
                );
            }
        }
    }

    // ----- the handler's pipeline ---------------------------------------

    /// The state of the task the client follows (`None` once lost).
    fn task_state(&self) -> Option<TaskState> {
        self.tasks[self.client_task].as_ref().map(|t| t.state)
    }

    fn ledger_event(
        &self,
        source: Source,
        event_id: String,
        what: &str,
        body: Body,
    ) -> LedgerEvent {
        LedgerEvent {
            task_id: wire::task_id(self.client_task),
            digest: sha256_fields(&[what, &event_id]),
            event_id,
            producer: source.label().into(),
            source_seq: None,
            observed_ms: self.now,
            body,
        }
    }

    /// A status event with no authorization receipt.
    fn emit_status(&mut self, exec: usize, source: Source, state: TaskState) {
        self.emit(
            exec,
            source,
            Payload::Status {
                state,
                receipt: None,
            },
        );
    }

    /// One event from the executor, `cancel()` or the handler: through the
    /// guard (when on), into the store, out to the client.
    fn emit(&mut self, exec: usize, source: Source, payload: Payload) {
        self.emitted += 1;
        let event_id = format!("E{}", self.emitted);
        let event = self.prepare(exec, source, payload, event_id);
        self.process(event, false);
    }

    /// Describes an event: its label, wire JSON, ledger body and digest.
    fn prepare(&self, exec: usize, source: Source, payload: Payload, event_id: String) -> Event {
        let task = self.exec_task.get(exec).copied().unwrap_or(0);
        let (label, wire, body, digest) = self.describe(exec, task, &payload);
        let target = match payload {
            Payload::Task => Some(TaskState::Submitted),
            Payload::TaskAgain => self.tasks[task].as_ref().map(|t| t.state),
            Payload::Status { state, .. } => Some(state),
            Payload::Chunk { .. } => None,
        };
        Event {
            exec,
            task,
            source,
            payload,
            event_id,
            label,
            wire,
            body,
            digest,
            target,
        }
    }

    /// Decides an event in the task's ledger (which refuses it when the
    /// guard is on), stores it, and delivers it.
    fn process(&mut self, event: Event, resend: bool) {
        let task = event.task;
        let source = event.source;
        let target = event.target;
        let ledger_event = LedgerEvent {
            task_id: wire::task_id(task),
            event_id: event.event_id.clone(),
            producer: source.label().into(),
            source_seq: None,
            digest: event.digest.clone(),
            observed_ms: self.now,
            body: event.body.clone(),
        };
        let decision = self.ledgers[task].apply(&ledger_event);
        let label = if resend {
            format!("{} (resent after reconnect)", event.label)
        } else {
            event.label.clone()
        };
        if self.sc.guard {
            if let Some(disposition) = guard_refusal(&decision, self.ledgers[task].state()) {
                let label = match decision.outcome() {
                    Outcome::Rejected { reason } => format!("{label}: {}", reason.code()),
                    _ => label,
                };
                self.record(Entry::event(source, label, disposition).target(target));
                return;
            }
        }
        let payload = &event.payload;
        if self.bus_closed[task] {
            // Work that goes on after the SDK stopped reading is orphaned:
            // its output reaches nobody and nothing stores it.
            let step = matches!(payload, Payload::Chunk { chunk, .. } if chunk.artifact_id == TRACKING_ARTIFACT);
            if step {
                self.orphaned += 1;
            }
            let (why, disposition) = if step {
                (
                    "courier step computed after the stream ended: dropped silently",
                    Disposition::Orphaned,
                )
            } else {
                (
                    "dropped silently, the SDK stopped reading this task",
                    Disposition::NotDelivered,
                )
            };
            self.record(
                Entry::event(source, format!("{label}: {why}"), disposition).target(target),
            );
            return;
        }
        let was_terminal = self.tasks[task]
            .as_ref()
            .is_some_and(|t| t.state.is_terminal());
        match (payload, self.tasks[task].as_mut()) {
            (Payload::TaskAgain, _) => {}
            (Payload::Task, stored) => {
                if stored.is_none() {
                    self.tasks[task] = Some(StoredTask {
                        state: TaskState::Submitted,
                        artifacts: Vec::new(),
                    });
                }
            }
            (_, None) => return,
            (Payload::Status { state, .. }, Some(stored)) => stored.state = *state,
            (Payload::Chunk { chunk, part }, Some(stored)) => {
                store_chunk(stored, chunk, *part as usize)
            }
        }
        let final_status = matches!(payload, Payload::Status { state, .. }
            if state.is_terminal() || *state == TaskState::InputRequired);
        let status_change = matches!(payload, Payload::Status { .. });
        self.deliver(event, label, was_terminal, status_change);
        if final_status && self.profile.stream_end == StreamEnd::FirstFinalStatus {
            self.bus_closed[task] = true;
            if task == self.client_task {
                self.end_call("stream closed at the first final status");
            }
        }
    }

    fn describe(
        &self,
        exec: usize,
        task: usize,
        payload: &Payload,
    ) -> (String, serde_json::Value, Body, String) {
        let suffix = if task > 0 {
            format!(" (task {})", task + 1)
        } else if exec > 0 {
            format!(" (execution {})", exec + 1)
        } else {
            String::new()
        };
        match payload {
            Payload::Task => (
                format!("Task SUBMITTED enqueued{suffix}"),
                wire::task_submitted(task),
                Body::Submit,
                sha256_fields(&["task", &wire::task_id(task)]),
            ),
            Payload::TaskAgain => {
                let (state, artifacts) = self.tasks[task]
                    .as_ref()
                    .map_or((TaskState::Submitted, &[][..]), |t| {
                        (t.state, &t.artifacts[..])
                    });
                (
                    format!(
                        "Task {} published again as the resumed execute() starts{suffix}",
                        state.label()
                    ),
                    wire::task_snapshot(task, state, self.now, artifacts),
                    Body::Submit,
                    sha256_fields(&["task-again", &self.emitted.to_string()]),
                )
            }
            Payload::Status { state, receipt } => {
                let manifest = state.is_terminal().then(|| "manifest".to_string());
                (
                    format!("status {}{suffix}", state.label()),
                    wire::status_update(task, *state, self.now),
                    Body::Status {
                        status: state.kebab().into(),
                        authorization_receipt: receipt.clone(),
                        manifest,
                    },
                    sha256_fields(&["status", state.kebab(), &exec.to_string()]),
                )
            }
            Payload::Chunk { chunk, part } => {
                let label = if chunk.artifact_id == RECEIPT_ARTIFACT {
                    format!("late artifact {}{suffix}", chunk.artifact_id)
                } else {
                    format!("artifact chunk {}/{}{suffix}", part + 1, self.sc.chunks)
                };
                let ledger_part =
                    Part::text(&chunk.artifact_id, *part, &chunk.text, chunk.last_chunk);
                let digest = sha256_fields(&[
                    "part",
                    &chunk.artifact_id,
                    &part.to_string(),
                    &ledger_part.checksum,
                ]);
                (
                    label,
                    wire::artifact_update(task, chunk),
                    Body::Part(ledger_part),
                    digest,
                )
            }
        }
    }

    /// Hands a stored event to its consumer: the streaming client if it
    /// follows this task and its stream is open; a blocking call's result
    /// aggregator consumes everything server-side.
    fn deliver(&mut self, event: Event, label: String, was_terminal: bool, status_change: bool) {
        let task = event.task;
        let followed = task == self.client_task;
        let received = followed && self.sc.client == Client::Stream && self.call == Call::Open;
        let consumed = received || (followed && self.sc.client == Client::Block);
        let disposition = match (consumed, was_terminal) {
            (true, true) => Disposition::AfterTerminal,
            (true, false) => Disposition::Delivered,
            (false, _) => Disposition::NotDelivered,
        };
        let label = if followed {
            label
        } else {
            format!("{label}: nobody follows this task any more")
        };
        let wire = received.then(|| event.wire.clone());
        self.record(
            Entry::event(event.source, label, disposition)
                .wire(wire)
                .target(event.target),
        );
        if received {
            self.last_activity = self.now;
            self.sent.push(event);
            self.maybe_break_stream();
        }
        // A blocking call answers a status change, not a republished task.
        if followed && status_change {
            self.maybe_return_blocking_call();
        }
    }

    /// `dup=k`: after delivered event k the stream breaks, the client
    /// reconnects and the server resends event k exactly as it was sent
    /// (with other bytes at the same coordinate when `conflict=on` and
    /// event k is an artifact chunk), before the suffix.
    fn maybe_break_stream(&mut self) {
        let Some(k) = self.sc.dup else { return };
        if self.resent || self.sent.len() != k as usize {
            return;
        }
        self.resent = true;
        let label = format!("stream breaks after event {k}; client reconnects");
        self.action(Source::Client, label);
        let Some(sent) = self.sent.last().cloned() else {
            return;
        };
        let resend = match &sent.payload {
            Payload::Chunk { chunk, part }
                if self.sc.conflict && chunk.artifact_id == TRACKING_ARTIFACT =>
            {
                let other = Payload::Chunk {
                    chunk: tracking_chunk(part + 1, self.sc.chunks, true),
                    part: *part,
                };
                let mut conflicting = self.prepare(sent.exec, Source::Server, other, sent.event_id);
                conflicting.label = sent.label;
                conflicting
            }
            _ if self.sc.conflict => Event {
                source: Source::Server,
                label: format!(
                    "{}, unchanged: event {k} is no artifact chunk for conflict=on to alter",
                    sent.label
                ),
                ..sent
            },
            _ => Event {
                source: Source::Server,
                ..sent
            },
        };
        self.process(resend, true);
    }

    fn maybe_return_blocking_call(&mut self) {
        if self.sc.client != Client::Block || self.call != Call::Open {
            return;
        }
        let Some(state) = self.task_state() else {
            return;
        };
        if state == TaskState::Failed && !self.profile.blocking_returns_at_failed {
            // Measured: the result is the task as it was at FAILED, but the
            // call only returns once execute() does.
            if self.pending_result.is_none() {
                self.pending_result = self.snapshot();
            }
            return;
        }
        if state.is_terminal() || state.is_interrupted() {
            self.return_blocking_call("SendMessage returns");
        }
    }

    /// The client's task as a blocking result lists it: state, artifact
    /// count and wire JSON.
    fn snapshot(&self) -> Option<(TaskState, u32, serde_json::Value)> {
        let task = self.client_task;
        let stored = self.tasks[task].as_ref()?;
        let count = stored.artifacts.len() as u32;
        Some((
            stored.state,
            count,
            wire::task_snapshot(task, stored.state, self.now, &stored.artifacts),
        ))
    }

    fn return_blocking_call(&mut self, why: &str) {
        let Some((state, count, snapshot)) = self.pending_result.take().or_else(|| self.snapshot())
        else {
            return;
        };
        let label = format!(
            "{why}: Task {} with {count} artifact{}",
            state.label(),
            plural(count)
        );
        self.blocking_result = Some(count);
        self.call = Call::Returned;
        self.record(Entry::action(Source::Handler, label).wire(Some(snapshot)));
    }

    /// The queue closed: a stream ends; a blocking call still waiting returns
    /// the task as it is.
    fn end_call(&mut self, label: &str) {
        if self.call != Call::Open {
            return;
        }
        match self.sc.client {
            Client::Stream => {
                self.call = Call::Closed;
                self.action(Source::Handler, label);
            }
            Client::Block => self.return_blocking_call("SendMessage returns as the queue closes"),
        }
    }

    /// A delivered action row (a request, a stream ending, a returned call).
    fn action(&mut self, source: Source, label: impl Into<String>) {
        self.record(Entry::action(source, label));
    }

    /// Appends a row, stamped with the time and the state after it.
    fn record(&mut self, entry: Entry) {
        let row = entry.row(self.rows.len(), self.now, self.task_state());
        self.rows.push(row);
    }

    // ----- the end ------------------------------------------------------

    fn finish(mut self) -> Run {
        let (mut hung_streams, mut hung_calls) = (0, 0);
        if self.call == Call::Open {
            let label = match self.sc.client {
                Client::Stream => {
                    hung_streams = 1;
                    "stream still open: nothing will ever end it (hung)"
                }
                Client::Block => {
                    hung_calls = 1;
                    "SendMessage never returns (hung call)"
                }
            };
            self.record(
                Entry::action(Source::Client, label).disposition(Disposition::NotDelivered),
            );
        }
        let count = |d: Disposition| {
            self.rows
                .iter()
                .filter(|r| r.kind == RowKind::Event && r.disposition == d)
                .count() as u32
        };
        let any = |d: Disposition| self.rows.iter().filter(|r| r.disposition == d).count() as u32;
        let (stream, call_end) = match (self.sc.client, self.call) {
            (Client::Block, Call::Open) => (None, Some(CallEnd::Hung)),
            (Client::Block, Call::TimedOut) => (None, Some(CallEnd::TimedOut)),
            (Client::Block, Call::Failed) => (None, Some(CallEnd::Failed)),
            (Client::Block, _) => (None, Some(CallEnd::Returned)),
            (Client::Stream, Call::Open) => (Some(Ended::Hung), None),
            (Client::Stream, Call::TimedOut) => (Some(Ended::TimedOut), None),
            (Client::Stream, _) => (Some(Ended::Closed), None),
        };
        let client_task = &self.tasks[self.client_task];
        let final_state = client_task.as_ref().map(|t| t.state);
        let metrics = Metrics {
            events_delivered: count(Disposition::Delivered) + count(Disposition::AfterTerminal),
            events_after_terminal: count(Disposition::AfterTerminal),
            dropped_by_guard: count(Disposition::DroppedByGuard),
            final_state,
            stream,
            hung_streams,
            hung_calls,
            tasks_non_terminal: self
                .tasks
                .iter()
                .flatten()
                .filter(|t| !t.state.is_terminal())
                .count() as u32,
            orphaned_steps: self.orphaned,
            blocking_result_artifacts: if self.sc.client == Client::Block {
                self.blocking_result
            } else {
                None
            },
            get_task_artifacts: client_task.as_ref().map(|t| t.artifacts.len() as u32),
            cancel_result: self.cancel_result,
            task_lost: client_task.is_none(),
            executions: self.executions,
            duplicates: any(Disposition::Duplicate),
            rejected: any(Disposition::Rejected),
            incidents: any(Disposition::Incident),
        };
        Run {
            trace: Trace {
                rows: self.rows,
                metrics,
            },
            ledgers: self.ledgers,
            call_end,
        }
    }
}

/// How the guard's ledger decision shows in the trace, when it stops the
/// event before delivery and storage.
fn guard_refusal(decision: &Decision, state: TaskState) -> Option<Disposition> {
    match decision {
        Decision::Duplicate(_) => Some(Disposition::Duplicate),
        Decision::New(Outcome::Incident { .. }) => Some(Disposition::Incident),
        Decision::New(Outcome::Replayed { .. }) => Some(Disposition::Duplicate),
        Decision::New(Outcome::Rejected { reason }) => Some(match reason {
            Reason::AfterTerminal | Reason::ResultSetClosed => Disposition::DroppedByGuard,
            Reason::IllegalTransition if state.is_terminal() => Disposition::DroppedByGuard,
            _ => Disposition::Rejected,
        }),
        Decision::New(_) => None,
    }
}

/// The k-th chunk of the tracking artifact (k from 1).
fn tracking_chunk(step: u32, n: u32, conflicting: bool) -> Chunk {
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

/// The SDK's store: a chunk appends to its artifact (or replaces the part at
/// the same position: a conflicting resend silently wins); a new artifact id
/// adds an artifact.
fn store_chunk(task: &mut StoredTask, chunk: &Chunk, part: usize) {
    match task
        .artifacts
        .iter_mut()
        .find(|a| a.artifact_id == chunk.artifact_id)
    {
        Some(artifact) if part < artifact.parts.len() => artifact.parts[part] = chunk.text.clone(),
        Some(artifact) => artifact.parts.push(chunk.text.clone()),
        None => task.artifacts.push(StoredArtifact {
            artifact_id: chunk.artifact_id.clone(),
            name: chunk.name.clone(),
            parts: vec![chunk.text.clone()],
        }),
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
