//! How the capture reader judges what it reads (SPEC §8): each element (a
//! JSON-RPC response or a bare event) is read, grouped by task id and
//! offered to that task's own ledger; what the ledger refuses, and what a
//! client holding the parts it was sent would notice, become findings. A
//! request the client sent, where the capture keeps one, is no event: it
//! says which task the answers after it must concern (A2A 1.0 §3.4.3),
//! or that the answer after it is a ListTasks answer, whose tasks are
//! listed, not streamed, and judged by no ledger.
//!
//! Memory grows with the tasks still open: a finished task keeps its id,
//! counts and final state, and hands its ledger back for the next task.

use std::collections::{BTreeMap, HashMap};

#[cfg(not(target_arch = "wasm32"))]
use super::explaining::ExplainingAsRead;
use super::report::{CaptureFinding, CaptureReport, RpcError, TaskSummary, WiresSeen};
use super::task::{EventFindings, KeptEvents, ShapeTally, TaskJudge};
use super::EXPLAIN_AT_MOST;
use crate::model::evidence::finding::{check_depth, FindingCode};
use crate::model::evidence::probe::request::LIST_TASKS;
use crate::model::ledger::TaskLedger;
use crate::model::wire::event::{parse, read_event, Envelope, RawEvent, Request, What, WireEvent};
use crate::model::wire::read_error::{EventFault, Place, ReadError, ReadKind};
use crate::model::wire::schema::{faults_of, Shape, ShapeFault, ShapeRule};
use crate::model::wire::signs::{SseFraming, WireSigns};
use crate::model::wire::{SpelledState, Wire};

/// Judges a capture's elements, in capture order, task by task.
pub(super) struct CaptureJudge {
    forced: Option<Wire>,
    pub(super) keep_rows: bool,
    pub(super) keep_events: bool,
    /// The most events kept when they are ([`EXPLAIN_AT_MOST`] unless the
    /// reader was told fewer).
    pub(super) keep_at_most: usize,
    /// Reading again only to explain the tasks with a finding: nothing is
    /// judged (`check`'s; the page keeps its events instead).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) again: Option<Box<ExplainingAsRead>>,
    /// How the SSE event read now was framed; `None` for an element that
    /// came in no SSE event.
    pub(super) sse: Option<SseFraming>,
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
    /// The request the answers read now answer, while it continues a task.
    continuing: Option<Continuing>,
    /// A ListTasks request was kept in the current file: an answer after
    /// it that names no event is the list, whose tasks are no events of
    /// any stream (a task listed WORKING is another client's to finish).
    lists: bool,
    /// ListTasks answers read.
    listed: u64,
    /// Ledgers of finished tasks, reset and reused by new ones; boxed as
    /// the tasks hold them, so that handing one over moves a pointer.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<TaskLedger>>,
}

impl CaptureJudge {
    pub(super) fn new(forced: Option<Wire>) -> CaptureJudge {
        CaptureJudge {
            forced,
            keep_rows: false,
            keep_events: false,
            keep_at_most: EXPLAIN_AT_MOST,
            #[cfg(not(target_arch = "wasm32"))]
            again: None,
            sse: None,
            tasks: Vec::new(),
            by_id: HashMap::new(),
            findings: Vec::new(),
            errors: Vec::new(),
            index: 0,
            events: 0,
            seen_1_0: false,
            seen_0_3: false,
            last_slot: None,
            continuing: None,
            lists: false,
            listed: 0,
            spare: Vec::new(),
        }
    }

