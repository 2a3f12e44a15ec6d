//! How the capture reader judges what it reads (SPEC §8): each element (a
//! JSON-RPC response or a bare event) is read, grouped by task id and
//! offered to that task's own ledger; what the ledger refuses, and what a
//! client holding the parts it was sent would notice, become findings.
//!
//! Memory grows with the tasks still open: a finished task keeps its id,
//! counts and final state, and hands its ledger back for the next task.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use super::report::{CaptureFinding, CaptureReport, RpcError, TaskSummary, WiresSeen};
use crate::model::evidence::finding::{check_depth, FindingCode};
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::{BodyRef, Decision, EventRef, Outcome, Reason, TaskLedger};
use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Entry, Row, Source};
use crate::model::wire::event::{
    parse, read_event, ContentId, Envelope, RawEvent, What, WireEvent,
};
use crate::model::wire::schema::{shape_faults, Shape, ShapeFault, ShapeRule};
use crate::model::wire::Wire;

/// Ledgers of finished tasks kept for the next tasks, at most: about as
/// many as a server has tasks open at once.
const SPARE_LEDGERS: usize = 64;

/// One task's judge: its ledger while open, the parts the client holds.
struct TaskJudge {
    id: String,
    ledger: Option<Box<TaskLedger>>,
    /// The state once terminal (the ledger is then handed back).
    closed: Option<TaskState>,
    /// Per artifact, the next part number the client expects (ordered, so
    /// that crafted artifact ids cannot make lookups slow).
    held: BTreeMap<String, u32>,
    events: u32,
    findings: u32,
    last_index: usize,
    wire: Wire,
    /// The task's events as trace rows, when kept.
    rows: Vec<Row>,
    /// Per schema rule, the events that broke it: one `wire-shape`
    /// finding each (SPEC §13).
    shapes: Vec<(ShapeRule, ShapeTally)>,
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

/// Judges a capture's elements, in capture order, task by task.
pub(super) struct CaptureJudge {
    forced: Option<Wire>,
    pub(super) keep_rows: bool,
    tasks: Vec<TaskJudge>,
    by_id: HashMap<String, usize>,
    findings: Vec<CaptureFinding>,
    errors: Vec<RpcError>,
    index: usize,
    /// A2A events read (JSON-RPC errors are not events).
    events: u64,
    seen_1_0: bool,
    seen_0_3: bool,
    /// Ledgers of finished tasks, reset and reused by new ones; boxed as
    /// the tasks hold them, so that handing one over moves a pointer.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<TaskLedger>>,
    /// The part an artifact update offers, rebuilt in place for each one.
    part: Part,
}

/// The events of one task that broke one schema rule.
struct ShapeTally {
    first: usize,
    count: u32,
    wire: Wire,
    detail: String,
}

impl CaptureJudge {
    pub(super) fn new(forced: Option<Wire>) -> CaptureJudge {
        CaptureJudge {
            forced,
            keep_rows: false,
            tasks: Vec::new(),
            by_id: HashMap::new(),
            findings: Vec::new(),
            errors: Vec::new(),
            index: 0,
            events: 0,
            seen_1_0: false,
            seen_0_3: false,
            spare: Vec::new(),
            // A captured part is judged by its coordinate and checksum; its
            // text and media types stay in the capture.
            part: Part {
                artifact_id: String::new(),
                part: 0,
                media_type: String::new(),
                checksum: String::new(),
                last: false,
                text: String::new(),
            },
        }
    }

    /// One element: a JSON-RPC response (its result, or its error) or a
    /// bare event, read into borrowed, typed fields.
    pub(super) fn element(&mut self, bytes: &[u8]) -> Result<(), String> {
        let index = self.index;
        self.index += 1;
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            check_depth(bytes)?;
            return Err(format!("event {index} is not a JSON object"));
        }
        // One pass: the line is a JSON-RPC response whose result is the
        // event, or the event itself.
        let line: RawEvent = parse(bytes)?;
        let typed = match line.envelope().map_err(|e| format!("event {index}: {e}"))? {
            Envelope::Error(error) => {
                self.errors.push(RpcError {
                    index,
                    code: error.code,
                    message: error.message.to_string(),
                });
                return Ok(());
            }
            Envelope::Event(typed) => typed,
        };
        let event = read_event(typed, self.forced).map_err(|e| format!("event {index}: {e}"))?;
        match event.wire {
            Wire::V1_0 => self.seen_1_0 = true,
            Wire::V0_3 => self.seen_0_3 = true,
        }
        // The event's identity is its A2A content, without the JSON-RPC
        // envelope (a resubscription answers under another request id).
        let id = typed.content_id();
        // The page's rows keep the time each event carries, not the event:
        // the capture is the record, and a copy of each event would make
        // the page's memory several times the file.
        let timestamp = if self.keep_rows {
            typed.timestamp_ms()
        } else {
            None
        };
        self.events += 1;
        let faults = shape_faults(bytes, event.wire, Shape::Event);
        let slot = self.slot(index, &event);
        self.tally(slot, index, event.wire, faults);
        self.judge(index, event, id.as_str(), timestamp);
        Ok(())
    }

