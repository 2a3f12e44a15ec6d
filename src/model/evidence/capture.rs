//! The reader of real traffic (SPEC §8): what `a2a-lab check` and the
//! page's Import make of a capture from a real agent. One or more files, read
//! in order as one capture (a dropped stream, then its SubscribeToTask
//! stream); each a raw SSE body, JSON Lines or a JSON array of JSON-RPC
//! responses or bare events, on the A2A 1.0 or 0.3 wire. Events are grouped
//! by task and each task is judged by its own ledger.
//!
//! The reader streams: it holds one line (or one array element) of input at
//! a time, a ledger per task still open, and only the final state of a
//! finished task, so memory grows with the tasks still open, not with the
//! file.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

pub use crate::model::evidence::capture_report::{
    CaptureFinding, CaptureReport, RpcError, TaskSummary,
};
use crate::model::evidence::capture_wire::{
    parse, read_event, timestamp_ms, RawEvent, What, WireEvent,
};
use crate::model::evidence::check::{check_depth, FindingCode};
use crate::model::evidence::json_array;
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::{BodyRef, Decision, EventRef, Outcome, Reason, TaskLedger};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Row, Source};

/// The longest line (or SSE event) the reader takes; a longer one is
/// refused rather than held in memory.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// An A2A wire version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Wire {
    /// A2A 1.0: ProtoJSON wrappers, `TASK_STATE_*`.
    #[serde(rename = "1.0")]
    V1_0,
    /// A2A 0.3: flat events tagged `kind`, kebab-case states, `final`.
    #[serde(rename = "0.3")]
    V0_3,
}

impl Wire {
    /// Reads `1.0` or `0.3` (the CLI's `--wire`).
    pub fn parse(text: &str) -> Option<Wire> {
        match text {
            "1.0" => Some(Wire::V1_0),
            "0.3" => Some(Wire::V0_3),
            _ => None,
        }
    }

    /// How a state is spelled on this wire.
    pub fn spell(self, state: TaskState) -> &'static str {
        match self {
            Wire::V1_0 => state.wire(),
            Wire::V0_3 => state.kebab(),
        }
    }
}

/// One task's judge: its ledger while open, the parts the client holds.
struct TaskJudge {
    id: String,
    ledger: Option<Box<TaskLedger>>,
    /// The state once terminal (the ledger is then dropped).
    closed: Option<TaskState>,
    /// Per artifact, the next part number the client expects.
    held: HashMap<String, u32>,
    events: u32,
    findings: u32,
    last_index: usize,
    wire: Wire,
    /// The task's events as trace rows, when kept.
    rows: Vec<Row>,
    /// Milliseconds of the first status timestamp, the origin of `t_ms`.
    origin_ms: Option<u64>,
}

impl TaskJudge {
    fn state(&self) -> TaskState {
        self.closed
            .or_else(|| self.ledger.as_ref().map(|l| l.state()))
            .unwrap_or(TaskState::Submitted)
    }
}

/// Reads captures file by file and judges them as one.
pub struct CaptureReader {
    forced: Option<Wire>,
    keep_rows: bool,
    tasks: Vec<TaskJudge>,
    by_id: HashMap<String, usize>,
    findings: Vec<CaptureFinding>,
    errors: Vec<RpcError>,
    index: usize,
    seen_1_0: bool,
    seen_0_3: bool,
}

impl CaptureReader {
    /// A reader; `forced` reads every event as that wire (`--wire`).
    pub fn new(forced: Option<Wire>) -> CaptureReader {
        CaptureReader {
            forced,
            keep_rows: false,
            tasks: Vec::new(),
            by_id: HashMap::new(),
            findings: Vec::new(),
            errors: Vec::new(),
            index: 0,
            seen_1_0: false,
            seen_0_3: false,
        }
    }

    /// Also keeps every task's events as trace rows (for the page, which
    /// shows them; memory then grows with the capture).
    pub fn keeping_rows(mut self) -> CaptureReader {
        self.keep_rows = true;
        self
    }

    /// Reads one file of the capture: a JSON array, JSON Lines or an SSE
    /// body, told apart by its first character and, for a line that is not
    /// JSON, by its `data:` lines.
    pub fn read(&mut self, input: impl Read) -> Result<(), String> {
        let mut input = BufReader::with_capacity(1 << 16, input);
        let first = loop {
            let buf = input.fill_buf().map_err(|e| e.to_string())?;
            match buf.iter().position(|b| !b" \t\r\n".contains(b)) {
                Some(at) => {
                    let b = buf[at];
                    input.consume(at);
                    break Some(b);
                }
                None if buf.is_empty() => break None,
                None => {
                    let n = buf.len();
                    input.consume(n);
                }
            }
        };
        match first {
            None => Ok(()),
            Some(b'[') => self.read_array(input),
            Some(_) => self.read_lines(input),
        }
    }

