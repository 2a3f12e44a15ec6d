//! The lab's shared state, provided once by the shell and read by every
//! component through `use_context::<Lab>()`.

use std::sync::Arc;

use leptos::prelude::*;

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
}

/// An inline message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// `error` or `info`.
    pub level: &'static str,
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
            level: "error",
            text: text.into(),
        }));
    }

    /// Shows information inline.
    pub fn info(&self, text: impl Into<String>) {
        self.message.set(Some(Message {
            level: "info",
            text: text.into(),
        }));
    }

    /// Changes one scenario key; a bad value leaves the scenario as it was.
    pub fn set_key(&self, key: &str, value: &str) {
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
