//! The one reader of an A2A event: a JSON-RPC response or a bare event,
//! A2A 1.0 or 0.3, read into borrowed, typed fields ([`RawEvent`]), then
//! into one shape ([`WireEvent`]) carrying a [`TaskState`]; an event's
//! content id; and the timestamps of status events. A client that steers
//! by what it receives (the probe) reads the same events owned, through
//! [`super::answer`].
//!
//! Here the raw fields; the reading into one shape in `read`, the
//! timestamps in `time`, the content id in `content_id`, the JSON parse
//! within its depth and size in `json_limits`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

mod content_id;
mod json_limits;
mod read;
mod time;

pub use content_id::ContentId;
pub(crate) use content_id::{FoldBuild, FoldHasher};
pub use json_limits::{check_depth, json_error, parse, MAX_DEPTH};
pub use read::read_event;
pub use time::parse_rfc3339_ms;

use super::read_error::{EventFault, ReadError};
use super::text::borrowed;
use super::text::{IfObject, Loose};
use super::Wire;
use crate::model::state::{SentState, TaskState};
use read::fault;

/// A wire event, read.
pub struct WireEvent<'a> {
    /// The wire it was read on.
    pub wire: Wire,
    /// The task it concerns (`(no task)` for a message without one).
    pub task_id: Cow<'a, str>,
    /// What it is.
    pub what: What<'a>,
}

/// What a wire event is, with the fields the lab reads of it.
pub enum What<'a> {
    /// A `task` object: its state and the parts it holds per artifact.
    Task {
        /// The task's state.
        state: SentState<Cow<'a, str>>,
        /// Per artifact, how many parts the snapshot holds.
        held: Vec<(Cow<'a, str>, u32)>,
    },
    /// A status update.
    Status {
        /// The state it moves the task to.
        state: SentState<Cow<'a, str>>,
    },
    /// An artifact update.
    Artifact {
        /// The artifact it adds to.
        artifact_id: Cow<'a, str>,
        /// Whether it appends to the parts sent before.
        append: bool,
        /// Whether it closes the artifact.
        last: bool,
        /// The parts as sent.
        parts: &'a str,
    },
    /// A message.
    Message,
}

/// Reads a task state as an event carries it: one of the eight, spelled
/// as its wire spells them (`TASK_STATE_WORKING` on 1.0, `working` on
/// 0.3), or anything else (0.3's `unknown`, a misspelling) kept as sent.
fn read_state(text: Cow<'_, str>, wire: Wire) -> SentState<Cow<'_, str>> {
    let known = match wire {
        Wire::V1_0 => TaskState::from_wire(&text),
        Wire::V0_3 => TaskState::from_kebab(&text),
    };
    known.map_or(SentState::Other(text), SentState::Known)
}

/// A JSON-RPC error, borrowed.
#[derive(Deserialize, Clone)]
pub struct RawError<'a> {
    /// Its code (0 when it has none).
    #[serde(default)]
    pub code: i64,
    /// Its message.
    #[serde(default, borrow)]
    pub message: Cow<'a, str>,
}

