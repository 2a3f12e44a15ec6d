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
//! owns its state: the world routes an act to one of them with a
//! read-only [`View`] and applies the [`Effect`]s it hands back, in order,
//! each with all it leads to before the next; an effect that is an input
//! to another actor is routed the same way. Every row is written through
//! [`Entry`].

/// The world as an actor may read it ([`View`]), built from the world's
/// fields one by one so that an actor of the world may be borrowed to
/// change beside it.
macro_rules! view {
    ($sim:expr) => {
        view!($sim, $sim.store.tasks())
    };
    ($sim:expr, $tasks:expr) => {
        $crate::model::sim::actors::effect::View {
            now: $sim.now,
            sc: $sim.sc,
            profile: $sim.profile,
            followed: $sim.client.task(),
            client_call: $sim.client.call(),
            client_stream: $sim.client.stream(),
            second_open: $sim.second.open(),
            tasks: $tasks,
        }
    };
}

/// The view the store gets: it reads its own tasks, which it may be
/// changing, so none are lent to it.
macro_rules! store_view {
    ($sim:expr) => {
        view!($sim, &[])
    };
}

mod client;
mod effect;
mod executor;
mod finish;
mod handler;
mod post;
mod push;
mod server;
mod state;
mod store;
mod subscriber;
mod timeout;
mod webhook;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use client::FirstClient;
use effect::Effect;
use executor::Executor;
use handler::Handler;
use push::PushSender;
use server::Server;
use state::{Call, ClientId, Stage};
use store::Store;
use subscriber::SecondClient;
use webhook::Webhook;

use crate::model::sim::keys::Wire;
use crate::model::sim::presets;
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::{Client, Scenario};
use crate::model::trace::{Entry, Row, Run, StreamOutcome, StreamRecord, StreamRole, Trace};
use crate::model::wire::write_v03::to_v03;