    /// Counts each schema fault under its task and rule, keeping the first.
    fn tally(&mut self, slot: usize, index: usize, wire: Wire, faults: Vec<ShapeFault>) {
        let shapes = &mut self.tasks[slot].shapes;
        let mut seen: Vec<ShapeRule> = Vec::new();
        for fault in faults {
            // Counted once per event, however often the event breaks it.
            if seen.contains(&fault.rule) {
                continue;
            }
            seen.push(fault.rule);
            match shapes.iter_mut().find(|(rule, _)| *rule == fault.rule) {
                Some((_, tally)) => tally.count += 1,
                None => shapes.push((
                    fault.rule,
                    ShapeTally {
                        first: index,
                        count: 1,
                        wire,
                        detail: fault.detail,
                    },
                )),
            }
        }
    }

    /// How many A2A answers were read so far: events, and JSON-RPC
    /// errors, which a capture lists (SPEC §8) though they are no events.
    pub(super) fn answers_read(&self) -> u64 {
        self.events + self.errors.len() as u64
    }

    /// The task's slot, opened (with a spare ledger when there is one) on
    /// its first event.
    fn slot(&mut self, index: usize, event: &WireEvent) -> usize {
        if let Some(&slot) = self.by_id.get(event.task_id.as_ref()) {
            return slot;
        }
        let ledger = match self.spare.pop() {
            Some(mut ledger) => {
                ledger.reset(&event.task_id);
                ledger
            }
            None => Box::new(TaskLedger::new(&event.task_id)),
        };
        self.by_id
            .insert(event.task_id.to_string(), self.tasks.len());
        self.tasks.push(TaskJudge {
            id: event.task_id.to_string(),
            ledger: Some(ledger),
            closed: None,
            held: BTreeMap::new(),
            events: 0,
            findings: 0,
            last_index: index,
            wire: event.wire,
            rows: Vec::new(),
            origin_ms: None,
            shapes: Vec::new(),
        });
        self.tasks.len() - 1
    }

