//! What a probe reads of the answers it received, to steer (which task,
//! is this the moment to act) and to judge (the task's last state, the
//! artifacts a client holds, a refusal, an error as the binding said it):
//! shared by the probe's calls (`crate::probe`) and its judge
//! ([`super::judge`]).

use crate::model::state::TaskState;
use crate::model::wire::answer::{Answer, ArtifactParts, EventKind};
use crate::model::wire::rest::Binding;

/// The task a call's answers are about: the first their events name.
pub fn first_task(answers: &[Answer]) -> Option<String> {
    // A message may name no task at all: the task is what a task, status
    // or artifact event names.
    answers
        .iter()
        .filter_map(Answer::event)
        .find(|e| e.kind != EventKind::Message)
        .map(|e| e.task_id.clone())
}

/// The last known state a call's answers carry for the task they first
/// name (another task's events in its stream are not its state).
pub fn last_state(answers: &[Answer]) -> Option<TaskState> {
    let own = first_task(answers);
    answers
        .iter()
        .rev()
        .filter_map(Answer::event)
        .filter(|e| own.as_ref().is_none_or(|own| *own == e.task_id))
        .find_map(|e| e.state.as_ref()?.known())
}

/// Whether an answer shows its task running: a WORKING state, or an
/// artifact on its way. The `cancel` and `resubscribe` probes act right
/// after the first such answer (SPEC §13): not after the first artifact,
/// which many agents send only right before they finish, and some never.
pub fn is_running(answer: &Answer) -> bool {
    answer.event().is_some_and(|e| {
        e.kind == EventKind::Artifact
            || e.state.as_ref().and_then(|s| s.known()) == Some(TaskState::Working)
    })
}

/// A call that starts a task and was answered with an error alone (a
/// JSON-RPC error, or on REST an HTTP error status): the agent does not
/// take the probe's message, so nothing can be probed.
pub fn refusal(method: &str, binding: Binding, answers: &[Answer]) -> Option<String> {
    match answers {
        [only] => only.error().map(|(code, message)| {
            format!(
                "{method} was refused: {}",
                error_text(binding, code, message)
            )
        }),
        _ => None,
    }
}

/// An error as the binding said it: `JSON-RPC error -32002 message`, or on
/// REST the HTTP status and reason the message carries (the JSON-RPC code
/// it stands for is the judge's, not the agent's).
pub fn error_text(binding: Binding, code: i64, message: &str) -> String {
    match binding {
        Binding::JsonRpc => format!("JSON-RPC error {code} {message}"),
        Binding::Rest | Binding::Grpc => message.to_string(),
    }
}

/// The artifacts a client holds after `answers`, as it would build them:
/// a task replaces the view, an update without `append` replaces that
/// artifact, one with `append` extends it.
pub fn streamed_artifacts(answers: &[Answer]) -> Vec<ArtifactParts> {
    let mut held: Vec<ArtifactParts> = Vec::new();
    for event in answers.iter().filter_map(Answer::event) {
        match event.kind {
            EventKind::Task => held.clone_from(&event.artifacts),
            EventKind::Artifact => {
                for update in &event.artifacts {
                    let stored = ArtifactParts {
                        artifact_id: update.artifact_id.clone(),
                        append: false,
                        last: false,
                        parts: update.parts.clone(),
                    };
                    match held
                        .iter_mut()
                        .find(|h| h.artifact_id == update.artifact_id)
                    {
                        Some(h) if update.append => h.parts.extend(stored.parts),
                        Some(h) => *h = stored,
                        None => held.push(stored),
                    }
                }
            }
            EventKind::Status | EventKind::Message => {}
        }
    }
    held
}

/// How many parts the artifacts hold.
pub fn parts(artifacts: &[ArtifactParts]) -> usize {
    artifacts.iter().map(|a| a.parts.len()).sum()
}
