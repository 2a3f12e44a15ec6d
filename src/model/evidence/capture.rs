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

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::model::evidence::check::{check_depth, FindingCode};
use crate::model::evidence::export::pretty_json;
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

/// One thing a capture breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaptureFinding {
    /// What is broken.
    pub code: FindingCode,
    /// The task it concerns.
    pub task: String,
    /// The event's position in the capture, from 0, over all files.
    pub index: usize,
    /// For people.
    pub message: String,
}

/// A JSON-RPC error found in a capture: listed, never a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RpcError {
    /// Its position in the capture.
    pub index: usize,
    /// The JSON-RPC error code.
    pub code: i64,
    /// Its message.
    pub message: String,
}

/// One task of a capture, judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSummary {
    /// The task id.
    pub id: String,
    /// Events of this task in the capture.
    pub events: u32,
    /// Its state at the end of the capture, spelled as on the wire.
    pub final_state: String,
    /// How many findings concern it.
    pub findings: u32,
}

/// What a capture breaks, task by task (SPEC §8's `--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptureReport {
    /// `1.0`, `0.3`, `mixed`, or `none` when no event was read.
    pub wire: &'static str,
    /// Every task, in the order it first appeared.
    pub tasks: Vec<TaskSummary>,
    /// Every finding, in capture order.
    pub findings: Vec<CaptureFinding>,
    /// JSON-RPC errors in the capture.
    pub errors: Vec<RpcError>,
    /// Elements read (events and errors).
    #[serde(skip)]
    pub read: usize,
    /// Each task's events as trace rows, in the order of `tasks`, when the
    /// reader was asked to keep them (the page shows them; the CLI does not
    /// keep them, so that its memory does not grow with the file).
    #[serde(skip)]
    pub rows: Vec<Vec<Row>>,
}

impl CaptureReport {
    /// The report as pretty JSON and a newline.
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }

    /// A table per task, then the errors and a summary line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for task in &self.tasks {
            out.push_str(&format!(
                "task {}: {} events, final {}\n",
                task.id, task.events, task.final_state
            ));
            for f in self.findings.iter().filter(|f| f.task == task.id) {
                out.push_str(&format!("  {} #{}: {}\n", f.code, f.index, f.message));
            }
        }
        for e in &self.errors {
            out.push_str(&format!(
                "JSON-RPC error #{}: {} {}\n",
                e.index, e.code, e.message
            ));
        }
        if self.findings.is_empty() {
            out.push_str(&format!(
                "ok: {} events of {} task(s) on the {} wire, nothing broken\n",
                self.read,
                self.tasks.len(),
                self.wire
            ));
        } else {
            out.push_str(&format!(
                "{} finding(s) in {} events of {} task(s)\n",
                self.findings.len(),
                self.read,
                self.tasks.len()
            ));
        }
        out
    }
}

/// A wire event, read.
struct WireEvent<'a> {
    wire: Wire,
    task_id: Cow<'a, str>,
    what: What<'a>,
}

enum What<'a> {
    /// A `task` object: its state and the parts it holds per artifact.
    Task {
        state: Cow<'a, str>,
        held: Vec<(Cow<'a, str>, u32)>,
    },
    Status {
        state: Cow<'a, str>,
    },
    Artifact {
        artifact_id: Cow<'a, str>,
        append: bool,
        last: bool,
        parts: String,
    },
    Message,
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

/// A status timestamp in Unix milliseconds, where the event has one.
fn timestamp_ms(event: &Value) -> Option<u64> {
    let inner = ["statusUpdate", "task"]
        .iter()
        .find_map(|k| event.get(*k))
        .unwrap_or(event);
    let text = inner.get("status")?.get("timestamp")?.as_str()?;
    parse_rfc3339_ms(text)
}

/// `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` to Unix milliseconds. Digits
/// are read by hand: the page's bundle then carries no number parser.
fn parse_rfc3339_ms(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        b.get(from..from + len)?.iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, sec) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let mut scale = 100;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            millis += i64::from(c - b'0') * scale;
            scale /= 10;
            i += 1;
        }
    }
    let offset_min = match b.get(i)? {
        b'Z' | b'z' => 0,
        b'+' => num(i + 1, 2)? * 60 + num(i + 4, 2)?,
        b'-' => -(num(i + 1, 2)? * 60 + num(i + 4, 2)?),
        _ => return None,
    };
    // Days from 1970-01-01 (proleptic Gregorian).
    let (y2, m2) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * m2 + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let ms = ((days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60) * 1000) + millis;
    u64::try_from(ms).ok()
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

