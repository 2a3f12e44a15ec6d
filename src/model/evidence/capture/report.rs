//! What the capture reader reports (SPEC §8): findings and JSON-RPC errors
//! by their place in the capture, and each task's end, as `--json` prints
//! them or as a table per task.

use std::collections::HashMap;

use serde::Serialize;

use crate::model::evidence::export::pretty_json;
use crate::model::evidence::finding::FindingCode;
use crate::model::evidence::scenario_of::ScenarioOf;
use crate::model::trace::{Row, StreamEnd};
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
    pub code: crate::model::wire::RpcCode,
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
    pub scenario: Option<Box<ScenarioOf>>,
    /// The code of the JSON-RPC error event that ended its last stream,
    /// where one did: read to explain it, not written.
    #[serde(skip)]
    pub stream_error: Option<crate::model::wire::RpcCode>,
}

impl TaskSummary {
    /// How its last stream ended, where the capture shows it: an error
    /// event (a stream closed shows nothing).
    pub fn stream_end(&self) -> Option<StreamEnd> {
        self.stream_error.map(StreamEnd::Error)
    }
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

impl CaptureReport {
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
