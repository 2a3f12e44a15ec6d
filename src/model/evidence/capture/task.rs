//! One task of a capture as its judge holds it (SPEC §8): its ledger while
//! it is open, the parts the client holds, and what each event offers the
//! ledger, finds, and shows as a row.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::model::evidence::finding::FindingCode;
use crate::model::ledger::artifacts::{Coordinate, PartRef};
use crate::model::ledger::{BodyRef, Decision, EventRef, Outcome, Reason, TaskLedger};
use crate::model::state::{SentState, TaskState};
use crate::model::trace::{Disposition, Entry, Row, Source};
use crate::model::wire::answer::OwnedEvent;
use crate::model::wire::event::{ContentId, What};
use crate::model::wire::schema::{ShapeFault, ShapeRule};
use crate::model::wire::signs::WireSigns;
use crate::model::wire::Wire;

/// Ledgers of finished tasks kept for the next tasks, at most: about as
/// many as a server has tasks open at once.
const SPARE_LEDGERS: usize = 64;

/// One task's judge: its ledger while open, the parts the client holds.
pub(super) struct TaskJudge {
    pub(super) id: String,
    pub(super) ledger: Option<Box<TaskLedger>>,
    /// The state once terminal (the ledger is then handed back).
    pub(super) closed: Option<TaskState>,
    /// Per artifact, the next part number the client expects (ordered, so
    /// that crafted artifact ids cannot make lookups slow).
    pub(super) held: BTreeMap<String, u32>,
    pub(super) events: u32,
    pub(super) findings: u32,
    pub(super) last_index: usize,
    pub(super) wire: Wire,
    /// What is kept of its events for the page and for explaining, when
    /// asked (boxed: `check` on a clean capture of 100,000 tasks keeps
    /// none, and each task's judge stays small).
    pub(super) kept: Option<Box<KeptEvents>>,
    /// Per schema rule, the events that broke it: one `wire-shape`
    /// finding each (SPEC §13).
    pub(super) shapes: Vec<(ShapeRule, ShapeTally)>,
    /// The code of the JSON-RPC error event that ended its last SSE
    /// stream, where one came after its events and nothing of it after.
    pub(super) stream_error: Option<crate::model::wire::RpcCode>,
}

/// What a task keeps of its events when the reader is asked to.
#[derive(Default, Clone)]
pub(super) struct KeptEvents {
    /// The task's events as trace rows.
    pub(super) rows: Vec<Row>,
    /// The task's events as read (to explain it by a scenario).
    pub(super) events: Vec<OwnedEvent>,
    /// What the kept events' bytes show of the SDK that sent them.
    pub(super) signs: WireSigns,
    /// Milliseconds of the first status timestamp, the origin of `t_ms`.
    pub(super) origin_ms: Option<u64>,
}

impl TaskJudge {
    pub(super) fn state(&self) -> TaskState {
        self.closed
            .or_else(|| self.ledger.as_ref().map(|l| l.state()))
            .unwrap_or(TaskState::Submitted)
    }

    /// What an event offers the ledger, and under which id; the parts the
    /// client holds follow the event, and an append with no start held is
    /// a gap.
    pub(super) fn offer<'e>(
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
    pub(super) fn next_part(
        &mut self,
        artifact_id: &str,
        append: bool,
        found: &mut EventFindings,
    ) -> u32 {
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
    pub(super) fn decide(
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
    pub(super) fn close_if_terminal(&mut self, spare: &mut Vec<Box<TaskLedger>>) {
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
    pub(super) fn unjudged_row(&mut self, faults: &[ShapeFault]) {
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
    pub(super) fn row(
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
pub(super) struct EventFindings {
    pub(super) gap: Option<String>,
    pub(super) after_terminal: Option<String>,
    pub(super) ledger: Option<(FindingCode, String, Disposition)>,
    /// What it breaks of the request it answers, which continued a task.
    pub(super) continued: Vec<(FindingCode, String)>,
}

impl EventFindings {
    /// The event came after its task ended (`state`, spelled by its wire).
    pub(super) fn after_terminal(&mut self, offer: &CaptureOffer, state: &str) {
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
    pub(super) fn first(&self) -> Option<(FindingCode, Disposition)> {
        if self.gap.is_some() {
            return Some((FindingCode::ArtifactGap, Disposition::Rejected));
        }
        if self.after_terminal.is_some() {
            return Some((FindingCode::AfterTerminal, Disposition::AfterTerminal));
        }
        if let Some((code, _, d)) = &self.ledger {
            return Some((*code, *d));
        }
        // The event itself was received as sent.
        let continued = self.continued.first();
        continued.map(|(code, _)| (*code, Disposition::Delivered))
    }

    pub(super) fn into_findings(self) -> impl Iterator<Item = (FindingCode, String)> {
        let gap = self.gap.map(|m| (FindingCode::ArtifactGap, m));
        let after = self.after_terminal.map(|m| (FindingCode::AfterTerminal, m));
        let ledger = self.ledger.map(|(code, m, _)| (code, m));
        gap.into_iter()
            .chain(after)
            .chain(ledger)
            .chain(self.continued)
    }
}

/// The events of one task that broke one schema rule.
pub(super) struct ShapeTally {
    pub(super) first: usize,
    pub(super) count: u32,
    pub(super) wire: Wire,
    pub(super) detail: String,
}
/// A status update that repeats the task's current state, while that
/// state is not terminal, reports progress (A2A 1.0 §3.7): the seed's
/// allowlist judges changes of state, and this is none.
pub(super) fn is_progress(state: Option<TaskState>, before: TaskState) -> bool {
    state == Some(before) && !before.is_terminal()
}

/// A row's label for an event (the task id is the list's, not the row's).
pub(super) fn label_of(what: &What) -> String {
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
pub(super) enum CaptureOffer<'e> {
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
    pub(super) fn describe(&self) -> String {
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
    pub(super) fn body(&self) -> BodyRef<'_> {
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
pub(super) fn sent<'e>(state: &'e SentState<Cow<'_, str>>) -> SentState<&'e str> {
    match state {
        SentState::Known(state) => SentState::Known(*state),
        SentState::Other(text) => SentState::read(text),
    }
}
