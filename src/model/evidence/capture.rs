//! The reader of real traffic (SPEC §8): what `a2a-lab check` and the
//! page's Import make of a capture from a real agent. One or more files, read
//! in order as one capture (a dropped stream, then its SubscribeToTask
//! stream); each a raw SSE body, JSON Lines or a JSON array of JSON-RPC
//! responses or bare events, on the A2A 1.0 or 0.3 wire, with the requests
//! the client sent where the capture kept them (a session of the lab).
//! Events are grouped by task and each task is judged by its own ledger; a
//! request is no event, and one that continues a task holds the answers
//! after it to that task.
//!
//! The reader streams: it takes a file in chunks of any size (the CLI's
//! reads, the page's slices of a file), reads each line where it lies in
//! the chunk, and holds only the line or array element that straddles two
//! chunks, a ledger per task still open, and the final state of a finished
//! task, so memory grows with the tasks still open, not with the file.
//! Judging is in `judge`, what it reports in [`report`], a captured task
//! as a run for the page's views in [`run`].

use std::io::Read;

use memchr::memchr;

pub mod explaining;
pub mod gate;
mod judge;
pub mod report;
pub mod run;
mod task;

use super::json_array::{Element, Splitter};
#[cfg(not(target_arch = "wasm32"))]
use crate::model::evidence::scenario_of::ScenarioOf;
use crate::model::wire::read_error::{Place, ReadError, ReadKind, Unit};
use crate::model::wire::signs::SseFraming;
use crate::model::wire::sse::{trim_eol, SseDecoder, SseLine};
#[cfg(not(target_arch = "wasm32"))]
use explaining::ExplainingAsRead;
use judge::CaptureJudge;
pub use report::{CaptureFinding, CaptureReport, RpcError, TaskSummary, WiresSeen};

/// The longest line (or SSE event) the reader takes; a longer one is
/// refused rather than held in memory.
pub const MAX_LINE_BYTES: usize = 16 << 20;

pub use crate::model::wire::Wire;

/// How much of a file the reader takes at a time from a [`Read`].
const READ_CHUNK: usize = 1 << 18;

/// Reads captures file by file and judges them as one. The input arrives
/// in chunks of any size ([`CaptureReader::feed`], then
/// [`CaptureReader::end_file`] after each file), or from a reader
/// ([`CaptureReader::read`]) or memory ([`CaptureReader::read_bytes`]),
/// which feed it the same way; [`CaptureReader::finish`] gives the report.
/// After an error the capture is bad input: the reader is not fed again.
pub struct CaptureReader {
    framing: Framing,
    judge: CaptureJudge,
    /// Files ended so far, and which of them held no A2A event.
    files: usize,
    empty_files: Vec<usize>,
    /// The judge's event count when the current file began.
    answers_before_file: u64,
}

/// How the current file is cut into elements, known from its first
/// character.
enum Framing {
    /// Only whitespace so far: how many bytes, and where the last line
    /// starts (an array's positions count them).
    Start {
        read: u64,
        line: u64,
        line_start: u64,
    },
    /// JSON Lines or an SSE body.
    Lines(Lines),
    /// A JSON array.
    Array(Splitter),
}

impl Framing {
    const START: Framing = Framing::Start {
        read: 0,
        line: 1,
        line_start: 0,
    };
}

/// JSON Lines or SSE, a line at a time; a line is read where it lies in
/// the chunk, and only one that straddles two chunks is copied. What an
/// SSE line means is the wire's SSE decoder's to say.
#[derive(Default)]
struct Lines {
    /// The start of a line begun in an earlier chunk.
    carry: Vec<u8>,
    /// The SSE event being read.
    sse: SseDecoder,
    /// Lines read, from the file's first non-blank character.
    number: u64,
}

/// The most events a capture may hold for the page to explain its tasks
/// with findings by a scenario: the page keeps every event as read, so a
/// capture past this is judged but not explained there (`check` reads a
/// capture again instead: [`CaptureReader::explaining`]).
pub const EXPLAIN_AT_MOST: usize = 100_000;

/// The most events `check` keeps from its first reading of a capture to
/// explain its tasks with findings without reading the files again: a
/// capture past this is read a second time, keeping only those tasks, so
/// that memory stays bounded whatever the capture's length (SPEC §8).
pub const CHECK_KEEPS_AT_MOST: usize = 10_000;

impl CaptureReader {
    /// A reader; `forced` reads every event as that wire (`--wire`).
    pub fn new(forced: Option<Wire>) -> CaptureReader {
        CaptureReader {
            framing: Framing::START,
            judge: CaptureJudge::new(forced),
            files: 0,
            empty_files: Vec::new(),
            answers_before_file: 0,
        }
    }

    /// Also keeps every task's events as read (to explain a task by a
    /// scenario; memory then grows with the capture, up to
    /// [`EXPLAIN_AT_MOST`] events).
    pub fn keeping_events(self) -> CaptureReader {
        self.keeping_events_up_to(EXPLAIN_AT_MOST)
    }

