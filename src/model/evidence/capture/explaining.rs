//! A capture's tasks with a finding explained by the lab's scenario: one
//! at a time, each when it is asked for. The page asks for a task when the
//! user opens it; `check` asks for them all in turn: the same reading
//! either way. Each task is searched within its budget, the SDK its bytes
//! name first; tasks whose events differ only in their ids are searched
//! once.

use std::collections::HashMap;

use super::report::CaptureReport;
use crate::model::evidence::scenario_of::{
    scenario_of_within, sdk_order, Budget, ScenarioOf, Search,
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
    /// Each task asked for, by its place in the report, with what
    /// explains it (`None`: nothing can).
    asked: HashMap<usize, Option<ScenarioOf>>,
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
            if let Some(found) = self.explain(i, report) {
                report.tasks[i].scenario = Some(Box::new(found));
                return true;
            }
        }
        false
    }

    /// What explains task `i` of `report`: the scenario it was given, or
    /// the one found now (searched once, however often it is asked for);
    /// `None` for a task without a finding or whose events cannot be
    /// read whole.
    pub fn explain(&mut self, i: usize, report: &CaptureReport) -> Option<ScenarioOf> {
        let task = report.tasks.get(i)?;
        if let Some(given) = &task.scenario {
            return Some((**given).clone());
        }
        if let Some(found) = self.asked.get(&i) {
            return found.clone();
        }
        let found = self.search(i, task.findings, task.events);
        self.asked.insert(i, found.clone());
        found
    }

    /// Whether task `i` has a finding and waits to be explained (asking
    /// for it then searches).
    pub fn waits(&self, i: usize, report: &CaptureReport) -> bool {
        report.tasks.get(i).is_some_and(|t| {
            t.scenario.is_none()
                && !self.asked.contains_key(&i)
                && self.explainable(i, t.findings, t.events)
        })
    }

    /// Whether task `i`, with `findings` and `events` counted by the
    /// judge, has the whole of its events kept and something to explain.
    fn explainable(&self, i: usize, findings: u32, events: u32) -> bool {
        // A task with an event the schema kept from being read has no
        // whole stream to reproduce: its `wire-shape` finding says which
        // event, and no scenario is claimed for the rest.
        self.events
            .get(i)
            .is_some_and(|kept| findings > 0 && !kept.is_empty() && kept.len() == events as usize)
    }

    fn search(&mut self, i: usize, findings: u32, events: u32) -> Option<ScenarioOf> {
        if !self.explainable(i, findings, events) {
            return None;
        }
        let events = &self.events[i];
        let named = self.signs.get(i).and_then(sdk_named);
        let found = self
            .searched
            .entry((without_ids(events), named.map(Sdk::name)))
            .or_insert_with(|| {
                let mut search = Search::new(sdk_order(named), Budget::for_events(events.len()));
                scenario_of_within(events, None, &mut search)
            });
        Some(found.clone())
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
