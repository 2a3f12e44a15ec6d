//! The lab's shared state, provided once by the shell and read by every
//! component through `use_context::<Lab>()`.

use std::sync::Arc;

use leptos::prelude::*;

use super::import::ImportProgress;
use crate::model::evidence::capture::CaptureReport;
use crate::model::evidence::capture_run::task_run;
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
