//! The probe as one sans-IO plan (SPEC §10–§13): the card, then `stream`
//! (N at once under `--tasks`), `get`, `cancel`, `cancel-terminal`,
//! `resubscribe`, `subscribe-terminal` and, with a webhook, `push`. The
//! plan says which calls to make ([`ProbePlan::poll`]), steers the one in
//! flight by each answer ([`ProbePlan::on_answer`]: read on, drop the
//! stream, or make a call now), takes each call's record when it ends
//! ([`ProbePlan::on_end`]) and judges each probe once its calls are in.
//!
//! The native pump (`crate::probe`) makes the calls over HTTP; [`replay`]
//! makes them from a recorded run (quinn-proto's `Pair`: the same state
//! machine, driven by recorded answers), so `cargo test` proves the order
//! and the steering as well as the judgement.

mod replay;

pub use replay::{replay, replay_report};

use super::judge::{Judged, ProbeJudge, Streamed};
use super::read::{first_task, is_running};
use super::records::{
    AnswerEnd, CallRecord, PostRecord, ProbeCalls, ProbeRecords, PushRecords, RefusedPosts,
};
use super::report::{Probe, ProbeReport};
use super::request::{Method, Request, Requests};
use crate::model::wire::answer::Answer;
use crate::model::wire::card::Endpoint;
use crate::model::wire::signs::SseHeaders;

/// How long the webhook takes to answer the `push` probe's slow task
/// (SPEC §12).
pub const STALL_DELAY_MS: u64 = 2_000;

/// What the plan is told of the run before it starts.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// The text of the messages sent.
    pub message: String,
    /// How many streams the `stream` probe runs at once.
    pub tasks: usize,
    /// The webhook's URL and the token sent with the push config, when the
    /// probe listens for pushes and the card declares them.
    pub push: Option<(String, String)>,
    /// Whether the `push` probe runs (`--webhook`).
    pub webhook: bool,
    /// Whether captures are kept as files (`--out`): their names go in the
    /// report.
    pub keep_files: bool,
}

/// A call the plan asks for.
#[derive(Debug, Clone)]
pub struct Call {
    /// Which call this is, for [`ProbePlan::on_end`].
    pub id: usize,
    /// The probe it is made for.
    pub probe: Probe,
    /// What to send.
    pub request: Request,
    /// The capture's file name without its extension (`stream`,
    /// `cancel-call`, …).
    pub name: String,
}

impl Call {
    /// The capture's file name, for a call that received `record`.
    pub fn file(&self, record: &CallRecord) -> String {
        format!("{}.{}", self.name, if record.sse { "sse" } else { "json" })
    }
}

/// What the plan asks of the pump next.
#[derive(Debug)]
pub enum Ask {
    /// Make these calls. One is steered by [`ProbePlan::on_answer`];
    /// several (`--tasks`) are made at once and read to their end.
    Calls(Vec<Call>),
    /// The `push` probe's slow task: once the webhook has been quiet for
    /// half a second, have it answer each POST after `delay_ms`, make the
    /// call (waiting long enough for two slow answers), then hand back the
    /// record and every POST ([`ProbePlan::on_pushed`]).
    Push {
        /// The streaming message.
        call: Call,
        /// How long the webhook waits before it answers.
        delay_ms: u64,
    },
    /// Every probe is judged: [`ProbePlan::finish`].
    Done,
}

/// How to go on with the call in flight, after one of its answers.
#[derive(Debug)]
pub enum Steer {
    /// Read on.
    Read,
    /// Close the stream now.
    Drop,
    /// Make this call now (its record to [`ProbePlan::on_end`]), then read
    /// on.
    Call(Call),
}

/// Where the plan is: the probe whose calls are being made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlanStage {
    Probe(Probe),
    Done,
}

/// The probe, as a state machine over its calls.
pub struct ProbePlan {
    judge: ProbeJudge,
    requests: Requests,
    options: PlanOptions,
    stage: PlanStage,
    report: ProbeReport,
    judged: Vec<(Probe, Judged)>,
    records: Vec<ProbeCalls>,
    card: Option<String>,
    streamed: Streamed,
    /// The current probe's calls, in the order asked, with what each
    /// received (`None` until it ends, or when it was never made).
    calls: Vec<(Call, Option<CallRecord>)>,
    /// The steered stream: the task it names, answers read, and whether
    /// the plan has acted on it.
    task: Option<String>,
    read: usize,
    acted: bool,
    push: Option<PushRecords>,
}

