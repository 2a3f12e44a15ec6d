//! The probes on the task after its stream (SPEC §10): GetTask agrees
//! with what was streamed, and CancelTask and SubscribeToTask on the
//! finished task are refused with the errors A2A names.

use super::{Judged, ProbeJudge, Streamed, WantedError};
use crate::model::evidence::probe::contract::context_mismatches;
use crate::model::evidence::probe::read::{parts, streamed_artifacts};
use crate::model::evidence::probe::records::{AnswerEnd, CallRecord};
use crate::model::evidence::probe::report::ProbeCode;
use crate::model::evidence::probe::unreadable::Unreadable;
use crate::model::wire::answer::Answer;
use crate::model::wire::Wire;

impl ProbeJudge {
    /// `get`: GetTask agrees with what was streamed.
    pub fn get(
        &self,
        streamed: &Streamed,
        call: Option<&CallRecord>,
    ) -> Result<Judged, Unreadable> {
        let Some(call) = call.filter(|_| streamed.task.is_some()) else {
            return Ok(Judged::skipped("the stream named no task"));
        };
        let answers = call.answers(self.wire)?;
        let mut found = Vec::new();
        let summary = match (answers.first(), call.end) {
            (_, AnswerEnd::TimedOut(waited)) => {
                found.push((
                    ProbeCode::Hung,
                    format!("GetTask gave no answer in {waited} ms"),
                ));
                "GetTask did not answer".to_string()
            }
            (Some(Answer::Error { code, message }), _) => {
                found.push((
                    ProbeCode::GetTaskMismatch,
                    format!(
                        "GetTask on the streamed task failed: {}",
                        self.error(*code, message)
                    ),
                ));
                format!("GetTask failed: {}", self.error(*code, message))
            }
            (Some(Answer::Event(got)), _) => {
                let state = got.state.as_ref().and_then(|s| s.known());
                if state != streamed.state {
                    found.push((
                        ProbeCode::GetTaskMismatch,
                        format!(
                            "GetTask says the task {}, the stream said {}",
                            self.state_text(state),
                            self.state_text(streamed.state)
                        ),
                    ));
                }
                let held = streamed_artifacts(&streamed.answers);
                if got.artifacts != held {
                    found.push((
                        ProbeCode::GetTaskMismatch,
                        format!(
                            "GetTask holds {} artifact(s) with {} part(s), the stream delivered {} with {}",
                            got.artifacts.len(),
                            parts(&got.artifacts),
                            held.len(),
                            parts(&held)
                        ),
                    ));
                }
                if let Some(task) = &streamed.task {
                    let answer = Answer::Event(got.clone());
                    found.extend(context_mismatches(
                        &[&answer],
                        task,
                        streamed.context.as_deref(),
                    ));
                }
                format!("GetTask: the task {}", self.state_text(state))
            }
            (None, _) => return Err(Unreadable::Empty { method: "GetTask" }),
        };
        Ok(self.ran(summary, found, &[call]))
    }

    /// `cancel-terminal`: CancelTask on the finished task fails with -32002.
    pub fn cancel_terminal(
        &self,
        streamed: &Streamed,
        call: Option<&CallRecord>,
    ) -> Result<Judged, Unreadable> {
        let Some(call) = call.filter(|_| streamed.finished_task().is_some()) else {
            return Ok(Judged::skipped(&streamed.unfinished("cancel")));
        };
        let answers = call.answers(self.wire)?;
        let mut found = Vec::new();
        let summary = match (answers.first(), call.end) {
            (_, AnswerEnd::TimedOut(waited)) => {
                found.push((
                    ProbeCode::Hung,
                    format!("CancelTask gave no answer in {waited} ms"),
                ));
                "CancelTask did not answer".to_string()
            }
            (
                Some(Answer::Error {
                    code: -32002,
                    message,
                }),
                _,
            ) => {
                format!("refused: {}", self.error(-32002, message))
            }
            (Some(Answer::Error { code, message }), _) => self.refused_otherwise(
                "CancelTask",
                (*code, message),
                (
                    ProbeCode::CancelTerminalAccepted,
                    WantedError::NotCancelable,
                ),
                &mut found,
            ),
            (Some(Answer::Event(event)), _) => {
                let state = self.state_text(event.state.as_ref().and_then(|s| s.known()));
                found.push((
                    ProbeCode::CancelTerminalAccepted,
                    format!("CancelTask on a finished task was accepted: the task {state}"),
                ));
                format!("accepted: the task {state}")
            }
            (None, _) => {
                return Err(Unreadable::Empty {
                    method: "CancelTask",
                })
            }
        };
        Ok(self.ran(summary, found, &[call]))
    }

    /// `subscribe-terminal`: SubscribeToTask on the finished task fails
    /// (-32004 on A2A 1.0).
    pub fn subscribe_terminal(
        &self,
        streamed: &Streamed,
        call: Option<&CallRecord>,
    ) -> Result<Judged, Unreadable> {
        let Some(call) = call.filter(|_| streamed.finished_task().is_some()) else {
            return Ok(Judged::skipped(&streamed.unfinished("subscribe to")));
        };
        let answers = call.answers(self.wire)?;
        let mut found = Vec::new();
        let first = answers.first().and_then(Answer::error);
        let summary = match (first, call.end) {
            (Some((code, message)), _) if self.wire == Wire::V0_3 || code == -32004 => {
                format!("refused: {}", self.error(code, message))
            }
            (Some(error), _) => self.refused_otherwise(
                "SubscribeToTask",
                error,
                (
                    ProbeCode::SubscribeTerminalAccepted,
                    WantedError::Unsupported,
                ),
                &mut found,
            ),
            (None, AnswerEnd::TimedOut(waited)) => {
                found.push((ProbeCode::SubscribeTerminalAccepted, format!("SubscribeToTask on a finished task was accepted and its stream stayed open for {waited} ms with {} event(s)", answers.len())));
                "accepted; the stream stayed open".to_string()
            }
            (None, _) => {
                found.push((
                    ProbeCode::SubscribeTerminalAccepted,
                    format!(
                        "SubscribeToTask on a finished task was accepted: {} event(s)",
                        answers.len()
                    ),
                ));
                format!("accepted: {} event(s)", answers.len())
            }
        };
        Ok(self.ran(summary, found, &[call]))
    }

    /// A call on the finished task refused with another error than the
    /// one A2A names for it (`wanted`): the finding, and the
    /// summary of a refusal.
    fn refused_otherwise(
        &self,
        method: &str,
        (code, message): (i64, &str),
        (finding, wanted): (ProbeCode, WantedError),
        found: &mut Vec<(ProbeCode, String)>,
    ) -> String {
        let said = self.error(code, message);
        found.push((
            finding,
            format!(
                "{method} on a finished task failed with {said}, not {}",
                self.wanted(wanted)
            ),
        ));
        format!("refused: {said}")
    }
}
