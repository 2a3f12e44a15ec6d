//! What a reader of the lab's input says when it refuses it: one error for
//! every reader (the wire's, the capture reader, the webhook log, Import),
//! as serde_json's `Error` is one for its parser. A caller decides by the
//! [`ReadKind`], never by the text; where the reader was (the file, the
//! line, the array element) is kept as [`Place`]s, outermost first, so that
//! no layer glues its position into the message again; the sentence a
//! person reads is written once, here, in `Display`.
//!
//! It sits in `wire/` because the wire's readers are its first users and
//! every reader above imports the wire; it imports nothing of the model
//! but [`faults`], each reader's faults in their words.

pub mod faults;

use std::fmt;

pub use faults::{CardFault, EventFault, ExportFault, ProbeJsonFault};
pub use serde_json::error::Category;

/// Why a reader refused its input, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    kind: ReadKind,
    at: Vec<Place>,
}

/// What kind of fault a reader found: what a caller matches on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadKind {
    /// The bytes are not UTF-8 (`byte`: where the valid text ends, when
    /// the reader says it). Said of [`Place::TheFile`] when that is the
    /// place.
    NotUtf8 {
        /// The first byte that is not UTF-8.
        byte: Option<usize>,
    },
    /// JSON nested deeper than the lab reads: refused before it can
    /// exhaust the stack.
    TooDeep {
        /// The deepest nesting read.
        limit: usize,
    },
    /// JSON that does not parse (serde_json's words and category).
    Malformed {
        /// Syntax, data (a value of the wrong type) or end of input.
        category: Category,
        /// serde_json's message, with its position in the element.
        message: String,
    },
    /// One event, line or element longer than any A2A event: refused
    /// rather than held in memory.
    TooLong {
        /// What was too long.
        unit: Unit,
        /// The most bytes taken.
        limit: usize,
    },
    /// More bytes than the lab reads at once (the page's Import).
    TooLarge {
        /// How much was given.
        size: Size,
        /// The most bytes read.
        limit: usize,
    },
    /// The input could not be read at all.
    Io {
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
        /// Its message.
        message: String,
    },
    /// A line that is no field of an SSE stream (its first 60
    /// characters).
    NotSse {
        /// The start of the line.
        line: String,
    },
    /// A capture's line that is neither JSON nor an SSE field: not a
    /// capture at all.
    NotACapture,
    /// Anything but one whole JSON array (`reduce`, an array capture).
    Array(ArrayFault),
    /// Files that hold no A2A event: nothing was checked in them, so the
    /// input must not read as clean. Empty when no file was given.
    NoEvents {
        /// The files, by name.
        files: Vec<String>,
    },
    /// JSON that is not the A2A event or answer it should be.
    Event(EventFault),
    /// An agent card that cannot be read or spoken to.
    Card(CardFault),
    /// A file that says it is a lab export and is not a readable one.
    Export(ExportFault),
    /// A file that says it is a `probe.json` (its `format`) and cannot be
    /// read.
    ProbeJson(ProbeJsonFault),
    /// A file given as a `probe.json` (`--baseline`) that is not one.
    NotProbeJson(ProbeJsonFault),
}

/// What was longer than the lab takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// One SSE event's data.
    SseEvent,
    /// One line of an SSE stream.
    SseLine,
    /// One line of a capture (said with its [`Place::Line`]).
    Line,
    /// One element of a JSON array.
    ArrayElement,
}

/// How much was given when it was more than the lab reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// More than the limit arrived, and reading stopped there.
    Arriving,
    /// One file of this many bytes.
    File(usize),
    /// Several files of this many bytes together.
    Files(usize),
}

/// What is wrong with an input that should be one JSON array; each is
/// said with the [`Place::Position`] it was found at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayFault {
    /// No input at all.
    Empty,
    /// Something other than `[` first.
    ExpectedOpen,
    /// No element before a comma or the closing bracket.
    ExpectedElement,
    /// More than whitespace after the closing bracket.
    AfterArray,
    /// The input ended before the closing bracket.
    Unclosed,
}

/// Where in the input a reader was, outermost first in [`ReadError::at`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A file, by the name it was given.
    File(String),
    /// The one file a reader was given, which has no name (the page's
    /// Import of a single file says `the file`).
    TheFile,
    /// A line, from 1 (JSON Lines, an SSE body).
    Line(u64),
    /// The SSE event that ended at this line (a blank line, or the end of
    /// the file).
    SseEvent {
        /// The line it ended at, from 1.
        ends_at: u64,
    },
    /// An element of a JSON array: its place from 0, and where it starts.
    Element {
        /// Its place in the array, from 0.
        index: u64,
        /// The line its first byte is on, from 1.
        line: u64,
        /// The byte column of its first byte, from 1.
        column: u64,
    },
    /// An element of a JSON array, by its place only, from 0.
    Entry(usize),
    /// A line and byte column, from 1 (said inside an [`ArrayFault`]'s
    /// sentence).
    Position {
        /// The line.
        line: u64,
        /// The byte column.
        column: u64,
    },
    /// While the input was being read (an IO failure's place).
    Input,
    /// The event of a capture at this place, from 0, counted over the
    /// whole capture.
    Event(usize),
}