    /// Keeps every task's events as read while the capture holds at most
    /// `events` of them; past that, none (the report then holds no events,
    /// and a caller that needs them reads the capture again).
    pub fn keeping_events_up_to(mut self, events: usize) -> CaptureReader {
        self.judge.keep_events = true;
        self.judge.keep_at_most = events.min(EXPLAIN_AT_MOST);
        self
    }

    /// A reader of the capture again, only to explain the tasks of
    /// `report` (the first reading's) that have a finding, each once its
    /// last event is read ([`ExplainingAsRead`]); it judges nothing, and
    /// memory grows with the tasks open at once.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn explaining(forced: Option<Wire>, report: &CaptureReport) -> CaptureReader {
        let mut reader = CaptureReader::new(forced);
        reader.judge.again = Some(Box::new(ExplainingAsRead::new(report)));
        reader
    }

    /// What a reader made by [`Self::explaining`] explained: each task by
    /// its place in the report.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn explained(self) -> Vec<(usize, ScenarioOf)> {
        self.judge.again.map(|a| a.finish()).unwrap_or_default()
    }

    /// Also keeps every task's events as trace rows (for the page, which
    /// shows them; memory then grows with the capture).
    pub fn keeping_rows(mut self) -> CaptureReader {
        self.judge.keep_rows = true;
        self
    }

    /// Reads one file of the capture from `input`, a chunk at a time.
    pub fn read(&mut self, mut input: impl Read) -> Result<(), ReadError> {
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => return self.end_file(),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ReadError::io(&e)),
            };
            self.feed(&buf[..n])?;
        }
    }

    /// Reads one file already in memory.
    pub fn read_bytes(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        self.feed(bytes)?;
        self.end_file()
    }

    /// Reads the next bytes of the current file: a JSON array, JSON Lines
    /// or an SSE body, told apart by the file's first character and, for a
    /// line that is not JSON, by its `data:` lines. Every element completed
    /// in them is judged now; the one still open waits for the next chunk.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), ReadError> {
        let Self { framing, judge, .. } = self;
        let mut chunk = chunk;
        if let Framing::Start {
            read,
            line,
            line_start,
        } = framing
        {
            let at = chunk.iter().position(|b| !b" \t\r\n".contains(b));
            let blank = &chunk[..at.unwrap_or(chunk.len())];
            for (i, _) in blank.iter().enumerate().filter(|(_, &b)| b == b'\n') {
                *line += 1;
                *line_start = *read + i as u64 + 1;
            }
            let Some(at) = at else {
                *read += chunk.len() as u64;
                return Ok(());
            };
            let read = *read + at as u64;
            chunk = &chunk[at..];
            *framing = if chunk.first() == Some(&b'[') {
                Framing::Array(Splitter::after_whitespace(read, *line, *line_start))
            } else {
                Framing::Lines(Lines::default())
            };
        }
        match framing {
            Framing::Start { .. } => Ok(()),
            Framing::Lines(lines) => lines.feed(chunk, judge),
            Framing::Array(splitter) => {
                splitter.feed(chunk, &mut |buf: &[u8], elements: &[Element]| {
                    for element in elements {
                        // The splitter hands out spans of the buffer it passes.
                        let bytes = &buf[element.start..element.end];
                        judge.element(bytes).map_err(|e| {
                            e.within(Place::Element {
                                index: element.index,
                                line: element.line,
                                column: element.column,
                            })
                        })?;
                    }
                    Ok::<_, ReadError>(())
                })?;
                if splitter.pending() > MAX_LINE_BYTES {
                    return Err(too_long(Unit::ArrayElement));
                }
                Ok(())
            }
        }
    }

    /// The current file ended: its last line or SSE event is judged, and a
    /// JSON array must have been closed. The next chunk starts a new file.
    pub fn end_file(&mut self) -> Result<(), ReadError> {
        let ended = match std::mem::replace(&mut self.framing, Framing::START) {
            Framing::Start { .. } => Ok(()),
            Framing::Lines(mut lines) => lines.end(&mut self.judge),
            Framing::Array(splitter) => splitter.finish().map(drop),
        };
        self.judge.file_ended();
        let events = self.judge.answers_read();
        if events == self.answers_before_file {
            self.empty_files.push(self.files);
        }
        self.answers_before_file = events;
        self.files += 1;
        ended
    }

    /// The report: every task's end state, and `missing-terminal` for a
    /// task whose last stream ended while it was neither terminal nor
    /// interrupted.
    pub fn finish(self) -> CaptureReport {
        self.judge.finish()
    }

    /// The report of what was read so far, the reader going on (a live
    /// session's): as [`Self::finish`] would say it, but a task is found
    /// `missing-terminal` only when `ended` (its stream closed). It copies
    /// what the tasks kept, so it costs what they hold: the page asks for
    /// it once per painted frame at most, never once per event.
    pub fn so_far(&self, ended: bool) -> CaptureReport {
        self.judge.so_far(ended)
    }

    /// The report, unless a file held no A2A event: nothing was checked
    /// there (an empty file, blanks, SSE comments, JSON without an event,
    /// JSON-RPC errors alone), and a capture step that failed must not
    /// read as clean. `names` are the files' names, in the order read.
    pub fn finish_checked<S: AsRef<str>>(self, names: &[S]) -> Result<CaptureReport, ReadError> {
        if self.empty_files.is_empty() {
            return Ok(self.finish());
        }
        let files: Vec<String> = self
            .empty_files
            .iter()
            .map(|&i| match names.get(i) {
                Some(name) => name.as_ref().to_string(),
                None => format!("file {}", i + 1),
            })
            .collect();
        Err(ReadError::new(ReadKind::NoEvents { files }))
    }
}