impl ProbePlan {
    /// A plan for the agent at `endpoint`, whose card was served as `card`
    /// (judged at once); `salt` tells this run's message ids apart.
    pub fn new(
        judge: ProbeJudge,
        endpoint: &Endpoint,
        card: Option<String>,
        options: PlanOptions,
        report: ProbeReport,
        salt: String,
    ) -> ProbePlan {
        let mut plan = ProbePlan {
            requests: Requests::new(endpoint, salt),
            judge,
            options,
            stage: PlanStage::Probe(Probe::Stream),
            report,
            judged: Vec::new(),
            records: Vec::new(),
            card,
            streamed: Streamed::default(),
            calls: Vec::new(),
            task: None,
            read: 0,
            acted: false,
            push: None,
        };
        let judged = plan.judge.card(plan.card.as_deref());
        plan.file(Probe::Card, judged, Vec::new());
        plan
    }

    /// What to do next, once every call asked for before has ended.
    pub fn poll(&mut self) -> Ask {
        loop {
            let PlanStage::Probe(probe) = self.stage else {
                return Ask::Done;
            };
            if let Some(ask) = self.step(probe) {
                return ask;
            }
            self.conclude(probe);
        }
    }

    /// An answer of the steered call in flight, as it arrives.
    pub fn on_answer(&mut self, answer: &Answer) -> Steer {
        self.read += 1;
        if self.task.is_none() {
            self.task = first_task(std::slice::from_ref(answer));
        }
        // Right after the first answer that shows the task running (SPEC
        // §13), not after its first artifact.
        if self.acted || !is_running(answer) {
            return Steer::Read;
        }
        let Some(task) = self.task.clone() else {
            return Steer::Read;
        };
        match self.stage {
            PlanStage::Probe(Probe::Cancel) => {
                self.acted = true;
                let request = self.requests.on_task(Method::Cancel, &task);
                Steer::Call(self.ask(request, "cancel-call"))
            }
            PlanStage::Probe(Probe::Resubscribe) => {
                self.acted = true;
                Steer::Drop
            }
            _ => Steer::Read,
        }
    }

    /// A call ended; `None` when it was never made (a recorded run that
    /// holds no such call).
    pub fn on_end(&mut self, id: usize, record: Option<CallRecord>) {
        let read = self.read;
        if let Some((call, slot)) = self.calls.iter_mut().find(|(c, _)| c.id == id) {
            // The cancel was made while its stream was open: how much of
            // the stream had been read says what came after its answer.
            *slot = record.map(|mut r| {
                if call.name == "cancel-call" && r.at_event.is_none() {
                    r.at_event = Some(read);
                }
                r
            });
        }
    }

    /// The push probe's slow task ended: its record, every POST the
    /// webhook kept and how many it refused.
    pub fn on_pushed(
        &mut self,
        id: usize,
        record: Option<CallRecord>,
        posts: Vec<PostRecord>,
        refused: RefusedPosts,
    ) {
        self.push = Some(PushRecords {
            declared: true,
            delay_ms: STALL_DELAY_MS,
            stream_ms: self.stream_ms(),
            stall_ms: record.as_ref().and_then(|r| r.ms),
            stall: record.clone(),
            posts,
            refused,
        });
        self.on_end(id, record);
    }

    /// The report and everything received, once [`Ask::Done`].
    pub fn finish(self) -> (ProbeReport, ProbeRecords) {
        let records = ProbeRecords {
            wire: self.judge.wire,
            binding: self.judge.binding,
            card: self.card,
            probes: self.records,
            push: self.push,
        };
        (self.report, records)
    }

    /// Each probe's judgement so far, in the order run.
    pub fn judged(&self) -> &[(Probe, Judged)] {
        &self.judged
    }