    /// Reads one file already in memory (the page's Import): the same as
    /// [`CaptureReader::read`], without the streaming array splitter, which
    /// the page's bundle then need not carry.
    pub fn read_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        let start = bytes.iter().position(|b| !b" \t\r\n".contains(b));
        match start.map(|at| (at, bytes[at])) {
            None => Ok(()),
            Some((at, b'[')) => {
                let elements: Vec<&RawValue> = parse(&bytes[at..])?;
                for (i, element) in elements.iter().enumerate() {
                    self.element(element.get().as_bytes())
                        .map_err(|e| format!("element {i}: {e}"))?;
                }
                Ok(())
            }
            Some((at, _)) => self.read_lines(&bytes[at..]),
        }
    }

    fn read_array(&mut self, input: impl Read) -> Result<(), String> {
        json_array::split(input, |buf, elements| {
            for element in elements {
                let bytes = buf.get(element.start..element.end).unwrap_or_default();
                self.element(bytes).map_err(|e| {
                    format!(
                        "element {} (line {}, column {}): {e}",
                        element.index, element.line, element.column
                    )
                })?;
            }
            Ok(())
        })
        .map(|_| ())
    }

    /// JSON Lines, or SSE: `data:` lines joined with a newline make one
    /// event; a blank line ends it; comments and other fields are skipped.
    fn read_lines(&mut self, mut input: impl BufRead) -> Result<(), String> {
        let mut line = Vec::new();
        let mut data: Vec<u8> = Vec::new();
        let mut has_data = false;
        let mut number = 0u64;
        loop {
            line.clear();
            let n = (&mut input)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(|e| e.to_string())?;
            number += 1;
            if line.len() > MAX_LINE_BYTES || data.len() > MAX_LINE_BYTES {
                return Err(format!(
                    "line {number} is longer than {MAX_LINE_BYTES} bytes: no A2A event is that large"
                ));
            }
            let text = trim_eol(&line);
            if n == 0 || text.is_empty() {
                if has_data {
                    self.element(&data)
                        .map_err(|e| format!("SSE event ending at line {number}: {e}"))?;
                    data.clear();
                    has_data = false;
                }
                if n == 0 {
                    return Ok(());
                }
                continue;
            }
            if let Some(rest) = text.strip_prefix(b"data:") {
                if has_data {
                    data.push(b'\n');
                }
                data.extend_from_slice(rest.strip_prefix(b" ").unwrap_or(rest));
                has_data = true;
            } else if text[0] == b'{' || text[0] == b'[' {
                self.element(text)
                    .map_err(|e| format!("line {number}: {e}"))?;
            } else if text[0] == b':' || is_sse_field(text) {
                // A comment, `event:`, `id:` or `retry:`: not an event.
            } else {
                return Err(format!(
                    "line {number} is neither JSON nor an SSE field: not a capture this lab reads"
                ));
            }
        }
    }

    /// One element: a JSON-RPC response (its result, or its error) or a
    /// bare event. It is read into borrowed, typed fields; only the page,
    /// which keeps rows, builds a JSON value of it.
    fn element(&mut self, bytes: &[u8]) -> Result<(), String> {
        let index = self.index;
        self.index += 1;
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            check_depth(bytes)?;
            return Err(format!("event {index} is not a JSON object"));
        }
        // One pass: the line is a JSON-RPC response whose result is the
        // event, or the event itself.
        let line: RawEvent = parse(bytes)?;
        let typed: &RawEvent = if let Some(error) = &line.error {
            self.errors.push(RpcError {
                index,
                code: error.code,
                message: error.message.to_string(),
            });
            return Ok(());
        } else if let Some(result) = &line.result {
            result
        } else if line.jsonrpc.is_some() {
            return Err(format!(
                "event {index}: a JSON-RPC response with neither result nor error"
            ));
        } else {
            &line
        };
        let event = read_event(typed, self.forced).map_err(|e| format!("event {index}: {e}"))?;
        match event.wire {
            Wire::V1_0 => self.seen_1_0 = true,
            Wire::V0_3 => self.seen_0_3 = true,
        }
        // The event's identity is its A2A content, without the JSON-RPC
        // envelope (a resubscription answers under another request id).
        let id = typed.content_id();
        let wire_json = if self.keep_rows {
            let value: Value = parse(bytes)?;
            Some(match value.get("result") {
                Some(result) if line.result.is_some() => result.clone(),
                _ => value,
            })
        } else {
            None
        };
        self.judge(index, event, id.as_str(), wire_json);
        Ok(())
    }

    fn judge(&mut self, index: usize, event: WireEvent, id: &str, wire_json: Option<Value>) {
        let slot = match self.by_id.get(event.task_id.as_ref()) {
            Some(&slot) => slot,
            None => {
                self.by_id
                    .insert(event.task_id.to_string(), self.tasks.len());
                self.tasks.push(TaskJudge {
                    id: event.task_id.to_string(),
                    ledger: Some(Box::new(TaskLedger::new(&event.task_id))),
                    closed: None,
                    held: HashMap::new(),
                    events: 0,
                    findings: 0,
                    last_index: index,
                    wire: event.wire,
                    rows: Vec::new(),
                    origin_ms: None,
                });
                self.tasks.len() - 1
            }
        };
        let task = &mut self.tasks[slot];
        task.events += 1;
        task.last_index = index;
        task.wire = event.wire;
        let before = task.state();
        let mut found: Vec<(FindingCode, String)> = Vec::new();
        let label = label_of(&event.what);
        let target = match &event.what {
            What::Task { state, .. } | What::Status { state } => TaskState::from_kebab(state),
            _ => None,
        };
        let offer = match event.what {
            What::Message => None,
            What::Task { state, held } => {
                // A snapshot is the client's new view: its parts are what
                // the client holds, and its state is a transition only
                // when it differs.
                task.held = held
                    .into_iter()
                    .map(|(artifact, n)| (artifact.into_owned(), n))
                    .collect();
                match TaskState::from_kebab(&state) {
                    Some(s) if s == before => None,
                    Some(TaskState::Submitted) if task.events == 1 => {
                        Some((Offer::Submit, Cow::Owned(format!("submit:{index}"))))
                    }
                    _ => Some((
                        Offer::Status(state),
                        Cow::Owned(format!("snapshot:{index}")),
                    )),
                }
            }
            What::Status { state } => Some((Offer::Status(state), Cow::Borrowed(id))),
            What::Artifact {
                artifact_id,
                append,
                last,
                parts,
            } => {
                let number = match (append, task.held.get(artifact_id.as_ref())) {
                    (false, _) => 0,
                    (true, Some(&next)) => next,
                    // After the end the event is after-terminal; no gap.
                    (true, None) if task.closed.is_some() => 0,
                    (true, None) => {
                        found.push((
                            FindingCode::ArtifactGap,
                            format!(
                                "an append to {artifact_id}, of which the client holds no start"
                            ),
                        ));
                        0
                    }
                };
                let part = Part::text(&artifact_id, number, &parts, last);
                match task.held.get_mut(artifact_id.as_ref()) {
                    Some(next) => *next = number + 1,
                    None => {
                        task.held.insert(artifact_id.into_owned(), number + 1);
                    }
                }
                Some((Offer::Part(part), Cow::Borrowed(id)))
            }
        };
        if let Some((offer, event_id)) = offer {
            if let Some(state) = task.closed {
                // A finished task keeps no part numbers: name the artifact.
                let what = match &offer {
                    Offer::Part(part) => format!("an artifact update of {}", part.artifact_id),
                    other => other.describe(),
                };
                found.push((
                    FindingCode::AfterTerminal,
                    format!(
                        "{what} after the task was already {}",
                        event.wire.spell(state)
                    ),
                ));
            } else if let Some(ledger) = task.ledger.as_mut() {
                let body = match &offer {
                    Offer::Submit => BodyRef::Submit,
                    Offer::Status(state) => BodyRef::Status {
                        status: state,
                        // A capture carries no authorization decisions to check.
                        authorization_receipt: Some("capture"),
                        manifest: None,
                    },
                    Offer::Part(part) => BodyRef::Part(part),
                };
                let view = EventRef {
                    event_id: &event_id,
                    producer: "server",
                    source_seq: None,
                    digest: &event_id,
                    observed_ms: index as u64,
                    body,
                };
                match ledger.apply_view(view) {
                    Decision::Duplicate(_) | Decision::New(Outcome::Replayed { .. }) => {
                        found.push((
                            FindingCode::Duplicate,
                            "the same event again: a lookup hit".into(),
                        ))
                    }
                    Decision::New(Outcome::Incident { coordinate }) => found.push((
                        FindingCode::ConflictingCoordinate,
                        format!("{coordinate} already holds other bytes"),
                    )),
                    Decision::New(Outcome::Rejected { reason }) => found.push(match reason {
                        Reason::IllegalTransition => (
                            FindingCode::IllegalTransition,
                            format!(
                                "{} → {} is outside the allowlist",
                                event.wire.spell(before),
                                offer.describe()
                            ),
                        ),
                        other => (
                            FindingCode::Refused(other),
                            format!("refused: {}", other.code()),
                        ),
                    }),
                    Decision::New(_) => {}
                }
                if ledger.state().is_terminal() {
                    // A finished task keeps only its state: whatever comes
                    // after is after-terminal without asking a ledger.
                    task.closed = Some(ledger.state());
                    task.ledger = None;
                    task.held = HashMap::new();
                }
            }
        }
        if let Some(wire) = wire_json {
            let t_ms = match (timestamp_ms(&wire), task.origin_ms) {
                (Some(ms), Some(origin)) => ms.saturating_sub(origin),
                (Some(ms), None) => {
                    task.origin_ms = Some(ms);
                    0
                }
                (None, _) => task.rows.last().map_or(0, |r| r.t_ms),
            };
            let disposition =
                found
                    .first()
                    .map_or(Disposition::Delivered, |(code, _)| match code {
                        FindingCode::Duplicate => Disposition::Duplicate,
                        FindingCode::AfterTerminal => Disposition::AfterTerminal,
                        FindingCode::ConflictingCoordinate => Disposition::Incident,
                        _ => Disposition::Rejected,
                    });
            let label = match found.first() {
                Some((code, _)) => format!("{label}: {code}"),
                None => label,
            };
            let row = Entry::event(Source::Server, label, disposition)
                .wire(Some(wire))
                .target(target)
                .row(task.rows.len(), t_ms, Some(task.state()));
            task.rows.push(row);
        }
        for (code, message) in found {
            task.findings += 1;
            self.findings.push(CaptureFinding {
                code,
                task: task.id.clone(),
                index,
                message,
            });
        }
    }

    /// The report: every task's end state, and `missing-terminal` for a
    /// task whose last stream ended while it was neither terminal nor
    /// interrupted.
    pub fn finish(mut self) -> CaptureReport {
        let wire = match (self.seen_1_0, self.seen_0_3) {
            (true, true) => "mixed",
            (true, false) => "1.0",
            (false, true) => "0.3",
            (false, false) => "none",
        };
        let mut tasks = Vec::with_capacity(self.tasks.len());
        let mut rows = Vec::with_capacity(if self.keep_rows { self.tasks.len() } else { 0 });
        for task in &mut self.tasks {
            let state = task.state();
            if !state.is_terminal() && !state.is_interrupted() {
                task.findings += 1;
                self.findings.push(CaptureFinding {
                    code: FindingCode::MissingTerminal,
                    task: task.id.clone(),
                    index: task.last_index,
                    message: format!(
                        "the task's last stream ended while it was {}",
                        task.wire.spell(state)
                    ),
                });
            }
            rows.push(std::mem::take(&mut task.rows));
            tasks.push(TaskSummary {
                id: task.id.clone(),
                events: task.events,
                final_state: task.wire.spell(state).to_string(),
                findings: task.findings,
            });
        }
        self.findings.sort_by_key(|f| f.index);
        CaptureReport {
            wire,
            tasks,
            findings: self.findings,
            errors: self.errors,
            read: self.index,
            rows: if self.keep_rows { rows } else { Vec::new() },
        }
    }
}