fn too_long(unit: Unit) -> ReadError {
    ReadError::new(ReadKind::TooLong {
        unit,
        limit: MAX_LINE_BYTES,
    })
}

impl Lines {
    /// Judges every line the chunk completes and keeps the one it leaves
    /// open.
    fn feed(&mut self, mut chunk: &[u8], judge: &mut CaptureJudge) -> Result<(), ReadError> {
        if !self.carry.is_empty() {
            let Some(end) = memchr(b'\n', chunk) else {
                return self.keep(chunk);
            };
            let mut line = std::mem::take(&mut self.carry);
            line.extend_from_slice(&chunk[..=end]);
            let result = self.line(&line, judge);
            line.clear();
            self.carry = line;
            result?;
            chunk = &chunk[end + 1..];
        }
        while let Some(end) = memchr(b'\n', chunk) {
            self.line(&chunk[..=end], judge)?;
            chunk = &chunk[end + 1..];
        }
        self.keep(chunk)
    }

    /// Holds the start of a line until its end arrives, up to the limit.
    fn keep(&mut self, part: &[u8]) -> Result<(), ReadError> {
        self.carry.extend_from_slice(part);
        if self.carry.len() > MAX_LINE_BYTES {
            return Err(self.too_long(self.number + 1));
        }
        Ok(())
    }

    fn too_long(&self, number: u64) -> ReadError {
        too_long(Unit::Line).within(Place::Line(number))
    }

    /// The file ended: its last line, then the SSE event it leaves open.
    fn end(&mut self, judge: &mut CaptureJudge) -> Result<(), ReadError> {
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.line(&line, judge)?;
        }
        self.number += 1;
        self.end_event(judge)
    }

    /// One line, with its line end: a JSON Lines element, or a line of an
    /// SSE body (the decoder joins an event's `data` lines; a blank line
    /// ends the event).
    fn line(&mut self, line: &[u8], judge: &mut CaptureJudge) -> Result<(), ReadError> {
        self.number += 1;
        let text = trim_eol(line);
        if text.len() > MAX_LINE_BYTES {
            return Err(self.too_long(self.number));
        }
        let number = self.number;
        if matches!(text.first(), Some(b'{' | b'[')) {
            judge.sse = None;
            return judge
                .element(text)
                .map_err(|e| e.within(Place::Line(number)));
        }
        match self.sse.line(text)? {
            SseLine::Read => Ok(()),
            SseLine::Event { data, id } => {
                // How the server framed the event: signs of the SDK.
                judge.sse = Some(SseFraming {
                    crlf: line.ends_with(b"\r\n"),
                    id,
                });
                judge
                    .element(data)
                    .map_err(|e| e.within(Place::SseEvent { ends_at: number }))
            }
            SseLine::NotSse => {
                Err(ReadError::new(ReadKind::NotACapture).within(Place::Line(number)))
            }
        }
    }

    /// The end of the file: the SSE event it leaves open.
    fn end_event(&mut self, judge: &mut CaptureJudge) -> Result<(), ReadError> {
        let number = self.number;
        judge.sse = None;
        match self.sse.end() {
            Some(data) => judge
                .element(data)
                .map_err(|e| e.within(Place::SseEvent { ends_at: number })),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::wire::event::parse_rfc3339_ms;
    use crate::model::wire::{timestamp, EPOCH_UNIX_MS};

    #[test]
    fn rfc3339_timestamps_read_as_the_wire_writes_them() {
        assert_eq!(parse_rfc3339_ms(&timestamp(0)), Some(EPOCH_UNIX_MS));
        assert_eq!(
            parse_rfc3339_ms(&timestamp(1234)),
            Some(EPOCH_UNIX_MS + 1234)
        );
        // Microseconds (a2a-sdk) keep their milliseconds; an offset counts.
        assert_eq!(
            parse_rfc3339_ms("2026-11-02T10:00:00.123456Z"),
            Some(EPOCH_UNIX_MS + 123)
        );
        assert_eq!(
            parse_rfc3339_ms("2026-11-02T11:00:00+01:00"),
            Some(EPOCH_UNIX_MS)
        );
        assert_eq!(parse_rfc3339_ms("2026-11-02 10:00:00Z"), None);
        assert_eq!(parse_rfc3339_ms("soon"), None);
    }
}
