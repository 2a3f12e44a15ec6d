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
use super::EXPLAIN_AT_MOST;
use crate::model::evidence::finding::{check_depth, FindingCode};
use crate::model::ledger::artifacts::{Coordinate, PartRef};
use crate::model::ledger::{BodyRef, Decision, EventRef, Outcome, Reason, TaskLedger};
use crate::model::state::{SentState, TaskState};
use crate::model::trace::{Disposition, Entry, Row, Source};
use crate::model::wire::answer::OwnedEvent;
use crate::model::wire::event::{
    parse, read_event, ContentId, Envelope, RawEvent, What, WireEvent,
};
use crate::model::wire::read_error::{EventFault, Place, ReadError, ReadKind};
use crate::model::wire::schema::{faults_of, Shape, ShapeFault, ShapeRule};
use crate::model::wire::signs::WireSigns;
use crate::model::wire::{SpelledState, Wire};

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
    /// What is kept of its events for the page and for explaining, when
    /// asked (boxed: `check` on a clean capture of 100,000 tasks keeps
    /// none, and each task's judge stays small).
    kept: Option<Box<Kept>>,
    /// Per schema rule, the events that broke it: one `wire-shape`
    /// finding each (SPEC §13).
    shapes: Vec<(ShapeRule, ShapeTally)>,
}

/// What a task keeps of its events when the reader is asked to.
#[derive(Default)]
struct Kept {
    /// The task's events as trace rows.
    rows: Vec<Row>,
    /// The task's events as read (to explain it by a scenario).
    events: Vec<OwnedEvent>,
    /// What the kept events' bytes show of the SDK that sent them.
    signs: WireSigns,
    /// Milliseconds of the first status timestamp, the origin of `t_ms`.
    origin_ms: Option<u64>,
}

impl TaskJudge {
    fn state(&self) -> TaskState {
        self.closed
            .or_else(|| self.ledger.as_ref().map(|l| l.state()))
            .unwrap_or(TaskState::Submitted)
    }