/// Simulates a scenario to completion.
pub fn simulate(scenario: &Scenario) -> Run {
    if let Some(preset) = scenario.preset {
        return presets::play(preset);
    }
    let mut sim = Sim::new(scenario);
    sim.run();
    let mut run = sim.finish();
    if scenario.wire == Wire::V0_3 {
        // A push body is already as the SDK sent it.
        for row in run.trace.rows.iter_mut().filter(|r| r.push.is_none()) {
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
    Step {
        exec: usize,
        step: u32,
    },
    Ending {
        exec: usize,
    },
    Late {
        exec: usize,
    },
    Return {
        exec: usize,
    },
    Resume {
        stage: Stage,
    },
    Cancel,
    Restart,
    Timeout {
        client: ClientId,
        call: u32,
    },
    Subscribe {
        client: ClientId,
    },
    /// The push sender's next POST leaves.
    Post,
    /// The POST out was answered (or timed out): the next may leave.
    PostDone,
    /// The consumer that waited for a POST's answer goes on.
    Release,
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
    store: Store,
    executor: Executor,
    client: FirstClient,
    handler: Handler,
    /// Every stream a client opened, in order.
    streams: Vec<StreamRecord>,
    second: SecondClient,
    server: Server,
    push: PushSender,
    webhook: Webhook,
    /// Whether the task's consumer waits for a POST's answer (SPEC §12),
    /// and what reached it meanwhile, in order.
    consumer_held: bool,
    held: VecDeque<Effect>,
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
            store: Store::new(),
            executor: Executor::new(sc),
            client: FirstClient::new(),
            handler: Handler::default(),
            streams: Vec::new(),
            second: SecondClient::default(),
            server: Server,
            push: PushSender::default(),
            webhook: Webhook::default(),
            consumer_held: false,
            held: VecDeque::new(),
            client_done_ms: None,
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

    fn schedule_in(&mut self, t: u64, tier: Tier, act: Act) {
        self.agenda.scheduled += 1;
        self.agenda
            .heap
            .push(Reverse((t, tier, self.agenda.scheduled, act)));
    }

    /// Opens a stream record for `client` (the next index, which the
    /// actor that asked for it already knows).
    fn open_stream(&mut self, client: ClientId, role: StreamRole) {
        self.streams.push(StreamRecord {
            client: client.number(),
            role,
            opened_ms: self.now,
            rows: Vec::new(),
            end: StreamOutcome::Hung,
        });
    }

    /// Records how a stream ended.
    fn end_stream(&mut self, stream: Option<usize>, end: StreamOutcome) {
        if let Some(record) = stream.and_then(|i| self.streams.get_mut(i)) {
            record.end = end;
        }
    }

    fn run(&mut self) {
        if self.sc.client == Client::Stream {
            let effects = self.client.opens(self.streams.len());
            self.apply(effects);
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
            match self.client.call() {
                Call::Open | Call::Stranded => self.client_done_ms = None,
                _ => self.client_done_ms = self.client_done_ms.or(Some(t)),
            }
        }
    }

    /// Routes an act to the actor it is for.
    fn handle(&mut self, act: Act) {
        let effects = match act {
            Act::Start => self.executor.start(&view!(self), 0),
            Act::Step { exec, step } => self.executor.step(&view!(self), exec, step),
            Act::Ending { exec } => self.executor.ending(&view!(self), exec),
            Act::Late { exec } => self.executor.late(&view!(self), exec),
            // A held consumer closes the queue only once it has caught up.
            Act::Return { .. } if self.consumer_held => {
                self.held.push_back(Effect::Schedule(self.now, act));
                vec![]
            }
            Act::Return { exec } => self.executor.returns(&view!(self), exec),
            Act::Post => self.push.send(),
            Act::PostDone => self.push.done(),
            Act::Release => {
                self.release();
                vec![]
            }
            Act::Resume { stage } => self.client.resume(&view!(self), stage),
            Act::Cancel => self.client.cancel(&view!(self)),
            Act::Restart => self.server.restart(&view!(self)),
            Act::Timeout {
                client: ClientId::First,
                call,
            } => self.client.timeout(&view!(self), call),
            Act::Timeout {
                client: ClientId::Second,
                ..
            } => self.second.timeout(&view!(self)),
            Act::Subscribe { client } => {
                let running = self.executor.is_running(self.client.task());
                let stream = self.streams.len();
                match client {
                    ClientId::First => self.client.subscribe(&view!(self), stream, running),
                    ClientId::Second => self.second.subscribe(&view!(self), stream, running),
                }
            }
        };
        self.apply(effects);
    }

    /// Carries out an actor's effects in order, each with all it leads to
    /// before the next.
    fn apply(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            let next = self.carry_out(effect);
            self.apply(next);
        }
    }

    /// The consumer that waited for a POST's answer goes on with what
    /// reached it meanwhile, until a POST holds it again.
    fn release(&mut self) {
        self.consumer_held = false;
        while !self.consumer_held {
            let effect = match self.held.pop_front() {
                None => break,
                // A held act is due now, when the consumer gets to it.
                Some(Effect::Schedule(_, act)) => Effect::Schedule(self.now, act),
                Some(effect) => effect,
            };
            let next = self.carry_out(effect);
            self.apply(next);
        }
    }

    /// Carries out one effect: writes it down, or hands it to the actor it
    /// is an input to and returns what that actor answers.
    fn carry_out(&mut self, effect: Effect) -> Vec<Effect> {
        let consumer = matches!(
            effect,
            Effect::Emit { .. }
                | Effect::StoreSilently { .. }
                | Effect::EndCall(_)
                | Effect::CloseSecond { .. }
        );
        if consumer && self.consumer_held {
            self.held.push_back(effect);
            return vec![];
        }
        match effect {
            // The world's records and agenda.
            Effect::Row(entry) => self.record(entry),
            Effect::RowOn(stream, entry) => self.record_on(stream, entry),
            Effect::OpenStream(client, role) => self.open_stream(client, role),
            Effect::EndStream(stream, end) => self.end_stream(stream, end),
            Effect::Schedule(t, act) => self.schedule_in(t, Tier::Server, act),
            Effect::Request(t, act) => self.schedule_in(t, Tier::Request, act),
            // The executor.
            Effect::Start(task) => return self.executor.start(&view!(self), task),
            Effect::ExecuteReturns(exec) => return self.executor.returns(&view!(self), exec),
            Effect::Resume { stage, receipt } => {
                return self.executor.resume(&view!(self), stage, receipt)
            }
            Effect::Resumed {
                exec,
                stage,
                refused,
            } => return self.executor.resumed(&view!(self), exec, stage, refused),
            Effect::CancelStatus { source, state } => {
                return vec![self.executor.cancel_status(&view!(self), source, state)]
            }
            Effect::StopExecutions => return self.executor.stop(&view!(self)),
            Effect::OrphanedStep => self.executor.orphaned_step(),
            Effect::ProcessKilled => self.executor.killed(),
            // The handler.
            Effect::Emit {
                exec,
                task,
                source,
                payload,
                resume,
            } => {
                let at = (exec, task);
                return self.handler.emit(&view!(self), at, source, payload, resume);
            }
            Effect::Deliver {
                event,
                label,
                was_terminal,
                status_change,
                pushed: false,
            } => {
                let (mut effects, holds) = self.push.event(&view!(self), &event);
                let deliver = Effect::Deliver {
                    event,
                    label,
                    was_terminal,
                    status_change,
                    pushed: true,
                };
                if holds {
                    // The consumer awaits the POST's answer first.
                    self.consumer_held = true;
                    self.held.push_front(deliver);
                } else {
                    effects.push(deliver);
                }
                return effects;
            }
            Effect::Deliver {
                event,
                label,
                was_terminal,
                status_change,
                pushed: true,
            } => {
                let view = view!(self);
                return self
                    .handler
                    .deliver(&view, *event, label, was_terminal, status_change);
            }
            Effect::StoreSilently { task, state, label } => {
                return self
                    .store
                    .store_silently(&store_view!(self), task, state, label)
            }
            // The webhook.
            Effect::ToWebhook(post) => {
                let answer = self.webhook.receive(&view!(self));
                return self.push.answered(&view!(self), *post, answer);
            }
            // The store.
            Effect::Ledger(task, event) => self.store.request(task, &event),
            Effect::Store {
                event,
                resend,
                resume,
            } => {
                return self
                    .store
                    .decide(&store_view!(self), *event, resend, resume)
            }
            Effect::CloseBus(task) => return self.store.close_bus(&store_view!(self), task),
            Effect::ReopenBus(task) => self.store.reopen_bus(task),
            Effect::CreateTask => self.store.create_task(),
            Effect::StoreRestarts { assumed } => {
                return self.store.restarted(&store_view!(self), assumed)
            }
            // Client 1.
            Effect::MaybeRetry { task } => return self.client.maybe_retry(&view!(self), task),
            Effect::Follow(task) => self.client.follow(task),
            Effect::SetCall(ClientId::First, call) => self.client.set_call(call),
            Effect::ClientReceived => {
                let on_first = self.first_stream_rows();
                return self.client.received_event(&view!(self), on_first);
            }
            Effect::StatusChanged => return self.client.status_changed(&view!(self)),
            Effect::CancelAnswered(how) => return self.client.cancel_answered(&view!(self), how),
            Effect::EndCall(label) => return self.client.end_call(&view!(self), &label),
            Effect::BreakClient { assumed } => return self.client.broken(&view!(self), assumed),
            Effect::ResubscribeAfterBreak => {
                return self.client.resubscribe_after_break(&view!(self))
            }
            // The second client.
            Effect::SetCall(ClientId::Second, call) => self.second.set_call(call),
            Effect::CloseSecond { task, label } => {
                return self.second.queue_closed(&view!(self), task, &label)
            }
            Effect::BreakSecond => return self.second.broken(),
            Effect::SecondReceived => self.second.received(self.now),
        }
        vec![]
    }

    /// How many rows client 1's first stream carried, while that is the
    /// stream it reads.
    fn first_stream_rows(&self) -> Option<usize> {
        self.client
            .stream()
            .and_then(|i| self.streams.get(i))
            .filter(|s| s.role == StreamRole::Send)
            .map(|s| s.rows.len())
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
        let state = view!(self).followed_state();
        let row = entry.row(self.rows.len(), self.now, state);
        self.rows.push(row);
    }

    /// Ends the run: what never came or never ended says so, then the
    /// metrics are counted from the rows and the actors.
    fn finish(mut self) -> Run {
        let first_stream = self.streams.first().map_or(0, |s| s.rows.len());
        let effects = self.client.never_resubscribed(&view!(self), first_stream);
        self.apply(effects);
        let received = self.client.received();
        let effects = self.second.never_subscribed(&view!(self), received);
        self.apply(effects);
        let (effects, hung_call) = self.client.hangs(&view!(self));
        self.apply(effects);
        let effects = self.second.hangs();
        self.apply(effects);
        let (stream, call_end) = self.client.ending(&view!(self));
        let push = self.push.metrics(&view!(self), self.client_done_ms);
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
