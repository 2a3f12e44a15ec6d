//! Why what a probe received cannot be judged: an answer that cannot be
//! read (SPEC §13: that probe's `unreadable-answer` finding, and the other
//! probes go on), a body that cannot be cut into answers, or records that
//! lack what the probe needs. Not a reader's error: a probe's, which wraps
//! the reader's [`ReadError`] with the call it came from.

use std::fmt;

use crate::model::wire::read_error::ReadError;

/// Why a probe's calls cannot be judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// One answer of a call, which the wire's reader refused.
    Answer {
        /// Which answer.
        which: Which,
        /// Why it cannot be read.
        error: ReadError,
        /// The answer as received, quoted for a person.
        quoted: String,
    },
    /// A body the SSE decoder or the capture reader refused whole.
    Read(ReadError),
    /// A POST the webhook received that cannot be read as a log's line.
    Post(ReadError),
    /// A call answered with nothing at all.
    Empty {
        /// The call, by its name (`GetTask`).
        method: &'static str,
    },
    /// Records without the stream probe, which every later probe follows.
    NoStream,
}

/// Which answer of a call could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// One event of a stream (or of a body with several), from 0.
    Event(usize),
    /// A call's one answer, with its HTTP status when it was not 200.
    Answer {
        /// The HTTP status, when it was not 200.
        http: Option<u16>,
    },
}

impl From<ReadError> for Unreadable {
    fn from(e: ReadError) -> Unreadable {
        Unreadable::Read(e)
    }
}

impl std::error::Error for Unreadable {}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreadable::Answer {
                which,
                error,
                quoted,
            } => write!(f, "{which} cannot be read ({error}): {quoted}"),
            Unreadable::Read(e) => write!(f, "{e}"),
            Unreadable::Post(e) => write!(f, "a POST the webhook received: {e}"),
            Unreadable::Empty { method } => write!(f, "{method}: an empty answer"),
            Unreadable::NoStream => f.write_str("the records hold no stream probe"),
        }
    }
}

impl fmt::Display for Which {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Which::Event(n) => write!(f, "event {n}"),
            Which::Answer { http: Some(status) } => write!(f, "the answer (HTTP {status})"),
            Which::Answer { http: None } => f.write_str("the answer"),
        }
    }
}