    /// What an event offers the ledger, and under which id; the parts the
    /// client holds follow the event, and an append with no start held is
    /// a gap.
    fn offer<'e>(
        &mut self,
        index: usize,
        what: &'e What<'e>,
        id: &'e str,
        found: &mut EventFindings,
    ) -> Option<(CaptureOffer<'e>, Cow<'e, str>)> {
        let before = self.state();
        match what {
            What::Message => None,
            What::Task { state, held } => {
                // A snapshot is the client's new view: its parts are what
                // the client holds, and its state is a transition only
                // when it differs.
                self.held.clear();
                for (artifact, n) in held {
                    self.held.insert(artifact.to_string(), *n);
                }
                match sent(state) {
                    SentState::Known(s) if s == before => None,
                    SentState::Known(TaskState::Submitted) if self.events == 1 => {
                        Some((CaptureOffer::Submit, Cow::Owned(format!("submit:{index}"))))
                    }
                    state => Some((
                        CaptureOffer::Status(state),
                        Cow::Owned(format!("snapshot:{index}")),
                    )),
                }
            }
            // Progress (A2A 1.0 §3.7): the state the task is in again, with
            // a new message, is no transition (SPEC §13).
            What::Status { state } if is_progress(state.known(), before) => None,
            What::Status { state } => Some((CaptureOffer::Status(sent(state)), Cow::Borrowed(id))),
            What::Artifact {
                artifact_id,
                append,
                last,
                parts,
            } => {
                let number = self.next_part(artifact_id, *append, found);
                let offer = CaptureOffer::Part {
                    artifact_id,
                    number,
                    last: *last,
                    checksum: ContentId::of(parts.as_bytes()),
                };
                Some((offer, Cow::Borrowed(id)))
            }
        }
    }

    /// The part number an artifact update takes, as the client counts the
    /// parts it holds.
    fn next_part(&mut self, artifact_id: &str, append: bool, found: &mut EventFindings) -> u32 {
        let held = self.held.get_mut(artifact_id);
        let number = match (append, held.as_deref()) {
            (false, _) => 0,
            (true, Some(&next)) => next,
            // After the end the event is after-terminal; no gap.
            (true, None) if self.closed.is_some() => 0,
            (true, None) => {
                found.gap = Some(format!(
                    "an append to {artifact_id}, of which the client holds no start"
                ));
                0
            }
        };
        match held {
            Some(next) => *next = number + 1,
            None => {
                self.held.insert(artifact_id.to_string(), number + 1);
            }
        }
        number
    }

    /// The ledger's decision on an offer, when it is a finding.
    fn decide(
        &mut self,
        offer: &CaptureOffer,
        event_id: &str,
        index: usize,
        wire: Wire,
        before: TaskState,
    ) -> Option<(FindingCode, String, Disposition)> {
        let ledger = self.ledger.as_mut()?;
        let decision = ledger.apply_view(EventRef {
            event_id,
            producer: "server",
            source_seq: None,
            digest: event_id,
            observed_ms: index as u64,
            body: offer.body(),
        });
        let disposition = Disposition::of_decision(&decision, None)?;
        let (code, message) = match decision {
            Decision::New(Outcome::Incident { coordinate }) => (
                FindingCode::ConflictingCoordinate,
                format!("{coordinate} already holds other bytes"),
            ),
            Decision::New(Outcome::Rejected {
                reason: Reason::IllegalTransition,
            }) => (
                FindingCode::IllegalTransition,
                format!(
                    "{} → {} is outside the seed's allowlist (the lab's ledger policy: A2A defines the states, not a transition table)",
                    wire.spell(before),
                    offer.describe()
                ),
            ),
            Decision::New(Outcome::Rejected { reason }) => {
                (FindingCode::Refused(reason), format!("refused: {}", reason.code()))
            }
            _ => (
                FindingCode::Duplicate,
                "the same event again: a lookup hit".into(),
            ),
        };
        Some((code, message, disposition))
    }

    /// A finished task keeps only its state: whatever comes after is
    /// after-terminal without asking a ledger, which goes back to `spare`.
    #[allow(clippy::vec_box)]
    fn close_if_terminal(&mut self, spare: &mut Vec<Box<TaskLedger>>) {
        let Some(state) = self.ledger.as_ref().map(|l| l.state()) else {
            return;
        };
        if !state.is_terminal() {
            return;
        }
        self.closed = Some(state);
        self.held = BTreeMap::new();
        if let Some(ledger) = self.ledger.take() {
            if spare.len() < SPARE_LEDGERS && ledger.receipt_count() <= 1024 {
                spare.push(ledger);
            }
        }
    }

    /// The row of an event the schema kept from being judged.
    fn unjudged_row(&mut self, faults: &[ShapeFault]) {
        let state = self.state();
        let kept = self.kept.get_or_insert_with(Box::default);
        let t_ms = kept.rows.last().map_or(0, |r| r.t_ms);
        let why = faults.first().map_or("", |f| f.detail.as_str());
        let label = format!("unreadable event: {}: {why}", FindingCode::WireShape);
        let row = Entry::event(Source::Server, label, Disposition::Rejected).row(
            kept.rows.len(),
            t_ms,
            Some(state),
        );
        kept.rows.push(row);
    }

    /// The event's row in the page's table, labelled and disposed by its
    /// first finding.
    fn row(
        &mut self,
        what: &What,
        before: TaskState,
        timestamp: Option<u64>,
        found: &EventFindings,
    ) {
        let target = match what {
            What::Task { state, .. } | What::Status { state } => sent(state).known(),
            _ => None,
        };
        let mut label = label_of(what);
        if matches!(what, What::Status { state } if is_progress(state.known(), before)) {
            label.push_str(" (progress)");
        }
        let state = self.state();
        let kept = self.kept.get_or_insert_with(Box::default);
        let t_ms = match (timestamp, kept.origin_ms) {
            (Some(ms), Some(origin)) => ms.saturating_sub(origin),
            (Some(ms), None) => {
                kept.origin_ms = Some(ms);
                0
            }
            (None, _) => kept.rows.last().map_or(0, |r| r.t_ms),
        };
        let (label, disposition) = match found.first() {
            Some((code, disposition)) => (format!("{label}: {code}"), disposition),
            None => (label, Disposition::Delivered),
        };
        let row = Entry::event(Source::Server, label, disposition)
            .target(target)
            .row(kept.rows.len(), t_ms, Some(state));
        kept.rows.push(row);
    }
}