impl ReadError {
    /// An error of `kind`, with no place yet.
    pub fn new(kind: ReadKind) -> ReadError {
        ReadError {
            kind,
            at: Vec::new(),
        }
    }

    /// What kind of fault it is.
    pub fn kind(&self) -> &ReadKind {
        &self.kind
    }

    /// Where it was found, outermost first (the file, then the line).
    pub fn at(&self) -> &[Place] {
        &self.at
    }

    /// The same error, found inside `place` (a reader adds where it was
    /// around what the reader below it found).
    pub fn within(mut self, place: Place) -> ReadError {
        self.at.insert(0, place);
        self
    }

    /// The file it was found in, when the reader named one.
    pub fn file(&self) -> Option<&str> {
        self.at.iter().find_map(|p| match p {
            Place::File(name) => Some(name.as_str()),
            Place::TheFile => Some("the file"),
            _ => None,
        })
    }

    /// The line of the innermost place that has one, from 1.
    pub fn line(&self) -> Option<u64> {
        self.at.iter().rev().find_map(|p| match p {
            Place::Line(line)
            | Place::SseEvent { ends_at: line }
            | Place::Element { line, .. }
            | Place::Position { line, .. } => Some(*line),
            _ => None,
        })
    }

    /// An IO failure while reading the input.
    pub fn io(e: &std::io::Error) -> ReadError {
        ReadError::new(ReadKind::Io {
            kind: e.kind(),
            message: e.to_string(),
        })
    }
}

impl From<ReadKind> for ReadError {
    fn from(kind: ReadKind) -> ReadError {
        ReadError::new(kind)
    }
}

/// The message, for callers that only report it (the CLI's `reduce`,
/// whose elements' faults are its own text).
impl From<ReadError> for String {
    fn from(e: ReadError) -> String {
        e.to_string()
    }
}

impl std::error::Error for ReadError {}

impl fmt::Display for ReadError {
    /// Each place around the fault as a prefix (`file 2: line 3: …`),
    /// except the innermost when the fault's own sentence says it (`line 3
    /// is longer than …`, `expected `[` at line 1 column 1`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (said, outer) = match self.at.split_last() {
            Some((last, outer)) if self.kind.says(last) => (Some(last), outer),
            _ => (None, &self.at[..]),
        };
        for place in outer {
            write!(f, "{place}: ")?;
        }
        match said {
            Some(place) => self.kind.fmt_at(f, place),
            None => write!(f, "{}", self.kind),
        }
    }
}

impl ReadKind {
    /// Whether the kind's sentence says `place` itself.
    fn says(&self, place: &Place) -> bool {
        matches!(
            (self, place),
            (ReadKind::NotUtf8 { .. }, Place::TheFile)
                | (
                    ReadKind::TooLong {
                        unit: Unit::Line,
                        ..
                    },
                    Place::Line(_)
                )
                | (ReadKind::NotACapture, Place::Line(_))
                | (ReadKind::Event(EventFault::NotAnObject), Place::Event(_))
                | (ReadKind::Array(_), Place::Position { .. })
        )
    }

    /// The sentence that says `place` (one [`Self::says`]).
    fn fmt_at(&self, f: &mut fmt::Formatter<'_>, place: &Place) -> fmt::Result {
        match (self, place) {
            (ReadKind::NotUtf8 { byte }, Place::TheFile) => {
                f.write_str("the file is ")?;
                not_utf8(f, *byte)
            }
            (ReadKind::TooLong { limit, .. }, Place::Line(n)) => {
                write_too_long(f, &format!("line {n}"), *limit)
            }
            (ReadKind::NotACapture, Place::Line(n)) => write!(
                f,
                "line {n} is neither JSON nor an SSE field: not a capture this lab reads"
            ),
            (ReadKind::Array(fault), Place::Position { line, column }) => {
                fault.fmt_at(f, &format!("line {line} column {column}"))
            }
            (ReadKind::Event(EventFault::NotAnObject), Place::Event(n)) => {
                write!(f, "event {n} is not a JSON object")
            }
            _ => write!(f, "{place}: {self}"),
        }
    }
}

fn not_utf8(f: &mut fmt::Formatter<'_>, byte: Option<usize>) -> fmt::Result {
    match byte {
        Some(byte) => write!(f, "not UTF-8 text (byte {byte})"),
        None => f.write_str("not UTF-8 text"),
    }
}

fn write_too_long(f: &mut fmt::Formatter<'_>, what: &str, limit: usize) -> fmt::Result {
    write!(
        f,
        "{what} is longer than {limit} bytes: no A2A event is that large"
    )
}

