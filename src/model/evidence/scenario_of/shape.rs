//! One event as a task and a scenario are compared: its kind, its state,
//! an artifact update's flags and part count, and whether it repeats a
//! part already sent. Typed, compared field by field; its `Display` is
//! only the page's and `check`'s words (`task WORKING 0`, `status
//! COMPLETED`, `artifact append last 1`, `… again`).

use std::collections::{HashMap, HashSet};

use crate::model::state::TaskState;
use crate::model::wire::answer::{EventKind, OwnedEvent};

/// What an event is, as compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeOf {
    /// A task snapshot: its state and how many artifact parts it lists.
    Task {
        /// Its state, where it is one of the eight.
        state: Option<TaskState>,
        /// Its artifacts' parts, all counted.
        parts: usize,
    },
    /// A status update.
    Status {
        /// Its state, where it is one of the eight.
        state: Option<TaskState>,
    },
    /// A message.
    Message,
    /// An artifact update: its flags and parts.
    Artifact {
        /// `append`.
        append: bool,
        /// `lastChunk`.
        last: bool,
        /// Its parts.
        parts: usize,
    },
    /// An artifact update that carries no artifact.
    Empty,
}

/// One event as compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventShape {
    /// What it is.
    pub of: ShapeOf,
    /// Whether it is an artifact update that repeats a part already sent
    /// for the same artifact (a resend, never a step).
    pub again: bool,
}

impl EventShape {
    /// The shape of one event, taken alone (`again` is for [`shapes`]).
    pub fn of(event: &OwnedEvent) -> EventShape {
        let state = event.state.as_ref().and_then(|s| s.known());
        let of = match event.kind {
            EventKind::Task => ShapeOf::Task {
                state,
                parts: event.artifacts.iter().map(|a| a.parts.len()).sum(),
            },
            EventKind::Status => ShapeOf::Status { state },
            EventKind::Message => ShapeOf::Message,
            EventKind::Artifact => match event.artifacts.first() {
                Some(a) => ShapeOf::Artifact {
                    append: a.append,
                    last: a.last,
                    parts: a.parts.len(),
                },
                None => ShapeOf::Empty,
            },
        };
        EventShape { of, again: false }
    }
}

impl std::fmt::Display for EventShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = |s: Option<TaskState>| s.map_or("?", TaskState::short);
        match self.of {
            ShapeOf::Task { state: s, parts } => write!(f, "task {} {parts}", state(s))?,
            ShapeOf::Status { state: s } => write!(f, "status {}", state(s))?,
            ShapeOf::Message => f.write_str("message")?,
            ShapeOf::Empty => f.write_str("artifact")?,
            ShapeOf::Artifact {
                append,
                last,
                parts,
            } => {
                f.write_str("artifact")?;
                if append {
                    f.write_str(" append")?;
                }
                if last {
                    f.write_str(" last")?;
                }
                write!(f, " {parts}")?;
            }
        }
        if self.again {
            f.write_str(" again")?;
        }
        Ok(())
    }
}

/// Shapes a stream's events one at a time, remembering each artifact's
/// parts sent so far, so that a repeat is marked `again`. Each part is
/// looked up once, by its bytes: linear in the events.
#[derive(Debug, Default)]
pub struct Shaper {
    sent: HashMap<String, HashSet<String>>,
}

impl Shaper {
    /// The next event's shape.
    pub fn shape(&mut self, event: &OwnedEvent) -> EventShape {
        let mut shape = EventShape::of(event);
        if let (EventKind::Artifact, Some(a)) = (event.kind, event.artifacts.first()) {
            if !self.sent.contains_key(a.artifact_id.as_str()) {
                self.sent.insert(a.artifact_id.clone(), HashSet::new());
            }
            if let Some(seen) = self.sent.get_mut(a.artifact_id.as_str()) {
                let parts: Vec<String> = a.parts.iter().map(|p| p.to_string()).collect();
                shape.again = parts.iter().any(|p| seen.contains(p));
                seen.extend(parts);
            }
        }
        shape
    }
}

/// Events as compared, in order ([`Shaper`]).
pub fn shapes(events: &[OwnedEvent]) -> Vec<EventShape> {
    let mut shaper = Shaper::default();
    events.iter().map(|e| shaper.shape(e)).collect()
}
