//! What the capture reader reports (SPEC §8): findings and JSON-RPC errors
//! by their place in the capture, and each task's end, as `--json` prints
//! them or as a table per task.

use std::collections::HashMap;

use serde::Serialize;

use crate::model::evidence::export::pretty_json;
use crate::model::evidence::finding::FindingCode;
use crate::model::evidence::scenario_of::{
    over_several_streams, scenario_of_within, sdk_order, Budget, ScenarioOf, Search,
};
use crate::model::sim::keys::Sdk;
use crate::model::sim::profile::sdk_named;
use crate::model::trace::Row;
use crate::model::wire::answer::OwnedEvent;
use crate::model::wire::signs::WireSigns;
use crate::model::wire::{SpelledState, Wire};

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
    pub final_state: SpelledState,
    /// How many findings concern it.
    pub findings: u32,
    /// The lab's scenario that explains it, for a task with a finding
    /// (issue 33), where it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<ScenarioOf>,
}

/// What a capture breaks, task by task (SPEC §8's `--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptureReport {
    /// The wires its events were on.
    pub wire: WiresSeen,
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
    /// Each task's events as read, in the order of `tasks`, when the
    /// reader was asked to keep them (to explain a task by a scenario).
    #[serde(skip)]
    pub events: Vec<Vec<OwnedEvent>>,
    /// What each task's kept events' bytes show of the SDK that sent them,
    /// in the order of `tasks`, kept with the events.
    #[serde(skip)]
    pub signs: Vec<WireSigns>,
}

/// Which wires a capture's events were on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WiresSeen {
    /// No event was read.
    None,
    /// Every event on one wire.
    One(Wire),
    /// Events on both wires.
    Mixed,
}

impl WiresSeen {
    /// From whether events of each wire were seen.
    pub fn of(seen_1_0: bool, seen_0_3: bool) -> WiresSeen {
        match (seen_1_0, seen_0_3) {
            (true, true) => WiresSeen::Mixed,
            (true, false) => WiresSeen::One(Wire::V1_0),
            (false, true) => WiresSeen::One(Wire::V0_3),
            (false, false) => WiresSeen::None,
        }
    }

    /// `1.0`, `0.3`, `mixed` or `none`, as `--json` and the page say it.
    pub fn name(self) -> &'static str {
        match self {
            WiresSeen::None => "none",
            WiresSeen::One(wire) => wire.name(),
            WiresSeen::Mixed => "mixed",
        }
    }
}

impl std::fmt::Display for WiresSeen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for WiresSeen {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A task's events as the scenario reader reads them, as one key: each
/// event's kind, state and artifact flags, with the artifacts and parts
/// numbered in the order first seen, since the reader compares them only
/// with each other (a part sent again, an event repeated), never with a
/// value of its own; the context numbered too, the task's id left out.
fn without_ids(events: &[OwnedEvent]) -> String {
    use std::fmt::Write;
    let mut numbers: HashMap<String, usize> = HashMap::new();
    let mut number = |text: String| {
        let next = numbers.len();
        *numbers.entry(text).or_insert(next)
    };
    let mut key = String::new();
    for e in events {
        let context = number(format!("c{:?}", e.context_id));
        let _ = write!(key, "{:?} {:?} {context}", e.kind, e.state);
        for a in &e.artifacts {
            let id = number(format!("a{}", a.artifact_id));
            let _ = write!(key, " {id}:{}{}", u8::from(a.append), u8::from(a.last));
            for part in &a.parts {
                let _ = write!(key, ",{}", number(format!("p{part}")));
            }
        }
        key.push(';');
    }
    key
}

impl CaptureReport {
    /// Each task with a finding explained by the lab's scenario, read off
    /// its events (`events`: each task's, as a reader that kept them
    /// reports them, in the order of `tasks`, with their `signs`), the SDK
    /// the bytes name tried first, within the task's budget.
    /// Tasks whose events differ only in their ids (a load test's, an
    /// agent's many alike) are searched once.
    pub fn explain_tasks(&mut self, events: &[Vec<OwnedEvent>], signs: &[WireSigns]) {
        let mut explained: HashMap<(String, Option<&str>), ScenarioOf> = HashMap::new();
        for (i, (task, events)) in self.tasks.iter_mut().zip(events).enumerate() {
            // The page reads a task of one stream only (see `scenario_of`).
            let page_reads = !cfg!(target_arch = "wasm32") || !over_several_streams(events);
            if task.findings > 0 && !events.is_empty() && page_reads {
                let named = signs.get(i).and_then(sdk_named);
                let found = explained
                    .entry((without_ids(events), named.map(Sdk::name)))
                    .or_insert_with(|| {
                        let budget = Budget::for_events(events.len());
                        let mut search = Search::new(sdk_order(named), budget);
                        scenario_of_within(events, None, &mut search)
                    });
                task.scenario = Some(found.clone());
            }
        }
    }

    /// The report with each task with a finding explained by the events
    /// the reader kept, which it then lets go (the page keeps each task's
    /// events as compared, not as read).
    pub fn explained(mut self) -> CaptureReport {
        let events = std::mem::take(&mut self.events);
        let signs = std::mem::take(&mut self.signs);
        self.explain_tasks(&events, &signs);
        self
    }

    /// The report as pretty JSON and a newline.
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }

    /// A table per task, then the errors and a summary line.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::with_capacity(self.tasks.len() * 64 + 256);
        // Each task's findings, in capture order, found without a pass
        // over every finding per task.
        let position: HashMap<&str, usize> = if self.findings.is_empty() {
            HashMap::new()
        } else {
            self.tasks
                .iter()
                .enumerate()
                .map(|(i, t)| (t.id.as_str(), i))
                .collect()
        };
        let mut by_task: Vec<(usize, &CaptureFinding)> = self
            .findings
            .iter()
            .filter_map(|f| Some((*position.get(f.task.as_str())?, f)))
            .collect();
        by_task.sort_by_key(|&(task, _)| task);
        let mut by_task = by_task.into_iter().peekable();
        for (i, task) in self.tasks.iter().enumerate() {
            let _ = writeln!(
                out,
                "task {}: {} events, final {}",
                task.id, task.events, task.final_state
            );
            while let Some((_, f)) = by_task.next_if(|&(t, _)| t == i) {
                let _ = writeln!(out, "  {} #{}: {}", f.code, f.index, f.message);
            }
            if let Some(s) = &task.scenario {
                let _ = writeln!(out, "  {s}");
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