impl fmt::Display for ReadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadKind::NotUtf8 { byte } => not_utf8(f, *byte),
            ReadKind::TooDeep { limit } => write!(f, "JSON nested deeper than {limit} levels"),
            ReadKind::Malformed { message, .. } => write!(f, "malformed JSON: {message}"),
            ReadKind::TooLong { unit, limit } => write_too_long(f, &unit.to_string(), *limit),
            ReadKind::TooLarge { size, limit } => match size {
                Size::Arriving => write!(
                    f,
                    "more than {limit} bytes; the page reads at most that (the a2a-lab CLI reads captures of any size)"
                ),
                Size::File(n) => write!(f, "the file has {n} bytes; the lab reads at most {limit}"),
                Size::Files(n) => write!(
                    f,
                    "the files have {n} bytes together; the lab reads at most {limit}"
                ),
            },
            ReadKind::Io { message, .. } => f.write_str(message),
            ReadKind::NotSse { line } => write!(f, "`{line}` is not a line of an SSE stream"),
            ReadKind::NotACapture => f.write_str(
                "a line is neither JSON nor an SSE field: not a capture this lab reads",
            ),
            ReadKind::Array(fault) => fault.fmt_at(f, "an unknown place"),
            ReadKind::NoEvents { files } if files.is_empty() => {
                f.write_str("no A2A events: no file was given")
            }
            ReadKind::NoEvents { files } => write!(f, "no A2A events in {}", files.join(", ")),
            ReadKind::Event(fault) => write!(f, "{fault}"),
            ReadKind::Card(fault) => write!(f, "{fault}"),
            ReadKind::Export(fault) => write!(f, "{fault}"),
            ReadKind::ProbeJson(fault) => write!(f, "a probe.json that cannot be read: {fault}"),
            ReadKind::NotProbeJson(fault) => write!(f, "not a probe.json: {fault}"),
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unit::SseEvent => "an SSE event",
            Unit::SseLine => "an SSE line",
            Unit::Line => "a line",
            Unit::ArrayElement => "an array element",
        })
    }
}

impl ArrayFault {
    /// The sentence, found `at` (`line 1 column 4`).
    fn fmt_at(self, f: &mut fmt::Formatter<'_>, at: &str) -> fmt::Result {
        match self {
            ArrayFault::Empty => f.write_str("empty input: expected `[`"),
            ArrayFault::ExpectedOpen => write!(f, "expected `[` at {at}"),
            ArrayFault::ExpectedElement => write!(f, "expected an element at {at}"),
            ArrayFault::AfterArray => write!(f, "unexpected characters after the array at {at}"),
            ArrayFault::Unclosed => {
                write!(f, "the input ends inside the array (at {at}): expected `]`")
            }
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::File(name) => f.write_str(name),
            Place::TheFile => f.write_str("the file"),
            Place::Event(n) => write!(f, "event {n}"),
            Place::Line(n) => write!(f, "line {n}"),
            Place::SseEvent { ends_at } => write!(f, "SSE event ending at line {ends_at}"),
            Place::Element {
                index,
                line,
                column,
            } => write!(f, "element {index} (line {line}, column {column})"),
            Place::Entry(index) => write!(f, "element {index}"),
            Place::Position { line, column } => write!(f, "line {line} column {column}"),
            Place::Input => f.write_str("reading the input"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_wrap_the_fault_and_the_innermost_is_said_where_the_sentence_says_it() {
        let e = ReadError::new(ReadKind::TooLong {
            unit: Unit::Line,
            limit: 9,
        })
        .within(Place::Line(3))
        .within(Place::File("b.sse".into()));
        assert_eq!(
            e.to_string(),
            "b.sse: line 3 is longer than 9 bytes: no A2A event is that large"
        );
        assert_eq!((e.file(), e.line()), (Some("b.sse"), Some(3)));
        let e =
            ReadError::new(ReadKind::TooDeep { limit: 128 }).within(Place::SseEvent { ends_at: 2 });
        assert_eq!(
            e.to_string(),
            "SSE event ending at line 2: JSON nested deeper than 128 levels"
        );
        let e = ReadError::new(ReadKind::Array(ArrayFault::Unclosed))
            .within(Place::Position { line: 1, column: 3 });
        assert_eq!(
            e.to_string(),
            "the input ends inside the array (at line 1 column 3): expected `]`"
        );
        // A named file is always a prefix; only the unnamed one is said.
        let e = ReadError::new(ReadKind::NotUtf8 { byte: Some(4) });
        assert_eq!(
            e.clone().within(Place::TheFile).to_string(),
            "the file is not UTF-8 text (byte 4)"
        );
        assert_eq!(
            e.within(Place::File("log.jsonl".into())).to_string(),
            "log.jsonl: not UTF-8 text (byte 4)"
        );
    }
}
