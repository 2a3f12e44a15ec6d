//! The one search every reading of a task ends in: the combinations of
//! the keys the wire leaves open, taken lazily, each simulated under every
//! SDK of the profile table (the one the bytes name first), compared with
//! the task, and stopped at a stated budget of simulated rows, so that a
//! task no scenario reproduces costs a bounded, linear amount of work.
//!
//! The search is a future that a [`Pacer`] may pause between two
//! simulations: the page lets itself paint and answer input there (and
//! stops on Cancel); `check` and the tests run it [`at_once`].

use std::future::Future;
use std::pin::Pin;

use crate::model::sim::keys::{Key, ScenarioError, Sdk, Values, KEYS};
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::Scenario;
use crate::model::sim::Simulation;
use crate::model::trace::Run;

use super::setting::{scenario_of_reading, Reading, Setting};
use super::ScenarioOf;

/// How much simulation one task's explanation may spend, in trace rows
/// simulated: [`Budget::PER_EVENT`] for each of the task's events, and at
/// least [`Budget::FLOOR`], so that a short task may still try every
/// combination its keys leave open (the recorded runs of both SDKs need at
/// most a few thousand rows; `tests/model/scenario_of.rs` holds each within it).
/// Linear in the task: a 10,000-event task is explained in well under a
/// second natively (docs/performance.md, `benches/explain.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Rows that may still be simulated.
    left: usize,
    /// Rows simulated so far.
    spent: usize,
    /// Whether a candidate was left untried for want of rows.
    ran_out: bool,
}

impl Budget {
    /// Rows simulated per event of the task: each candidate simulates
    /// about as many rows as the task has events, so this is about how
    /// many candidates a long task may try.
    pub const PER_EVENT: usize = 3;
    /// Rows every task may simulate whatever its length.
    pub const FLOOR: usize = 20_000;

    /// The budget for a task of `events` events.
    pub fn for_events(events: usize) -> Budget {
        Budget::of_rows(events.saturating_mul(Budget::PER_EVENT).max(Budget::FLOOR))
    }

    /// A budget of exactly `rows` simulated rows (tests, the bench).
    pub fn of_rows(rows: usize) -> Budget {
        Budget {
            left: rows,
            spent: 0,
            ran_out: false,
        }
    }

    /// Rows simulated so far.
    pub fn spent(&self) -> usize {
        self.spent
    }

    /// Whether a candidate was left untried because the budget ran out.
    pub fn ran_out(&self) -> bool {
        self.ran_out
    }

    /// Whether another simulation may start; notes that one could not.
    fn allows_another(&mut self) -> bool {
        self.ran_out |= self.left == 0;
        self.left > 0
    }

    fn spend(&mut self, rows: usize) {
        self.spent += rows;
        self.left = self.left.saturating_sub(rows);
    }
}

/// The SDKs of the profile table, `first` (the one the bytes name) ahead
/// of the others, which keep the table's order; where the bytes name one,
/// an SDK that every event names is left out (its bytes would have named
/// it).
pub fn sdk_order(first: Option<Sdk>) -> Vec<Sdk> {
    let told = |s: Sdk| first.is_some() && Profile::of(s).fingerprint.told_by_every_event;
    first
        .into_iter()
        .chain(
            Sdk::ALL
                .iter()
                .copied()
                .filter(|s| Some(*s) != first && !told(*s)),
        )
        .collect()
}

/// One value of each list, every combination in order, made one at a time
/// (the product of a task's open keys can be large; the budget usually
/// stops the search long before its end).
pub(super) fn combinations(lists: &[Vec<Reading>]) -> impl Iterator<Item = Vec<Reading>> + '_ {
    let total: usize = lists.iter().map(Vec::len).product();
    (0..total).map(move |mut n| {
        // The last list turns fastest, as a nested loop over the lists.
        let mut keys = vec![Reading::new(); lists.len()];
        for (slot, list) in keys.iter_mut().zip(lists).rev() {
            *slot = list[n % list.len()].clone();
            n /= list.len();
        }
        keys
    })
}

/// A pause the search offers before each simulation. The model reads no
/// clock: whoever runs the search decides when a pause is due (the page,
/// after a few milliseconds of work) and what it waits for.
pub trait Pacer {
    /// `None`: go on at once. Otherwise a wait, after which the search
    /// goes on when it yields `true` and stops when it yields `false`
    /// (the user's Cancel).
    fn pause(&mut self) -> Option<Pin<Box<dyn Future<Output = bool>>>>;
}

