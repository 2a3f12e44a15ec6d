//! The probe's judge (SPEC §10): what each probe's calls received, as
//! recorded, in; what happened and what is broken, out. No IO: the probe
//! (`crate::probe`, native only) makes the calls and hands each body here,
//! so `cargo test` judges recorded answers of real agents with none
//! running, and every rule is in one place.
//!
//! The probes on the task after its stream are in `after_stream`. What
//! it reads of the answers is in [`super::read`], the
//! contract checks in [`super::contract`], the push probe in
//! [`super::push`]. Bodies are read by the wire's one reader ([`crate::model::wire::answer::read_answer`], the SSE
//! decoder), and streams are judged by the capture reader, as `check`
//! judges a capture.

use super::contract::{self, context_mismatches, context_of, foreign_tasks};
use super::read::{error_text, first_task, last_state, refusal};
use super::records::{AnswerEnd, CallRecord, ProbeRecords};
use super::report::{Load, ProbeCode};
use super::unreadable::Unreadable;
use crate::model::evidence::capture::CaptureReader;
use crate::model::evidence::finding::FindingCode;
use crate::model::evidence::scenario_of::ScenarioOf;
use crate::model::state::TaskState;
use crate::model::wire::answer::Answer;
use crate::model::wire::read_error::ReadError;
use crate::model::wire::rest::Binding;
use crate::model::wire::schema::{shape_faults, Shape, ShapeFault};
use crate::model::wire::Wire;

mod after_stream;
mod file;

/// The A2A errors a probe's rule asks for.
#[derive(Clone, Copy)]
enum WantedError {
    /// TaskNotCancelableError, JSON-RPC -32002.
    NotCancelable,
    /// UnsupportedOperationError, JSON-RPC -32004.
    Unsupported,
}

/// What the judge says of one probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// What happened, in a sentence.
    pub summary: String,
    /// Not run, because what it needs did not happen.
    pub skipped: bool,
    /// What is broken, with a message each.
    pub found: Vec<(ProbeCode, String)>,
    /// The `stream` probe run as several streams at once (`--tasks`).
    pub load: Option<Load>,
    /// The scenario that explains what it found, where the judgement read
    /// one (the `push` probe's, off the webhook's POSTs).
    pub scenario: Option<ScenarioOf>,
}

impl Judged {
    pub(super) fn new(summary: String, found: Vec<(ProbeCode, String)>) -> Judged {
        Judged {
            summary,
            skipped: false,
            found,
            load: None,
            scenario: None,
        }
    }

    pub(super) fn skipped(why: &str) -> Judged {
        Judged {
            summary: why.to_string(),
            skipped: true,
            found: Vec::new(),
            load: None,
            scenario: None,
        }
    }
}

/// The first probe's task, which the later probes need.
#[derive(Debug, Clone, Default)]
pub struct Streamed {
    task: Option<String>,
    context: Option<String>,
    state: Option<TaskState>,
    answers: Vec<Answer>,
}

impl Streamed {
    /// The task the stream named, for GetTask.
    pub fn task(&self) -> Option<&str> {
        self.task.as_deref()
    }

    /// Why there is no finished task to `act` on.
    fn unfinished(&self, act: &str) -> String {
        match self.task {
            Some(_) => format!(
                "the stream probe's task did not finish, so there is no finished task to {act}"
            ),
            None => format!("the stream named no task, so there is no finished task to {act}"),
        }
    }

    /// The task, when the stream saw it finish: what `cancel-terminal` and
    /// `subscribe-terminal` need.
    pub fn finished_task(&self) -> Option<&str> {
        self.state
            .filter(|s| s.is_terminal())
            .and(self.task.as_deref())
    }
}

/// Judges a probe run's calls, on `wire`, in a binding.
pub struct ProbeJudge {
    pub(super) wire: Wire,
    pub(super) binding: Binding,
}

