//! The executor simulation of seed 004 as actors on one virtual clock: the
//! agent's `execute()` and `cancel()` ([`executor`]), the SDK's request
//! handler and its queue ([`handler`]), the task store ([`store`]), the
//! client and its calls ([`client`]), SubscribeToTask streams of a client
//! that reconnects and of a second client ([`subscriber`]), and the server
//! process ([`server`]).
//!
//! Nothing here reads a clock: actions are scheduled on an agenda ordered by
//! (virtual time, the server's work before a client's new request,
//! scheduling order) and the whole trace is returned at once.
//! SDK-specific decisions come from [`Profile`]. The executor, the server
//! and the second client are types that own their state: the world routes
//! an act to one of them with a read-only [`View`] and applies the
//! [`Effect`]s it hands back, in order. Client 1 and the handler are still
//! the world's methods (`client.rs`, `handler.rs`). Every row is written
//! through [`Entry`].

/// The world as an actor may read it ([`View`]), built from the world's
/// fields one by one so that an actor of the world may be borrowed to
/// change beside it.
macro_rules! view {
    ($sim:expr) => {
        $crate::model::sim::actors::effect::View {
            now: $sim.now,
            sc: $sim.sc,
            profile: $sim.profile,
            followed: $sim.client.task,
            client_call: $sim.client.call,
            tasks: &$sim.tasks,
        }
    };
}

mod client;
mod effect;
mod executor;
mod handler;
mod server;
mod state;
mod store;
mod subscriber;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use effect::{Effect, View};
use executor::Executor;
use server::Server;
use state::{Call, ClientCall, ClientId, Handler, Payload, Stage};
use store::TaskSlot;
use subscriber::SecondClient;

use crate::model::sim::keys::Wire;
use crate::model::sim::presets;
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::{Client, Scenario};
use crate::model::state::TaskState;
use crate::model::trace::{
    CallEnd, Disposition, Entry, Metrics, Row, RowKind, Run, Source, StreamEnd as Ended,
    StreamOutcome, StreamRecord, StreamRole, Trace,
};
use crate::model::wire::write_v03::to_v03;
use crate::model::wire::TASK_ID;

/// Simulates a scenario to completion.
pub fn simulate(scenario: &Scenario) -> Run {
    if let Some(preset) = scenario.preset {
        return presets::play(preset);
    }
    let mut sim = Sim::new(scenario);
    sim.run();
    let mut run = sim.finish();
    if scenario.wire == Wire::V0_3 {
        for row in &mut run.trace.rows {
            if let Some(wire) = &row.wire {
                row.wire = Some(to_v03(wire));
            }
        }
    }
    run
}

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
    Timeout { client: ClientId, call: u32 },
    Subscribe { client: ClientId },
}

/// When, within one virtual instant, an action is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    /// The server's own work and anything already on its way.
    Server,
    /// A new request from a client: it reaches the server only after
    /// everything the server does at that instant (an HTTP round trip is
    /// far longer than the gap between two events the executor enqueues
    /// together; measured: a subscriber never sees SUBMITTED, nor WORKING
    /// without the chunk or status enqueued with it).
    Request,
}

/// What is due, ordered by (virtual time, tier, scheduling order).
#[derive(Default)]
struct Agenda {
    heap: BinaryHeap<Reverse<(u64, Tier, u64, Act)>>,
    scheduled: u64,
}

/// The world the actors share: the scenario, the clock, the rows written so
/// far, every task, and each actor's own state.
struct Sim<'a> {
    sc: &'a Scenario,
    profile: &'static Profile,
    agenda: Agenda,
    now: u64,
    rows: Vec<Row>,
    /// Every task the scenario creates: its ledger, its stored form and
    /// whether the SDK still reads its events.
    tasks: Vec<TaskSlot>,
    executor: Executor,
    client: ClientCall,
    handler: Handler,
    /// Every stream a client opened, in order.
    streams: Vec<StreamRecord>,
    second: SecondClient,
    server: Server,
}

impl<'a> Sim<'a> {
    fn new(sc: &'a Scenario) -> Sim<'a> {
        Sim {
            sc,
            profile: Profile::of(sc.sdk),
            agenda: Agenda::default(),
            now: 0,
            rows: Vec::new(),
            tasks: vec![TaskSlot::new(TASK_ID)],
            executor: Executor::new(sc),
            client: ClientCall::default(),
            handler: Handler::default(),
            streams: Vec::new(),
            second: SecondClient::default(),
            server: Server,
        }
    }
}

impl Sim<'_> {
    fn step_ms(&self) -> u64 {
        u64::from(self.sc.step_ms)
    }

    /// When "after chunk k" happens: half a step after chunk k would have
    /// been emitted, so the request lands mid-way through the next step.
    fn after_chunk(&self, k: u32) -> u64 {
        self.executor.offset_ms() + u64::from(k) * self.step_ms() + self.step_ms() / 2
    }

    fn schedule(&mut self, t: u64, act: Act) {
        self.schedule_in(t, Tier::Server, act);
    }

