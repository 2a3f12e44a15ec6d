//! A capture's tasks with a finding explained by the lab's scenario: one
//! at a time, each when it is asked for. The page asks for a task when the
//! user opens it; `check` asks for them all in turn: the same reading
//! either way. Each task is searched within its budget, the SDK its bytes
//! name first; tasks whose events differ only in their ids are searched
//! once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::report::{CaptureReport, TaskSummary};
use crate::model::evidence::scenario_of::{
    at_once, scenario_of_paced, sdk_order, Budget, Pacer, ScenarioOf, Search,
};
use crate::model::sim::keys::Sdk;
use crate::model::sim::profile::sdk_named;
use crate::model::trace::StreamEnd;
use crate::model::wire::answer::OwnedEvent;
#[cfg(not(target_arch = "wasm32"))]
use crate::model::wire::answer::{read_answer, Answer};
#[cfg(not(target_arch = "wasm32"))]
use crate::model::wire::signs::SseFraming;
use crate::model::wire::signs::WireSigns;
#[cfg(not(target_arch = "wasm32"))]
use crate::model::wire::Wire;

/// Tasks alike but for their ids, with the SDK their bytes name and how
/// their last stream ended: searched once.
type Alike = (Vec<u32>, Option<&'static str>, Option<StreamEnd>);

/// The explaining of a capture's tasks under way.
#[derive(Debug, Default)]
pub struct Explaining {
    /// Each task's events as read, in the order of the report's tasks
    /// (shared with a search under way, which runs apart from this).
    events: Vec<Arc<Vec<OwnedEvent>>>,
    /// What each task's bytes show of its SDK, in the same order.
    signs: Vec<WireSigns>,
    /// How each task's last stream ended, where its capture shows it.
    ends: Vec<Option<StreamEnd>>,
    /// The next task to look at.
    next: usize,
    /// What a task of the same events, but for their ids, was explained
    /// by, with the SDK its bytes named.
    searched: HashMap<Alike, ScenarioOf>,
    /// Each task asked for, by its place in the report, with what
    /// explains it (`None`: nothing can).
    asked: HashMap<usize, Option<ScenarioOf>>,
    /// Tasks whose search is under way apart from this ([`Job`]).
    under_way: HashSet<usize>,
    /// Tasks whose search the user stopped: they wait until asked again.
    stopped: HashSet<usize>,
}

/// What asking for a task gives: what explains it, known now, or the
/// search that will tell.
#[derive(Debug)]
pub enum Asked {
    /// Known without a search: the scenario (`None`: nothing explains it).
    Known(Option<ScenarioOf>),
    /// A search to run, then to hand back ([`Explaining::found`]).
    Search(Job),
}

/// One task's search, apart from the explaining it came from, so that the
/// page may run it in steps while it answers input.
#[derive(Debug, Clone)]
pub struct Job {
    task: usize,
    alike: Alike,
    events: Arc<Vec<OwnedEvent>>,
    named: Option<Sdk>,
    end: Option<StreamEnd>,
}

impl Job {
    /// Which task of the report it explains.
    pub fn task(&self) -> usize {
        self.task
    }

    /// The search, within the task's budget, the SDK its bytes name first,
    /// paused by `pacer` where one is given; `None` when the pacer stopped
    /// it.
    pub async fn run(&self, pacer: Option<Box<dyn Pacer>>) -> Option<ScenarioOf> {
        let mut search = task_search(self.events.len(), self.named);
        if let Some(pacer) = pacer {
            search = search.paced(pacer);
        }
        let found = scenario_of_paced(&self.events, self.end, &mut search).await;
        (!search.stopped()).then_some(found)
    }
}

/// The search for one task of `events` events, within its budget, the
/// SDK its bytes named first: the page's and `check`'s alike.
fn task_search(events: usize, named: Option<Sdk>) -> Search {
    Search::new(sdk_order(named), Budget::for_events(events))
}

impl Explaining {
    /// The explaining of the tasks whose `events` (each task's, in the
    /// order of the report's tasks) a reader kept, with their `signs`.
    pub fn new(events: Vec<Vec<OwnedEvent>>, signs: Vec<WireSigns>) -> Explaining {
        Explaining {
            events: events.into_iter().map(Arc::new).collect(),
            signs,
            ..Explaining::default()
        }
    }

    /// The explaining of what `report`'s reader kept, taken out of it,
    /// with how each task's last stream ended.
    pub fn of(report: &mut CaptureReport) -> Explaining {
        let events = std::mem::take(&mut report.events);
        let signs = std::mem::take(&mut report.signs);
        Explaining::new(events, signs).ending_as(report)
    }

    /// The same, with each task's last stream ended as `report` saw it.
    pub fn ending_as(self, report: &CaptureReport) -> Explaining {
        Explaining {
            ends: report.tasks.iter().map(TaskSummary::stream_end).collect(),
            ..self
        }
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

    /// What explains task `i` of `report`, searched now if it must be
    /// (once, however often it is asked for); `None` for a task without a
    /// finding or whose events cannot be read whole.
    pub fn explain(&mut self, i: usize, report: &CaptureReport) -> Option<ScenarioOf> {
        match self.ask(i, report) {
            Asked::Known(known) => known,
            Asked::Search(job) => {
                let found = at_once(job.run(None))?;
                self.found(&job, found.clone());
                Some(found)
            }
        }
    }

    /// What explains task `i` of `report`: the scenario it was given, the
    /// one found for it or for a task alike, or the search that will
    /// find it.
    pub fn ask(&mut self, i: usize, report: &CaptureReport) -> Asked {
        let Some(task) = report.tasks.get(i) else {
            return Asked::Known(None);
        };
        if let Some(given) = &task.scenario {
            return Asked::Known(Some((**given).clone()));
        }
        if let Some(found) = self.asked.get(&i) {
            return Asked::Known(found.clone());
        }
        if !self.explainable(i, task.findings, task.events) {
            self.asked.insert(i, None);
            return Asked::Known(None);
        }
        let events = Arc::clone(&self.events[i]);
        let named = self.signs.get(i).and_then(sdk_named);
        let end = self.ends.get(i).copied().flatten();
        let alike = (without_ids(&events), named.map(Sdk::name), end);
        if let Some(found) = self.searched.get(&alike) {
            let found = found.clone();
            self.asked.insert(i, Some(found.clone()));
            return Asked::Known(Some(found));
        }
        Asked::Search(Job {
            task: i,
            alike,
            events,
            named,
            end,
        })
    }

    /// What `job`'s search found, kept for its task and for every task
    /// alike.
    pub fn found(&mut self, job: &Job, found: ScenarioOf) {
        self.under_way.remove(&job.task);
        self.asked.insert(job.task, Some(found.clone()));
        self.searched.insert(job.alike.clone(), found);
    }

    /// The search for task `i`, to run apart, if it waits and none is
    /// under way (a task asked for again while its search runs is not
    /// searched twice); a task explained without a search is explained
    /// now.
    pub fn begin(&mut self, i: usize, report: &CaptureReport) -> Option<Job> {
        if !self.waits(i, report) || self.under_way.contains(&i) {
            return None;
        }
        match self.ask(i, report) {
            Asked::Known(_) => None,
            Asked::Search(job) => {
                self.under_way.insert(i);
                Some(job)
            }
        }
    }

    /// How `job`'s search ended: what it found, or `None` when the user
    /// stopped it (the task then waits until asked again: [`Self::retry`]).
    pub fn ended(&mut self, job: &Job, found: Option<ScenarioOf>) {
        match found {
            Some(found) => self.found(job, found),
            None => {
                self.under_way.remove(&job.task);
                self.stopped.insert(job.task);
            }
        }
    }

    /// Whether the user stopped task `i`'s search.
    pub fn is_stopped(&self, i: usize) -> bool {
        self.stopped.contains(&i)
    }

    /// Task `i`, stopped, asked for again: it waits once more.
    pub fn retry(&mut self, i: usize) {
        self.stopped.remove(&i);
    }

    /// What explains task `i` without searching: `None` while it waits.
    pub fn known(&self, i: usize, report: &CaptureReport) -> Option<ScenarioOf> {
        let task = report.tasks.get(i)?;
        match &task.scenario {
            Some(given) => Some((**given).clone()),
            None => self.asked.get(&i).cloned().flatten(),
        }
    }

    /// Whether task `i` has a finding and waits to be explained (asking
    /// for it then searches).
    pub fn waits(&self, i: usize, report: &CaptureReport) -> bool {
        report.tasks.get(i).is_some_and(|t| {
            t.scenario.is_none()
                && !self.asked.contains_key(&i)
                && !self.stopped.contains(&i)
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
}

/// A task's events as the scenario reader reads them, as one key: each
/// event's kind, state and artifact flags, with the artifacts, parts and
/// contexts numbered in the order first seen, since the reader compares
/// them only with each other (a part sent again, an event repeated), never
/// with a value of its own; the task's id left out. Numbers, not text:
/// `check` builds one for each of 100,000 tasks.
fn without_ids(events: &[OwnedEvent]) -> Vec<u32> {
    use crate::model::state::SentState;
    use crate::model::wire::{FoldBuild, FoldHasher};
    use std::hash::Hasher;
    /// Ends each event's numbers, so that no two lists of events read alike.
    const END: u32 = u32::MAX;
    let mut next = 0u32;
    let mut texts: HashMap<(u8, &str), u32, FoldBuild> = HashMap::default();
    // Parts by a hash of their value, each hash with the parts that have
    // it: two parts are the same only when their values are equal.
    let mut parts: HashMap<u64, Vec<(&serde_json::Value, u32)>, FoldBuild> = HashMap::default();
    fn number<'a>(
        texts: &mut HashMap<(u8, &'a str), u32, FoldBuild>,
        tag: u8,
        text: &'a str,
        next: &mut u32,
    ) -> u32 {
        *texts.entry((tag, text)).or_insert_with(|| {
            *next += 1;
            *next
        })
    }
    let mut key = Vec::with_capacity(events.len() * 6);
    for e in events {
        let context = e
            .context_id
            .as_deref()
            .map_or(0, |c| number(&mut texts, 0, c, &mut next));
        let state = match &e.state {
            None => 0,
            Some(SentState::Known(s)) => 1 + *s as u32,
            Some(SentState::Other(t)) => 0x100 + number(&mut texts, 1, t, &mut next),
        };
        key.extend([e.kind as u32, state, context, e.artifacts.len() as u32]);
        for a in &e.artifacts {
            let id = number(&mut texts, 2, &a.artifact_id, &mut next);
            let flags = u32::from(a.append) << 1 | u32::from(a.last);
            key.extend([id, flags, a.parts.len() as u32]);
            for part in &a.parts {
                let mut hasher = FoldHasher::default();
                hash_value(part, &mut hasher);
                let same = parts.entry(hasher.finish()).or_default();
                let number = match same.iter().find(|(p, _)| *p == part) {
                    Some(&(_, n)) => n,
                    None => {
                        next += 1;
                        same.push((part, next));
                        next
                    }
                };
                key.push(number);
            }
        }
        key.push(END);
    }
    key
}

/// Hashes a JSON value as its structure (an object's keys in order), with
/// no text built for it.
fn hash_value(value: &serde_json::Value, hasher: &mut impl std::hash::Hasher) {
    use serde_json::Value;
    use std::hash::Hash;
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(b) => (1u8, b).hash(hasher),
        Value::Number(n) => (2u8, n.as_f64().map(f64::to_bits), n.as_i64()).hash(hasher),
        Value::String(s) => (3u8, s).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            items.iter().for_each(|v| hash_value(v, hasher));
        }
        Value::Object(map) => {
            (5u8, map.len()).hash(hasher);
            for (k, v) in map {
                k.hash(hasher);
                hash_value(v, hasher);
            }
        }
    }
}

/// `check`'s explaining, on a second reading of the capture: each task
/// with a finding (as the first reading judged it) is kept only until its
/// last event, explained then, and let go, so that memory grows with the
/// tasks open at once, not with the capture; tasks alike are searched
/// once. What it finds is what [`Explaining`] finds for the same tasks.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default)]
pub struct ExplainingAsRead {
    /// The tasks with a finding, by id, until explained.
    wanted: HashMap<String, TaskToExplain, crate::model::wire::FoldBuild>,
    /// What a task of the same events, but for their ids, was explained
    /// by, with the SDK its bytes named.
    searched: HashMap<Alike, ScenarioOf, crate::model::wire::FoldBuild>,
    /// Each task explained, by its place in the report.
    found: Vec<(usize, ScenarioOf)>,
}

/// A task with a finding as the second reading keeps it.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug)]
struct TaskToExplain {
    /// Its place in the report.
    task: usize,
    /// How its last stream ended, as the first reading saw it.
    end: Option<StreamEnd>,
    /// Its events, as the first reading counted them.
    events: u32,
    /// Its events read so far.
    kept: Vec<OwnedEvent>,
    /// What its bytes show of its SDK.
    signs: WireSigns,
}

#[cfg(not(target_arch = "wasm32"))]
impl ExplainingAsRead {
    /// The explaining of `report`'s tasks with a finding.
    pub fn new(report: &CaptureReport) -> ExplainingAsRead {
        let wanted = report
            .tasks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.findings > 0 && t.events > 0 && t.scenario.is_none())
            .map(|(task, t)| {
                let wanted = TaskToExplain {
                    task,
                    end: t.stream_end(),
                    events: t.events,
                    kept: Vec::new(),
                    signs: WireSigns::default(),
                };
                (t.id.clone(), wanted)
            })
            .collect();
        ExplainingAsRead {
            wanted,
            ..ExplainingAsRead::default()
        }
    }

    /// One element of the capture, read as the first reading kept it
    /// (`sse`: how its SSE event was framed, where it came in one);
    /// a task's last event explains it.
    pub(super) fn element(&mut self, bytes: &[u8], sse: Option<SseFraming>, forced: Option<Wire>) {
        let Ok(Answer::Event(event)) = read_answer(bytes, forced) else {
            return;
        };
        let Some(wanted) = self.wanted.get_mut(event.task_id.as_str()) else {
            return;
        };
        wanted.signs.read(bytes, event.wire);
        if let Some(framing) = sse {
            wanted.signs.read_sse(framing);
        }
        let id = (wanted.kept.len() + 1 == wanted.events as usize).then(|| event.task_id.clone());
        wanted.kept.push(event);
        if let Some(wanted) = id.and_then(|id| self.wanted.remove(&id)) {
            self.explain(wanted);
        }
    }

    fn explain(&mut self, wanted: TaskToExplain) {
        let named = sdk_named(&wanted.signs);
        let alike = (without_ids(&wanted.kept), named.map(Sdk::name), wanted.end);
        let found = self
            .searched
            .entry(alike)
            .or_insert_with(|| {
                let mut search = task_search(wanted.kept.len(), named);
                let found = scenario_of_paced(&wanted.kept, wanted.end, &mut search);
                let mut found = at_once(found);
                // `check` prints the line, never the events as compared:
                // each task of 100,000 would keep its own copy.
                found.events = Vec::new();
                found
            })
            .clone();
        self.found.push((wanted.task, found));
    }

    /// Each task explained, by its place in the report; a task whose
    /// events were not all read again (one the schema kept from being
    /// judged) is not.
    pub fn finish(self) -> Vec<(usize, ScenarioOf)> {
        self.found
    }
}

impl CaptureReport {
    /// Each task with a finding explained by the lab's scenario, read off
    /// its events (`events`: each task's, as a reader that kept them
    /// reports them, in the order of `tasks`, with their `signs`): every
    /// step of [`Explaining`] at once.
    pub fn explain_tasks(&mut self, events: Vec<Vec<OwnedEvent>>, signs: Vec<WireSigns>) {
        let mut explaining = Explaining::new(events, signs).ending_as(self);
        while explaining.step(self) {}
    }

    /// The report with each task with a finding explained by the events
    /// the reader kept, which it then lets go (the page keeps each task's
    /// events as compared, not as read).
    pub fn explained(mut self) -> CaptureReport {
        let mut explaining = Explaining::of(&mut self);
        while explaining.step(&mut self) {}
        self
    }
}
