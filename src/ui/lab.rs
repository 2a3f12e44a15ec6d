//! The lab's shared state, provided once by the shell and read by every
//! component through `use_context::<Lab>()`.

use std::sync::Arc;

use leptos::prelude::*;

use super::import::ImportProgress;
use crate::model::evidence::capture::{CaptureReader, CaptureReport, Wire};
use crate::model::evidence::capture_run::task_run;
use crate::model::evidence::probe_report::{judge_streams, ProbeReport};
use crate::model::sim::scenario::Scenario;
use crate::model::trace::{Metrics, Run};

/// The lab's state: one source of truth for the inputs (mirrored by the
/// URL); the run is a memo of the scenario, the visible rows a function of
/// the run and the step.
#[derive(Clone, Copy)]
pub struct Lab {
    /// The scenario being shown.
    pub scenario: RwSignal<Scenario>,
    /// Rows revealed; `None` shows all.
    pub step: RwSignal<Option<usize>>,
    /// Playback running.
    pub playing: RwSignal<bool>,
    /// An inline message (bad input, import result); the lab keeps working.
    pub message: RwSignal<Option<Message>>,
    /// The simulation of `scenario`.
    pub run: Memo<Arc<Run>>,
    /// The defaults' metrics, for "change one thing at a time".
    pub baseline: StoredValue<Metrics>,
    /// Shown inside an iframe without page chrome.
    pub embed: bool,
    /// Scenario A of compare mode, once pinned.
    pub pinned: RwSignal<Option<Scenario>>,
    /// An imported capture, shown instead of the simulation until the user
    /// goes back to it.
    pub capture: RwSignal<Option<Arc<CaptureView>>>,
    /// Which of the capture's tasks the views show.
    pub capture_task: RwSignal<usize>,
    /// An import under way, read a slice at a time.
    pub import: RwSignal<Option<ImportProgress>>,
    /// Files are being dragged over the page.
    pub dragging: RwSignal<bool>,
    /// An imported `probe.json`; the chosen probe's calls are shown as
    /// [`Lab::capture`].
    pub probe: RwSignal<Option<Arc<ProbeView>>>,
    /// Which probe is shown.
    pub probe_pick: RwSignal<usize>,
}

/// Whether a memo of an `Arc` changed. Each new value is a new
/// computation, so comparing pointers says enough, and keeps a deep
/// equality of runs out of the page's bundle.
pub fn arc_changed<T>(old: Option<&Arc<T>>, new: Option<&Arc<T>>) -> bool {
    !matches!((old, new), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
}

/// An imported `probe.json`: the report, and each probe's calls judged as
/// one capture for the views.
#[derive(Debug)]
pub struct ProbeView {
    /// What the probe found.
    pub report: ProbeReport,
    /// Each probe's calls as a capture, in the order of `report.probes`.
    pub captures: Vec<Arc<CaptureView>>,
}

impl ProbeView {
    /// Judges each probe's calls (on the wire the agent was spoken to in).
    pub fn new(report: ProbeReport) -> ProbeView {
        let wire = Wire::parse(&report.agent.wire);
        let captures = report
            .probes
            .iter()
            .map(|p| {
                let calls: Vec<&str> = p.calls.iter().map(String::as_str).collect();
                // A call whose answer the reader cannot take is shown as
                // nothing received; the probe's own findings still say why.
                let judged = judge_streams(&calls, wire)
                    .unwrap_or_else(|_| CaptureReader::new(wire).keeping_rows().finish());
                Arc::new(CaptureView::new(judged))
            })
            .collect();
        ProbeView { report, captures }
    }
}

/// An imported capture, judged, with each task as a run for the views.
#[derive(Debug)]
pub struct CaptureView {
    /// What the capture breaks, task by task.
    pub report: CaptureReport,
    /// Each task's events as a run, in the order of `report.tasks`.
    pub runs: Vec<Arc<Run>>,
}

impl CaptureView {
    /// A judged capture made ready for the views.
    pub fn new(mut report: CaptureReport) -> CaptureView {
        let rows = std::mem::take(&mut report.rows);
        let runs = rows.into_iter().map(|r| Arc::new(task_run(r))).collect();
        CaptureView { report, runs }
    }
}

/// How an inline message is shown and announced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Bad input: shown as an alert.
    Error,
    /// A result: shown as a status.
    Info,
}

impl Level {
    /// The CSS modifier (`lab-message--error`).
    pub fn class(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Info => "info",
        }
    }

    /// The ARIA role it is announced with.
    pub fn role(self) -> &'static str {
        match self {
            Level::Error => "alert",
            Level::Info => "status",
        }
    }
}

/// An inline message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// How it is shown and announced.
    pub level: Level,
    /// For people.
    pub text: String,
}

impl Lab {
    /// Rows revealed now, clamped to the trace.
    pub fn revealed(&self) -> usize {
        let len = self.run.with(|r| r.trace.rows.len());
        self.step.get().map_or(len, |s| s.min(len))
    }

    /// Shows an error inline.
    pub fn error(&self, text: impl Into<String>) {
        self.message.set(Some(Message {
            level: Level::Error,
            text: text.into(),
        }));
    }

    /// Shows information inline.
    pub fn info(&self, text: impl Into<String>) {
        self.message.set(Some(Message {
            level: Level::Info,
            text: text.into(),
        }));
    }

    /// Whether an imported capture is shown instead of the simulation.
    pub fn showing_capture(&self) -> bool {
        self.capture.with(Option::is_some)
    }

    /// Back from an imported capture to the simulated scenario.
    pub fn leave_capture(&self) {
        if self.capture.with_untracked(Option::is_some) {
            self.capture.set(None);
            self.step.set(None);
        }
        if self.probe.with_untracked(Option::is_some) {
            self.probe.set(None);
        }
    }

    /// Shows probe `i` of an imported `probe.json`: its calls in the views.
    pub fn show_probe(&self, i: usize) {
        let Some(capture) = self
            .probe
            .with_untracked(|p| p.as_ref().and_then(|p| p.captures.get(i).cloned()))
        else {
            return;
        };
        self.probe_pick.set(i);
        self.capture_task.set(0);
        self.step.set(None);
        self.capture.set(Some(capture));
    }

    /// Changes one scenario key; a bad value leaves the scenario as it was.
    pub fn set_key(&self, key: &str, value: &str) {
        self.leave_capture();
        let next = if key == "preset" && value.is_empty() {
            Ok(Scenario::default())
        } else {
            self.scenario.with_untracked(|s| s.with(key, value))
        };
        match next {
            Ok(s) => {
                self.message.set(None);
                self.scenario.set(s);
            }
            Err(e) => self.error(e.to_string()),
        }
    }
}
