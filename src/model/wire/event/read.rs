//! An event read into one shape, 1.0 or 0.3: which wire it is on, its
//! state, its artifact, the parts a task holds.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::{read_state, RawEvent, RawHeld, What, WireEvent};
use crate::model::wire::read_error::{EventFault, ReadError, ReadKind};
use crate::model::wire::text::Loose;
use crate::model::wire::Wire;

/// Reads a wire event of either version (or the forced one).
pub fn read_event<'a>(
    event: &RawEvent<'a>,
    forced: Option<Wire>,
) -> Result<WireEvent<'a>, ReadError> {
    match event.wire(forced) {
        Wire::V1_0 => read_1_0(event),
        Wire::V0_3 => read_0_3(event),
    }
}

impl<'a> RawEvent<'a> {
    /// The wire the event is read on: the forced one, else 0.3 when it has
    /// a `kind`, else 1.0. An event with neither a `kind` nor a 1.0
    /// wrapper, whose fields are an event's and whose state is not spelled
    /// the 1.0 way, is a 0.3 event that lost its `kind` (a 1.0 Task, as
    /// GetTask answers, is bare and spells its state `TASK_STATE_…`).
    pub fn wire(&self, forced: Option<Wire>) -> Wire {
        if let Some(wire) = forced {
            return wire;
        }
        let wrapped = self.task.is_some()
            || self.status_update.is_some()
            || self.artifact_update.is_some()
            || self.message().is_some();
        let an_event = self.task_id.is_some()
            || self.context_id.is_some()
            || self.status.is_some()
            || self.artifact.is_some()
            || self.message_id.is_some();
        let state_1_0 = self
            .status
            .as_ref()
            .and_then(|s| s.state.as_ref())
            .is_some_and(|s| s.text().starts_with("TASK_STATE_"));
        if self.kind.is_some() || (!wrapped && an_event && !state_1_0) {
            Wire::V0_3
        } else {
            Wire::V1_0
        }
    }

    /// The task an event names, however little else of it can be read: its
    /// `taskId`, or a task's own `id` (inside the 1.0 wrapper, if any).
    pub fn task_named(&self) -> Option<Cow<'a, str>> {
        let inner = self.wrapped().unwrap_or(self);
        let is_task = self.task.is_some() || inner.kind.as_deref() == Some("task");
        inner
            .task_id
            .clone()
            .or_else(|| is_task.then(|| text_of(inner.id)).flatten())
    }
}

impl RawEvent<'_> {
    /// Whether the object holds none of an event's fields (no wrapper, no
    /// `kind`, no id, status, artifact or message id): a ListTasks answer
    /// (`{"tasks": […], "nextPageToken": …}`, or `{}` as gRPC's ProtoJSON
    /// writes an empty one) is such an object.
    pub fn names_no_event(&self) -> bool {
        self.wrapped().is_none()
            && self.kind.is_none()
            && self.id.is_none()
            && self.task_id.is_none()
            && self.context_id.is_none()
            && self.status.is_none()
            && self.artifact.is_none()
            && self.message_id.is_none()
    }

    /// The context an event names (inside the 1.0 wrapper, if any).
    pub fn context_named(&self) -> Option<&str> {
        self.wrapped().unwrap_or(self).context_id.as_deref()
    }
}

pub(super) fn fault(fault: EventFault) -> ReadError {
    ReadError::new(ReadKind::Event(fault))
}

/// A JSON string's text (`None` for another type).
fn text_of<'a>(raw: Option<&'a RawValue>) -> Option<Cow<'a, str>> {
    serde_json::from_str(raw?.get()).ok()
}

fn required<'a>(
    field: &Option<Cow<'a, str>>,
    what: &'static str,
    name: &'static str,
) -> Result<Cow<'a, str>, ReadError> {
    field
        .clone()
        .ok_or_else(|| fault(EventFault::Missing { what, field: name }))
}

fn state_of<'a>(event: &RawEvent<'a>, what: &'static str) -> Result<Cow<'a, str>, ReadError> {
    event
        .status
        .as_ref()
        .and_then(|s| s.state.as_ref())
        .map(|state| match state {
            Loose::Text(text) => text.clone(),
            // Not text: no state of any wire; the schema names the type.
            Loose::NotText => Cow::Borrowed(""),
        })
        .ok_or_else(|| {
            fault(EventFault::Missing {
                what,
                field: "status.state",
            })
        })
}