/// What one event was found to break, in the order it was found: a gap in
/// the parts the client holds, then what came after the end or what the
/// ledger refused.
#[derive(Default)]
struct EventFindings {
    gap: Option<String>,
    after_terminal: Option<String>,
    ledger: Option<(FindingCode, String, Disposition)>,
}

impl EventFindings {
    /// The event came after its task ended (`state`, spelled by its wire).
    fn after_terminal(&mut self, offer: &CaptureOffer, state: &str) {
        // A finished task keeps no part numbers: name the artifact.
        let what = match offer {
            CaptureOffer::Part { artifact_id, .. } => {
                format!("an artifact update of {artifact_id}")
            }
            other => other.describe(),
        };
        self.after_terminal = Some(format!("{what} after the task was already {state}"));
    }

    /// The first finding's code and how the event's row shows it.
    fn first(&self) -> Option<(FindingCode, Disposition)> {
        if self.gap.is_some() {
            return Some((FindingCode::ArtifactGap, Disposition::Rejected));
        }
        if self.after_terminal.is_some() {
            return Some((FindingCode::AfterTerminal, Disposition::AfterTerminal));
        }
        self.ledger.as_ref().map(|(code, _, d)| (*code, *d))
    }

    fn into_findings(self) -> impl Iterator<Item = (FindingCode, String)> {
        let gap = self.gap.map(|m| (FindingCode::ArtifactGap, m));
        let after = self.after_terminal.map(|m| (FindingCode::AfterTerminal, m));
        let ledger = self.ledger.map(|(code, m, _)| (code, m));
        gap.into_iter().chain(after).chain(ledger)
    }
}