impl ProbeJudge {
    /// A judge of answers received on `wire`, over JSON-RPC.
    pub fn new(wire: Wire) -> ProbeJudge {
        ProbeJudge {
            wire,
            binding: Binding::JsonRpc,
        }
    }

    /// The same judge, of answers received in `binding`.
    pub fn on(self, binding: Binding) -> ProbeJudge {
        ProbeJudge { binding, ..self }
    }

    /// The judge of a recorded run, in its wire and binding.
    pub fn of(records: &ProbeRecords) -> ProbeJudge {
        ProbeJudge::new(records.wire).on(records.binding)
    }

    /// The call that starts a task, by its name on the wire.
    pub(super) fn stream_method(&self) -> &'static str {
        match self.wire {
            Wire::V1_0 => "SendStreamingMessage",
            Wire::V0_3 => "message/stream",
        }
    }

    /// `was STATE`, spelled as on the wire.
    pub(super) fn state_text(&self, state: Option<TaskState>) -> String {
        match state {
            Some(state) => format!("was {}", self.wire.spell(state)),
            None => "had no state".to_string(),
        }
    }

    /// An error the agent answered, as its binding said it.
    pub(super) fn error(&self, code: i64, message: &str) -> String {
        error_text(self.binding, code, message)
    }

    /// The error a rule wants, as the binding says it: -32002 and -32004
    /// on JSON-RPC; on REST their REST form, as both SDKs answer it.
    fn wanted(&self, error: WantedError) -> &'static str {
        match (self.binding, error) {
            (Binding::JsonRpc, WantedError::NotCancelable) => "-32002 (TaskNotCancelableError)",
            (Binding::JsonRpc, WantedError::Unsupported) => "-32004 (UnsupportedOperationError)",
            (Binding::Rest, WantedError::NotCancelable) => {
                "HTTP 400 TASK_NOT_CANCELABLE (the REST form of -32002)"
            }
            (Binding::Rest, WantedError::Unsupported) => {
                "HTTP 400 UNSUPPORTED_OPERATION (the REST form of -32004)"
            }
            (Binding::Grpc, WantedError::NotCancelable) => {
                "gRPC FAILED_PRECONDITION TASK_NOT_CANCELABLE (the gRPC form of -32002)"
            }
            (Binding::Grpc, WantedError::Unsupported) => {
                "gRPC FAILED_PRECONDITION UNSUPPORTED_OPERATION (the gRPC form of -32004)"
            }
        }
    }

    /// The stream findings of one or more streams read as one session (the
    /// capture reader's); a stream that hung is `hung`, not also
    /// `missing-terminal`.
    pub(super) fn judge_streams(
        &self,
        streams: &[(&CallRecord, &[Answer])],
    ) -> Result<Vec<(ProbeCode, String)>, ReadError> {
        let mut reader = CaptureReader::new(Some(self.wire));
        for (call, _) in streams {
            reader.read_bytes(call.read_body().as_bytes())?;
        }
        let report = reader.finish();
        let last = streams.last();
        let hung = last.and_then(|(call, _)| match call.end {
            AnswerEnd::TimedOut(waited) => Some(waited),
            _ => None,
        });
        // A stream (and its resubscription) is one task's: an event that
        // names another is the agent's mix-up (`foreign-task`), though the
        // capture reader, which groups by task, judges it as a task of its
        // own, whose findings are not this stream's.
        let own = streams.iter().find_map(|(_, answers)| first_task(answers));
        // What the client was told instead of a terminal, when the agent
        // said why.
        let said = streams
            .iter()
            .flat_map(|(_, answers)| answers.iter())
            .find_map(Answer::error);
        let mut found = Vec::new();
        for f in report.findings {
            let code = ProbeCode::Stream(f.code);
            if hung.is_some() && f.code == FindingCode::MissingTerminal {
                continue;
            }
            // Judged once per probe, over all its calls' answers.
            if f.code == FindingCode::WireShape {
                continue;
            }
            if own.as_ref().is_some_and(|own| *own != f.task) {
                continue;
            }
            let mut message = format!("event {}: {}", f.index, f.message);
            if let (FindingCode::MissingTerminal, Some((code, why))) = (f.code, said) {
                message.push_str(&format!(", after {}", error_text(self.binding, code, why)));
            }
            found.push((code, message));
        }
        if let Some(own) = &own {
            let all: Vec<&Answer> = streams.iter().flat_map(|(_, a)| a.iter()).collect();
            found.extend(foreign_tasks(&all, own));
            found.extend(context_mismatches(&all, own, None));
        }
        if let (Some(waited), Some((_, answers))) = (hung, last) {
            found.push((
                ProbeCode::Hung,
                format!(
                    "the stream was still open after {waited} ms, the task {}",
                    self.state_text(last_state(answers))
                ),
            ));
        }
        Ok(found)
    }

    /// `card`: the card as served has every field its protocol version
    /// requires.
    pub fn card(&self, body: Option<&str>) -> Judged {
        match body {
            Some(body) => {
                let (summary, found) = contract::card(body, self.wire);
                Judged::new(summary, found)
            }
            None => Judged::skipped("the records hold no card"),
        }
    }

    /// The contracts of `calls`' answers: `rpc-envelope` on JSON-RPC (REST
    /// has no envelope) and `wire-shape`. Each call is read once; an answer
    /// that cannot be read is that finding, not an envelope's or a shape's.
    fn contracts(&self, calls: &[&CallRecord]) -> Vec<(ProbeCode, String)> {
        let read: Vec<(&CallRecord, Vec<Answer>)> = calls
            .iter()
            .filter_map(|c| Some((*c, c.answers(self.wire).ok()?)))
            .collect();
        let mut found = match self.binding {
            Binding::JsonRpc => {
                let readable: Vec<&CallRecord> = read.iter().map(|(c, _)| *c).collect();
                contract::envelopes(&readable)
            }
            Binding::Rest | Binding::Grpc => Vec::new(),
        };
        found.extend(self.shapes(&read));
        found
    }

    /// A probe that ran: its summary, its findings and those of its
    /// calls' envelopes and answers' shapes, so that every probe's are
    /// judged in one place, live and recorded alike.
    pub(super) fn ran(
        &self,
        summary: String,
        mut found: Vec<(ProbeCode, String)>,
        calls: &[&CallRecord],
    ) -> Judged {
        found.extend(self.contracts(calls));
        Judged::new(summary, found)
    }

    /// `wire-shape` over every answer of a probe's calls: each stream
    /// event as an event, each task a JSON call answered (GetTask,
    /// CancelTask) as a task; one finding per rule broken, with how many
    /// answers broke it (SPEC §13).
    fn shapes(&self, calls: &[(&CallRecord, Vec<Answer>)]) -> Vec<(ProbeCode, String)> {
        let mut tally: Vec<(ShapeFault, usize)> = Vec::new();
        for (call, answers) in calls {
            let Ok(payloads) = call.payloads() else {
                continue;
            };
            let shape = if call.sse { Shape::Event } else { Shape::Task };
            for (payload, answer) in payloads.iter().zip(answers) {
                if answer.event().is_none() {
                    continue;
                }
                let mut seen = Vec::new();
                for fault in shape_faults(payload, self.wire, shape) {
                    if seen.contains(&fault.rule) {
                        continue;
                    }
                    seen.push(fault.rule);
                    match tally.iter_mut().find(|(f, _)| f.rule == fault.rule) {
                        Some((_, n)) => *n += 1,
                        None => tally.push((fault, 1)),
                    }
                }
            }
        }
        tally
            .into_iter()
            .map(|(fault, n)| {
                let many = match n {
                    1 => String::new(),
                    n => format!("; {n} answers break it"),
                };
                let message = format!(
                    "{} ({}{many}): {}",
                    fault.detail,
                    fault.rule.cites(self.wire),
                    fault.rule.fix()
                );
                (ProbeCode::Stream(FindingCode::WireShape), message)
            })
            .collect()
    }

    /// A probe's judgement, or, when an answer it needs cannot be read,
    /// that finding (`unreadable-answer`): the probe broke, the others go
    /// on (SPEC §13).
    pub fn settle(&self, judged: Result<Judged, Unreadable>) -> Judged {
        judged.unwrap_or_else(|why| {
            Judged::new(
                "an answer could not be read".to_string(),
                vec![(ProbeCode::UnreadableAnswer, why.to_string())],
            )
        })
    }

    /// `stream`: a streaming message, read to the end; with `--tasks N`,
    /// N at once, each judged as its own capture (SPEC §11), the later
    /// probes going on with the first. A stream after the first that was
    /// refused outright is what its client saw: no task, no terminal.
    pub fn stream(&self, calls: &[CallRecord]) -> Result<(Streamed, Judged), Unreadable> {
        let [call, ..] = calls else {
            return Err(Unreadable::NoStream);
        };
        let mut each = Vec::with_capacity(calls.len());
        for call in calls {
            let answers = call.answers(self.wire)?;
            // The first stream refused: the agent does not take the probe's
            // message (§13: a method refused is an unreadable answer);
            // a later one, under load: its client saw no terminal.
            let refused = match each.is_empty() {
                true => refusal(self.stream_method(), self.binding, &answers)
                    .map(|why| (ProbeCode::UnreadableAnswer, why)),
                false => refusal("the stream", self.binding, &answers)
                    .map(|why| (ProbeCode::Stream(FindingCode::MissingTerminal), why)),
            };
            let mut found = match refused {
                Some(refused) => vec![refused],
                None => self.judge_streams(&[(call, &answers)])?,
            };
            found.extend(self.contracts(&[call]));
            each.push((answers, found));
        }
        let load = Load {
            tasks: calls.len(),
            clean: each.iter().filter(|(_, found)| found.is_empty()).count(),
            slowest_ms: calls.iter().filter_map(|c| c.ms).max(),
        };
        let answers = std::mem::take(&mut each[0].0);
        let task = first_task(&answers);
        let streamed = Streamed {
            context: task.as_deref().and_then(|t| context_of(&answers, t)),
            task,
            state: last_state(&answers),
            answers,
        };
        let mut summary = format!(
            "{}, {}, the task {}",
            count(streamed.answers.len()),
            end_text(call.end),
            self.state_text(streamed.state)
        );
        let several = calls.len() > 1;
        if several {
            summary = format!("{}; stream 1: {summary}", load.summary());
        }
        let found = each
            .into_iter()
            .enumerate()
            .flat_map(|(k, (_, found))| {
                found.into_iter().map(move |(code, message)| match several {
                    true => (code, format!("stream {}: {message}", k + 1)),
                    false => (code, message),
                })
            })
            .collect();
        let mut judged = Judged::new(summary, found);
        judged.load = Some(load);
        Ok((streamed, judged))
    }

    /// `stream`, its judgement settled: a stream that cannot be read is
    /// the probe's finding, and names no task for the later probes.
    pub fn stream_settled(&self, calls: &[CallRecord]) -> (Streamed, Judged) {
        match self.stream(calls) {
            Ok(done) => done,
            Err(why) => (Streamed::default(), self.settle(Err(why))),
        }
    }
}

pub(super) fn end_text(end: AnswerEnd) -> String {
    match end {
        AnswerEnd::Closed => "the stream closed".to_string(),
        AnswerEnd::Dropped => "the probe dropped the stream".to_string(),
        AnswerEnd::TimedOut(waited) => format!("still open after {waited} ms"),
    }
}

/// `1 event`, `5 events`.
pub(super) fn count(events: usize) -> String {
    match events {
        1 => "1 event".to_string(),
        n => format!("{n} events"),
    }
}
