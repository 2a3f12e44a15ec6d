//! An answer as a client that steers by it (the probe) and the tests read
//! it: owned, its kind, task, state and artifacts with their parts, read
//! through the one event reader ([`super::event`]) with the same rules.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::event::{parse, read_event, Envelope, RawEvent, What};
use super::read_error::{EventFault, ReadError, ReadKind};
use super::Wire;
use crate::model::state::SentState;

/// The kind of an A2A event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A task (a stream's first event, a snapshot, GetTask's answer).
    Task,
    /// A status update.
    Status,
    /// An artifact update.
    Artifact,
    /// A message.
    Message,
}

impl EventKind {
    /// Its A2A 1.0 wrapper's name (`task`, `statusUpdate`, …).
    pub fn wrapper(self) -> &'static str {
        match self {
            EventKind::Task => "task",
            EventKind::Status => "statusUpdate",
            EventKind::Artifact => "artifactUpdate",
            EventKind::Message => "message",
        }
    }
}

/// An artifact as an event carries it, its parts parsed (for comparing
/// what a client holds with what a store lists).
#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactParts {
    /// The artifact's id.
    pub artifact_id: String,
    /// An update: whether it appends to the parts sent before.
    pub append: bool,
    /// An update: whether it closes the artifact.
    pub last: bool,
    /// The parts.
    pub parts: Vec<serde_json::Value>,
}

/// An A2A event, owned: what a client that steers by its answers (the
/// probe) and the tests read of it.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedEvent {
    /// The wire it was read on.
    pub wire: Wire,
    /// What kind of event.
    pub kind: EventKind,
    /// The task it concerns.
    pub task_id: String,
    /// The context it names (`contextId`), if it names one.
    pub context_id: Option<String>,
    /// The task's state, for a task or a status update.
    pub state: Option<SentState<Cow<'static, str>>>,
    /// A task's artifacts, or an update's one artifact.
    pub artifacts: Vec<ArtifactParts>,
}

/// One answer of a call (a JSON-RPC response or a bare event), owned.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A JSON-RPC error.
    Error {
        /// The error's code.
        code: super::RpcCode,
        /// The error's message.
        message: String,
    },
    /// An A2A event.
    Event(OwnedEvent),
}

impl Answer {
    /// The event, if it is one.
    pub fn event(&self) -> Option<&OwnedEvent> {
        match self {
            Answer::Event(event) => Some(event),
            Answer::Error { .. } => None,
        }
    }

    /// The error's code and message, if it is one.
    pub fn error(&self) -> Option<(super::RpcCode, &str)> {
        match self {
            Answer::Error { code, message } => Some((*code, message)),
            Answer::Event(_) => None,
        }
    }
}

/// Reads one answer (a JSON-RPC response or a bare event) on `wire` (or
/// the wire its fields say, when `None`), with the same rules as the
/// capture reader: one reader, one answer.
pub fn read_answer(bytes: &[u8], wire: Option<Wire>) -> Result<Answer, ReadError> {
    let line: RawEvent = parse(bytes)?;
    let typed = match line.envelope()? {
        Envelope::Error(error) => {
            return Ok(Answer::Error {
                code: error.code,
                message: error.message.to_string(),
            })
        }
        Envelope::Event(typed) => typed,
        Envelope::Request(request) => {
            return Err(ReadError::new(ReadKind::Event(EventFault::Request(
                request.method.to_string(),
            ))))
        }
    };
    let event = read_event(typed, wire)?;
    let inner = match event.wire {
        Wire::V0_3 => typed,
        Wire::V1_0 => typed.wrapped().unwrap_or(typed),
    };
    let parts = |raw: Option<&RawValue>| -> Vec<serde_json::Value> {
        raw.and_then(|r| serde_json::from_str(r.get()).ok())
            .unwrap_or_default()
    };
    let (kind, state, artifacts) = match event.what {
        What::Task { state, .. } => {
            let wrapped = event.wire == Wire::V1_0 && typed.task.is_some();
            (
                EventKind::Task,
                Some(state),
                task_artifacts(bytes, wrapped)?,
            )
        }
        What::Status { state } => (EventKind::Status, Some(state), Vec::new()),
        What::Artifact {
            artifact_id,
            append,
            last,
            ..
        } => (
            EventKind::Artifact,
            None,
            vec![ArtifactParts {
                artifact_id: artifact_id.to_string(),
                append,
                last,
                parts: parts(inner.artifact.as_ref().and_then(|a| a.parts)),
            }],
        ),
        What::Message => (EventKind::Message, None, Vec::new()),
    };
    Ok(Answer::Event(OwnedEvent {
        wire: event.wire,
        kind,
        task_id: event.task_id.into_owned(),
        context_id: inner.context_id.as_deref().map(String::from),
        state: state.map(|s| match s {
            SentState::Known(k) => SentState::Known(k),
            SentState::Other(text) => SentState::Other(Cow::Owned(text.into_owned())),
        }),
        artifacts,
    }))
}

/// A task's artifacts with their parts, read again from the answer's
/// `bytes` (only a task's parts are compared, so only a task's are
/// parsed); `wrapped` when the task is in a 1.0 `task` wrapper. One typed
/// pass that skips the rest of the answer: building the whole answer as a
/// `Value` first was a twentieth of `check`'s time explaining many tasks.
fn task_artifacts(bytes: &[u8], wrapped: bool) -> Result<Vec<ArtifactParts>, ReadError> {
    let mut answer: Held = parse(bytes)?;
    let inner = match answer.result.take() {
        Some(result) => *result,
        None => answer,
    };
    let task = if wrapped {
        inner.task
    } else {
        Some(Box::new(inner))
    };
    let held = task.and_then(|t| t.artifacts).map(|raw| {
        serde_json::from_str::<Vec<ArtifactWithParts>>(raw.get())
            .map_err(|e| fault(EventFault::Artifacts(without_place(&e))))
    });
    Ok(held
        .transpose()?
        .unwrap_or_default()
        .into_iter()
        .map(|a| ArtifactParts {
            artifact_id: a.artifact_id,
            append: false,
            last: false,
            parts: a.parts,
        })
        .collect())
}

/// A serde error's words without the line and column it appends (the
/// artifacts are read on their own, so the place would not be the
/// answer's).
fn without_place(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// Reads a wire event held as a JSON value (the simulator's trace rows).
pub fn read_value(value: &serde_json::Value, wire: Option<Wire>) -> Result<OwnedEvent, ReadError> {
    match read_answer(value.to_string().as_bytes(), wire)? {
        Answer::Event(event) => Ok(event),
        Answer::Error { code, message } => Err(fault(EventFault::ErrorAnswer { code, message })),
    }
}

fn fault(fault: EventFault) -> ReadError {
    ReadError::new(ReadKind::Event(fault))
}

/// Where an answer holds a task's artifacts: under `result` (an
/// envelope), under `task` (a 1.0 wrapper), or at its root; the artifacts
/// kept as text until the task is found, everything else skipped.
#[derive(Deserialize, Default)]
struct Held<'a> {
    #[serde(default, borrow)]
    result: Option<Box<Held<'a>>>,
    #[serde(default, borrow)]
    task: Option<Box<Held<'a>>>,
    #[serde(default, borrow)]
    artifacts: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ArtifactWithParts {
    #[serde(rename = "artifactId")]
    artifact_id: String,
    #[serde(default)]
    parts: Vec<serde_json::Value>,
}
