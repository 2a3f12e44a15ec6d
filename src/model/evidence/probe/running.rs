//! The probes that act on a running task (SPEC §10, §13): `cancel` and
//! `resubscribe`. Each acts right after the first answer that shows its
//! task running, and is judged by the state the task was in when the
//! agent answered: a refusal of a task that had already ended is no
//! finding, only a probe that could not act.

use super::judge::{count, end_text, Judged, ProbeJudge};
use super::read::{first_task, last_state, refusal};
use super::records::{AnswerEnd, CallRecord};
use super::report::ProbeCode;
use super::unreadable::Unreadable;
use crate::model::evidence::finding::FindingCode;
use crate::model::state::TaskState;
use crate::model::wire::answer::Answer;

/// What the cancel probe's calls said of its task.
struct Cancel<'a> {
    /// The stream's answers.
    answers: Vec<Answer>,
    /// The stream's last state.
    streamed: Option<TaskState>,
    /// GetTask's state after the stream ended.
    got: Option<TaskState>,
    /// The calls, for their envelopes and shapes.
    calls: Vec<&'a CallRecord>,
    found: Vec<(ProbeCode, String)>,
}

impl ProbeJudge {
    /// `cancel`: a new task, CancelTask once it shows it is running, then
    /// GetTask when its stream has ended. It must end CANCELED with nothing
    /// after (SPEC §10), judged by the state the task was in when the
    /// agent answered (§13): a refusal (-32002, -32004) of a task that had
    /// already ended, or that the agent may not cancel at its stage (A2A
    /// 1.0 §3.1.5), is no finding, only a probe that could not act; a
    /// cancel answered CANCELED and followed by any other state is
    /// `after-terminal`.
    pub fn cancel(
        &self,
        stream: &CallRecord,
        cancel: Option<&CallRecord>,
        after: Option<&CallRecord>,
    ) -> Result<Judged, Unreadable> {
        let answers = stream.answers(self.wire)?;
        if let Some(refused) = self.refused_start(stream, &answers) {
            return Ok(refused);
        }
        let Some(cancel) = cancel else {
            return Ok(Judged::skipped(
                "could not act on a running task: it never showed it was running before it ended, so there was no moment to cancel it",
            ));
        };
        let mut found = self.judge_streams(&[(stream, &answers)])?;
        let got = self.ended_as(after, &mut found);
        let mut calls = vec![stream, cancel];
        calls.extend(after);
        let mut seen = Cancel {
            streamed: last_state(&answers),
            answers,
            got,
            calls,
            found,
        };
        if let AnswerEnd::TimedOut(waited) = cancel.end {
            let why = format!("CancelTask gave no answer in {waited} ms");
            seen.found.push((ProbeCode::Hung, why));
            let summary = format!(
                "CancelTask did not answer; the task {}",
                self.state_text(seen.streamed)
            );
            return Ok(self.ran(summary, seen.found, &seen.calls));
        }
        let answered = cancel.answers(self.wire)?;
        let answer = answered.first().ok_or(Unreadable::Empty {
            method: "CancelTask",
        })?;
        let summary = match answer {
            Answer::Error { code, message } if matches!(code, -32002 | -32004) => {
                let why = self.cancel_refused(&seen, *code, message);
                if seen.found.is_empty() {
                    let mut judged = self.ran(why, seen.found, &seen.calls);
                    judged.skipped = judged.found.is_empty();
                    return Ok(judged);
                }
                why
            }
            Answer::Error { code, message } => {
                self.cancel_failed(&mut seen, stream_open(stream), *code, message)
            }
            Answer::Event(task) => {
                let told = task.state.as_ref().and_then(|s| s.known());
                self.cancel_answered(&mut seen, told, cancel.at_event, stream_open(stream));
                format!("CancelTask answered: the task {}", self.state_text(told))
            }
        };
        let summary = format!(
            "CancelTask once the task was running; {summary}; {}, the task {}",
            end_text(stream.end),
            self.state_text(seen.streamed)
        );
        Ok(self.ran(summary, seen.found, &seen.calls))
    }

    /// GetTask after the stream: what the task ended as. An answer that
    /// cannot be read is the probe's finding too; the rest is judged.
    fn ended_as(
        &self,
        after: Option<&CallRecord>,
        found: &mut Vec<(ProbeCode, String)>,
    ) -> Option<TaskState> {
        match after?.answers(self.wire) {
            Err(why) => {
                found.push((ProbeCode::UnreadableAnswer, format!("GetTask: {why}")));
                None
            }
            Ok(answers) => answers
                .first()
                .and_then(Answer::event)
                .and_then(|e| e.state.as_ref()?.known()),
        }
    }

    /// The task-starting stream answered with an error alone: the agent
    /// does not take the probe's message, a method refused (§13).
    fn refused_start(&self, stream: &CallRecord, answers: &[Answer]) -> Option<Judged> {
        let why = refusal(self.stream_method(), self.binding, answers)?;
        let found = vec![(ProbeCode::UnreadableAnswer, why.clone())];
        Some(self.ran(why, found, &[stream]))
    }