/// Runs a search that no pacer pauses to its end, now: nothing in it ever
/// waits, so its first poll finishes it.
pub fn at_once<T>(search: impl Future<Output = T>) -> T {
    use std::task::{Context, Poll, Waker};
    let mut search = std::pin::pin!(search);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        // A search without a pacer is ready at its first poll; the loop
        // only keeps the type honest.
        if let Poll::Ready(found) = search.as_mut().poll(&mut cx) {
            return found;
        }
    }
}

/// How one task is searched, across every pass over its candidates: the
/// SDKs in the order tried, the budget they all draw on, and what may
/// pause it. What it finds carries no events: the reading sets the task's
/// once, at the end.
pub struct Search {
    sdks: Vec<Sdk>,
    budget: Budget,
    pause: Pause,
}

/// The search's pacer, which a comparison is lent too (a long run is
/// compared a slice at a time), and whether it stopped the search.
#[derive(Default)]
pub struct Pause {
    pacer: Option<Box<dyn Pacer>>,
    stopped: bool,
}

impl Pause {
    /// The pacer's pause, if it pauses here; `false` once it stopped the
    /// search.
    pub async fn now(&mut self) -> bool {
        if let Some(pause) = self.pacer.as_mut().and_then(|p| p.pause()) {
            self.stopped = !pause.await;
        }
        !self.stopped
    }

    /// Whether a pacer may pause the search at all.
    fn paced(&self) -> bool {
        self.pacer.is_some()
    }
}

impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("sdks", &self.sdks)
            .field("budget", &self.budget)
            .field("paced", &self.pause.paced())
            .field("stopped", &self.pause.stopped)
            .finish()
    }
}

impl Search {
    /// Rows simulated between two of the pacer's pauses: a few
    /// milliseconds of work in the page's WebAssembly.
    pub const SLICE_ROWS: usize = 500;

    /// A search under `budget`, trying `sdks` in order.
    pub fn new(sdks: Vec<Sdk>, budget: Budget) -> Self {
        Search {
            sdks,
            budget,
            pause: Pause::default(),
        }
    }

    /// The search, paused by `pacer` before each simulation.
    pub fn paced(mut self, pacer: Box<dyn Pacer>) -> Self {
        self.pause.pacer = Some(pacer);
        self
    }

    /// The budget as it stands.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Whether the pacer stopped the search: what it found then is no
    /// answer.
    pub fn stopped(&self) -> bool {
        self.pause.stopped
    }

    /// Whether another simulation may start: the budget allows it, and the
    /// pacer, if it pauses here, lets the search go on.
    async fn may_go_on(&mut self) -> bool {
        if self.pause.stopped || !self.budget.allows_another() {
            return false;
        }
        self.pause().await
    }

    /// The pacer's pause, if it pauses here; `false` once it stopped the
    /// search.
    async fn pause(&mut self) -> bool {
        self.pause.now().await
    }

    /// Lets a run go a slice of rows at a time, the pacer asked between
    /// two (a long run's rows take as long to free as to write).
    async fn drop_paced(&mut self, run: Run) {
        if !self.pause.paced() {
            return;
        }
        let mut rows = run.trace.rows;
        while rows.len() > Search::SLICE_ROWS {
            rows.truncate(rows.len() - Search::SLICE_ROWS);
            if !self.pause().await {
                return;
            }
        }
    }

    /// `scenario` simulated a slice of [`Search::SLICE_ROWS`] rows at a
    /// time, the pacer asked between two; `None` once it stopped the
    /// search.
    async fn simulate(&mut self, scenario: &Scenario) -> Option<Run> {
        let mut simulation = Simulation::new(scenario);
        while !simulation.advance(Search::SLICE_ROWS) {
            if !self.pause().await {
                return None;
            }
        }
        Some(simulation.finish())
    }

    /// A reading's query as the lab writes one, in the key table's order,
    /// with the SDK tried first where it is not the lab's default (the
    /// one the bytes name): what the answer names where no scenario takes
    /// any reading.
    fn first_query(&self, reading: &[Setting]) -> String {
        let default = Scenario::default().sdk;
        let sdk = self.sdks.first().copied().filter(|s| *s != default);
        // The table's order, row by row (the page's bundle carries no
        // sort for it).
        let written: Vec<String> = KEYS
            .iter()
            .filter_map(|spec| match reading.iter().find(|s| s.key() == spec.key) {
                Some(s) => Some(format!("{}={s}", spec.name)),
                None if spec.key == Key::Sdk => sdk.map(|s| format!("sdk={}", s.name())),
                None => None,
            })
            .collect();
        written.join("&")
    }

