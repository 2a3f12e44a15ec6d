//! The worked ledgers of seed 000 as scripts of events played through the
//! same ledger and trace views as the executor scenarios: T-42, T-43 and
//! the release drill.

use crate::model::digest::sha256_fields;
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::{
    authorization_receipt_for, Body, Decision, LedgerEvent, Outcome, TaskLedger,
};
use crate::model::sim::scenario::Preset;
use crate::model::state::TaskState;
use crate::model::trace::Run;
use crate::model::trace::{Disposition, Metrics, Row, RowKind, Source, StreamEnd, Trace};
use crate::model::wire::{self, Chunk};

/// One scripted event.
#[derive(Debug, Clone)]
pub struct ScriptStep {
    /// Which task's ledger (0, or 1 for the drill's second task).
    pub task: usize,
    /// Virtual time.
    pub t_ms: u64,
    /// Who sends it.
    pub source: Source,
    /// A label for people.
    pub label: String,
    /// The event offered to the ledger (`None` for an action with no event,
    /// such as a stream being killed).
    pub event: Option<LedgerEvent>,
}

fn status(task: &str, id: &str, to: &str, t_ms: u64, producer: &str) -> LedgerEvent {
    LedgerEvent {
        task_id: task.into(),
        event_id: id.into(),
        producer: producer.into(),
        source_seq: None,
        digest: sha256_fields(&["status", id, to]),
        observed_ms: t_ms,
        body: Body::Status {
            status: to.into(),
            authorization_receipt: None,
            manifest: None,
        },
    }
}

fn with(mut e: LedgerEvent, receipt: Option<&str>, manifest: Option<&str>) -> LedgerEvent {
    if let Body::Status {
        authorization_receipt,
        manifest: m,
        ..
    } = &mut e.body
    {
        *authorization_receipt = receipt.map(String::from);
        *m = manifest.map(String::from);
    }
    e
}

fn part(
    task: &str,
    id: &str,
    artifact: &str,
    n: u32,
    text: &str,
    last: bool,
    t_ms: u64,
) -> LedgerEvent {
    let part = Part::text(artifact, n, text, last);
    LedgerEvent {
        task_id: task.into(),
        event_id: id.into(),
        producer: "executor".into(),
        source_seq: None,
        digest: sha256_fields(&["part", artifact, &n.to_string(), &part.checksum]),
        observed_ms: t_ms,
        body: Body::Part(part),
    }
}

fn submit(task: &str, key: &str, t_ms: u64) -> LedgerEvent {
    LedgerEvent {
        task_id: task.into(),
        event_id: key.into(),
        producer: "client".into(),
        source_seq: None,
        digest: sha256_fields(&["submit", key]),
        observed_ms: t_ms,
        body: Body::Submit,
    }
}