    fn judge(&mut self, index: usize, event: WireEvent, id: &str, timestamp: Option<u64>) {
        let slot = self.slot(index, &event);
        let task = &mut self.tasks[slot];
        task.events += 1;
        task.last_index = index;
        task.wire = event.wire;
        let before = task.state();
        let mut found: Vec<(FindingCode, String)> = Vec::new();
        // Rows only: the page's table reads them, the CLI never does.
        let shown = self.keep_rows.then(|| {
            let target = match &event.what {
                What::Task { state, .. } | What::Status { state } => {
                    TaskState::from_kebab(&state.ledger_text())
                }
                _ => None,
            };
            let mut label = label_of(&event.what);
            if matches!(&event.what, What::Status { state } if is_progress(state.known(), before)) {
                label.push_str(" (progress)");
            }
            (label, target)
        });
        let offer = match event.what {
            What::Message => None,
            What::Task { state, held } => {
                // A snapshot is the client's new view: its parts are what
                // the client holds, and its state is a transition only
                // when it differs.
                task.held.clear();
                for (artifact, n) in held {
                    task.held.insert(artifact.into_owned(), n);
                }
                match TaskState::from_kebab(&state.ledger_text()) {
                    Some(s) if s == before => None,
                    Some(TaskState::Submitted) if task.events == 1 => {
                        Some((Offer::Submit, Cow::Owned(format!("submit:{index}"))))
                    }
                    _ => Some((
                        Offer::Status(state.ledger_text()),
                        Cow::Owned(format!("snapshot:{index}")),
                    )),
                }
            }
            // Progress (A2A 1.0 §3.7): the state the task is in again, with
            // a new message, is no transition (SPEC §13).
            What::Status { state } if is_progress(state.known(), before) => None,
            What::Status { state } => Some((Offer::Status(state.ledger_text()), Cow::Borrowed(id))),
            What::Artifact {
                artifact_id,
                append,
                last,
                parts,
            } => {
                let held = task.held.get_mut(artifact_id.as_ref());
                let number = match (append, held.as_deref()) {
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
                let part = &mut self.part;
                part.artifact_id.clear();
                part.artifact_id.push_str(&artifact_id);
                part.part = number;
                part.last = last;
                part.checksum.clear();
                part.checksum
                    .push_str(ContentId::of(parts.as_bytes()).as_str());
                match held {
                    Some(next) => *next = number + 1,
                    None => {
                        task.held.insert(artifact_id.into_owned(), number + 1);
                    }
                }
                Some((Offer::Part, Cow::Borrowed(id)))
            }
        };
        if let Some((offer, event_id)) = offer {
            let part = &self.part;
            if let Some(state) = task.closed {
                // A finished task keeps no part numbers: name the artifact.
                let what = match &offer {
                    Offer::Part => format!("an artifact update of {}", part.artifact_id),
                    other => other.describe(part),
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
                    Offer::Part => BodyRef::Part(part),
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
                                "{} → {} is outside the seed's allowlist (the lab's ledger policy: A2A defines the states, not a transition table)",
                                event.wire.spell(before),
                                offer.describe(part)
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
                    task.held = BTreeMap::new();
                    if let Some(ledger) = task.ledger.take() {
                        if self.spare.len() < SPARE_LEDGERS && ledger.receipt_count() <= 1024 {
                            self.spare.push(ledger);
                        }
                    }
                }
            }
        }
        if let Some((label, target)) = shown {
            let t_ms = match (timestamp, task.origin_ms) {
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
    pub(super) fn finish(mut self) -> CaptureReport {
        let wire = WiresSeen::of(self.seen_1_0, self.seen_0_3);
        let mut tasks = Vec::with_capacity(self.tasks.len());
        let mut rows = Vec::with_capacity(if self.keep_rows { self.tasks.len() } else { 0 });
        let mut late = std::collections::BTreeMap::new();
        for task in &mut self.tasks {
            for (rule, tally) in std::mem::take(&mut task.shapes) {
                task.findings += 1;
                let arrival = late.len();
                let events = match tally.count {
                    1 => String::new(),
                    n => format!("; {n} events break it"),
                };
                late.insert(
                    (tally.first, arrival),
                    CaptureFinding {
                        code: FindingCode::WireShape,
                        task: task.id.clone(),
                        index: tally.first,
                        message: format!(
                            "{} ({}{events}): {}",
                            tally.detail,
                            rule.cites(tally.wire),
                            rule.fix()
                        ),
                    },
                );
            }
        }
        for task in &mut self.tasks {
            let state = task.state();
            if !state.is_terminal() && !state.is_interrupted() {
                task.findings += 1;
                let arrival = late.len();
                late.insert(
                    (task.last_index, arrival),
                    CaptureFinding {
                        code: FindingCode::MissingTerminal,
                        task: task.id.clone(),
                        index: task.last_index,
                        message: format!(
                            "the task's last stream ended while it was {}",
                            task.wire.spell(state)
                        ),
                    },
                );
            }
            rows.push(std::mem::take(&mut task.rows));
            tasks.push(TaskSummary {
                id: std::mem::take(&mut task.id),
                events: task.events,
                final_state: task.wire.spell(state).to_string(),
                findings: task.findings,
            });
        }
        // The findings met while reading are in capture order already; the
        // ones found now are merged in by their place (keyed, not sorted:
        // a sort would be one more copy of the sorting code in the page).
        let mut findings = Vec::with_capacity(self.findings.len() + late.len());
        let mut late = late.into_values().peekable();
        for found in self.findings {
            while let Some(earlier) = late.next_if(|l| l.index < found.index) {
                findings.push(earlier);
            }
            findings.push(found);
        }
        findings.extend(late);
        CaptureReport {
            wire,
            tasks,
            findings,
            errors: self.errors,
            read: self.index,
            rows: if self.keep_rows { rows } else { Vec::new() },
        }
    }
}

/// A status update that repeats the task's current state, while that
/// state is not terminal, reports progress (A2A 1.0 §3.7): the seed's
/// allowlist judges changes of state, and this is none.
fn is_progress(state: Option<TaskState>, before: TaskState) -> bool {
    state == Some(before) && !before.is_terminal()
}

/// A row's label for an event (the task id is the list's, not the row's).
fn label_of(what: &What) -> String {
    let state = |s: &str| {
        TaskState::from_kebab(s).map_or_else(|| s.to_string(), |st| st.short().to_string())
    };
    match what {
        What::Task { state: s, held } => {
            let parts: u32 = held.iter().map(|(_, n)| n).sum();
            format!("Task {} ({parts} part(s) held)", state(&s.ledger_text()))
        }
        What::Status { state: s } => format!("status {}", state(&s.ledger_text())),
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

/// What an event offers its task's ledger (a part is the judge's own).
enum Offer<'a> {
    Submit,
    Status(Cow<'a, str>),
    Part,
}

impl Offer<'_> {
    /// For a finding's message (built only when there is one).
    fn describe(&self, part: &Part) -> String {
        match self {
            Offer::Submit => "submitted".into(),
            Offer::Status(state) => state.to_string(),
            Offer::Part => format!("artifact part {}", part.coordinate()),
        }
    }
}
