//! What each reader says is wrong with what it read: an A2A event or
//! answer, an agent card, a lab export, a `probe.json`. Each is a kind of
//! [`ReadKind`](super::ReadKind) (`Event`, `Card`, `Export`,
//! `ProbeJson`); the sentence of each fault is written here, once.

use std::fmt;

/// What is wrong with JSON that should be an A2A event or answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventFault {
    /// A JSON-RPC response with neither `result` nor `error`.
    NoResultNorError,
    /// A request (its method named) where an answer was due.
    Request(String),
    /// A 1.0 event with more than one of its four wrappers.
    SeveralWrappers,
    /// Neither a 1.0 event (one wrapper) nor a 0.3 one (`kind`).
    NotAnEvent,
    /// Read as 0.3 (`--wire 0.3`) and without a `kind`.
    NoKind,
    /// A 0.3 `kind` that names no event.
    UnknownKind(String),
    /// An event without a field it needs (`task has no id`).
    Missing {
        /// The event, as its wire names it.
        what: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A task whose artifacts do not parse (serde_json's words).
    Artifacts(String),
    /// JSON where a JSON-RPC response was due.
    NotJsonRpc,
    /// A JSON value other than an object where an event was due (said
    /// with its [`Place::Event`](super::Place::Event)).
    NotAnObject,
    /// A JSON-RPC error where an event was due.
    ErrorAnswer {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// A JSON-RPC error logged as a webhook's POST body.
    ErrorPosted {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
}

/// Why an agent card cannot be read, or spoken to as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardFault {
    /// Its bytes are not UTF-8.
    NotUtf8,
    /// It is not JSON: likely not an A2A agent at all.
    NotJson,
    /// JSON, but not an object.
    NotObject,
    /// An object whose fields have the wrong types (serde_json's words).
    Unreadable(String),
    /// No interface and no URL.
    NoInterface,
    /// None of the binding wanted; these are what it offers.
    NotOffered {
        /// The binding wanted, as a card names it.
        wanted: &'static str,
        /// The bindings it offers.
        offered: Vec<String>,
    },
    /// REST or gRPC (this `--binding`) asked for in A2A 0.3, which the
    /// probe speaks in 1.0 only.
    Only1_0(&'static str),
    /// A JSON-RPC interface in versions the probe does not speak.
    JsonRpcVersion(Vec<String>),
    /// An HTTP+JSON or gRPC interface (named as the card names it) in
    /// versions other than 1.0.
    Not1_0(&'static str, Vec<String>),
}

/// Why a file that says it is a lab export cannot be checked as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportFault {
    /// A JSON object without `format`, and no event either.
    NoFormat,
    /// Another `format`.
    Format {
        /// The format it names.
        found: String,
        /// The export's.
        expected: &'static str,
    },
    /// Another export version.
    Version {
        /// The version it names.
        found: u64,
        /// The version this lab reads.
        reads: u32,
    },
    /// No numeric `version`.
    NoVersion,
    /// No `inputs`.
    NoInputs,
    /// `inputs` that are no scenario: the key and why.
    Inputs {
        /// The key refused.
        key: String,
        /// Why.
        message: String,
    },
    /// The lab's own fresh export did not read back (serde_json's words).
    Fresh(String),
    /// A capture where `check` wanted an export.
    Capture,
    /// A `probe.json` where `check` wanted an export.
    ProbeJson,
}

/// Why a `probe.json` cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeJsonFault {
    /// Not JSON (serde_json's words).
    Json(String),
    /// Another `format`.
    Format {
        /// The format it names.
        found: String,
        /// A `probe.json`'s.
        expected: &'static str,
    },
    /// No `agent`.
    NoAgent,
    /// A field that should be text.
    NotText(&'static str),
    /// A field that should be a list.
    NotList(&'static str),
    /// An outcome other than clean, broken or skipped.
    Outcome(String),
    /// A probe's name that names no probe.
    Probe(String),
    /// A wire other than 1.0 or 0.3.
    Wire(String),
    /// A finding's code that names no finding.
    Code(String),
}

impl fmt::Display for EventFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventFault::NoResultNorError => {
                f.write_str("a JSON-RPC response with neither result nor error")
            }
            EventFault::Request(method) => write!(f, "a request ({method}), not an answer"),
            EventFault::SeveralWrappers => f.write_str(
                "an A2A 1.0 event carries exactly one of task, statusUpdate, artifactUpdate, message, not several",
            ),
            EventFault::NotAnEvent => f.write_str(
                "not an A2A 1.0 event (exactly one of task, statusUpdate, artifactUpdate, message) nor a 0.3 one (kind)",
            ),
            EventFault::NoKind => f.write_str("an A2A 0.3 event has a kind"),
            EventFault::UnknownKind(kind) => write!(f, "`{kind}` is not an A2A 0.3 event kind"),
            EventFault::Missing { what, field } => write!(f, "{what} has no {field}"),
            EventFault::Artifacts(e) => write!(f, "a task's artifacts cannot be read: {e}"),
            EventFault::NotJsonRpc => f.write_str("JSON that is not a JSON-RPC response"),
            EventFault::NotAnObject => f.write_str("not a JSON object"),
            EventFault::ErrorAnswer { code, message } => {
                write!(f, "a JSON-RPC error: {code} {message}")
            }
            EventFault::ErrorPosted { code, message } => write!(
                f,
                "a JSON-RPC error ({code} {message}) is not a webhook body"
            ),
        }
    }
}

impl fmt::Display for CardFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardFault::NotUtf8 => f.write_str("it is not UTF-8 text"),
            CardFault::NotJson => {
                f.write_str("not an A2A agent card: it is not JSON (is this an A2A agent?)")
            }
            CardFault::NotObject => f.write_str("the agent card is not a JSON object"),
            CardFault::Unreadable(e) => write!(f, "the agent card cannot be read: {e}"),
            CardFault::NoInterface => {
                f.write_str("the agent card names no interface (no supportedInterfaces, no url)")
            }
            CardFault::NotOffered { wanted, offered } => write!(
                f,
                "the agent card offers no {wanted} interface (only {})",
                offered.join(", ")
            ),
            CardFault::Only1_0(flag) => write!(
                f,
                "--binding {flag} speaks A2A 1.0 only; probe a 0.3 agent over JSON-RPC"
            ),
            CardFault::JsonRpcVersion(versions) => write!(
                f,
                "the agent's JSON-RPC interface speaks protocol version {}, not 1.0 or 0.3 (--wire forces one)",
                versions.join(", ")
            ),
            CardFault::Not1_0(binding, versions) => write!(
                f,
                "the agent's {binding} interface speaks protocol version {}; the probe speaks {binding} in A2A 1.0 only",
                versions.join(", ")
            ),
        }
    }
}