fn step(task: usize, t_ms: u64, source: Source, label: &str, event: LedgerEvent) -> ScriptStep {
    ScriptStep {
        task,
        t_ms,
        source,
        label: label.into(),
        event: Some(event),
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

/// The script of a preset.
pub fn script(preset: Preset) -> Vec<ScriptStep> {
    use Source::{Client, Executor};
    match preset {
        Preset::T42 => {
            let a4 = authorization_receipt_for(T42_CREDENTIAL);
            let t = "T-42";
            vec![
                step(
                    0,
                    0,
                    Client,
                    "submitted with request digest R7",
                    submit(t, "R7", 0),
                ),
                step(
                    0,
                    100,
                    Executor,
                    "E1 working",
                    status(t, "E1", "working", 100, "executor"),
                ),
                step(
                    0,
                    150,
                    Executor,
                    "draft/0",
                    part(t, "P-draft-0", "draft", 0, "T-42 draft, part 0", false, 150),
                ),
                step(
                    0,
                    200,
                    Executor,
                    "E2 auth-required",
                    status(t, "E2", "auth-required", 200, "executor"),
                ),
                step(
                    0,
                    300,
                    Client,
                    "E3 working with receipt A4",
                    with(status(t, "E3", "working", 300, "executor"), Some(&a4), None),
                ),
                step(
                    0,
                    350,
                    Executor,
                    "draft/1",
                    part(t, "P-draft-1", "draft", 1, "T-42 draft, part 1", false, 350),
                ),
                step(
                    0,
                    400,
                    Executor,
                    "E4 input-required",
                    status(t, "E4", "input-required", 400, "executor"),
                ),
                step(
                    0,
                    450,
                    Client,
                    "E2 again after a reconnect",
                    status(t, "E2", "auth-required", 200, "executor"),
                ),
                step(
                    0,
                    500,
                    Executor,
                    "E5 working",
                    status(t, "E5", "working", 500, "executor"),
                ),
                step(
                    0,
                    550,
                    Executor,
                    "draft/2 (final)",
                    part(t, "P-draft-2", "draft", 2, "T-42 draft, part 2", true, 550),
                ),
                step(
                    0,
                    600,
                    Executor,
                    "E6 completed with manifest M9",
                    with(
                        status(t, "E6", "completed", 600, "executor"),
                        None,
                        Some("M9"),
                    ),
                ),
                step(
                    0,
                    700,
                    Executor,
                    "E7 failed, late",
                    status(t, "E7", "failed", 700, "executor"),
                ),
            ]
        }
        Preset::T43 => {
            let t = "T-43";
            vec![
                step(0, 0, Client, "submitted", submit(t, "R8", 0)),
                step(
                    0,
                    100,
                    Executor,
                    "declined: rejected",
                    status(t, "X1", "rejected", 100, "executor"),
                ),
                step(
                    0,
                    200,
                    Executor,
                    "a later event tries to revive it",
                    status(t, "X2", "working", 200, "executor"),
                ),
            ]
        }
        Preset::Drill => {
            let receipt = authorization_receipt_for("Bearer drill-credential");
            let d = "D-1";
            let killed = ScriptStep {
                task: 0,
                t_ms: 300,
                source: Client,
                label: "stream killed after two parts; client reconnects".into(),
                event: None,
            };
            vec![
                step(
                    0,
                    0,
                    Client,
                    "submitted (idempotency key K1)",
                    submit(d, "K1", 0),
                ),
                step(
                    0,
                    100,
                    Executor,
                    "working",
                    status(d, "W1", "working", 100, "executor"),
                ),
                step(
                    0,
                    200,
                    Executor,
                    "report/0",
                    part(d, "P0", "report", 0, "drill report, part 0", false, 200),
                ),
                step(
                    0,
                    250,
                    Executor,
                    "report/1",
                    part(d, "P1", "report", 1, "drill report, part 1", false, 250),
                ),
                killed,
                step(
                    0,
                    310,
                    Executor,
                    "report/1 resent after the reconnect",
                    part(d, "P1", "report", 1, "drill report, part 1", false, 250),
                ),
                step(
                    0,
                    320,
                    Client,
                    "submission retried with K1",
                    submit(d, "K1", 320),
                ),
                step(
                    0,
                    400,
                    Executor,
                    "auth-required",
                    status(d, "A1", "auth-required", 400, "executor"),
                ),
                step(
                    0,
                    500,
                    Client,
                    "resume without an authorization receipt",
                    status(d, "W2", "working", 500, "client"),
                ),
                step(
                    0,
                    600,
                    Client,
                    "resume with a valid receipt",
                    with(
                        status(d, "W3", "working", 600, "client"),
                        Some(&receipt),
                        None,
                    ),
                ),
                step(
                    0,
                    700,
                    Executor,
                    "input-required",
                    status(d, "I1", "input-required", 700, "executor"),
                ),
                step(
                    0,
                    800,
                    Client,
                    "input supplied: working",
                    status(d, "W4", "working", 800, "client"),
                ),
                step(
                    0,
                    900,
                    Executor,
                    "report/2 (final)",
                    part(d, "P2", "report", 2, "drill report, part 2", true, 900),
                ),
                step(
                    0,
                    1000,
                    Executor,
                    "settles: completed with manifest M1",
                    with(
                        status(d, "C1", "completed", 1000, "executor"),
                        None,
                        Some("M1"),
                    ),
                ),
                step(
                    1,
                    1100,
                    Client,
                    "second task submitted",
                    submit("D-2", "K2", 1100),
                ),
                step(
                    1,
                    1200,
                    Executor,
                    "second task rejected",
                    status("D-2", "R1", "rejected", 1200, "executor"),
                ),
                step(
                    1,
                    1300,
                    Executor,
                    "a late event tries to revive it",
                    status("D-2", "L1", "working", 1300, "executor"),
                ),
            ]
        }
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
        let (disposition, kind, wire) = match &step.event {
            None => (Disposition::Delivered, RowKind::Action, None),
            Some(event) => {
                let decision = ledger.apply(event);
                let wire = wire_for(&decision, event, step.t_ms);
                (disposition_of(&decision), RowKind::Event, wire)
            }
        };
        let prefix = if several {
            format!("{}: ", ledger.task_id())
        } else {
            String::new()
        };
        rows.push(Row {
            index: rows.len(),
            t_ms: step.t_ms,
            source: step.source,
            event: format!("{prefix}{}", step.label),
            disposition,
            state_after: Some(ledger.state()),
            target: step.event.as_ref().and_then(status_target),
            wire,
            kind,
            assumed: false,
        });
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
    };
    Run {
        trace: Trace { rows, metrics },
        ledgers,
        call_end: None,
    }
}

/// The state a scripted status event moves to (or tries to).
fn status_target(event: &LedgerEvent) -> Option<TaskState> {
    match &event.body {
        Body::Status { status, .. } => TaskState::from_kebab(status),
        Body::Submit => Some(TaskState::Submitted),
        _ => None,
    }
}

fn disposition_of(decision: &Decision) -> Disposition {
    match decision {
        Decision::Duplicate(_) => Disposition::Duplicate,
        Decision::New(Outcome::Rejected { .. }) => Disposition::Rejected,
        Decision::New(Outcome::Incident { .. }) => Disposition::Incident,
        Decision::New(Outcome::Replayed { .. }) => Disposition::Duplicate,
        Decision::New(_) => Disposition::Delivered,
    }
}

/// What a subscribed client receives for an accepted status or stored part.
fn wire_for(decision: &Decision, event: &LedgerEvent, t_ms: u64) -> Option<serde_json::Value> {
    match (decision, &event.body) {
        (Decision::New(Outcome::Accepted { state, .. }), _) => {
            Some(status_update_for(&event.task_id, *state, t_ms))
        }
        (Decision::New(Outcome::Stored { .. }), Body::Part(p)) => {
            let chunk = Chunk {
                artifact_id: p.artifact_id.clone(),
                name: p.artifact_id.clone(),
                text: p.text.clone(),
                append: p.part > 0,
                last_chunk: p.last,
            };
            let mut v = wire::artifact_update(0, &chunk);
            retarget(&mut v, "artifactUpdate", &event.task_id);
            Some(v)
        }
        _ => None,
    }
}

fn status_update_for(task_id: &str, state: TaskState, t_ms: u64) -> serde_json::Value {
    let mut v = wire::status_update(0, state, t_ms);
    retarget(&mut v, "statusUpdate", task_id);
    v
}

/// Points a wire event at a preset's own task and context.
fn retarget(v: &mut serde_json::Value, key: &str, task_id: &str) {
    if let Some(inner) = v.get_mut(key).and_then(|i| i.as_object_mut()) {
        inner.insert("taskId".into(), serde_json::json!(task_id));
        inner.insert(
            "contextId".into(),
            serde_json::json!(format!("ctx-{task_id}")),
        );
    }
}