/// Parses JSON into `T`; serde_json's own recursion limit refuses hostile
/// nesting, and says so in the lab's words.
fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, String> {
    // From text, as the rest of the page parses JSON, so that the bundle
    // carries one instance of serde_json's reader, not two.
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.valid_up_to()))?;
    serde_json::from_str(text).map_err(|e| {
        if e.to_string().contains("recursion limit") {
            "JSON nested deeper than 128 levels".to_string()
        } else {
            format!("malformed JSON: {e}")
        }
    })
}

#[derive(Deserialize)]
struct RawError<'a> {
    #[serde(default)]
    code: i64,
    #[serde(default, borrow)]
    message: Cow<'a, str>,
}

/// A line of a capture, its fields borrowed from the input: a JSON-RPC
/// response (`result` is the event, `error` an error), or the event itself:
/// the 0.3 fields at the top, or one 1.0 wrapper holding the same fields.
#[derive(Deserialize, Default)]
struct RawEvent<'a> {
    #[serde(default)]
    jsonrpc: Option<serde::de::IgnoredAny>,
    #[serde(default, borrow)]
    result: Option<Box<RawEvent<'a>>>,
    #[serde(default, borrow)]
    error: Option<RawError<'a>>,
    #[serde(default, borrow)]
    kind: Option<Cow<'a, str>>,
    /// A task's id, or a JSON-RPC response's (which may be a number).
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "taskId")]
    task_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    status: Option<RawStatus<'a>>,
    #[serde(default, borrow)]
    artifact: Option<RawArtifact<'a>>,
    #[serde(default)]
    append: Option<bool>,
    #[serde(default, rename = "lastChunk")]
    last_chunk: Option<bool>,
    #[serde(default, borrow)]
    artifacts: Option<Vec<RawHeld<'a>>>,
    #[serde(default, borrow)]
    task: Option<Box<RawEvent<'a>>>,
    #[serde(default, borrow, rename = "statusUpdate")]
    status_update: Option<Box<RawEvent<'a>>>,
    #[serde(default, borrow, rename = "artifactUpdate")]
    artifact_update: Option<Box<RawEvent<'a>>>,
    #[serde(default, borrow)]
    message: Option<Box<RawEvent<'a>>>,
}

#[derive(Deserialize)]
struct RawStatus<'a> {
    #[serde(borrow)]
    state: Cow<'a, str>,
    #[serde(default, borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
}

impl RawEvent<'_> {
    /// A short id for the event's A2A content (64 bits: ids need only tell
    /// one task's events apart): every field the lab reads, each part's
    /// bytes and a status's message, tagged so that no two fields blur.
    fn content_id(&self) -> ContentId {
        use std::hash::Hasher;
        let mut h = FoldHasher::default();
        self.hash_into(&mut h);
        let mut hex = [0u8; 16];
        let digits = b"0123456789abcdef";
        for (i, byte) in h.finish().to_be_bytes().iter().enumerate() {
            hex[2 * i] = digits[usize::from(byte >> 4)];
            hex[2 * i + 1] = digits[usize::from(byte & 15)];
        }
        ContentId(hex)
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
            text(h, 4, Some(&status.state));
            text(h, 5, status.timestamp.as_deref());
            text(h, 6, status.message.map(RawValue::get));
        }
        if let Some(artifact) = &self.artifact {
            text(h, 7, Some(&artifact.artifact_id));
            text(h, 8, artifact.parts.map(RawValue::get));
        }
        h.write_u8(match (self.append, self.last_chunk) {
            (None, None) => 9,
            (a, l) => 10 + u8::from(a == Some(true)) * 2 + u8::from(l == Some(true)),
        });
        for artifact in self.artifacts.iter().flatten() {
            text(h, 14, Some(&artifact.artifact_id));
            h.write_usize(artifact.parts.len());
        }
        for (tag, inner) in [
            (15, &self.task),
            (16, &self.status_update),
            (17, &self.artifact_update),
            (18, &self.message),
        ] {
            if let Some(inner) = inner {
                h.write_u8(tag);
                inner.hash_into(h);
            }
        }
    }
}

#[derive(Deserialize)]
struct RawArtifact<'a> {
    #[serde(borrow, rename = "artifactId")]
    artifact_id: Cow<'a, str>,
    /// The parts as sent: the bytes a chunk's checksum is taken of.
    #[serde(default, borrow)]
    parts: Option<&'a RawValue>,
}

/// An artifact a `task` snapshot holds: only how many parts it has.
#[derive(Deserialize)]
struct RawHeld<'a> {
    #[serde(borrow, rename = "artifactId")]
    artifact_id: Cow<'a, str>,
    /// Counted, not kept (an empty type: the vector never allocates).
    #[serde(default)]
    parts: Vec<serde::de::IgnoredAny>,
}

