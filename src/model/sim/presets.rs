//! The worked ledgers of seed 000 as scripts of events played through the
//! same ledger and trace views as the executor scenarios: T-42, T-43 and
//! the release drill. Each script is a table of steps; [`play`] offers
//! them to fresh ledgers.

use crate::model::digest::sha256_fields;
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::{
    authorization_receipt_for, Body, Decision, LedgerEvent, Outcome, TaskLedger,
};
use crate::model::sim::scenario::Preset;
use crate::model::state::TaskState;
use crate::model::trace::{
    Disposition, Entry, Metrics, Row, RowKind, Run, Source, StreamEnd, Trace,
};
use crate::model::wire::{Chunk, RowWire, SimEvent, TaskRef};

/// What a scripted step offers its task's ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// A submission under its idempotency key.
    Submit(&'static str),
    /// A status change.
    Status {
        /// Event id.
        id: &'static str,
        /// Kebab-case state.
        to: &'static str,
        /// Who sends it.
        producer: &'static str,
        /// The credential whose receipt reference it carries (the
        /// credential itself never reaches the ledger).
        credential: Option<&'static str>,
        /// The manifest that closes the result set with it.
        manifest: Option<&'static str>,
    },
    /// An artifact part.
    Part {
        /// Event id.
        id: &'static str,
        /// Artifact id.
        artifact: &'static str,
        /// Part number.
        n: u32,
        /// The bytes, as text.
        text: &'static str,
        /// It closes its artifact.
        last: bool,
    },
    /// No event: an action, such as a stream being killed.
    Nothing,
}

/// One scripted step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptStep {
    /// Which task (0, or 1 for the drill's second task).
    pub task: usize,
    /// Virtual time.
    pub t_ms: u64,
    /// Who sends it.
    pub source: Source,
    /// A label for people.
    pub label: &'static str,
    /// What it offers the ledger.
    pub offer: Offer,
}

impl ScriptStep {
    /// The event this step offers the ledger of `preset`'s task, if any.
    /// Identity and digest come from the offer alone, so a step that repeats
    /// an earlier one is an exact replay.
    pub fn event(&self, preset: Preset) -> Option<LedgerEvent> {
        let task_id = task_ids(preset)[self.task];
        let (event_id, producer, digest, body) = match self.offer {
            Offer::Nothing => return None,
            Offer::Submit(key) => (key, "client", sha256_fields(&["submit", key]), Body::Submit),
            Offer::Status {
                id,
                to,
                producer,
                credential,
                manifest,
            } => (
                id,
                producer,
                sha256_fields(&["status", id, to]),
                Body::Status {
                    status: to.into(),
                    authorization_receipt: credential.map(authorization_receipt_for),
                    manifest: manifest.map(String::from),
                },
            ),
            Offer::Part {
                id,
                artifact,
                n,
                text,
                last,
            } => {
                let part = Part::text(artifact, n, text, last);
                let digest = sha256_fields(&["part", artifact, &n.to_string(), &part.checksum]);
                (id, "executor", digest, Body::Part(part))
            }
        };
        Some(LedgerEvent {
            task_id: task_id.into(),
            event_id: event_id.into(),
            producer: producer.into(),
            source_seq: None,
            digest,
            observed_ms: self.t_ms,
            body,
        })
    }
}

const fn step(
    task: usize,
    t_ms: u64,
    source: Source,
    label: &'static str,
    offer: Offer,
) -> ScriptStep {
    ScriptStep {
        task,
        t_ms,
        source,
        label,
        offer,
    }
}

const fn status(id: &'static str, to: &'static str) -> Offer {
    by(id, to, "executor")
}

const fn by(id: &'static str, to: &'static str, producer: &'static str) -> Offer {
    Offer::Status {
        id,
        to,
        producer,
        credential: None,
        manifest: None,
    }
}

const fn authorized(
    id: &'static str,
    to: &'static str,
    producer: &'static str,
    credential: &'static str,
) -> Offer {
    Offer::Status {
        id,
        to,
        producer,
        credential: Some(credential),
        manifest: None,
    }
}

