//! A task of real traffic explained by the lab's own scenario (issue 33):
//! the keys read off its events, the scenario simulated, and the two
//! compared event by event. What it says is no finding: a task no
//! scenario reproduces shows what the lab cannot model yet.
//!
//! Here, one stream: the number of chunks, progress updates before each,
//! the whole result at once, the questions answered across follow-up
//! turns, the ending (the final or interrupted state, a stream closed
//! without one, one that hung), an artifact after the end, a cancel and
//! where it fell, an event resent after a reconnect, a blocking call's
//! answers, the wire, and the SDK (the profile whose simulation matches,
//! the one the bytes name first). The keys of one stream are read in
//! `keys`, each a typed [`setting`]; a candidate's run is compared with
//! the task by what client 1 [`received`], event by [`EventShape`]; the
//! places a resend may have fallen are `resend`'s; every reading ends in
//! the one bounded search of `search`. Several streams of a task are
//! read in [`streams`], a webhook's log in [`pushes`].

use serde::Serialize;

mod keys;
pub mod pushes;
mod received;
mod resend;
mod search;
pub mod setting;
mod shape;
pub mod streams;

pub use received::{received, row_shapes};
pub use search::{at_once, sdk_order, Budget, Pacer, Pause, Search};
pub use shape::{shapes, EventShape, ShapeOf, Shaper};

use crate::model::trace::{Run, StreamEnd};
use crate::model::wire::answer::{EventKind, OwnedEvent};
use crate::model::wire::Wire;
use keys::{answers_only, cut_short, keys_of, state_of};
use received::{agreed, compare_received, first_difference};
use resend::Resend;

/// The scenario that explains a task, and how well.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScenarioOf {
    /// The lab's URL query for it.
    pub query: String,
    /// Whether its simulation streams the task's events exactly (kind,
    /// state, artifact flags and part count, in order).
    pub reproduces: bool,
    /// Where the two first part, in words, when they do.
    pub first_difference: Option<String>,
    /// Whether the search's budget ran out with candidates left untried:
    /// then this is only the closest within the budget.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub budget_ran_out: bool,
    /// The task's events as compared ([`shapes`]), for the page to set
    /// beside a scenario's.
    #[serde(skip)]
    pub events: Vec<String>,
}

/// `scenario: ?QUERY (reproduces it)`, or `(closest; …)` with where the
/// two first differ: the line `check` and `probe` print.
impl std::fmt::Display for ScenarioOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No key at all is the lab's defaults.
        let query = match self.query.as_str() {
            "" => "the defaults".to_string(),
            q => format!("?{q}"),
        };
        match &self.first_difference {
            None => write!(f, "scenario: {query} (reproduces it)"),
            Some(d) if self.budget_ran_out => {
                write!(f, "scenario: {query} (closest within the budget; {d})")
            }
            Some(d) => write!(f, "scenario: {query} (closest; {d})"),
        }
    }
}

/// The scenario that explains one task's events (`end`: how its stream
/// ended, where that is known), within the task's [`Budget`]: the keys
/// read off them, with the SDK whose simulation reproduces them, each SDK
/// of the profile table in turn; where none does, the one that agrees
/// longest. Events that hold more than one stream (a task snapshot after
/// the first event opens a resubscription's, or a retried call's) are
/// read stream by stream where one stream does not explain them.
pub fn scenario_of(events: &[OwnedEvent], end: Option<StreamEnd>) -> ScenarioOf {
    let mut search = Search::new(sdk_order(None), Budget::for_events(events.len()));
    scenario_of_within(events, end, &mut search)
}

/// [`scenario_of`] with the SDKs tried and the budget given: `search`
/// says what the reading spent.
pub fn scenario_of_within(
    events: &[OwnedEvent],
    end: Option<StreamEnd>,
    search: &mut Search,
) -> ScenarioOf {
    at_once(scenario_of_paced(events, end, search))
}

/// [`scenario_of_within`] as a search its [`Pacer`] may pause between two
/// simulations (the page's, which paints and answers input there).
pub async fn scenario_of_paced(
    events: &[OwnedEvent],
    end: Option<StreamEnd>,
    search: &mut Search,
) -> ScenarioOf {
    let one = scenario_of_one(events, end, search).await;
    if one.reproduces || answers_only(events) || search.stopped() {
        return one;
    }
    let starts = stream_starts(events);
    if starts.is_empty() {
        return one;
    }
    several_streams(events, end, starts, search)
        .await
        .unwrap_or(one)
}

/// Where a task's events open another stream after the first: a task
/// snapshot after the first event (a resubscription's, or a retried
/// call's).
fn stream_starts(events: &[OwnedEvent]) -> Vec<usize> {
    (1..events.len())
        .filter(|&i| events[i].kind == EventKind::Task)
        .collect()
}

/// The events read stream by stream, split where each opens, if that
/// reproduces them: on the page as in `check`, so that the same bytes get
/// the same explanation.
async fn several_streams(
    events: &[OwnedEvent],
    end: Option<StreamEnd>,
    starts: Vec<usize>,
    search: &mut Search,
) -> Option<ScenarioOf> {
    let bounds: Vec<usize> = [0]
        .into_iter()
        .chain(starts)
        .chain([events.len()])
        .collect();
    let streams: Vec<streams::ClientStream> = bounds
        .windows(2)
        .map(|w| streams::ClientStream {
            client: 1,
            events: &events[w[0]..w[1]],
            end: (w[1] == events.len()).then_some(end).flatten(),
        })
        .collect();
    let several = streams::scenario_of_streams_paced(&streams, search).await;
    several.reproduces.then_some(several)
}

/// What a search found, with the task's events as the page words them,
/// and, where it reproduces nothing, whether the budget left candidates
/// untried (then it is only the closest within the budget).
fn finished<T: std::fmt::Display>(
    mut found: ScenarioOf,
    events: &[T],
    search: &Search,
) -> ScenarioOf {
    found.events = events.iter().map(ToString::to_string).collect();
    found.budget_ran_out = !found.reproduces && search.budget().ran_out();
    found
}

/// [`scenario_of`] for the events of one stream: the keys read off them
/// first; then the readings with a resend, the nearest to where the first
/// reading parted from the task first (a resend shifts the events only
/// from where it fell), as far as the budget goes.
async fn scenario_of_one(
    events: &[OwnedEvent],
    end: Option<StreamEnd>,
    search: &mut Search,
) -> ScenarioOf {
    let task = shapes(events);
    let wire = events.first().map_or(Wire::V1_0, |e| e.wire);
    let compare =
        async |run: &Run, pause: &mut Pause| compare_received(&task, end, run, wire, pause).await;
    let read = keys_of(events, end);
    let (agree, closest) = match search.run([vec![read]], events.len(), &compare).await {
        Ok(found) => return finished(found, &task, search),
        Err(closest) => closest,
    };
    let places = Resend::places(events, &task);
    let readings = Resend::nearest_first(&places, agree).map(|r| vec![r.keys(events, end)]);
    let found = match search.run(readings, events.len(), &compare).await {
        Ok(found) => found,
        Err((more, other)) if more > agree => other,
        Err(_) => closest,
    };
    finished(found, &task, search)
}