/// What a line's JSON-RPC envelope holds.
pub enum Envelope<'r, 'a> {
    /// An error answer: a response's `error`, or a bare error object.
    Error(RawError<'a>),
    /// An event: a response's `result`, or a bare event.
    Event(&'r RawEvent<'a>),
    /// A request the client sent, kept beside its answers.
    Request(Request<'r>),
}

/// A request the client sent, as a capture keeps it beside the answers (a
/// session of the lab, downloaded): a JSON-RPC request, or the lab's record
/// of a REST or gRPC call, `{"method", "binding", "params"}`. The lab reads
/// only what its message names: a message that names a task continues it
/// (A2A 1.0 §3.4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request<'r> {
    /// The method called (`SendStreamingMessage`, `message/stream`, …).
    pub method: &'r str,
    /// The task its message continues (`params.message.taskId`), if any.
    pub task_id: Option<&'r str>,
    /// The context its message names (`params.message.contextId`), if any.
    pub context_id: Option<&'r str>,
}

impl<'a> RawEvent<'a> {
    /// Opens the envelope: a JSON-RPC response's error or result, a
    /// request (a `method` in text, and neither result nor error), or the
    /// line itself when it is a bare event. A JSON-RPC response with
    /// neither is an error.
    pub fn envelope(&self) -> Result<Envelope<'_, 'a>, ReadError> {
        if let Some(error) = &self.error {
            Ok(Envelope::Error((**error).clone()))
        } else if let Some(result) = &self.result {
            Ok(Envelope::Event(result))
        } else if let Some(Loose::Text(method)) = &self.method {
            let message = self.params.as_ref().and_then(|p| p.0.as_ref());
            let message = message.and_then(|p| p.message.as_ref()?.0.as_ref());
            Ok(Envelope::Request(Request {
                method,
                task_id: message.and_then(|m| text_of_loose(m.task_id.as_ref())),
                context_id: message.and_then(|m| text_of_loose(m.context_id.as_ref())),
            }))
        } else if self.jsonrpc.is_some() {
            Err(fault(EventFault::NoResultNorError))
        } else if let (Some(code), Some(LineMessage::Text(message))) = (self.code, &self.message) {
            Ok(Envelope::Error(RawError {
                code,
                message: message.clone(),
            }))
        } else {
            Ok(Envelope::Event(self))
        }
    }

    /// The 1.0 `message` wrapper's event, if the line has one.
    pub(super) fn message(&self) -> Option<&RawEvent<'a>> {
        match &self.message {
            Some(LineMessage::Event(event)) => Some(event),
            _ => None,
        }
    }

    /// The four 1.0 wrappers, named, in the proto's order.
    fn wrappers(&self) -> [(&'static str, Option<&RawEvent<'a>>); 4] {
        [
            ("task", self.task.as_deref()),
            ("statusUpdate", self.status_update.as_deref()),
            ("artifactUpdate", self.artifact_update.as_deref()),
            ("message", self.message()),
        ]
    }

    /// The event a 1.0 wrapper holds, if the line has one.
    pub(super) fn wrapped(&self) -> Option<&RawEvent<'a>> {
        self.wrappers().into_iter().find_map(|(_, w)| w)
    }
}

/// A line's `message`: a 1.0 wrapper's message (an object), or the text of
/// a bare JSON-RPC error object (`{"code":…,"message":"…"}`), read in the
/// same pass.
pub(super) enum LineMessage<'a> {
    /// A message event.
    Event(Box<RawEvent<'a>>),
    /// An error's text.
    Text(Cow<'a, str>),
}

impl<'de: 'a, 'a> Deserialize<'de> for LineMessage<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EventOrText;
        impl<'de> serde::de::Visitor<'de> for EventOrText {
            type Value = LineMessage<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message object or an error's text")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LineMessage::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LineMessage::Text(Cow::Owned(v.to_string())))
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                map: M,
            ) -> Result<Self::Value, M::Error> {
                let event =
                    RawEvent::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(LineMessage::Event(Box::new(event)))
            }
        }
        d.deserialize_any(EventOrText)
    }
}