const fn settles(id: &'static str, to: &'static str, manifest: &'static str) -> Offer {
    Offer::Status {
        id,
        to,
        producer: "executor",
        credential: None,
        manifest: Some(manifest),
    }
}

const fn part(
    id: &'static str,
    artifact: &'static str,
    n: u32,
    text: &'static str,
    last: bool,
) -> Offer {
    Offer::Part {
        id,
        artifact,
        n,
        text,
        last,
    }
}

/// The task ids of a preset, in ledger order.
pub fn task_ids(preset: Preset) -> &'static [&'static str] {
    match preset {
        Preset::T42 => &["T-42"],
        Preset::T43 => &["T-43"],
        Preset::Drill => &["D-1", "D-2"],
    }
}

/// The credential behind T-42's receipt A4; only its reference is stored.
pub const T42_CREDENTIAL: &str = "Bearer t42-user-session-credential";
/// The credential behind the drill's valid receipt.
const DRILL_CREDENTIAL: &str = "Bearer drill-credential";

use Source::{Client, Executor};

/// T-42: request digest R7; working E1, auth-required E2, working E3 with
/// receipt A4, input-required E4, E2 again after a reconnect, working E5,
/// completed E6 with manifest M9, a late failed E7.
#[rustfmt::skip]
const T42: &[ScriptStep] = &[
    step(0, 0, Client, "submitted with request digest R7", Offer::Submit("R7")),
    step(0, 100, Executor, "E1 working", status("E1", "working")),
    step(0, 150, Executor, "draft/0", part("P-draft-0", "draft", 0, "T-42 draft, part 0", false)),
    step(0, 200, Executor, "E2 auth-required", status("E2", "auth-required")),
    step(0, 300, Client, "E3 working with receipt A4", authorized("E3", "working", "executor", T42_CREDENTIAL)),
    step(0, 350, Executor, "draft/1", part("P-draft-1", "draft", 1, "T-42 draft, part 1", false)),
    step(0, 400, Executor, "E4 input-required", status("E4", "input-required")),
    step(0, 450, Client, "E2 again after a reconnect", status("E2", "auth-required")),
    step(0, 500, Executor, "E5 working", status("E5", "working")),
    step(0, 550, Executor, "draft/2 (final)", part("P-draft-2", "draft", 2, "T-42 draft, part 2", true)),
    step(0, 600, Executor, "E6 completed with manifest M9", settles("E6", "completed", "M9")),
    step(0, 700, Executor, "E7 failed, late", status("E7", "failed")),
];

/// T-43: submitted straight to rejected; a later event cannot revive it.
#[rustfmt::skip]
const T43: &[ScriptStep] = &[
    step(0, 0, Client, "submitted", Offer::Submit("R8")),
    step(0, 100, Executor, "declined: rejected", status("X1", "rejected")),
    step(0, 200, Executor, "a later event tries to revive it", status("X2", "working")),
];

/// The release drill: the stream killed after two parts, a retried
/// submission, an unauthorized then an authorized resume, input, settling;
/// a second task rejected and a late event trying to revive it.
#[rustfmt::skip]
const DRILL: &[ScriptStep] = &[
    step(0, 0, Client, "submitted (idempotency key K1)", Offer::Submit("K1")),
    step(0, 100, Executor, "working", status("W1", "working")),
    step(0, 200, Executor, "report/0", part("P0", "report", 0, "drill report, part 0", false)),
    step(0, 250, Executor, "report/1", part("P1", "report", 1, "drill report, part 1", false)),
    step(0, 300, Client, "stream killed after two parts; client reconnects", Offer::Nothing),
    step(0, 310, Executor, "report/1 resent after the reconnect", part("P1", "report", 1, "drill report, part 1", false)),
    step(0, 320, Client, "submission retried with K1", Offer::Submit("K1")),
    step(0, 400, Executor, "auth-required", status("A1", "auth-required")),
    step(0, 500, Client, "resume without an authorization receipt", by("W2", "working", "client")),
    step(0, 600, Client, "resume with a valid receipt", authorized("W3", "working", "client", DRILL_CREDENTIAL)),
    step(0, 700, Executor, "input-required", status("I1", "input-required")),
    step(0, 800, Client, "input supplied: working", by("W4", "working", "client")),
    step(0, 900, Executor, "report/2 (final)", part("P2", "report", 2, "drill report, part 2", true)),
    step(0, 1000, Executor, "settles: completed with manifest M1", settles("C1", "completed", "M1")),
    step(1, 1100, Client, "second task submitted", Offer::Submit("K2")),
    step(1, 1200, Executor, "second task rejected", status("R1", "rejected")),
    step(1, 1300, Executor, "a late event tries to revive it", status("L1", "working")),
];