    /// The calls the current probe still needs, given what its calls so
    /// far received; `None` when it has all it needs.
    fn step(&mut self, probe: Probe) -> Option<Ask> {
        let task = self.task.clone();
        let streamed = self.streamed.task().map(str::to_string);
        let finished = self.streamed.finished_task().map(str::to_string);
        let call = match probe {
            Probe::Card => None,
            Probe::Stream if self.calls.is_empty() => return Some(self.ask_streams()),
            Probe::Stream => None,
            Probe::Get if !self.asked("get") => self.on_task(streamed, Method::Get, "get"),
            Probe::Cancel if !self.asked("cancel") => Some((self.new_task(true), "cancel")),
            // GetTask when the stream has ended: what the task ended as.
            Probe::Cancel if self.asked("cancel-call") && !self.asked("cancel-get") => {
                self.on_task(task, Method::Get, "cancel-get")
            }
            Probe::CancelTerminal if !self.asked("cancel-terminal") => {
                self.on_task(finished, Method::Cancel, "cancel-terminal")
            }
            Probe::Resubscribe if !self.asked("resubscribe-dropped") => {
                Some((self.new_task(false), "resubscribe-dropped"))
            }
            Probe::Resubscribe if !self.asked("resubscribe-subscribed") => {
                let dropped = self
                    .record("resubscribe-dropped")
                    .is_some_and(|r| r.end == AnswerEnd::Dropped);
                self.on_task(
                    task.filter(|_| dropped),
                    Method::Subscribe,
                    "resubscribe-subscribed",
                )
            }
            // GetTask after a refused subscription: had the task ended?
            Probe::Resubscribe if !self.asked("resubscribe-get") => {
                let refused = self.record("resubscribe-subscribed").is_some_and(|r| {
                    r.answers(self.judge.wire)
                        .is_ok_and(|a| a.first().is_some_and(|a| a.error().is_some()))
                });
                self.on_task(task.filter(|_| refused), Method::Get, "resubscribe-get")
            }
            Probe::SubscribeTerminal if !self.asked("subscribe-terminal") => {
                self.on_task(finished, Method::Subscribe, "subscribe-terminal")
            }
            Probe::Push if self.options.push.is_some() && self.calls.is_empty() => {
                let request = self.new_task(true);
                let call = self.ask(request, "push-stall");
                return Some(Ask::Push {
                    call,
                    delay_ms: STALL_DELAY_MS,
                });
            }
            _ => None,
        }?;
        let (request, name) = call;
        Some(Ask::Calls(vec![self.ask(request, name)]))
    }

    /// A call of `method` on `task`, when there is one.
    fn on_task(
        &mut self,
        task: Option<String>,
        method: Method,
        name: &'static str,
    ) -> Option<(Request, &'static str)> {
        Some((self.requests.on_task(method, &task?), name))
    }

    /// Whether the current probe asked for the call named `name`.
    fn asked(&self, name: &str) -> bool {
        self.calls.iter().any(|(c, _)| c.name == name)
    }

    fn ask(&mut self, request: Request, name: &str) -> Call {
        let probe = match self.stage {
            PlanStage::Probe(probe) => probe,
            PlanStage::Done => Probe::Push,
        };
        let call = Call {
            id: self.calls.len(),
            probe,
            request,
            name: name.to_string(),
        };
        self.calls.push((call.clone(), None));
        call
    }

    /// A streaming message starting a new task; with `push`, the push
    /// config.
    fn new_task(&mut self, push: bool) -> Request {
        let config = self
            .options
            .push
            .as_ref()
            .filter(|_| push)
            .map(|(url, token)| (url.as_str(), token.as_str()));
        self.requests.send(&self.options.message, config)
    }

    /// `stream`: N at once, only the first with the push config, so that
    /// the push probe hears of the tasks it judges.
    fn ask_streams(&mut self) -> Ask {
        let tasks = self.options.tasks.max(1);
        let mut calls = Vec::with_capacity(tasks);
        for k in 0..tasks {
            let request = self.new_task(k == 0);
            let name = match tasks {
                1 => "stream".to_string(),
                _ => format!("stream-{}", k + 1),
            };
            calls.push(self.ask(request, &name));
        }
        Ask::Calls(calls)
    }

    /// The record of the current probe's call named `name`.
    fn record(&self, name: &str) -> Option<&CallRecord> {
        self.calls
            .iter()
            .find(|(c, _)| c.name == name)
            .and_then(|(_, r)| r.as_ref())
    }

    /// How long the `stream` probe's first stream took.
    fn stream_ms(&self) -> Option<u64> {
        self.records
            .iter()
            .find(|p| p.probe == Probe::Stream)
            .and_then(|p| p.calls.first())
            .and_then(|c| c.ms)
    }