/// A line of a capture, its fields borrowed from the input: a JSON-RPC
/// response (`result` is the event, `error` an error), or the event itself:
/// the 0.3 fields at the top, or one 1.0 wrapper holding the same fields.
#[derive(Deserialize, Default)]
pub struct RawEvent<'a> {
    /// A JSON-RPC response's `jsonrpc`, present or not (its value is the
    /// envelope check's, not the reader's).
    #[serde(default)]
    pub jsonrpc: Option<serde::de::IgnoredAny>,
    /// A JSON-RPC response's `result`: the event.
    #[serde(default, borrow)]
    pub result: Option<Box<RawEvent<'a>>>,
    /// A JSON-RPC response's `error`.
    #[serde(default, borrow)]
    pub error: Option<Box<RawError<'a>>>,
    #[serde(default, borrow, deserialize_with = "borrowed")]
    pub(super) kind: Option<Cow<'a, str>>,
    /// A task's id, or a JSON-RPC response's (which may be a number).
    #[serde(default, borrow)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "borrowed", rename = "taskId")]
    pub(super) task_id: Option<Cow<'a, str>>,
    /// The context the event (or task) belongs to.
    #[serde(default, borrow, deserialize_with = "borrowed", rename = "contextId")]
    pub(super) context_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) status: Option<RawStatus<'a>>,
    #[serde(default, borrow)]
    pub(super) artifact: Option<RawArtifact<'a>>,
    #[serde(default)]
    append: Option<bool>,
    #[serde(default, rename = "lastChunk")]
    last_chunk: Option<bool>,
    #[serde(default, borrow)]
    pub(super) artifacts: Option<Vec<RawHeld<'a>>>,
    #[serde(default, borrow)]
    pub(super) task: Option<Box<RawEvent<'a>>>,
    #[serde(default, borrow, rename = "statusUpdate")]
    pub(super) status_update: Option<Box<RawEvent<'a>>>,
    #[serde(default, borrow, rename = "artifactUpdate")]
    pub(super) artifact_update: Option<Box<RawEvent<'a>>>,
    /// A 1.0 wrapper's message, or a bare JSON-RPC error object's text.
    #[serde(default, borrow)]
    pub(super) message: Option<LineMessage<'a>>,
    /// A bare JSON-RPC error object's code (a2a-rs ends an HTTP+JSON stream
    /// with one): with a text `message`, the line is that error.
    #[serde(default)]
    code: Option<i64>,
    // What only the schema reads (SPEC §13 `wire-shape`), held in the same
    // pass: whether a field is there, or its bytes to read when checked.
    /// A 0.3 status update's `final`, when present and not null.
    #[serde(default, rename = "final")]
    pub(super) final_flag: Option<serde::de::IgnoredAny>,
    /// A message's `messageId`, when present and not null.
    #[serde(default, rename = "messageId")]
    pub(super) message_id: Option<serde::de::IgnoredAny>,
    /// A message's role.
    #[serde(default, borrow)]
    pub(super) role: Option<Loose<'a>>,
    /// A message's parts, as sent.
    #[serde(default, borrow)]
    pub(super) parts: Option<&'a RawValue>,
    /// A task's history, as sent.
    #[serde(default, borrow)]
    pub(super) history: Option<&'a RawValue>,
    // What a request kept in the capture carries, read in the same pass so
    // that telling it from an answer costs no second parse.
    /// A request's method; not text, the line is no request.
    #[serde(default, borrow)]
    method: Option<Loose<'a>>,
    /// A request's params, read for its message alone (boxed: every event
    /// and wrapper holds the field, and nearly none has it).
    #[serde(default, borrow)]
    params: Option<IfObject<Box<RawParams<'a>>>>,
}

/// A field's text, when it is text.
fn text_of_loose<'r>(field: Option<&'r Loose<'_>>) -> Option<&'r str> {
    match field {
        Some(Loose::Text(text)) => Some(text),
        _ => None,
    }
}

/// What the lab reads of a request's `params`: its message.
#[derive(Deserialize)]
struct RawParams<'a> {
    #[serde(default, borrow)]
    message: Option<IfObject<RawRequestMessage<'a>>>,
}

/// What the lab reads of a request's message: the task and the context it
/// names, each text or not (a value of another type names none).
#[derive(Deserialize)]
struct RawRequestMessage<'a> {
    #[serde(default, borrow, rename = "taskId")]
    task_id: Option<Loose<'a>>,
    #[serde(default, borrow, rename = "contextId")]
    context_id: Option<Loose<'a>>,
}

/// A status, borrowed; a field the schema requires may be absent, and is
/// then the schema's finding.
#[derive(Deserialize)]
pub(super) struct RawStatus<'a> {
    #[serde(default, borrow)]
    pub(super) state: Option<Loose<'a>>,
    #[serde(default, borrow, deserialize_with = "borrowed")]
    pub(super) timestamp: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) message: Option<&'a RawValue>,
}

