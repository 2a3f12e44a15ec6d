//! The lab's shared state, provided once by the shell and read by every
//! component through `use_context::<Lab>()`.

use std::sync::Arc;

use leptos::prelude::*;

use super::browser;
use crate::model::pictures::beside::PinnedTask;
use crate::model::pictures::page::Cursor;
use crate::model::pictures::shown::Shown;
use crate::model::sim::keys::Key;
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
    /// A of compare mode, once pinned.
    pub pinned: RwSignal<Option<Pinned>>,
    /// What the views show: the simulation, or an imported capture or
    /// probe report (until the user goes back to the simulation).
    pub shown: RwSignal<Shown>,
    /// An import under way, read a slice at a time.
    pub import: RwSignal<Option<ImportProgress>>,
    /// Files are being dragged over the page.
    pub dragging: RwSignal<bool>,
    /// Counts the user's stops of a task's explaining (and leaving an
    /// import): a search started before the latest stops at its next
    /// pause.
    pub explain_stops: RwSignal<u32>,
}

/// What compare mode holds as A, beside the scenario shown (B).
#[derive(Clone, Debug, PartialEq)]
pub enum Pinned {
    /// A scenario pinned by the user.
    Scenario(Scenario),
    /// A task of an imported capture or probe, opened as its scenario.
    Task(Arc<PinnedTask>),
}

/// An import under way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportProgress {
    /// Which import this is: a newer one, or Cancel, ends it.
    pub run: u64,
    /// Bytes read so far, over all the files.
    pub read: u64,
    /// Bytes of all the files.
    pub total: u64,
    /// The file being read.
    pub file: String,
    /// Its place among the files, from 1.
    pub index: usize,
    /// How many files.
    pub files: usize,
    /// Whether the reader is in, and reading.
    pub stage: ImportStage,
}

/// Where an import stands before and while it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportStage {
    /// The reader's chunk is being fetched (the split page's first Import).
    Loading,
    /// The files are being read.
    Reading,
    /// The reader's chunk did not arrive; Retry fetches it again.
    Unloaded,
}

/// Whether a memo of an `Arc` changed. Each new value is a new
/// computation, so comparing pointers says enough, and keeps a deep
/// equality of runs out of the page's bundle.
pub fn arc_changed<T>(old: Option<&Arc<T>>, new: Option<&Arc<T>>) -> bool {
    !matches!((old, new), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
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
    /// Where playback is in the trace shown.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            step: self.step.get(),
            len: self.run.with(|r| r.trace.rows.len()),
        }
    }

    /// Rows revealed now, clamped to the trace.
    pub fn revealed(&self) -> usize {
        self.cursor().revealed()
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

    /// Whether an imported capture or probe report is shown instead of
    /// the simulation.
    pub fn showing_import(&self) -> bool {
        !self.shown.with(Shown::is_simulation)
    }

    /// Back from an import to the simulated scenario.
    pub fn leave_capture(&self) {
        if !self.shown.with_untracked(Shown::is_simulation) {
            self.stop_explaining();
            self.shown.set(Shown::Simulation);
            self.step.set(None);
        }
    }

    /// Tells an embedding page the lab's height again, after a part drawn
    /// later than the first view (the pictures, a chunk's panel, a folded
    /// panel opened) changed it.
    pub fn resized(&self) {
        if self.embed {
            browser::post_height_soon();
        }
    }

    /// Stops the explaining under way at its next pause.
    pub fn stop_explaining(&self) {
        self.explain_stops.update(|n| *n = n.wrapping_add(1));
    }

    /// The chosen task, whose explaining was stopped, explained after all.
    pub fn explain_again(&self) {
        self.shown.with_untracked(Shown::retry_chosen);
        self.shown.update(|_| {});
    }

    /// Shows what was imported, from its first row.
    pub fn show(&self, shown: Shown) {
        self.step.set(None);
        self.shown.set(shown);
    }

    /// Chooses row `i` of the import's listing (a task, or a probe).
    pub fn choose(&self, i: usize) {
        let next = self.shown.with_untracked(|s| s.choose(i));
        self.show(next);
    }

    /// Opens the chosen task of the import as the scenario that explains
    /// it, with the task pinned as A beside it.
    pub fn open_as_scenario(&self) {
        let Some(task) = self.shown.with_untracked(Shown::pinned_task) else {
            return;
        };
        match Scenario::from_query(&task.query) {
            Ok(scenario) => {
                self.leave_capture();
                self.scenario.set(scenario);
                self.info(format!(
                    "Task {} pinned as A beside its scenario (B): change the controls, e.g. the guard, to see the fix on its events.",
                    task.id
                ));
                self.pinned.set(Some(Pinned::Task(task)));
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    /// Changes one scenario key; a bad value leaves the scenario as it was.
    pub fn set_key(&self, key: Key, value: &str) {
        self.leave_capture();
        let next = if key == Key::Preset && value.is_empty() {
            Ok(Scenario::default())
        } else {
            self.scenario.with_untracked(|s| s.with(key.name(), value))
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
