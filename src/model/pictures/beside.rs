//! A captured task beside the scenario that explains it (issue 33's "Open
//! as a scenario"): the task's events as the capture judged them (A) and
//! the scenario's as simulated (B), event by event, each with what happened
//! to it, and the rows where the two differ marked. B follows the
//! controls, so a policy toggled on (`guard=on`) shows on the user's own
//! events.

use std::sync::Arc;

use crate::model::evidence::scenario_of::{received, row_shapes, ScenarioOf};
use crate::model::sim::scenario::Scenario;
use crate::model::trace::{Row, RowKind, Run};

/// A task of an imported capture, pinned as A.
#[derive(Debug, Clone, PartialEq)]
pub struct PinnedTask {
    /// The task's id.
    pub id: String,
    /// Its events as compared, with what the capture's judge did with
    /// each: `artifact last 1 · after-terminal`.
    pub events: Vec<String>,
    /// The scenario read off it, as first opened.
    pub query: String,
}

impl PinnedTask {
    /// The task `id` whose events the capture judged into `rows`, explained
    /// by `scenario`; `None` when it was not explained.
    pub fn new(id: &str, scenario: Option<&ScenarioOf>, rows: &[Row]) -> Option<Arc<PinnedTask>> {
        let scenario = scenario?;
        let judged = rows.iter().filter(|r| r.kind == RowKind::Event);
        let events = scenario
            .events
            .iter()
            .zip(judged)
            .map(|(shape, row)| format!("{shape} · {}", row.disposition.label()))
            .collect();
        Some(Arc::new(PinnedTask {
            id: id.to_string(),
            events,
            query: scenario.query.clone(),
        }))
    }
}

/// One event of each side at the same place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BesideRow {
    /// The task's event, if it has one here.
    pub task: Option<String>,
    /// The scenario's, if it has one here.
    pub scenario: Option<String>,
}

impl BesideRow {
    /// Whether the two sides differ here.
    pub fn differs(&self) -> bool {
        self.task != self.scenario
    }
}

/// The task and the scenario side by side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beside {
    /// Event by event, the longer side's length.
    pub rows: Vec<BesideRow>,
    /// In a sentence: whether they agree, or how many events differ and
    /// where first.
    pub summary: String,
}

/// The scenario's events as its client received them, each with what
/// happened to it (`not sent` where a policy kept one from the client).
fn scenario_events(scenario: &Scenario, run: &Run) -> Vec<String> {
    let rows = received(run);
    let shapes = row_shapes(&rows, scenario.wire);
    rows.iter()
        .zip(shapes)
        .map(|(row, shape)| {
            let event = shape.map_or_else(|| "not sent".to_string(), |s| s.to_string());
            format!("{event} · {}", row.disposition.label())
        })
        .collect()
}

/// An event as compared, without what happened to it.
fn event(line: &str) -> &str {
    line.rsplit_once(" · ").map_or(line, |(event, _)| event)
}

/// What happened to an event, without the event.
fn handled(line: &str) -> &str {
    line.rsplit_once(" · ").map_or(line, |(_, handled)| handled)
}

/// `task` (A) beside `scenario`'s run (B).
pub fn beside(task: &PinnedTask, scenario: &Scenario, run: &Run) -> Beside {
    let b = scenario_events(scenario, run);
    let n = task.events.len().max(b.len());
    let rows: Vec<BesideRow> = (0..n)
        .map(|i| BesideRow {
            task: task.events.get(i).cloned(),
            scenario: b.get(i).cloned(),
        })
        .collect();
    let differing: Vec<usize> = (0..n).filter(|&i| rows[i].differs()).collect();
    let sent_alike = rows
        .iter()
        .all(|r| r.task.as_deref().map(event) == r.scenario.as_deref().map(event));
    let summary = match differing.first() {
        None => format!(
            "The scenario reproduces task {}: its {n} events, and what happened to each.",
            task.id
        ),
        // The same events, one handled otherwise: what the lab's ledger
        // judged in the capture against what the scenario's policy did.
        Some(&first) if sent_alike => format!(
            "The scenario sends task {}'s {n} events; {} of them handled otherwise, first event {}: {} in the task, {} in the scenario.",
            task.id,
            differing.len(),
            first + 1,
            rows[first].task.as_deref().map_or("nothing", handled),
            rows[first].scenario.as_deref().map_or("nothing", handled),
        ),
        Some(&first) => format!(
            "{} of {n} events differ from task {}, first event {}: {} in the task, {} in the scenario.",
            differing.len(),
            task.id,
            first + 1,
            rows[first].task.as_deref().unwrap_or("nothing"),
            rows[first].scenario.as_deref().unwrap_or("nothing"),
        ),
    };
    Beside { rows, summary }
}