/// Reads a whole capture held in memory (the page's Import).
pub fn read_capture(files: &[&[u8]], forced: Option<Wire>) -> Result<CaptureReport, String> {
    let mut reader = CaptureReader::new(forced);
    for bytes in files {
        reader.read_bytes(bytes)?;
    }
    Ok(reader.finish())
}

/// A row's label for an event (the task id is the list's, not the row's).
fn label_of(what: &What) -> String {
    let state = |s: &str| {
        TaskState::from_kebab(s).map_or_else(|| s.to_string(), |st| st.short().to_string())
    };
    match what {
        What::Task { state: s, held } => {
            let parts: u32 = held.iter().map(|(_, n)| n).sum();
            format!("Task {} ({parts} part(s) held)", state(s))
        }
        What::Status { state: s } => format!("status {}", state(s)),
        What::Artifact {
            artifact_id,
            append,
            last,
            ..
        } => {
            let how = match (append, last) {
                (false, false) => "first chunk",
                (false, true) => "only chunk",
                (true, false) => "chunk, append",
                (true, true) => "last chunk, append",
            };
            format!("artifact {artifact_id}: {how}")
        }
        What::Message => "message".into(),
    }
}

/// What an event offers its task's ledger.
enum Offer<'a> {
    Submit,
    Status(Cow<'a, str>),
    Part(Part),
}

impl Offer<'_> {
    /// For a finding's message (built only when there is one).
    fn describe(&self) -> String {
        match self {
            Offer::Submit => "submitted".into(),
            Offer::Status(state) => state.to_string(),
            Offer::Part(part) => format!("artifact part {}", part.coordinate()),
        }
    }
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn is_sse_field(line: &[u8]) -> bool {
    [&b"event:"[..], b"id:", b"retry:", b"event", b"id", b"retry"]
        .iter()
        .any(|f| line.starts_with(f) && (line.len() == f.len() || f.ends_with(b":")))
}

#[cfg(test)]
mod tests {
    use super::super::capture_wire::parse_rfc3339_ms;
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