    /// A client's new request at `t`, due after the server's work then.
    fn schedule_request(&mut self, t: u64, act: Act) {
        self.schedule_in(t, Tier::Request, act);
    }

    fn schedule_in(&mut self, t: u64, tier: Tier, act: Act) {
        self.agenda.scheduled += 1;
        self.agenda
            .heap
            .push(Reverse((t, tier, self.agenda.scheduled, act)));
    }

    /// Opens a stream record for `client` and returns its index.
    fn open_stream(&mut self, client: ClientId, role: StreamRole) -> usize {
        self.streams.push(StreamRecord {
            client: client.number(),
            role,
            opened_ms: self.now,
            rows: Vec::new(),
            end: StreamOutcome::Hung,
        });
        self.streams.len() - 1
    }

    /// Records how a stream ended.
    fn end_stream(&mut self, stream: Option<usize>, end: StreamOutcome) {
        if let Some(record) = stream.and_then(|i| self.streams.get_mut(i)) {
            record.end = end;
        }
    }

    fn run(&mut self) {
        if self.sc.client == Client::Stream {
            self.client.stream = Some(self.open_stream(ClientId::First, StreamRole::Send));
        }
        self.schedule(0, Act::Start);
        if let Some(k) = self.sc.cancel {
            self.schedule(self.after_chunk(k), Act::Cancel);
        }
        if let Some(k) = self.sc.restart {
            self.schedule(self.after_chunk(k), Act::Restart);
        }
        if let Some(ms) = self.sc.timeout_ms {
            self.schedule(
                u64::from(ms),
                Act::Timeout {
                    client: ClientId::First,
                    call: 0,
                },
            );
        }
        while let Some(Reverse((t, _, _, act))) = self.agenda.heap.pop() {
            self.now = t;
            self.handle(act);
        }
    }

    fn handle(&mut self, act: Act) {
        match act {
            Act::Start => self.start(0),
            Act::Step { exec, step } => {
                let effects = self.executor.step(&view!(self), exec, step);
                self.apply(effects);
            }
            Act::Ending { exec } => {
                let effects = self.executor.ending(&self.view(), exec);
                self.apply(effects);
            }
            Act::Late { exec } => {
                let effects = self.executor.late(&self.view(), exec);
                self.apply(effects);
            }
            Act::Return { exec } => self.execute_returns(exec),
            Act::Resume { stage } => self.resume(stage),
            Act::Cancel => self.cancel(),
            Act::Restart => {
                let connected = matches!(self.client.call, Call::Open | Call::Stranded);
                let effects = self.server.restart(&self.view(), connected);
                self.apply(effects);
            }
            Act::Timeout {
                client: ClientId::First,
                call,
            } => self.timeout(call),
            Act::Timeout {
                client: ClientId::Second,
                ..
            } => {
                let effects = self.second.timeout(&view!(self));
                self.apply(effects);
            }
            Act::Subscribe {
                client: ClientId::First,
            } => self.subscribe(),
            Act::Subscribe {
                client: ClientId::Second,
            } => {
                let running = self.executor.is_running(self.client.task);
                let stream = self.streams.len();
                let effects = self.second.subscribe(&view!(self), stream, running);
                self.apply(effects);
            }
        }
    }

