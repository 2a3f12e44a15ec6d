//! The A2A wire, read and written in one place, at the bottom of the model:
//! every other part (the simulator, the capture reader, Import, the probe)
//! hands bytes down here and gets typed values back, or asks here for the
//! bytes to send.
//!
//! - [`sse`]: one Server-Sent Events decoder (CRLF, comments, multi-line
//!   `data`), fed bytes or lines.
//! - [`event`]: one typed reader of an A2A event, 1.0 or 0.3, JSON-RPC or
//!   bare, carrying a [`TaskState`](crate::model::state::TaskState);
//!   [`answer`], the same events owned, for a client that steers by them.
//! - [`write`](mod@write): the events the simulator writes, 1.0 and 0.3, and a row's
//!   event kept as what it is made of until its JSON is asked for.
//! - [`card`]: an agent card, typed: its name and the interfaces it offers;
//!   [`card::fields`], the fields its protocol version requires.
//! - [`rest`]: the HTTP+JSON binding: paths, and an error answer read as
//!   the JSON-RPC error it stands for; [`grpc`], the gRPC binding's
//!   status read the same way (its messages are HTTP+JSON's ProtoJSON).
//! - [`envelope`]: what is wrong with a JSON-RPC answer's envelope, which
//!   the event reader lets pass.
//! - [`read_error`]: what every reader of the lab's input says when it
//!   refuses it: a kind to match, and where; [`read_error::faults`], each
//!   reader's faults (event, card, export, `probe.json`) in their words.
//! - [`schema`]: what an event or answer must hold by its wire version's
//!   schema (`wire-shape`), each rule with its section.
//! - [`signs`]: what an event's bytes show of the program that wrote
//!   them (its envelope's opening, its timestamps' precision), for the
//!   SDK profiles to tell which SDK sent a capture.
//!
//! The rules where readers used to disagree are decided once here:
//! an event carrying several 1.0 wrappers is refused; when the wire is
//! known (`--wire`, or a card's), an event of the other wire is refused;
//! a bare `data` line is an empty data line, as the SSE standard reads it.

/// A JSON-RPC error code (JSON-RPC 2.0 §5.1: an integer), one width
/// wherever the lab reads, simulates or lists one.
pub type RpcCode = i64;

pub mod answer;
pub mod card;
pub mod envelope;
pub mod event;
pub mod grpc;
pub mod push;
pub mod read_error;
pub mod rest;
pub mod schema;
pub mod signs;
pub mod sse;
mod text;
pub mod write;

pub(crate) use event::{FoldBuild, FoldHasher};
pub use write::row::{RowWire, SimEvent, TaskRef};
pub use write::v10::*;

/// The A2A wire the trace and the export are written in, and a capture is
/// read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// A2A 1.0: ProtoJSON wrappers, `TASK_STATE_*`.
    V1_0,
    /// A2A 0.3, as the SDKs' compatibility modes write it.
    V0_3,
}

impl Wire {
    /// Every value, in the order of [`Self::NAMES`].
    pub const ALL: &'static [Wire] = &[Wire::V1_0, Wire::V0_3];
    /// Every value's spelling.
    pub const NAMES: &'static [&'static str] = &["1.0", "0.3"];

    /// The value's spelling in URLs, the CLI and exports.
    pub fn name(self) -> &'static str {
        match self {
            Wire::V1_0 => "1.0",
            Wire::V0_3 => "0.3",
        }
    }

    /// Reads `1.0` or `0.3` (the CLI's `--wire`).
    pub fn parse(text: &str) -> Option<Wire> {
        Wire::ALL.iter().copied().find(|w| w.name() == text)
    }

    /// How a state is spelled on this wire.
    pub fn spell(self, state: crate::model::state::TaskState) -> &'static str {
        match self {
            Wire::V1_0 => state.wire(),
            Wire::V0_3 => state.kebab(),
        }
    }
}

/// A state as a wire spells it: kept typed, written in the wire's
/// spelling (`TASK_STATE_COMPLETED`, `completed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpelledState {
    /// The state.
    pub state: crate::model::state::TaskState,
    /// The wire whose spelling it is written in.
    pub wire: Wire,
}

impl std::fmt::Display for SpelledState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.wire.spell(self.state))
    }
}

/// Equal to its spelling, as a reader of the report compares it.
impl PartialEq<&str> for SpelledState {
    fn eq(&self, text: &&str) -> bool {
        self.wire.spell(self.state) == *text
    }
}

impl serde::Serialize for SpelledState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.wire.spell(self.state))
    }
}

impl std::fmt::Display for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Written as its spelling (`probe.json`, `records.json`).
impl serde::Serialize for Wire {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Wire {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Wire, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        Wire::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not 1.0 or 0.3")))
    }
}
