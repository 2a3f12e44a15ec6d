//! A capture's tasks with a finding explained by the lab's scenario one at
//! a time, so that the page can yield between two (and Cancel can reach
//! it) while `check` runs them all: the same reading either way. Each task
//! is searched within its budget, the SDK its bytes name first; tasks
//! whose events differ only in their ids are searched once.

use std::collections::HashMap;

use super::report::CaptureReport;
use crate::model::evidence::scenario_of::{
    over_several_streams, scenario_of_within, sdk_order, Budget, ScenarioOf, Search,
};
use crate::model::sim::keys::Sdk;
use crate::model::sim::profile::sdk_named;
use crate::model::wire::answer::OwnedEvent;
use crate::model::wire::signs::WireSigns;

/// The explaining of a capture's tasks under way.
#[derive(Debug, Default)]
pub struct Explaining {
    /// Each task's events as read, in the order of the report's tasks.
    events: Vec<Vec<OwnedEvent>>,
    /// What each task's bytes show of its SDK, in the same order.
    signs: Vec<WireSigns>,
    /// The next task to look at.
    next: usize,
    /// What a task of the same events, but for their ids, was explained
    /// by, with the SDK its bytes named.
    searched: HashMap<(String, Option<&'static str>), ScenarioOf>,
}

impl Explaining {
    /// The explaining of the tasks whose `events` (each task's, in the
    /// order of the report's tasks) a reader kept, with their `signs`.
    pub fn new(events: Vec<Vec<OwnedEvent>>, signs: Vec<WireSigns>) -> Explaining {
        Explaining {
            events,
            signs,
            ..Explaining::default()
        }
    }

    /// The explaining of what `report`'s reader kept, taken out of it.
    pub fn of(report: &mut CaptureReport) -> Explaining {
        let events = std::mem::take(&mut report.events);
        let signs = std::mem::take(&mut report.signs);
        Explaining::new(events, signs)
    }

    /// Explains the next task of `report` with a finding; `false` once
    /// none is left.
    pub fn step(&mut self, report: &mut CaptureReport) -> bool {
        while self.next < report.tasks.len().min(self.events.len()) {
            let i = self.next;
            self.next += 1;
            let events = &self.events[i];
            // The page reads a task of one stream only (see `scenario_of`).
            let page_reads = !cfg!(target_arch = "wasm32") || !over_several_streams(events);
            // A task with an event the schema kept from being read has no
            // whole stream to reproduce: its `wire-shape` finding says
            // which event, and no scenario is claimed for the rest.
            let whole = events.len() == report.tasks[i].events as usize;
            if report.tasks[i].findings == 0 || events.is_empty() || !page_reads || !whole {
                continue;
            }
            let named = self.signs.get(i).and_then(sdk_named);
            let found = self
                .searched
                .entry((without_ids(events), named.map(Sdk::name)))
                .or_insert_with(|| {
                    let mut search =
                        Search::new(sdk_order(named), Budget::for_events(events.len()));
                    scenario_of_within(events, None, &mut search)
                });
            report.tasks[i].scenario = Some(Box::new(found.clone()));
            return true;
        }
        false
    }
}

/// A task's events as the scenario reader reads them, as one key: each
/// event's kind, state and artifact flags, with the artifacts, parts and
/// contexts numbered in the order first seen, since the reader compares
/// them only with each other (a part sent again, an event repeated), never
/// with a value of its own; the task's id left out.
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
