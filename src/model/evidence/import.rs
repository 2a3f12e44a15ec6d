//! The page's Import, a chunk at a time: the files the user chose or
//! dropped arrive in slices (so that a big capture never freezes the page),
//! and each slice is read as it comes. One file that opens like a lab
//! export is kept whole and read as one at the end; anything else is a
//! capture, streamed through the capture reader.

use serde_json::Value;

use super::capture::{CaptureReader, CaptureReport};
use super::check::{import_export, Report};
use super::export::MAX_FILE_BYTES;
use super::finding::check_depth;
use super::probe::report::{ProbeReport, PROBE_FORMAT};
use crate::model::sim::scenario::Scenario;
use crate::model::wire::read_error::{ExportFault, Place, ReadError, ReadKind, Size};

/// How far into a file the reader looks to tell an export from a capture:
/// an export's first line is `{`, or names its `format`.
const HEAD_BYTES: usize = 4096;

/// Files read in order as one import: [`Importer::feed`] each file's bytes
/// in chunks, [`Importer::end_file`] after each file, then
/// [`Importer::finish`]. After an error the import is over.
pub struct Importer {
    /// The files' names, in the order read, for messages.
    names: Vec<String>,
    /// Files ended so far.
    ended: usize,
    /// Bytes fed so far, over all files.
    bytes: usize,
    /// Whether any byte but whitespace was fed.
    content: bool,
    mode: Mode,
}

enum Mode {
    /// One file whose first bytes do not yet tell an export from a capture.
    Head(Vec<u8>),
    /// One file kept whole: an export (or too short to tell).
    Document(Vec<u8>),
    /// A capture, read as it arrives.
    Capture(Box<CaptureReader>),
}

impl Importer {
    /// An import of `files` files, named `file 1`, `file 2`… in messages.
    pub fn new(files: usize) -> Importer {
        Importer::named((1..=files).map(|i| format!("file {i}")).collect())
    }

    /// An import of the files `names`, in that order.
    pub fn named(names: Vec<String>) -> Importer {
        let mode = if names.len() == 1 {
            Mode::Head(Vec::new())
        } else {
            Mode::Capture(Box::new(capture_reader()))
        };
        Importer {
            names,
            ended: 0,
            bytes: 0,
            content: false,
            mode,
        }
    }

    /// The next bytes of the current file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        self.bytes = self.bytes.saturating_add(chunk.len());
        if self.bytes > MAX_FILE_BYTES {
            return Err(too_large(Size::Arriving));
        }
        self.content = self.content || chunk.iter().any(|b| !b.is_ascii_whitespace());
        match &mut self.mode {
            Mode::Head(head) => {
                // Blanks before the first character tell nothing and are
                // not kept (a file of blanks must not fill the memory).
                let chunk = if head.is_empty() {
                    chunk.trim_ascii_start()
                } else {
                    chunk
                };
                head.extend_from_slice(chunk);
                match looks_like_export(head) {
                    None => Ok(()),
                    Some(true) => {
                        self.mode = Mode::Document(std::mem::take(head));
                        Ok(())
                    }
                    Some(false) => {
                        let head = std::mem::take(head);
                        let mut reader = Box::new(capture_reader());
                        let fed = reader.feed(&head);
                        self.mode = Mode::Capture(reader);
                        fed
                    }
                }
            }
            Mode::Document(all) => {
                all.extend_from_slice(chunk);
                Ok(())
            }
            Mode::Capture(reader) => {
                let fed = reader.feed(chunk);
                fed.map_err(|e| self.in_file(e))
            }
        }
    }

    /// The current file ended.
    pub fn end_file(&mut self) -> Result<(), ReadError> {
        let ended = match &mut self.mode {
            Mode::Head(head) => {
                // Too short to tell: read whole, as an export or not.
                self.mode = Mode::Document(std::mem::take(head));
                Ok(())
            }
            Mode::Document(_) => Ok(()),
            Mode::Capture(reader) => reader.end_file(),
        };
        let ended = ended.map_err(|e| self.in_file(e));
        self.ended += 1;
        ended
    }

    /// What the files were: an export re-simulated, or a capture judged,
    /// its tasks with a finding explained. A file that holds no A2A event
    /// is refused by name: nothing was checked in it.
    pub fn finish(self) -> Result<Imported, ReadError> {
        self.finish_unexplained().map(Imported::explained)
    }

    /// [`Importer::finish`] with a capture's tasks not yet explained, their
    /// events kept: the page explains a task when the user opens it
    /// ([`Explaining`](super::capture::explaining::Explaining)).
    pub fn finish_unexplained(self) -> Result<Imported, ReadError> {
        // The one file, by its name (none when no file was given).
        let no_events = || {
            let files = self.names.first().cloned().into_iter().collect();
            ReadError::new(ReadKind::NoEvents { files })
        };
        match self.mode {
            Mode::Head(_) | Mode::Document(_) if !self.content => Err(no_events()),
            Mode::Head(bytes) | Mode::Document(bytes) => match read_bytes(&bytes) {
                Err(e) if matches!(e.kind(), ReadKind::NoEvents { .. }) => Err(no_events()),
                imported => imported,
            },
            Mode::Capture(reader) => reader.finish_checked(&self.names).map(Imported::Capture),
        }
    }

    /// Names the file an error is in, when there are several.
    fn in_file(&self, e: ReadError) -> ReadError {
        match self.names.get(self.ended) {
            Some(name) if self.names.len() > 1 => e.within(Place::File(name.clone())),
            _ => e,
        }
    }
}

