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
//! SDK-specific decisions come from [`Profile`]. Each actor is a type that
//! owns its state and handles its own inputs ([`inputs`]): the world
//! hands a message [`To`] one of them with a read-only [`View`] and applies
//! the [`Effect`]s it hands back, in order, each with all it leads to
//! before the next. An effect is a row, a message scheduled on the agenda,
//! or a message handed over now. Every row is written through [`Entry`].

mod client;
mod effect;
mod executor;
mod finish;
mod handler;
mod inputs;
mod push;
mod queue;
mod server;
mod state;
mod store;
mod subscriber;
mod subscription;
mod timeout;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use client::FirstClient;
use effect::{Effect, Facts, View};
use executor::Executor;
use handler::Handler;
use inputs::{ClientIn, ExecutorIn, ServerIn, To};
use push::webhook::ClientWebhook;
use push::PushSender;
use queue::Queue;
use server::Server;
use state::{CallState, ClientId};
use store::TaskStore;
use subscriber::SecondClient;

use crate::model::sim::keys::Wire;
use crate::model::sim::presets;
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::{Client, ResultShape, Scenario};
use crate::model::trace::{Entry, Row, Run, StreamEnd, StreamRecord, StreamRole, Trace};
use crate::model::wire::RowWire;

/// Simulates a scenario to completion.
pub fn simulate(scenario: &Scenario) -> Run {
    let mut simulation = Simulation::new(scenario);
    while !simulation.advance(usize::MAX) {}
    simulation.finish()
}

/// A simulation under way, run a slice at a time: a long search on the
/// page pauses between two slices to let the page answer input. The
/// slices change nothing of the run: [`simulate`] is one slice.
pub struct Simulation<'a> {
    stage: Underway<'a>,
}

/// A simulation's actors at work, or a preset's run, played at once.
enum Underway<'a> {
    Running(Box<Sim<'a>>),
    Played(Box<Run>),
}

impl<'a> Simulation<'a> {
    /// The simulation of `scenario`, its start carried out.
    pub fn new(scenario: &'a Scenario) -> Simulation<'a> {
        let stage = match scenario.preset {
            Some(preset) => Underway::Played(Box::new(presets::play(preset))),
            None => {
                let mut sim = Sim::new(scenario);
                sim.start();
                Underway::Running(Box::new(sim))
            }
        };
        Simulation { stage }
    }

    /// Carries out what is due until at least `rows` more rows are
    /// written or nothing is left; `true` once nothing is.
    pub fn advance(&mut self, rows: usize) -> bool {
        match &mut self.stage {
            Underway::Running(sim) => sim.advance(rows),
            Underway::Played(_) => true,
        }
    }

    /// The run (what is still due is carried out first).
    pub fn finish(self) -> Run {
        match self.stage {
            Underway::Running(mut sim) => {
                while !sim.advance(usize::MAX) {}
                sim.finish()
            }
            Underway::Played(run) => *run,
        }
    }
}

/// What GetTask answers once every actor has finished or hung: the task
/// client 1 follows as the SDK's store holds it, on the scenario's wire;
/// `None` where the task is lost (or for a preset, which has no SDK
/// store).
pub fn get_task(scenario: &Scenario) -> Option<serde_json::Value> {
    if scenario.preset.is_some() {
        return None;
    }
    let mut sim = Sim::new(scenario);
    sim.run();
    let task = sim.client.task();
    let stored = sim.store.tasks()[task].stored()?;
    let answer = RowWire::Sim {
        event: stored.snapshot(task, stored.since_ms),
        on: scenario.wire,
    };
    Some(answer.json().into_owned())
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

/// A message on the agenda.
#[derive(Debug)]
struct Scheduled {
    /// Ordered by (virtual time, tier, scheduling order): unique, so the
    /// message itself never decides.
    key: (u64, Tier, u64),
    to: To,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Scheduled) -> bool {
        self.key == other.key
    }
}

impl Eq for Scheduled {}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Scheduled) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scheduled {
    fn cmp(&self, other: &Scheduled) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// What is due, earliest first.
#[derive(Default)]
struct Agenda {
    heap: BinaryHeap<Reverse<Scheduled>>,
    scheduled: u64,
}

/// The world the actors share: the scenario, the clock, the rows and
/// streams written so far, and the actors.
struct Sim<'a> {
    sc: &'a Scenario,
    profile: &'static Profile,
    agenda: Agenda,
    now: u64,
    rows: Vec<Row>,
    /// Every task the scenario creates: its ledger, its stored form and
    /// whether the SDK still reads its events.
    store: TaskStore,
    executor: Executor,
    client: FirstClient,
    handler: Handler,
    /// Every stream a client opened, in order.
    streams: Vec<StreamRecord>,
    second: SecondClient,
    server: Server,
    push: PushSender,
    webhook: ClientWebhook,
    queue: Queue,
    /// When client 1's stream or call last ended (`None` while open).
    client_done_ms: Option<u64>,
}