impl fmt::Display for ExportFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportFault::NoFormat => {
                f.write_str("a JSON object that is not a lab export (no `format` field)")
            }
            ExportFault::Format { found, expected } => {
                write!(f, "`format` is `{found}`, expected `{expected}`")
            }
            ExportFault::Version { found, reads } => write!(
                f,
                "export version {found} is not supported (this lab reads version {reads})"
            ),
            ExportFault::NoVersion => f.write_str("`version` is missing or not a number"),
            ExportFault::NoInputs => f.write_str("`inputs` is missing"),
            ExportFault::Inputs { key, message } => write!(f, "inputs: {key}: {message}"),
            ExportFault::Fresh(e) => write!(f, "export: {e}"),
            ExportFault::Capture => {
                f.write_str("not a lab export: a capture, read by `check` as one")
            }
            ExportFault::ProbeJson => {
                f.write_str("not a lab export: a probe.json (the page's Import shows it)")
            }
        }
    }
}

impl fmt::Display for ProbeJsonFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeJsonFault::Json(e) => f.write_str(e),
            ProbeJsonFault::Format { found, expected } => {
                write!(f, "format `{found}` is not `{expected}`")
            }
            ProbeJsonFault::NoAgent => f.write_str("`agent` is missing"),
            ProbeJsonFault::NotText(key) => write!(f, "`{key}` is missing or not text"),
            ProbeJsonFault::NotList(key) => write!(f, "`{key}` is missing or not a list"),
            ProbeJsonFault::Outcome(outcome) => {
                write!(f, "outcome `{outcome}` is not clean, broken or skipped")
            }
            ProbeJsonFault::Probe(name) => write!(f, "`{name}` is not a probe"),
            ProbeJsonFault::Wire(wire) => write!(f, "`{wire}` is not an A2A wire (1.0 or 0.3)"),
            ProbeJsonFault::Code(code) => write!(f, "`{code}` is not a probe finding"),
        }
    }
}