    /// One element: a JSON-RPC response (its result, or its error) or a
    /// bare event, read into borrowed, typed fields.
    pub(super) fn element(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(again) = self.again.as_mut() {
            again.element(bytes, self.sse, self.forced);
            return Ok(());
        }
        // A request takes no index: the answers keep the places they have
        // in a capture of the answers alone.
        let index = self.index;
        let in_event = |e: ReadError| e.within(Place::Event(index));
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            check_depth(bytes)?;
            return Err(in_event(ReadError::new(ReadKind::Event(
                EventFault::NotAnObject,
            ))));
        }
        // One pass: the line is a JSON-RPC response whose result is the
        // event, the event itself, or a request the client sent.
        let line: RawEvent = parse(bytes)?;
        let typed = match line.envelope().map_err(in_event)? {
            Envelope::Request(request) => {
                self.lists |= request.method == LIST_TASKS;
                self.continuing = Continuing::of(&request);
                return Ok(());
            }
            Envelope::Error(error) => {
                self.index += 1;
                self.rpc_error(index, error.code, &error.message);
                return Ok(());
            }
            Envelope::Event(typed) => {
                self.index += 1;
                typed
            }
        };
        self.event(index, bytes, &line, typed).map_err(in_event)
    }

    /// A JSON-RPC error in place of an event. In an SSE stream, an error
    /// after a task's events is how that stream ended (a2a-sdk's raise,
    /// a2a-rs's cancel).
    fn rpc_error(&mut self, index: usize, code: crate::model::wire::RpcCode, message: &str) {
        if let (Some(_), Some(slot)) = (self.sse, self.last_slot) {
            self.tasks[slot].stream_error = Some(code);
        }
        self.errors.push(RpcError {
            index,
            code,
            message: message.to_string(),
        });
    }

    /// An answer that is no error: an event, judged in its task; a
    /// ListTasks answer, counted; an event that breaks its schema, a
    /// finding of its task.
    fn event(
        &mut self,
        index: usize,
        bytes: &[u8],
        line: &RawEvent,
        typed: &RawEvent,
    ) -> Result<(), ReadError> {
        let event = match read_event(typed, self.forced) {
            Ok(event) => event,
            Err(_) if self.lists && typed.names_no_event() => {
                self.listed += 1;
                return Ok(());
            }
            Err(e) => {
                // An event the schema explains (a required field absent, a
                // `kind` that names nothing) is a finding of its task, and
                // the capture is read on; anything else cannot be read.
                let wire = typed.wire(self.forced);
                let faults = faults_of(line, wire, Shape::Event);
                if faults.is_empty() {
                    return Err(e);
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
        let faults = faults_of(line, event.wire, Shape::Event);
        let slot = self.slot(index, &event.task_id, event.wire);
        self.keep_event(slot, bytes);
        self.tally(slot, index, event.wire, faults);
        let continued = self.continued(&event, typed);
        self.judge(index, event, id.as_str(), timestamp, continued);
        Ok(())
    }

    /// What the event breaks of the request it answers, while that request
    /// continues a task: a capture of answers alone pays this one test per
    /// event.
    fn continued(&mut self, event: &WireEvent, typed: &RawEvent) -> Vec<(FindingCode, String)> {
        let Some(asked) = self.continuing.as_mut() else {
            return Vec::new();
        };
        let task = match event.what {
            // A message answers for a task only when it names one.
            What::Message => typed.task_named(),
            _ => Some(event.task_id.clone()),
        };
        asked.answered(task.as_deref(), typed.context_named())
    }

    /// The capture's current file ended: a request in it is answered by
    /// nothing in the next, which holds answers to requests not kept.
    pub(super) fn file_ended(&mut self) {
        self.continuing = None;
        self.lists = false;
    }

    /// Keeps the event as read under its task, when asked to (to explain
    /// a task by a scenario), up to `keep_at_most` events: past that
    /// none is kept, and no task is explained from them.
    fn keep_event(&mut self, slot: usize, bytes: &[u8]) {
        use crate::model::wire::answer::{read_answer, Answer};
        if !self.keep_events {
            return;
        }
        if self.events > self.keep_at_most as u64 {
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
            if let Some(framing) = self.sse {
                task.signs.read_sse(framing);
            }
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
        if let Some(asked) = self.continuing.as_mut() {
            let found = asked.answered(event.task_named().as_deref(), event.context_named());
            for (code, message) in found {
                self.tasks[slot].findings += 1;
                self.findings.push(CaptureFinding {
                    code,
                    task: self.tasks[slot].id.clone(),
                    index,
                    message,
                });
            }
        }
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
    /// errors and ListTasks answers, which a capture holds (SPEC §8)
    /// though they are no events.
    pub(super) fn answers_read(&self) -> u64 {
        self.events + self.errors.len() as u64 + self.listed
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
            stream_error: None,
        });
        self.tasks.len() - 1
    }

    /// Judges one event of its task, in three steps: what it offers the
    /// task's ledger ([`TaskJudge::offer`]), the ledger's decision
    /// ([`TaskJudge::decide`]), and the row the page shows
    /// ([`TaskJudge::row`]).
    /// `continued`: what the event breaks of the request it answers
    /// ([`Continuing::answered`]).
    fn judge(
        &mut self,
        index: usize,
        event: WireEvent,
        id: &str,
        timestamp: Option<u64>,
        continued: Vec<(FindingCode, String)>,
    ) {
        let slot = self.slot(index, &event.task_id, event.wire);
        self.last_slot = Some(slot);
        let task = &mut self.tasks[slot];
        task.events += 1;
        task.last_index = index;
        task.wire = event.wire;
        // An event after an error: the error ended an earlier stream.
        task.stream_error = None;
        let before = task.state();
        let mut found = EventFindings {
            continued,
            ..EventFindings::default()
        };
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
    fn shape_findings(&self) -> BTreeMap<(usize, usize), CaptureFinding> {
        let mut late = BTreeMap::new();
        for task in &self.tasks {
            for (rule, tally) in &task.shapes {
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
        // Moved, not copied: the page's import keeps up to 100,000 events.
        let kept = self
            .tasks
            .iter_mut()
            .map(|t| t.kept.take().map(|k| *k).unwrap_or_default())
            .collect();
        let findings = std::mem::take(&mut self.findings);
        let errors = std::mem::take(&mut self.errors);
        self.report(kept, findings, errors, true)
    }

    /// The report of what was read so far, the reading going on (a live
    /// session's): `missing-terminal` only when `ended`, since a task
    /// whose stream is still open has not yet missed its terminal state.
    /// It copies each task's rows, and the events of a task with a
    /// finding (only those are explained), so it costs what they hold.
    pub(super) fn so_far(&self, ended: bool) -> CaptureReport {
        let kept = self
            .tasks
            .iter()
            .map(|t| match t.kept.as_deref() {
                Some(kept) if self.findings_of(t, ended) > 0 => kept.clone(),
                Some(kept) => KeptEvents {
                    rows: kept.rows.clone(),
                    events: Vec::new(),
                    signs: kept.signs.clone(),
                    origin_ms: kept.origin_ms,
                },
                None => KeptEvents::default(),
            })
            .collect();
        self.report(kept, self.findings.clone(), self.errors.clone(), ended)
    }

    /// Whether `task` is missing its terminal state: its last stream
    /// ended (`ended`) while it was neither terminal nor interrupted.
    fn misses_terminal(task: &TaskJudge, ended: bool) -> bool {
        let state = task.state();
        ended && !state.is_terminal() && !state.is_interrupted()
    }

    /// How many findings `task` has in the report.
    fn findings_of(&self, task: &TaskJudge, ended: bool) -> u32 {
        task.findings + task.shapes.len() as u32 + u32::from(Self::misses_terminal(task, ended))
    }

    fn report(
        &self,
        kept: Vec<KeptEvents>,
        met: Vec<CaptureFinding>,
        errors: Vec<RpcError>,
        ended: bool,
    ) -> CaptureReport {
        let wire = WiresSeen::of(self.seen_1_0, self.seen_0_3);
        let mut tasks = Vec::with_capacity(self.tasks.len());
        let keeping = self.keep_rows || self.keep_events;
        let mut rows = Vec::with_capacity(if keeping { self.tasks.len() } else { 0 });
        let mut events = Vec::new();
        let mut signs = Vec::new();
        let mut late = self.shape_findings();
        for (task, kept) in self.tasks.iter().zip(kept) {
            let state = task.state();
            if Self::misses_terminal(task, ended) {
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
                rows.push(kept.rows);
                events.push(kept.events);
                signs.push(kept.signs);
            }
            tasks.push(TaskSummary {
                id: task.id.clone(),
                events: task.events,
                final_state: SpelledState {
                    state,
                    wire: task.wire,
                },
                findings: self.findings_of(task, ended),
                scenario: None,
                stream_error: task.stream_error,
            });
        }
        // The findings met while reading are in capture order already; the
        // ones found now are merged in by their place (keyed, not sorted:
        // a sort would be one more copy of the sorting code in the page).
        let mut findings = Vec::with_capacity(met.len() + late.len());
        let mut late = late.into_values().peekable();
        for found in met {
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
            errors,
            read: self.index,
            rows: if self.keep_rows { rows } else { Vec::new() },
            events: if self.keep_events { events } else { Vec::new() },
            signs: if self.keep_events { signs } else { Vec::new() },
        }
    }
}

/// A request whose message continues a task (A2A 1.0 §3.4.3: a client
/// continues a task by sending a message with its `taskId` and
/// `contextId`), held until the next request: the answers must concern
/// that task, in that context. Each finding is made once per request.
struct Continuing {
    task_id: String,
    context_id: Option<String>,
    new_task: bool,
    dropped_context: bool,
}

impl Continuing {
    /// What a request asks to continue; `None` for one whose message names
    /// no task (a new task), or that sends no message.
    fn of(request: &Request) -> Option<Continuing> {
        Some(Continuing {
            task_id: request.task_id?.to_string(),
            context_id: request.context_id.map(String::from),
            new_task: false,
            dropped_context: false,
        })
    }

    /// What an answer naming `task` and `context` (each where it names
    /// one) breaks of the request, not yet found for it.
    fn answered(
        &mut self,
        task: Option<&str>,
        context: Option<&str>,
    ) -> Vec<(FindingCode, String)> {
        let mut found = Vec::new();
        if let Some(task) = task.filter(|&t| !self.new_task && t != self.task_id) {
            self.new_task = true;
            found.push((
                FindingCode::ContinuationNewTask,
                format!(
                    "a message continuing task {} was answered by task {task} (A2A 1.0 §3.4.3)",
                    self.task_id
                ),
            ));
        }
        if let (Some(asked), Some(context)) = (&self.context_id, context) {
            if !self.dropped_context && context != asked {
                self.dropped_context = true;
                found.push((
                    FindingCode::ContinuationDroppedContext,
                    format!(
                        "a message continuing task {} in context {asked} was answered in context {context} (A2A 1.0 §3.4.3)",
                        self.task_id
                    ),
                ));
            }
        }
        found
    }
}