/// The page's capture reader: it keeps each task's rows for the views,
/// and its events, to explain a task with a finding by a scenario.
fn capture_reader() -> CaptureReader {
    CaptureReader::new(None).keeping_rows().keeping_events()
}

/// Whether a file starting with `head` (from its first non-blank byte) is
/// a lab export: pretty-printed, so its first line is `{`, or one line
/// naming its `format` early. `None` until the first line is in or enough
/// was read to tell.
pub fn looks_like_export(head: &[u8]) -> Option<bool> {
    let bom = "\u{feff}".as_bytes();
    if bom.starts_with(head) {
        // Nothing, or part of a byte-order mark: wait for more.
        return None;
    }
    let text = head.strip_prefix(bom).unwrap_or(head);
    let text = text.trim_ascii_start();
    match text.first() {
        Some(b'{') => {}
        Some(_) => return Some(false),
        None => return (head.len() >= HEAD_BYTES).then_some(false),
    }
    let line_end = text.iter().position(|&b| b == b'\n');
    if line_end.is_none() && text.len() < HEAD_BYTES {
        return None;
    }
    let first = text
        .get(..line_end.unwrap_or(text.len()).min(HEAD_BYTES))
        .unwrap_or_default();
    Some(first.trim_ascii() == b"{" || first.windows(8).any(|w| w == b"\"format\""))
}

/// A file the page or the CLI was given, understood.
#[derive(Debug, Clone, PartialEq)]
pub enum Imported {
    /// A lab export: its scenario and whether it re-simulates to itself.
    Export {
        /// The inputs it was made from.
        scenario: Scenario,
        /// Differences against a fresh simulation (empty when it matches).
        report: Report,
    },
    /// A capture of real traffic, judged task by task (SPEC §8).
    Capture(CaptureReport),
    /// What `a2a-lab probe` found, with what each probe received (SPEC §10).
    Probe(ProbeReport),
}

impl Imported {
    /// The same, a capture's tasks with a finding explained at once.
    fn explained(self) -> Imported {
        match self {
            Imported::Capture(report) => Imported::Capture(report.explained()),
            other => other,
        }
    }
}

fn too_large(size: Size) -> ReadError {
    ReadError::new(ReadKind::TooLarge {
        size,
        limit: MAX_FILE_BYTES,
    })
}

/// How [`import_bytes`] names the file it was given.
const THE_FILE: &str = "the file";

/// That the file holds no A2A event.
fn no_events_in_the_file() -> ReadError {
    ReadError::new(ReadKind::NoEvents {
        files: vec![THE_FILE.to_string()],
    })
}

/// Reads a file of any kind the lab accepts. A file that is not an export
/// and holds no A2A event is refused ([`ReadKind::NoEvents`]): nothing was
/// checked. A capture's tasks with a finding are explained.
pub fn import_bytes(bytes: &[u8]) -> Result<Imported, ReadError> {
    read_bytes(bytes).map(Imported::explained)
}

/// [`import_bytes`] with a capture's tasks not yet explained: its report
/// keeps the events it read for [`Explaining`](super::capture::explaining::Explaining).
fn read_bytes(bytes: &[u8]) -> Result<Imported, ReadError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(too_large(Size::File(bytes.len())));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let byte = Some(e.valid_up_to());
        ReadError::new(ReadKind::NotUtf8 { byte }).within(Place::TheFile)
    })?;
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return Err(no_events_in_the_file());
    }
    if trimmed.starts_with('{') {
        // One JSON document is an export, or a capture of a single event;
        // anything else starting with `{` is JSON Lines.
        check_depth(trimmed.as_bytes())?;
        if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
            let Value::Object(ref map) = value else {
                unreachable!("a document starting with {{ is an object")
            };
            if map.get("format").and_then(Value::as_str) == Some(PROBE_FORMAT) {
                return ProbeReport::from_value(value).map(Imported::Probe);
            }
            if map.contains_key("format") {
                return import_export(value)
                    .map(|(scenario, report)| Imported::Export { scenario, report });
            }
            let event_like = ["jsonrpc", "result", "error", "kind"]
                .iter()
                .any(|k| map.contains_key(*k))
                || map.len() == 1;
            if !event_like {
                return Err(ReadError::new(ReadKind::Export(ExportFault::NoFormat)));
            }
        }
    }
    let mut reader = capture_reader();
    reader.read_bytes(bytes)?;
    reader
        .finish_checked(&[THE_FILE])
        .map(Imported::Capture)
        .map_err(|_| no_events_in_the_file())
}

/// `check` of one exported file: its differences from a fresh simulation.
pub fn check_bytes(bytes: &[u8]) -> Result<Report, ReadError> {
    let not = |fault| Err(ReadError::new(ReadKind::Export(fault)));
    match import_bytes(bytes)? {
        Imported::Export { report, .. } => Ok(report),
        Imported::Capture(_) => not(ExportFault::Capture),
        Imported::Probe(_) => not(ExportFault::ProbeJson),
    }
}