/// Reads a wire event of either version (or the forced one).
fn read_event<'a>(event: &RawEvent<'a>, forced: Option<Wire>) -> Result<WireEvent<'a>, String> {
    match forced.unwrap_or(if event.kind.is_some() {
        Wire::V0_3
    } else {
        Wire::V1_0
    }) {
        Wire::V1_0 => read_1_0(event),
        Wire::V0_3 => read_0_3(event),
    }
}

const NOT_AN_EVENT_1_0: &str =
    "not an A2A 1.0 event (exactly one of task, statusUpdate, artifactUpdate, message) nor a 0.3 one (kind)";

/// A fast 64-bit hasher for event content: eight bytes at a time, folded
/// with a multiply (ids only need to tell one task's events apart; this is
/// no defence against crafted collisions, which could only hide a duplicate).
struct FoldHasher(u64);

impl Default for FoldHasher {
    fn default() -> Self {
        FoldHasher(0x9e37_79b9_7f4a_7c15)
    }
}

/// An event's content id as 16 hex digits, kept on the stack.
struct ContentId([u8; 16]);

impl ContentId {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl std::hash::Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(0x2d35_8dcc_aa6c_78a5);
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.0 = (self.0.rotate_left(23) ^ u64::from_le_bytes(tail) ^ (rest.len() as u64) << 56)
            .wrapping_mul(0x2d35_8dcc_aa6c_78a5);
    }

    fn finish(&self) -> u64 {
        let x = self.0 ^ (self.0 >> 31);
        x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (x >> 29)
    }
}

/// A JSON string's text (`None` for another type).
fn text_of<'a>(raw: Option<&'a RawValue>) -> Option<Cow<'a, str>> {
    serde_json::from_str(raw?.get()).ok()
}

fn required<'a>(
    field: &Option<Cow<'a, str>>,
    what: &str,
    name: &str,
) -> Result<Cow<'a, str>, String> {
    field.clone().ok_or_else(|| format!("{what} has no {name}"))
}

fn state_of<'a>(event: &RawEvent<'a>, what: &str) -> Result<Cow<'a, str>, String> {
    event
        .status
        .as_ref()
        .map(|s| s.state.clone())
        .ok_or_else(|| format!("{what} has no status.state"))
}

fn read_1_0<'a>(event: &RawEvent<'a>) -> Result<WireEvent<'a>, String> {
    let wrappers = [
        ("task", &event.task),
        ("statusUpdate", &event.status_update),
        ("artifactUpdate", &event.artifact_update),
        ("message", &event.message),
    ];
    let mut present = wrappers.iter().filter(|(_, w)| w.is_some());
    let (Some((key, Some(inner))), None) = (present.next(), present.next()) else {
        return Err(NOT_AN_EVENT_1_0.into());
    };
    let spelled =
        |s: Cow<'a, str>| TaskState::from_wire(&s).map_or(s, |st| Cow::Borrowed(st.kebab()));
    let (task_id, what) = match *key {
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

fn read_0_3<'a>(event: &RawEvent<'a>) -> Result<WireEvent<'a>, String> {
    let kind = event.kind.as_deref().ok_or("an A2A 0.3 event has a kind")?;
    let (task_id, what) = match kind {
        "task" => (
            required(&text_of(event.id), kind, "id")?,
            What::Task {
                state: state_of(event, kind)?,
                held: held_parts(&event.artifacts),
            },
        ),
        "status-update" => (
            required(&event.task_id, kind, "taskId")?,
            What::Status {
                state: state_of(event, kind)?,
            },
        ),
        "artifact-update" => (
            required(&event.task_id, kind, "taskId")?,
            artifact(event, kind)?,
        ),
        "message" => (
            event.task_id.clone().unwrap_or(Cow::Borrowed("(no task)")),
            What::Message,
        ),
        other => return Err(format!("`{other}` is not an A2A 0.3 event kind")),
    };
    Ok(WireEvent {
        wire: Wire::V0_3,
        task_id,
        what,
    })
}

fn artifact<'a>(event: &RawEvent<'a>, what: &str) -> Result<What<'a>, String> {
    let artifact = event
        .artifact
        .as_ref()
        .ok_or_else(|| format!("{what} has no artifact"))?;
    Ok(What::Artifact {
        artifact_id: artifact.artifact_id.clone(),
        append: event.append.unwrap_or(false),
        last: event.last_chunk.unwrap_or(false),
        parts: artifact.parts.map_or("[]", RawValue::get).to_string(),
    })
}

/// How many parts a `task` snapshot holds, per artifact.
fn held_parts<'a>(artifacts: &Option<Vec<RawHeld<'a>>>) -> Vec<(Cow<'a, str>, u32)> {
    artifacts
        .iter()
        .flatten()
        .map(|a| (a.artifact_id.clone(), a.parts.len() as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_rfc3339_ms;
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