    /// What an actor may read of the world.
    fn view(&self) -> View<'_> {
        view!(self)
    }

    /// `execute()` is called for `task`.
    fn start(&mut self, task: usize) {
        let effects = self.executor.start(&view!(self), task);
        self.apply(effects);
    }

    /// `execute()` call `exec` returns.
    fn execute_returns(&mut self, exec: usize) {
        let effects = self.executor.returns(&view!(self), exec);
        self.apply(effects);
    }

    /// A cancel stops the executions on client 1's task, as the profile
    /// and the way the work runs say.
    fn stop_executions(&mut self) {
        let effects = self.executor.stop(&view!(self));
        self.apply(effects);
    }

    /// The second client's subscription to `task`, where client 1's queue
    /// for it closes (`label` says why).
    fn close_second(&mut self, task: usize, label: &str) {
        let effects = self.second.queue_closed(&view!(self), task, label);
        self.apply(effects);
    }

    /// Carries out an actor's effects in order, each with all it leads to
    /// before the next.
    fn apply(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Row(entry) => self.record(entry),
                Effect::Schedule(t, act) => self.schedule(t, act),
                Effect::EndStream(stream, end) => self.end_stream(stream, end),
                Effect::KillExecutions => self.executor.kill(),
                Effect::Emit {
                    exec,
                    source,
                    payload,
                } => {
                    self.emit(exec, source, payload);
                }
                Effect::EmitResume {
                    exec,
                    stage,
                    receipt,
                } => {
                    let working = Payload::Status {
                        state: TaskState::Working,
                        receipt,
                    };
                    // The ledger's decision, read where the handler made it.
                    let refused = self.emit(exec, Source::Executor, working).is_some();
                    let effects = self.executor.resumed(&view!(self), exec, stage, refused);
                    self.apply(effects);
                }
                Effect::Ledger(task, event) => {
                    self.tasks[task].ledger.apply(&event);
                }
                Effect::MaybeRetry { task } => self.maybe_retry(task),
                Effect::ExecuteReturns(exec) => self.execute_returns(exec),
                Effect::EndCall(label) => self.end_call(&label),
                Effect::CloseSecond { task, label } => self.close_second(task, &label),
                Effect::BreakClient { assumed } => self.break_client(assumed),
                Effect::BreakSecond => {
                    let effects = self.second.broken();
                    self.apply(effects);
                }
                Effect::OpenStream(client, role) => {
                    self.open_stream(client, role);
                }
                Effect::RowOn(stream, entry) => self.record_on(stream, entry),
                Effect::SetCall(ClientId::First, call) => self.client.call = call,
                Effect::SetCall(ClientId::Second, call) => self.second.set_call(call),
                Effect::ClientReceived => self.after_client_received(),
                Effect::LoseTasks => self.tasks.iter_mut().for_each(|t| t.stored = None),
                Effect::ResubscribeAfterBreak => self.resubscribe_after_break(),
            }
        }
    }

    /// The state of the task the client follows (`None` once lost).
    fn task_state(&self) -> Option<TaskState> {
        self.tasks[self.client.task]
            .stored
            .as_ref()
            .map(|t| t.state)
    }

    /// A delivered action row (a request, a stream ending, a returned call).
    fn action(&mut self, source: Source, label: impl Into<String>) {
        self.record(Entry::action(source, label));
    }

    /// Appends a row a stream carried, and notes it in the stream's record.
    fn record_on(&mut self, stream: Option<usize>, entry: Entry) {
        let index = self.rows.len();
        self.record(entry);
        if let Some(record) = stream.and_then(|i| self.streams.get_mut(i)) {
            record.rows.push(index);
        }
    }

    /// Appends a row, stamped with the time and the state after it.
    fn record(&mut self, entry: Entry) {
        let row = entry.row(self.rows.len(), self.now, self.task_state());
        self.rows.push(row);
    }

    fn finish(mut self) -> Run {
        let mut hung_calls = 0;
        self.note_never_resubscribed();
        let effects = self
            .second
            .never_subscribed(&view!(self), self.client.received);
        self.apply(effects);
        if matches!(self.client.call, Call::Open | Call::Stranded) {
            let label = match (self.sc.client, self.client.subscribed) {
                (Client::Stream, false) => "stream still open: nothing will ever end it (hung)",
                (Client::Stream, true) => {
                    "subscription still open: nothing will ever end it (hung)"
                }
                (Client::Block, _) => {
                    hung_calls = 1;
                    "SendMessage never returns (hung call)"
                }
            };
            self.record(
                Entry::action(Source::Client, label).disposition(Disposition::NotDelivered),
            );
        }
        let effects = self.second.hangs();
        self.apply(effects);
        let hung_streams = self
            .streams
            .iter()
            .filter(|s| s.end == StreamOutcome::Hung)
            .count() as u32;
        let count = |d: Disposition| {
            self.rows
                .iter()
                .filter(|r| r.kind == RowKind::Event && r.disposition == d)
                .count() as u32
        };
        let any = |d: Disposition| self.rows.iter().filter(|r| r.disposition == d).count() as u32;
        let (stream, call_end) = match (self.sc.client, self.client.call) {
            (Client::Block, Call::Open) => (None, Some(CallEnd::Hung)),
            (Client::Block, Call::TimedOut) => (None, Some(CallEnd::TimedOut)),
            (Client::Block, Call::Failed) => (None, Some(CallEnd::Failed)),
            (Client::Block, _) => (None, Some(CallEnd::Returned)),
            (Client::Stream, Call::Open | Call::Stranded) => (Some(Ended::Hung), None),
            (Client::Stream, Call::TimedOut) => (Some(Ended::TimedOut), None),
            (Client::Stream, _) => (Some(Ended::Closed), None),
        };
        let client_task = &self.tasks[self.client.task].stored;
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
                .filter_map(|t| t.stored.as_ref())
                .filter(|t| !t.state.is_terminal())
                .count() as u32,
            orphaned_steps: self.executor.orphaned(),
            blocking_result_artifacts: if self.sc.client == Client::Block {
                self.client.blocking_result
            } else {
                None
            },
            get_task_artifacts: client_task.as_ref().map(|t| t.artifacts.len() as u32),
            cancel_result: self.client.cancel_result,
            task_lost: client_task.is_none(),
            executions: self.executor.executions(),
            duplicates: any(Disposition::Duplicate),
            rejected: any(Disposition::Rejected),
            incidents: any(Disposition::Incident),
        };
        Run {
            trace: Trace {
                rows: self.rows,
                metrics,
            },
            ledgers: self.tasks.into_iter().map(|t| t.ledger).collect(),
            call_end,
            streams: self.streams,
        }
    }
}