    /// Tries each candidate (one reading of each key left open, taken
    /// together) under each SDK, comparing its run by `compare` (where the
    /// task and the run first differ, and how many events agree, pausing
    /// as it goes where the run is long): the
    /// first that reproduces the task, else the closest (the one that
    /// agreed longest, the first of those) with how much it agreed.
    /// Whether the budget left candidates untried is the budget's to say
    /// ([`Budget::ran_out`]), once every pass is done.
    ///
    /// Every candidate is paced before it is made and charged at least
    /// `cost` rows, what making it costs (about the task's events: a
    /// reading reads them all), whether or not any scenario takes it: a
    /// task past the key table's limits (more chunks than the lab
    /// simulates) offers candidates no scenario takes, one for each place
    /// a resend may have fallen, and each is as dear to make as one that
    /// is simulated.
    pub(super) async fn run(
        &mut self,
        candidates: impl IntoIterator<Item = Vec<Reading>>,
        cost: usize,
        mut compare: impl AsyncFnMut(&Run, &mut Pause) -> (Option<String>, usize),
    ) -> Result<ScenarioOf, (usize, ScenarioOf)> {
        let mut closest: Option<(usize, ScenarioOf)> = None;
        let mut first: Option<String> = None;
        // Why the first candidate no scenario takes was refused.
        let mut refused: Option<String> = None;
        let mut candidates = candidates.into_iter();
        'candidates: loop {
            // The pause comes before the candidate is made: making it
            // reads the task.
            if self.pause.stopped || !self.pause().await {
                break;
            }
            let Some(readings) = candidates.next() else {
                break;
            };
            if !self.budget.allows_another() {
                break;
            }
            let reading = readings.concat();
            first.get_or_insert_with(|| self.first_query(&reading));
            let before = self.budget.spent;
            let read = match scenario_of_reading(&reading) {
                Ok(read) => read,
                Err(e) => {
                    refused.get_or_insert_with(|| why_refused(&reading, &e));
                    self.budget.spend(cost);
                    continue;
                }
            };
            for at in 0..self.sdks.len() {
                let sdk = self.sdks[at];
                if at > 0 && !self.may_go_on().await {
                    break 'candidates;
                }
                let scenario = Scenario {
                    sdk,
                    ..read.clone()
                };
                // An SDK without a counterpart of a key's value (SPEC §16).
                if scenario.check_lacks().is_err() {
                    continue;
                }
                let Some(run) = self.simulate(&scenario).await else {
                    break 'candidates;
                };
                self.budget.spend(run.trace.rows.len());
                let (difference, agree) = compare(&run, &mut self.pause).await;
                if self.pause.stopped {
                    break 'candidates;
                }
                // The run's rows are let go a slice at a time too.
                self.drop_paced(run).await;
                let candidate = ScenarioOf {
                    query: scenario.to_query(),
                    reproduces: difference.is_none(),
                    first_difference: difference,
                    budget_ran_out: false,
                    events: Vec::new(),
                };
                if candidate.reproduces {
                    return Ok(candidate);
                }
                if closest.as_ref().is_none_or(|(most, _)| agree > *most) {
                    closest = Some((agree, candidate));
                }
            }
            // At least what making the candidate cost, simulated or not.
            let charged = self.budget.spent - before;
            self.budget.spend(cost.saturating_sub(charged));
        }
        let (agree, closest) = closest.unwrap_or_else(|| {
            let none = ScenarioOf {
                query: first.unwrap_or_default(),
                reproduces: false,
                first_difference: Some(
                    refused.unwrap_or_else(|| "no scenario takes these keys".into()),
                ),
                budget_ran_out: false,
                events: Vec::new(),
            };
            (0, none)
        });
        Err((agree, closest))
    }
}

/// Why no scenario takes a reading, in words: a count past its key's
/// limit in the key table (`chunks=11000 is past the lab's limit of
/// 10000`), else what the scenario's parser said.
fn why_refused(reading: &[Setting], error: &ScenarioError) -> String {
    let past = reading.iter().find_map(|s| {
        let n = s.count()?;
        let hi = match s.key().spec().kind {
            Values::Number { hi, .. } | Values::WordOrNumber { hi, .. } => hi,
            _ => return None,
        };
        (n > hi as usize).then(|| format!("{}={n} is past the lab's limit of {hi}", s.key().name()))
    });
    past.unwrap_or_else(|| format!("no scenario takes these keys ({error})"))
}