fn read_1_0<'a>(event: &RawEvent<'a>) -> Result<WireEvent<'a>, ReadError> {
    let wrappers = event.wrappers();
    let spelled = |s: Cow<'a, str>| read_state(s, Wire::V1_0);
    let mut present = wrappers.iter().filter(|(_, w)| w.is_some());
    let (key, inner) = match (present.next(), present.next()) {
        (Some((key, Some(inner))), None) => (*key, *inner),
        // A Task itself, as GetTask and CancelTask answer with it: no
        // wrapper, its own id and status.
        (None, _) if event.kind.is_none() && event.id.is_some() && event.status.is_some() => {
            return Ok(WireEvent {
                wire: Wire::V1_0,
                task_id: required(&text_of(event.id), "a task", "id")?,
                what: What::Task {
                    state: spelled(state_of(event, "a task")?),
                    held: held_parts(&event.artifacts),
                },
            });
        }
        (Some(_), Some(_)) => return Err(fault(EventFault::SeveralWrappers)),
        _ => return Err(fault(EventFault::NotAnEvent)),
    };
    let (task_id, what) = match key {
        "task" => (
            required(&text_of(inner.id), key, "id")?,
            What::Task {
                state: spelled(state_of(inner, key)?),
                held: held_parts(&inner.artifacts),
            },
        ),
        "statusUpdate" => (
            required(&inner.task_id, key, "taskId")?,
            What::Status {
                state: spelled(state_of(inner, key)?),
            },
        ),
        "artifactUpdate" => (
            required(&inner.task_id, key, "taskId")?,
            artifact(inner, key)?,
        ),
        _ => (
            inner.task_id.clone().unwrap_or(Cow::Borrowed("(no task)")),
            What::Message,
        ),
    };
    Ok(WireEvent {
        wire: Wire::V1_0,
        task_id,
        what,
    })
}

fn read_0_3<'a>(event: &RawEvent<'a>) -> Result<WireEvent<'a>, ReadError> {
    let kind = event
        .kind
        .as_deref()
        .ok_or_else(|| fault(EventFault::NoKind))?;
    let (task_id, what) = match kind {
        "task" => (
            required(&text_of(event.id), "task", "id")?,
            What::Task {
                state: read_state(state_of(event, "task")?, Wire::V0_3),
                held: held_parts(&event.artifacts),
            },
        ),
        "status-update" => (
            required(&event.task_id, "status-update", "taskId")?,
            What::Status {
                state: read_state(state_of(event, "status-update")?, Wire::V0_3),
            },
        ),
        "artifact-update" => (
            required(&event.task_id, "artifact-update", "taskId")?,
            artifact(event, "artifact-update")?,
        ),
        "message" => (
            event.task_id.clone().unwrap_or(Cow::Borrowed("(no task)")),
            What::Message,
        ),
        other => return Err(fault(EventFault::UnknownKind(other.to_string()))),
    };
    Ok(WireEvent {
        wire: Wire::V0_3,
        task_id,
        what,
    })
}

fn artifact<'a>(event: &RawEvent<'a>, what: &'static str) -> Result<What<'a>, ReadError> {
    let artifact = event.artifact.as_ref().ok_or_else(|| {
        fault(EventFault::Missing {
            what,
            field: "artifact",
        })
    })?;
    Ok(What::Artifact {
        artifact_id: required(&artifact.artifact_id, "its artifact", "artifactId")?,
        append: event.append.unwrap_or(false),
        last: event.last_chunk.unwrap_or(false),
        parts: artifact.parts.map_or("[]", RawValue::get),
    })
}

/// How many parts a `task` snapshot holds, per artifact.
fn held_parts<'a>(artifacts: &Option<Vec<RawHeld<'a>>>) -> Vec<(Cow<'a, str>, u32)> {
    artifacts
        .iter()
        .flatten()
        // One without an id is no artifact a client can add to; the schema
        // names it.
        .filter_map(|a| Some((a.artifact_id.clone()?, a.count() as u32)))
        .collect()
}