    /// CancelTask answered with an error other than a refusal: a finding
    /// when the task was not CANCELED on a stream that has ended. The
    /// summary's words.
    fn cancel_failed(&self, seen: &mut Cancel, open: bool, code: i64, message: &str) -> String {
        let said = self.error(code, message);
        if seen.streamed != Some(TaskState::Canceled) && !open {
            let mut why = format!(
                "CancelTask failed ({said}) and the task {}",
                self.state_text(seen.streamed)
            );
            // The store may say otherwise (a2a-rs stores CANCELED before it
            // calls cancel(), then answers its error): the caller was told
            // the cancel failed all the same.
            if let Some(got) = seen.got.filter(|got| Some(*got) != seen.streamed) {
                why.push_str(&format!(
                    " on its stream, though GetTask then said {}",
                    self.wire.spell(got)
                ));
            }
            seen.found.push((ProbeCode::CancelNotCanceled, why));
        }
        format!("CancelTask failed: {said}")
    }

    /// Why a refused cancel is no finding: the task had ended, or the
    /// agent may refuse at its stage (A2A 1.0 §3.1.5).
    fn cancel_refused(&self, seen: &Cancel, code: i64, message: &str) -> String {
        let said = self.error(code, message);
        let last = seen.got.or(seen.streamed);
        match last.filter(|s| s.is_terminal()) {
            Some(state) => format!(
                "could not act on a running task: the task had ended ({}) when the agent answered CancelTask with {said}",
                self.wire.spell(state)
            ),
            None => format!(
                "could not act on a running task: the agent refused to cancel it ({said}), as A2A 1.0 §3.1.5 allows; the task {}",
                self.state_text(last)
            ),
        }
    }

    /// CancelTask answered with the task: told CANCELED, any other state
    /// after it (on the stream after the answer, or in GetTask) is
    /// after-terminal; told another state, the task must still end
    /// CANCELED.
    fn cancel_answered(
        &self,
        seen: &mut Cancel,
        told: Option<TaskState>,
        at_event: Option<usize>,
        open: bool,
    ) {
        if told != Some(TaskState::Canceled) {
            if seen.streamed != Some(TaskState::Canceled) && !open {
                let why = format!(
                    "CancelTask was accepted, but the task {}",
                    self.state_text(seen.got.or(seen.streamed))
                );
                seen.found.push((ProbeCode::CancelNotCanceled, why));
            }
            return;
        }
        let said_after = match at_event {
            Some(read) => seen
                .answers
                .get(read..)
                .filter(|rest| !rest.is_empty())
                .and_then(last_state),
            None => seen.streamed,
        };
        for (who, state) in [("the stream", said_after), ("GetTask", seen.got)] {
            if let Some(state) = state.filter(|s| *s != TaskState::Canceled) {
                let why = format!(
                    "CancelTask answered the task {}, then {who} said {}",
                    self.wire.spell(TaskState::Canceled),
                    self.wire.spell(state)
                );
                seen.found
                    .push((ProbeCode::Stream(FindingCode::AfterTerminal), why));
            }
        }
    }

    /// `resubscribe`: a new task, the stream dropped once it shows it is
    /// running, then SubscribeToTask; both streams judged as one session.
    /// A refusal of a task that had already ended (GetTask says so after
    /// it) is no finding: the probe could not act on a running task (§13).
    pub fn resubscribe(
        &self,
        dropped: &CallRecord,
        subscribed: Option<&CallRecord>,
        after: Option<&CallRecord>,
    ) -> Result<Judged, Unreadable> {
        let answers = dropped.answers(self.wire)?;
        if let Some(refused) = self.refused_start(dropped, &answers) {
            return Ok(refused);
        }
        if dropped.end != AnswerEnd::Dropped {
            return Ok(Judged::skipped("could not act on a running task: it never showed it was running before its stream ended, so there was no moment to drop the stream"));
        }
        let Some(subscribed) = subscribed.filter(|_| first_task(&answers).is_some()) else {
            return Ok(Judged::skipped("the stream named no task"));
        };
        let again = subscribed.answers(self.wire)?;
        if let Some((code, message)) = again.first().and_then(Answer::error) {
            let said = self.error(code, message);
            let ended = match after {
                Some(after) => after
                    .answers(self.wire)?
                    .first()
                    .and_then(Answer::event)
                    .and_then(|e| e.state.as_ref()?.known())
                    .filter(|s| s.is_terminal()),
                None => None,
            };
            let mut calls = vec![dropped, subscribed];
            calls.extend(after);
            if let Some(state) = ended {
                let why = format!(
                    "could not act on a running task: the task had ended ({}) when the agent answered SubscribeToTask with {said}",
                    self.wire.spell(state)
                );
                let mut judged = self.ran(why, Vec::new(), &calls);
                judged.skipped = judged.found.is_empty();
                return Ok(judged);
            }
            let found = vec![(
                ProbeCode::Stream(FindingCode::MissingTerminal),
                format!(
                    "the stream was dropped with the task {} and SubscribeToTask failed: {said}",
                    self.state_text(last_state(&answers)),
                ),
            )];
            return Ok(self.ran(format!("SubscribeToTask failed: {said}"), found, &calls));
        }
        let found = self.judge_streams(&[(dropped, &answers), (subscribed, &again)])?;
        let summary = format!(
            "dropped after {}, resubscribed: {}, {}, the task {}",
            count(answers.len()),
            count(again.len()),
            end_text(subscribed.end),
            self.state_text(last_state(&again))
        );
        Ok(self.ran(summary, found, &[dropped, subscribed]))
    }
}

/// A stream still open when its wait ran out.
fn stream_open(stream: &CallRecord) -> bool {
    matches!(stream.end, AnswerEnd::TimedOut(_))
}