/// The script of a preset.
pub fn script(preset: Preset) -> &'static [ScriptStep] {
    match preset {
        Preset::T42 => T42,
        Preset::T43 => T43,
        Preset::Drill => DRILL,
    }
}

/// Plays a preset through fresh ledgers.
pub fn play(preset: Preset) -> Run {
    let mut ledgers: Vec<TaskLedger> = task_ids(preset)
        .iter()
        .map(|id| TaskLedger::new(id))
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    let several = ledgers.len() > 1;
    for step in script(preset) {
        let ledger = &mut ledgers[step.task];
        let label = if several {
            format!("{}: {}", ledger.task_id(), step.label)
        } else {
            step.label.to_string()
        };
        let entry = match step.event(preset) {
            None => Entry::action(step.source, label),
            Some(event) => {
                let decision = ledger.apply(&event);
                Entry::event(
                    step.source,
                    label,
                    Disposition::of_decision(&decision, None).unwrap_or(Disposition::Delivered),
                )
                .wire(wire_for(
                    &decision,
                    &event,
                    task_ids(preset)[step.task],
                    step.t_ms,
                ))
                .target(status_target(&event))
            }
        };
        rows.push(entry.row(rows.len(), step.t_ms, Some(ledger.state())));
    }
    let primary = &ledgers[0];
    let count = |d: Disposition| {
        rows.iter()
            .filter(|r| r.kind == RowKind::Event && r.disposition == d)
            .count() as u32
    };
    let metrics = Metrics {
        events_delivered: count(Disposition::Delivered),
        events_after_terminal: 0,
        dropped_by_guard: 0,
        final_state: Some(primary.state()),
        stream: Some(StreamEnd::Closed),
        hung_streams: 0,
        hung_calls: 0,
        tasks_non_terminal: ledgers.iter().filter(|l| !l.state().is_terminal()).count() as u32,
        orphaned_steps: 0,
        blocking_result_artifacts: None,
        get_task_artifacts: Some(primary.artifacts().artifacts.len() as u32),
        cancel_result: None,
        task_lost: false,
        executions: 1,
        duplicates: count(Disposition::Duplicate),
        rejected: count(Disposition::Rejected),
        incidents: count(Disposition::Incident),
        push: None,
    };
    Run {
        trace: Trace { rows, metrics },
        ledgers,
        call_end: None,
        streams: Vec::new(),
    }
}

/// The state a scripted status event moves to (or tries to).
fn status_target(event: &LedgerEvent) -> Option<TaskState> {
    match &event.body {
        Body::Status { status, .. } => status.known(),
        Body::Submit => Some(TaskState::Submitted),
        _ => None,
    }
}

/// What a subscribed client receives for an accepted status or stored part,
/// on the task `task` names.
fn wire_for(
    decision: &Decision,
    event: &LedgerEvent,
    task: &'static str,
    t_ms: u64,
) -> Option<RowWire> {
    let task = TaskRef::Named(task);
    let event = match (decision, &event.body) {
        (Decision::New(Outcome::Accepted { state, .. }), _) => SimEvent::Status {
            task,
            state: *state,
            t_ms,
            progress: None,
        },
        (Decision::New(Outcome::Stored { .. }), Body::Part(p)) => SimEvent::Artifact {
            task,
            chunk: Chunk {
                artifact_id: p.artifact_id.clone(),
                name: p.artifact_id.clone(),
                parts: vec![p.text.clone()],
                append: p.part > 0,
                last_chunk: p.last,
            },
        },
        _ => return None,
    };
    Some(RowWire::sim(event))
}
