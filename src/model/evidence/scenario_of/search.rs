//! The one search every reading of a task ends in: the combinations of
//! the keys the wire leaves open, taken lazily, each simulated under every
//! SDK of the profile table (the one the bytes name first), compared with
//! the task, and stopped at a stated budget of simulated rows, so that a
//! task no scenario reproduces costs a bounded, linear amount of work.

use crate::model::sim::keys::Sdk;
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::trace::Run;

use super::setting::{pairs, Reading};
use super::ScenarioOf;

/// How much simulation one task's explanation may spend, in trace rows
/// simulated: [`Budget::PER_EVENT`] for each of the task's events, and at
/// least [`Budget::FLOOR`], so that a short task may still try every
/// combination its keys leave open (the recorded runs of both SDKs need at
/// most a few thousand rows; `tests/scenario_of.rs` holds each within it).
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
/// of the others, which keep the table's order.
pub fn sdk_order(first: Option<Sdk>) -> Vec<Sdk> {
    first
        .into_iter()
        .chain(Sdk::ALL.iter().copied().filter(|s| Some(*s) != first))
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

/// How one task is searched, across every pass over its candidates: the
/// SDKs in the order tried, and the budget they all draw on. What it finds
/// carries no events: the reading sets the task's once, at the end.
#[derive(Debug, Clone)]
pub struct Search {
    sdks: Vec<Sdk>,
    budget: Budget,
}

impl Search {
    /// A search under `budget`, trying `sdks` in order.
    pub fn new(sdks: Vec<Sdk>, budget: Budget) -> Self {
        Search { sdks, budget }
    }

    /// The budget as it stands.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Tries each candidate (one reading of each key left open, taken
    /// together) under each SDK, comparing its run by `compare` (where the
    /// task and the run first differ, and how many events agree): the
    /// first that reproduces the task, else the closest (the one that
    /// agreed longest, the first of those) with how much it agreed.
    /// Whether the budget left candidates untried is the budget's to say
    /// ([`Budget::ran_out`]), once every pass is done.
    pub(super) fn run(
        &mut self,
        candidates: impl IntoIterator<Item = Vec<Reading>>,
        mut compare: impl FnMut(&Run) -> (Option<String>, usize),
    ) -> Result<ScenarioOf, (usize, ScenarioOf)> {
        let mut closest: Option<(usize, ScenarioOf)> = None;
        let mut first: Option<String> = None;
        'candidates: for readings in candidates {
            let settings = pairs(&readings.concat());
            let read = Scenario::from_pairs(settings.iter().map(|(k, v)| (*k, v.as_str())));
            first.get_or_insert_with(|| {
                let written: Vec<String> =
                    settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
                written.join("&")
            });
            let Ok(read) = read else {
                continue;
            };
            for &sdk in &self.sdks {
                if !self.budget.allows_another() {
                    break 'candidates;
                }
                let scenario = Scenario {
                    sdk,
                    ..read.clone()
                };
                let run = simulate(&scenario);
                self.budget.spend(run.trace.rows.len());
                let (difference, agree) = compare(&run);
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
        }
        let (agree, closest) = closest.unwrap_or_else(|| {
            let none = ScenarioOf {
                query: first.unwrap_or_default(),
                reproduces: false,
                first_difference: Some("no scenario takes these keys".into()),
                budget_ran_out: false,
                events: Vec::new(),
            };
            (0, none)
        });
        Err((agree, closest))
    }
}