    /// The current probe has every call it needs: judge it, file it, and
    /// go on to the next.
    fn conclude(&mut self, probe: Probe) {
        let judge = &self.judge;
        let judged = match probe {
            Probe::Card => return,
            Probe::Stream => {
                let calls: Vec<CallRecord> =
                    self.calls.iter().filter_map(|(_, r)| r.clone()).collect();
                let (streamed, judged) = judge.stream_settled(&calls);
                self.streamed = streamed;
                judged
            }
            Probe::Get => judge.settle(judge.get(&self.streamed, self.record("get"))),
            Probe::Cancel => match self.record("cancel") {
                Some(stream) => judge.settle(judge.cancel(
                    stream,
                    self.record("cancel-call"),
                    self.record("cancel-get"),
                )),
                None => Judged::skipped("no task was started"),
            },
            Probe::CancelTerminal => {
                judge.settle(judge.cancel_terminal(&self.streamed, self.record("cancel-terminal")))
            }
            Probe::Resubscribe => match self.record("resubscribe-dropped") {
                Some(dropped) => judge.settle(judge.resubscribe(
                    dropped,
                    self.record("resubscribe-subscribed"),
                    self.record("resubscribe-get"),
                )),
                None => Judged::skipped("no task was started"),
            },
            Probe::SubscribeTerminal => judge.settle(
                judge.subscribe_terminal(&self.streamed, self.record("subscribe-terminal")),
            ),
            Probe::Push => self.judge_push(),
        };
        let calls = std::mem::take(&mut self.calls);
        let kept: Vec<(Call, CallRecord)> = calls
            .into_iter()
            .filter_map(|(c, r)| Some((c, r?)))
            .collect();
        self.file(probe, judged, kept);
        self.task = None;
        self.read = 0;
        self.acted = false;
        self.stage = match probe {
            Probe::Card => PlanStage::Probe(Probe::Stream),
            Probe::Stream => PlanStage::Probe(Probe::Get),
            Probe::Get => PlanStage::Probe(Probe::Cancel),
            Probe::Cancel => PlanStage::Probe(Probe::CancelTerminal),
            Probe::CancelTerminal => PlanStage::Probe(Probe::Resubscribe),
            Probe::Resubscribe => PlanStage::Probe(Probe::SubscribeTerminal),
            Probe::SubscribeTerminal if self.options.webhook => PlanStage::Probe(Probe::Push),
            Probe::SubscribeTerminal | Probe::Push => PlanStage::Done,
        };
    }

    /// `push`: what the webhook received about the `stream`, `get` and
    /// `cancel` tasks, beside what their streams and GetTask said, and how
    /// long the slow task's stream took.
    fn judge_push(&mut self) -> Judged {
        let push = self.push.get_or_insert_with(|| not_pushed(false));
        let calls = |probe: Probe| {
            self.records
                .iter()
                .find(|p| p.probe == probe)
                .map_or(&[][..], |p| p.calls.as_slice())
        };
        // The cancel task's GetTask (its third call, after CancelTask) too:
        // a task whose stream ended on an error may still have ended, and
        // SPEC 12's push-missing-terminal asks what "the stream or GetTask"
        // says (a2a-rs stores CANCELED and pushes nothing of it when
        // cancel() fails).
        let streams: Vec<&CallRecord> = [
            calls(Probe::Stream).first(),
            calls(Probe::Get).first(),
            calls(Probe::Cancel).first(),
            calls(Probe::Cancel).get(2),
        ]
        .into_iter()
        .flatten()
        .collect();
        self.judge.settle(self.judge.push(&streams, push))
    }

    /// Files a judged probe in the report, with the calls it kept (the
    /// push probe's are the webhook's POSTs).
    fn file(&mut self, probe: Probe, judged: Judged, kept: Vec<(Call, CallRecord)>) {
        let mut captures: Vec<String> = match self.options.keep_files {
            true => kept.iter().map(|(c, r)| c.file(r)).collect(),
            false => Vec::new(),
        };
        let mut bodies: Vec<String> = kept
            .iter()
            .map(|(_, r)| r.status_read().into_owned())
            .collect();
        let headers: Vec<SseHeaders> = kept
            .iter()
            .filter_map(|(_, r)| r.sse_headers.clone())
            .collect();
        if let Some(push) = self
            .push
            .as_ref()
            .filter(|p| probe == Probe::Push && p.declared)
        {
            if self.options.keep_files {
                captures.push("push.jsonl".to_string());
            }
            // What the page shows of the push probe: the webhook's POSTs.
            bodies = vec![push.capture()];
        }
        if !matches!(probe, Probe::Card | Probe::Push) {
            self.records.push(ProbeCalls {
                probe,
                calls: kept.into_iter().map(|(_, r)| r).collect(),
            });
        }
        self.judged.push((probe, judged.clone()));
        self.report
            .file(probe, judged, (captures, bodies), &headers);
    }
}

/// What a push probe received when nothing was pushed.
fn not_pushed(declared: bool) -> PushRecords {
    PushRecords {
        declared,
        delay_ms: STALL_DELAY_MS,
        stream_ms: None,
        stall: None,
        stall_ms: None,
        posts: Vec::new(),
        refused: RefusedPosts::default(),
    }
}