/// Judges a capture's elements, in capture order, task by task.
pub(super) struct CaptureJudge {
    forced: Option<Wire>,
    pub(super) keep_rows: bool,
    pub(super) keep_events: bool,
    tasks: Vec<TaskJudge>,
    by_id: HashMap<String, usize>,
    findings: Vec<CaptureFinding>,
    errors: Vec<RpcError>,
    index: usize,
    /// A2A events read (JSON-RPC errors are not events).
    events: u64,
    seen_1_0: bool,
    seen_0_3: bool,
    /// The task of the last event read: the stream an event that names no
    /// task came in.
    last_slot: Option<usize>,
    /// Ledgers of finished tasks, reset and reused by new ones; boxed as
    /// the tasks hold them, so that handing one over moves a pointer.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<TaskLedger>>,
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
            keep_events: false,
            tasks: Vec::new(),
            by_id: HashMap::new(),
            findings: Vec::new(),
            errors: Vec::new(),
            index: 0,
            events: 0,
            seen_1_0: false,
            seen_0_3: false,
            last_slot: None,
            spare: Vec::new(),
        }
    }

    /// One element: a JSON-RPC response (its result, or its error) or a
    /// bare event, read into borrowed, typed fields.
    pub(super) fn element(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        let index = self.index;
        self.index += 1;
        let in_event = |e: ReadError| e.within(Place::Event(index));
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            check_depth(bytes)?;
            return Err(in_event(ReadError::new(ReadKind::Event(
                EventFault::NotAnObject,
            ))));
        }
        // One pass: the line is a JSON-RPC response whose result is the
        // event, or the event itself.
        let line: RawEvent = parse(bytes)?;
        let typed = match line.envelope().map_err(in_event)? {
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
        let event = match read_event(typed, self.forced) {
            Ok(event) => event,
            Err(e) => {
                // An event the schema explains (a required field absent, a
                // `kind` that names nothing) is a finding of its task, and
                // the capture is read on; anything else cannot be read.
                let wire = typed.wire(self.forced);
                let faults = faults_of(&line, wire, Shape::Event);
                if faults.is_empty() {
                    return Err(in_event(e));
                }
                self.unjudged(index, typed, wire, faults);
                return Ok(());
            }
        };
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
        let faults = faults_of(&line, event.wire, Shape::Event);
        let slot = self.slot(index, &event.task_id, event.wire);
        self.keep_event(slot, bytes);
        self.tally(slot, index, event.wire, faults);
        self.judge(index, event, id.as_str(), timestamp);
        Ok(())
    }

    /// Keeps the event as read under its task, when asked to (to explain
    /// a task by a scenario), up to [`EXPLAIN_AT_MOST`] events: past that
    /// none is kept, and no task is explained.
    fn keep_event(&mut self, slot: usize, bytes: &[u8]) {
        use crate::model::wire::answer::{read_answer, Answer};
        if !self.keep_events {
            return;
        }
        if self.events > EXPLAIN_AT_MOST as u64 {
            self.keep_events = false;
            for kept in self.tasks.iter_mut().filter_map(|t| t.kept.as_mut()) {
                kept.events = Vec::new();
                kept.signs = WireSigns::default();
            }
            return;
        }
        if let Ok(Answer::Event(kept)) = read_answer(bytes, self.forced) {
            let task = self.tasks[slot].kept.get_or_insert_with(Box::default);
            task.signs.read(bytes, kept.wire);
            task.events.push(kept);
        }
    }

    /// An event that breaks its wire's schema too badly to be judged (no
    /// state, no artifact id, no `kind`): its faults are its task's
    /// findings, it counts as one of the task's events, and the ledger
    /// never sees it. Its task is the one it names, else the task of the
    /// event before it (the stream it came in).
    fn unjudged(&mut self, index: usize, event: &RawEvent, wire: Wire, faults: Vec<ShapeFault>) {
        self.events += 1;
        match wire {
            Wire::V1_0 => self.seen_1_0 = true,
            Wire::V0_3 => self.seen_0_3 = true,
        }
        let slot = match (event.task_named(), self.last_slot) {
            (Some(id), _) => self.slot(index, &id, wire),
            (None, Some(slot)) => slot,
            (None, None) => self.slot(index, "(no task id)", wire),
        };
        self.last_slot = Some(slot);
        let task = &mut self.tasks[slot];
        task.events += 1;
        task.last_index = index;
        let nth = task.events;
        if self.keep_rows {
            task.unjudged_row(&faults);
        }
        let faults = faults.into_iter().map(|mut fault| {
            fault.detail = format!(
                "{}, so the task's event {nth} (capture event {index}) was not judged",
                fault.detail
            );
            fault
        });
        self.tally(slot, index, wire, faults.collect());
    }

    /// Counts each schema fault under its task and rule, keeping the first.
    fn tally(&mut self, slot: usize, index: usize, wire: Wire, faults: Vec<ShapeFault>) {
        if faults.is_empty() {
            return;
        }
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
    fn slot(&mut self, index: usize, task_id: &str, wire: Wire) -> usize {
        if let Some(&slot) = self.by_id.get(task_id) {
            return slot;
        }
        let ledger = match self.spare.pop() {
            Some(mut ledger) => {
                ledger.reset(task_id);
                ledger
            }
            None => Box::new(TaskLedger::new(task_id)),
        };
        self.by_id.insert(task_id.to_string(), self.tasks.len());
        self.tasks.push(TaskJudge {
            id: task_id.to_string(),
            ledger: Some(ledger),
            closed: None,
            held: BTreeMap::new(),
            events: 0,
            findings: 0,
            last_index: index,
            wire,
            kept: None,
            shapes: Vec::new(),
        });
        self.tasks.len() - 1
    }

    /// Judges one event of its task, in three steps: what it offers the
    /// task's ledger ([`TaskJudge::offer`]), the ledger's decision
    /// ([`TaskJudge::decide`]), and the row the page shows
    /// ([`TaskJudge::row`]).
    fn judge(&mut self, index: usize, event: WireEvent, id: &str, timestamp: Option<u64>) {
        let slot = self.slot(index, &event.task_id, event.wire);
        self.last_slot = Some(slot);
        let task = &mut self.tasks[slot];
        task.events += 1;
        task.last_index = index;
        task.wire = event.wire;
        let before = task.state();
        let mut found = EventFindings::default();
        if let Some((offer, event_id)) = task.offer(index, &event.what, id, &mut found) {
            match task.closed {
                Some(state) => found.after_terminal(&offer, event.wire.spell(state)),
                None => {
                    found.ledger = task.decide(&offer, &event_id, index, event.wire, before);
                    task.close_if_terminal(&mut self.spare);
                }
            }
        }
        if self.keep_rows {
            task.row(&event.what, before, timestamp, &found);
        }
        for (code, message) in found.into_findings() {
            task.findings += 1;
            self.findings.push(CaptureFinding {
                code,
                task: task.id.clone(),
                index,
                message,
            });
        }
    }

    /// One `wire-shape` finding per task and rule broken, keyed by the
    /// first event that broke it and the order found.
    fn shape_findings(&mut self) -> BTreeMap<(usize, usize), CaptureFinding> {
        let mut late = BTreeMap::new();
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
        late
    }

    /// The report: every task's end state, and `missing-terminal` for a
    /// task whose last stream ended while it was neither terminal nor
    /// interrupted.
    pub(super) fn finish(mut self) -> CaptureReport {
        let wire = WiresSeen::of(self.seen_1_0, self.seen_0_3);
        let mut tasks = Vec::with_capacity(self.tasks.len());
        let keeping = self.keep_rows || self.keep_events;
        let mut rows = Vec::with_capacity(if keeping { self.tasks.len() } else { 0 });
        let mut events = Vec::new();
        let mut signs = Vec::new();
        let mut late = self.shape_findings();
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
            if keeping {
                let kept = task.kept.take().map(|k| *k).unwrap_or_default();
                rows.push(kept.rows);
                events.push(kept.events);
                signs.push(kept.signs);
            }
            tasks.push(TaskSummary {
                id: std::mem::take(&mut task.id),
                events: task.events,
                final_state: SpelledState {
                    state,
                    wire: task.wire,
                },
                findings: task.findings,
                scenario: None,
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
            events: if self.keep_events { events } else { Vec::new() },
            signs: if self.keep_events { signs } else { Vec::new() },
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
    let state = |s: &SentState<Cow<str>>| match sent(s) {
        SentState::Known(state) => state.short().to_string(),
        SentState::Other(text) => text.to_string(),
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

/// What an event offers its task's ledger, borrowed from the event.
enum CaptureOffer<'e> {
    Submit,
    Status(SentState<&'e str>),
    /// A captured part is judged by its coordinate and checksum; its text
    /// and media types stay in the capture.
    Part {
        artifact_id: &'e str,
        number: u32,
        last: bool,
        checksum: ContentId,
    },
}

impl CaptureOffer<'_> {
    /// For a finding's message (built only when there is one).
    fn describe(&self) -> String {
        match self {
            CaptureOffer::Submit => "submitted".into(),
            CaptureOffer::Status(state) => state.text().to_string(),
            CaptureOffer::Part {
                artifact_id,
                number,
                ..
            } => format!(
                "artifact part {}",
                Coordinate {
                    artifact_id: artifact_id.to_string(),
                    part: *number,
                }
            ),
        }
    }

    /// What the ledger reads of it.
    fn body(&self) -> BodyRef<'_> {
        match self {
            CaptureOffer::Submit => BodyRef::Submit,
            CaptureOffer::Status(state) => BodyRef::Status {
                status: *state,
                // A capture carries no authorization decisions to check.
                authorization_receipt: Some("capture"),
                manifest: None,
            },
            CaptureOffer::Part {
                artifact_id,
                number,
                last,
                checksum,
            } => BodyRef::Part(PartRef {
                artifact_id,
                part: *number,
                media_type: "",
                checksum: checksum.as_str(),
                last: *last,
                text: "",
            }),
        }
    }
}

/// The state an event carries, as the ledger reads it: a state spelled
/// the other wire's way is still that state (`wire-shape` reports the
/// spelling).
fn sent<'e>(state: &'e SentState<Cow<'_, str>>) -> SentState<&'e str> {
    match state {
        SentState::Known(state) => SentState::Known(*state),
        SentState::Other(text) => SentState::read(text),
    }
}