impl<'a> Sim<'a> {
    fn new(sc: &'a Scenario) -> Sim<'a> {
        Sim {
            sc,
            profile: Profile::of(sc.sdk),
            agenda: Agenda::default(),
            now: 0,
            rows: Vec::new(),
            store: TaskStore::new(),
            executor: Executor::new(sc),
            client: FirstClient::new(),
            handler: Handler::default(),
            streams: Vec::new(),
            second: SecondClient::default(),
            server: Server,
            push: PushSender::default(),
            webhook: ClientWebhook::default(),
            queue: Queue::default(),
            client_done_ms: None,
        }
    }
}

impl<'a> Sim<'a> {
    fn step_ms(&self) -> u64 {
        u64::from(self.sc.step_ms)
    }

    /// When "after chunk k" happens: half a step after chunk k would have
    /// been emitted, so the request lands mid-way through the next step.
    fn after_chunk(&self, k: u32) -> u64 {
        // With result=last the first artifact is the whole result, after
        // the last step: a request timed from an artifact comes after it.
        let k = match self.sc.result {
            ResultShape::Last if k > 0 => self.sc.chunks,
            _ => k,
        };
        self.executor.offset_ms() + u64::from(k) * self.step_ms() + self.step_ms() / 2
    }

    fn schedule(&mut self, t: u64, tier: Tier, to: To) {
        self.agenda.scheduled += 1;
        let key = (t, tier, self.agenda.scheduled);
        self.agenda.heap.push(Reverse(Scheduled { key, to }));
    }

    /// Opens a stream record for `client` (the next index, which the
    /// actor that asked for it already knows).
    fn open_stream(&mut self, client: ClientId, role: StreamRole) {
        self.streams.push(StreamRecord {
            client: client.number(),
            role,
            opened_ms: self.now,
            rows: Vec::new(),
            end: StreamEnd::Hung,
        });
    }

    /// Records how a stream ended.
    fn end_stream(&mut self, stream: Option<usize>, end: StreamEnd) {
        if let Some(record) = stream.and_then(|i| self.streams.get_mut(i)) {
            record.end = end;
        }
    }

    fn run(&mut self) {
        self.start();
        while !self.advance(usize::MAX) {}
    }

    /// What is due at the start: client 1's call, the executor, and what
    /// the scenario times (a cancel, a restart, a timeout).
    fn start(&mut self) {
        if self.sc.client == Client::Stream {
            self.apply(vec![Effect::to(ClientIn::Open)]);
        }
        self.schedule(0, Tier::Server, ExecutorIn::Start(0).into());
        if let Some(k) = self.sc.cancel {
            self.schedule(self.after_chunk(k), Tier::Server, ClientIn::Cancel.into());
        }
        if let Some(k) = self.sc.restart {
            self.schedule(self.after_chunk(k), Tier::Server, ServerIn::Restart.into());
        }
        if let Some(ms) = self.sc.timeout_ms {
            let timeout = ClientIn::Timeout { call: 0 }.into();
            self.schedule(u64::from(ms), Tier::Server, timeout);
        }
    }

    /// Carries out what is due, in order, until at least `rows` more rows
    /// are written; `true` once nothing is left.
    fn advance(&mut self, rows: usize) -> bool {
        let until = self.rows.len().saturating_add(rows);
        while self.rows.len() < until {
            let Some(Reverse(due)) = self.agenda.heap.pop() else {
                return true;
            };
            self.now = due.key.0;
            self.apply(vec![Effect::Send(due.to)]);
            match self.client.call() {
                CallState::Open | CallState::Stranded => self.client_done_ms = None,
                _ => self.client_done_ms = self.client_done_ms.or(Some(self.now)),
            }
        }
        self.agenda.heap.is_empty()
    }