impl RawEvent<'_> {
    /// A short id for the event's A2A content (64 bits: ids need only tell
    /// one task's events apart): every field the lab reads, each part's
    /// bytes and a status's message, tagged so that no two fields blur.
    pub fn content_id(&self) -> ContentId {
        let mut h = FoldHasher::default();
        self.hash_into(&mut h);
        ContentId::from_hasher(&h)
    }

    fn hash_into(&self, h: &mut impl std::hash::Hasher) {
        let text = |h: &mut dyn std::hash::Hasher, tag: u8, v: Option<&str>| {
            h.write_u8(tag);
            if let Some(v) = v {
                h.write(v.as_bytes());
                h.write_u8(0xff);
            }
        };
        text(h, 1, self.kind.as_deref());
        text(h, 2, self.id.map(RawValue::get));
        text(h, 3, self.task_id.as_deref());
        if let Some(status) = &self.status {
            text(h, 4, status.state.as_ref().map(Loose::text));
            text(h, 5, status.timestamp.as_deref());
            text(h, 6, status.message.map(RawValue::get));
        }
        if let Some(artifact) = &self.artifact {
            text(h, 7, artifact.artifact_id.as_deref());
            text(h, 8, artifact.parts.map(RawValue::get));
        }
        h.write_u8(match (self.append, self.last_chunk) {
            (None, None) => 9,
            (a, l) => 10 + u8::from(a == Some(true)) * 2 + u8::from(l == Some(true)),
        });
        for artifact in self.artifacts.iter().flatten() {
            text(h, 14, artifact.artifact_id.as_deref());
            h.write_usize(artifact.count());
        }
        for (tag, (_, inner)) in (15..).zip(self.wrappers()) {
            if let Some(inner) = inner {
                h.write_u8(tag);
                inner.hash_into(h);
            }
        }
    }
}

/// An artifact update's artifact, borrowed.
#[derive(Deserialize)]
pub(super) struct RawArtifact<'a> {
    #[serde(default, borrow, deserialize_with = "borrowed", rename = "artifactId")]
    pub(super) artifact_id: Option<Cow<'a, str>>,
    /// The parts as sent: the bytes a chunk's checksum is taken of.
    #[serde(default, borrow)]
    pub(super) parts: Option<&'a RawValue>,
}

/// An artifact a `task` snapshot holds: how many parts it has, and what
/// each carries (for the schema).
#[derive(Deserialize)]
pub(super) struct RawHeld<'a> {
    #[serde(default, borrow, deserialize_with = "borrowed", rename = "artifactId")]
    pub(super) artifact_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) parts: Option<Vec<RawPart<'a>>>,
}

impl RawHeld<'_> {
    /// How many parts it holds.
    fn count(&self) -> usize {
        self.parts.as_ref().map_or(0, Vec::len)
    }
}

/// A part as the schema reads it: its 0.3 `kind`, and which contents it
/// carries (each only noted, never kept).
#[derive(Deserialize, Default)]
pub(super) struct RawPart<'a> {
    #[serde(default, borrow)]
    pub(super) kind: Option<Loose<'a>>,
    #[serde(default)]
    pub(super) text: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub(super) raw: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub(super) url: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub(super) data: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub(super) file: Option<serde::de::IgnoredAny>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_error_object_is_the_error_it_says() {
        // As a2a-rs ends an HTTP+JSON stream (a2a-server-lf 0.5.3 src/sse.rs:34-37).
        let line = br#"{"code":-32603,"message":"cancel is not supported","data":[{"reason":"INTERNAL_ERROR"}]}"#;
        let raw: RawEvent = parse(line).unwrap_or_default();
        match raw.envelope() {
            Ok(Envelope::Error(e)) => {
                assert_eq!((e.code, &*e.message), (-32603, "cancel is not supported"))
            }
            _ => panic!("not read as an error"),
        }
        // A message wrapper is still the event it holds.
        let wrapped = br#"{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}}"#;
        let raw: RawEvent = parse(wrapped).unwrap_or_default();
        assert!(raw.message().is_some());
    }
}