    /// Carries out effects in order, each with all it leads to before the
    /// next.
    fn apply(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Row(entry) => self.record(entry),
                Effect::RowOn(stream, entry) => self.record_on(stream, entry),
                Effect::OpenStream(client, role) => self.open_stream(client, role),
                Effect::EndStream(stream, end) => self.end_stream(stream, end),
                Effect::Schedule(t, to) => self.schedule(t, Tier::Server, to),
                Effect::Request(t, to) => self.schedule(t, Tier::Request, to),
                Effect::Send(to) => {
                    let next = self.dispatch(to);
                    self.apply(next);
                }
            }
        }
    }

    /// Hands a message to the actor it is for, with what it may read of
    /// the world.
    fn dispatch(&mut self, to: To) -> Vec<Effect> {
        let facts = self.facts();
        let view = View::new(facts, self.store.tasks());
        match to {
            To::Executor(input) => self.executor.handle(&view, input),
            To::Handler(input) => self.handler.handle(&view, input),
            To::Queue(input) => self.queue.handle(&view, input),
            // The store reads its own tasks, which it may change.
            To::Store(input) => self.store.handle(&facts, input),
            To::Push(input) => self.push.handle(&view, input),
            To::Webhook(input) => self.webhook.handle(&view, input),
            To::Client(input) => self.client.handle(&view, input),
            To::Second(input) => self.second.handle(&view, input),
            To::Server(input) => self.server.handle(&view, input),
        }
    }

    /// What every actor may read of the world now.
    fn facts(&self) -> Facts<'a> {
        let followed = self.client.task();
        let client_stream = self.client.stream();
        Facts {
            now: self.now,
            sc: self.sc,
            profile: self.profile,
            followed,
            followed_state: self.store.tasks()[followed].stored().map(|t| t.state),
            running: self.executor.running(),
            client_call: self.client.call(),
            client_stream,
            dropped_stream_rows: client_stream
                .and_then(|i| self.streams.get(i))
                .filter(|s| s.role == self.sc.dropped_stream())
                .map(|s| self.rows_on(s.role)),
            second_open: self.second.open(),
            next_stream: self.streams.len(),
            lingering: self.client.lingering(),
        }
    }

    /// How many events client 1's streams opened as `role` carried: a
    /// follow-up turn that streams on a connection of its own goes on
    /// counting where the first turn's stream stopped.
    fn rows_on(&self, role: StreamRole) -> usize {
        self.streams
            .iter()
            .filter(|s| s.client == ClientId::First.number() && s.role == role)
            .map(|s| s.rows.len())
            .sum()
    }

    /// What an actor reads now, for the world's own questions at the end.
    fn view(&self) -> View<'_> {
        View::new(self.facts(), self.store.tasks())
    }

    /// Appends a row a stream carried, and notes it in the stream's record.
    fn record_on(&mut self, stream: Option<usize>, entry: Entry) {
        let index = self.rows.len();
        self.record(entry);
        if let Some(record) = stream.and_then(|i| self.streams.get_mut(i)) {
            record.rows.push(index);
        }
    }

    /// Appends a row, stamped with the time and the state of the task
    /// client 1 follows after it.
    fn record(&mut self, entry: Entry) {
        let state = self.facts().followed_state;
        let mut row = entry.row(self.rows.len(), self.now, state);
        // On the 0.3 wire each row is to be written as that wire's JSON; a
        // push body is already on the wire the SDK sent it on.
        if self.sc.wire == Wire::V0_3 && row.push.is_none() {
            row.wire = row.wire.map(RowWire::on_v03);
        }
        self.rows.push(row);
    }

    /// Ends the run: what never came or never ended says so, then the
    /// metrics are counted from the rows and the actors.
    fn finish(mut self) -> Run {
        let first_stream = self.rows_on(self.sc.dropped_stream());
        let effects = self.client.never_resubscribed(&self.view(), first_stream);
        self.apply(effects);
        let received = self.client.received();
        let effects = self.second.never_subscribed(&self.view(), received);
        self.apply(effects);
        let (effects, hung_call) = self.client.hangs(&self.view());
        self.apply(effects);
        let effects = self.second.hangs();
        self.apply(effects);
        let (stream, call_end) = self.client.ending(&self.view());
        let push = self.push.metrics(&self.view(), self.client_done_ms);
        let metrics = finish::metrics(finish::Ended {
            sc: self.sc,
            rows: &self.rows,
            streams: &self.streams,
            tasks: self.store.tasks(),
            client: &self.client,
            executor: &self.executor,
            stream,
            hung_call,
            push,
        });
        Run {
            trace: Trace {
                rows: self.rows,
                metrics,
            },
            ledgers: self.store.into_ledgers(),
            call_end,
            streams: self.streams,
        }
    }
}
