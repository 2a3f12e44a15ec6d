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
//! the one the bytes name first). Each key read is a typed [`setting`];
//! each event compared an [`EventShape`]; every reading ends in the one
//! bounded search of [`search`]. Several streams of a task are read in
//! [`streams`], a webhook's log in [`pushes`].

use serde::Serialize;

pub mod pushes;
mod search;
pub mod setting;
mod shape;
pub mod streams;

use crate::model::sim::keys::Key;
use crate::model::sim::profile::INTERNAL_ERROR;
pub use search::{at_once, sdk_order, Budget, Pacer, Pause, Search};
use setting::{count, has, word, Reading};
pub use shape::{shapes, EventShape, ShapeOf, Shaper};

use crate::model::state::TaskState;
use crate::model::trace::{Disposition, Row, RowKind, Run, StreamEnd};
use crate::model::wire::answer::{read_value, EventKind, OwnedEvent};
use crate::model::wire::Wire;

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

pub(super) fn state_of(event: &OwnedEvent) -> Option<TaskState> {
    match event.kind {
        EventKind::Status | EventKind::Task => event.state.as_ref()?.known(),
        _ => None,
    }
}

/// The questions a task asked and was answered (a WORKING status came
/// after): each follow-up turn's interrupted state, in order, by index.
fn turns(events: &[OwnedEvent]) -> Vec<(usize, TaskState)> {
    let working =
        |e: &OwnedEvent| e.kind == EventKind::Status && state_of(e) == Some(TaskState::Working);
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EventKind::Status)
        .filter_map(|(i, e)| Some((i, state_of(e).filter(|s| s.is_interrupted())?)))
        .filter(|&(i, _)| events[i + 1..].iter().any(working))
        .collect()
}

/// `interrupt` for the questions answered, where the lab asks them so.
fn interrupt_key(turns: &[(usize, TaskState)]) -> Option<setting::Setting> {
    let asked: Vec<TaskState> = turns.iter().map(|&(_, s)| s).collect();
    match asked[..] {
        [] => None,
        [TaskState::AuthRequired] => Some(word(Key::Interrupt, "auth")),
        [TaskState::InputRequired] => Some(word(Key::Interrupt, "input")),
        _ => Some(word(Key::Interrupt, "both")),
    }
}

/// The keys every task ends with: its wire.
fn finish_keys(mut keys: Reading, events: &[OwnedEvent]) -> Reading {
    if events.first().is_some_and(|e| e.wire == Wire::V0_3) {
        keys.push(word(Key::Wire, Wire::V0_3.name()));
    }
    keys
}

/// How the steps ended: all done and closed, or stopped mid-way.
#[derive(Clone, Copy)]
struct Steps {
    /// Steps whose chunk reached the wire (the whole result's parts).
    done: u32,
    /// Whether the tracking artifact was closed (its last chunk sent).
    closed: bool,
    /// Whether the one update was the whole result at once (never a step
    /// left open).
    whole: bool,
}

/// The keys for the steps and for how the task ended at `last` (`end`:
/// how its stream ended, where known): `chunks`, a cancel and where it
/// fell, `cancel_impl`, `ending`.
fn ending_keys(steps: Steps, last: Option<TaskState>, end: Option<StreamEnd>) -> Reading {
    let Steps {
        done,
        closed,
        whole,
    } = steps;
    // An artifact left open before FAILED or a stream's end: the work
    // stopped mid-way, as a cancel whose cancel() raises (FAILED, or the
    // stream ended by its error) or writes nothing does.
    let stopped = !closed && done > 0 && !whole;
    // JSON-RPC 2.0 §5.1: -32603 is the server's internal error, what an
    // exception that reaches the handler becomes.
    let raised = end == Some(StreamEnd::Error(INTERNAL_ERROR));
    let cancel_impl = match last {
        Some(TaskState::Failed) if stopped => Some("raise"),
        None if stopped && raised => Some("raise"),
        None if stopped => Some("noop"),
        _ => None,
    };
    // A cancel after the artifact's last chunk lands only on an executor
    // that never returns; before it, the steps left never reach the wire
    // (one more is the fewest that leaves a step to cancel).
    let mut keys = match (last, cancel_impl) {
        (Some(TaskState::Canceled), _) if closed => {
            vec![
                count(Key::Chunks, done as usize),
                count(Key::Cancel, done as usize),
            ]
        }
        (Some(TaskState::Canceled), _) | (_, Some(_)) => {
            vec![
                count(Key::Chunks, done as usize + 1),
                count(Key::Cancel, done as usize),
            ]
        }
        _ => vec![count(Key::Chunks, done as usize)],
    };
    if let Some(how) = cancel_impl {
        keys.push(word(Key::CancelImpl, how));
        return keys;
    }
    let ending = match (last, end) {
        (Some(TaskState::Canceled), _) if closed => Some("never"),
        (Some(TaskState::Completed) | Some(TaskState::Canceled), _) => None,
        (Some(TaskState::Failed), _) => Some("fail"),
        (Some(TaskState::InputRequired), _) => Some("input"),
        (Some(TaskState::AuthRequired), _) => Some("auth"),
        // A stream that hung, or that the client's own timeout gave up on.
        (_, Some(StreamEnd::Hung | StreamEnd::TimedOut)) => Some("never"),
        // No final status, the stream ended by an exception's error.
        _ if raised => Some("raise"),
        _ => Some("return"),
    };
    keys.extend(ending.map(|e| word(Key::Ending, e)));
    keys
}

/// A blocking call's answers, a task each (one per turn): the questions
/// answered, the steps the last holds and how it ended.
fn blocking_keys(answers: &[OwnedEvent]) -> Reading {
    let Some(event) = answers.last() else {
        return Vec::new();
    };
    // A part the same as the one before it is one step applied twice (a
    // second event loop on the task appends it again: @a2a-js/sdk's call
    // that returned at AUTH_REQUIRED), not a step of its own.
    let parts: usize = event
        .artifacts
        .iter()
        .map(|a| a.parts.len() - a.parts.windows(2).filter(|w| w[0] == w[1]).count())
        .sum();
    let mut keys = vec![word(Key::Client, "block")];
    let asked: Vec<(usize, TaskState)> = answers[..answers.len() - 1]
        .iter()
        .enumerate()
        .filter_map(|(i, a)| Some((i, state_of(a).filter(|s| s.is_interrupted())?)))
        .collect();
    keys.extend(interrupt_key(&asked));
    // A task lists its artifact whole: the steps done, never one left open.
    let steps = Steps {
        done: parts as u32,
        closed: true,
        whole: false,
    };
    let last = state_of(event);
    let steps = match last {
        Some(TaskState::Canceled) => Steps {
            closed: false,
            ..steps
        },
        _ => steps,
    };
    keys.extend(ending_keys(steps, last, None));
    finish_keys(keys, answers)
}

/// Whether the events are a blocking call's answers: tasks alone, never
/// SUBMITTED.
pub(super) fn answers_only(events: &[OwnedEvent]) -> bool {
    events.iter().all(|e| e.kind == EventKind::Task)
        && events
            .first()
            .is_some_and(|e| state_of(e) != Some(TaskState::Submitted))
}

/// The steps a stream's events up to the end show, and how many WORKING
/// statuses came before the end.
fn steps_of(before: &[OwnedEvent]) -> (Steps, u32) {
    let artifacts: Vec<&OwnedEvent> = before
        .iter()
        .filter(|e| e.kind == EventKind::Artifact)
        .collect();
    let workings = before
        .iter()
        .filter(|e| e.kind == EventKind::Status && state_of(e) == Some(TaskState::Working))
        .count() as u32;
    let first = |e: &&OwnedEvent| e.artifacts.first().map(|a| (a.parts.len(), a.last));
    let whole = match artifacts[..] {
        [one] => first(&one).is_some_and(|(parts, _)| parts > 1),
        _ => false,
    };
    let steps = Steps {
        done: match artifacts[..] {
            [one] if whole => first(&one).map_or(0, |(parts, _)| parts as u32),
            _ => artifacts.len() as u32,
        },
        closed: artifacts
            .last()
            .and_then(first)
            .is_some_and(|(_, last)| last),
        whole,
    };
    (steps, workings)
}

/// Whether a WORKING update came after the last step's chunk (the next
/// step's progress), with a step done before it.
fn progress_after_last_step(events: &[OwnedEvent]) -> bool {
    let Some(last) = events.iter().rposition(|e| e.kind == EventKind::Artifact) else {
        return false;
    };
    events[last + 1..]
        .iter()
        .any(|e| e.kind == EventKind::Status && state_of(e) == Some(TaskState::Working))
}

/// The keys its events say (the SDK left out).
pub(super) fn keys_of(events: &[OwnedEvent], end: Option<StreamEnd>) -> Reading {
    if answers_only(events) {
        return blocking_keys(events);
    }
    let turns = turns(events);
    // The end: the first final or interrupted status no turn answered.
    let ends_at = events.iter().enumerate().position(|(i, e)| {
        state_of(e).is_some_and(|s| s.is_terminal() || s.is_interrupted())
            && !turns.iter().any(|&(t, _)| t == i)
            && (e.kind == EventKind::Status || i == 0)
    });
    let (steps, workings) = steps_of(&events[..ends_at.unwrap_or(events.len())]);
    let last = ends_at.and_then(|i| state_of(&events[i]));
    let mut keys = ending_keys(steps, last, end);
    if has(&keys, Key::CancelImpl) {
        return finish_keys(keys, events);
    }
    let after_end = ends_at.is_some_and(|i| {
        events[i + 1..]
            .iter()
            .any(|e| e.kind == EventKind::Artifact)
    });
    if after_end {
        keys.push(count(Key::Late, 0));
    }
    keys.extend(interrupt_key(&turns));
    // Progress: WORKING again before each step, beyond the first WORKING
    // and each follow-up turn's; a step whose progress came but whose
    // chunk did not (a cancel fell in it) counts too.
    let progress = workings.saturating_sub(1 + turns.len() as u32);
    let before = &events[..ends_at.unwrap_or(events.len())];
    let started = steps.done + u32::from(progress_after_last_step(before));
    let chunks = started.max(1);
    if progress > 0 && progress % chunks == 0 {
        keys.push(count(Key::Progress, (progress / chunks) as usize));
    }
    if steps.whole {
        keys.push(word(Key::Result, "last"));
    }
    finish_keys(keys, events)
}

/// Whether a policy kept an event from the client: the guard dropped it,
/// or the ledger refused it as a duplicate or a conflict.
fn withheld(disposition: Disposition) -> bool {
    matches!(
        disposition,
        Disposition::DroppedByGuard | Disposition::Duplicate | Disposition::Rejected
    )
}

/// What client 1 was sent in a run, in order: its streams' rows (one
/// after another, as a capture of its calls lists them) and the rows a
/// policy kept from it, or a blocking call's answers.
pub fn received(run: &Run) -> Vec<&Row> {
    let rows = &run.trace.rows;
    if run.streams.is_empty() {
        return rows
            .iter()
            .filter(|r| r.kind == RowKind::Action && r.wire.is_some())
            .collect();
    }
    let dropped = rows
        .iter()
        .filter(|r| r.client == 1 && r.wire.is_none() && withheld(r.disposition))
        .map(|r| r.index);
    let streamed = run
        .streams
        .iter()
        .filter(|s| s.client == 1)
        .flat_map(|s| s.rows.iter().copied());
    let mut sent: Vec<usize> = streamed.chain(dropped).collect();
    sent.sort_unstable();
    sent.iter().filter_map(|&i| rows.get(i)).collect()
}

/// Each row's event as compared ([`shapes`]), `None` for a row that never
/// reached the wire (one the guard dropped).
pub fn row_shapes(rows: &[&Row], wire: Wire) -> Vec<Option<EventShape>> {
    shaped(rows, wire).collect()
}

/// Each row's event as compared, read one at a time as asked for.
fn shaped<'a>(rows: &'a [&Row], wire: Wire) -> impl Iterator<Item = Option<EventShape>> + 'a {
    let mut shaper = Shaper::default();
    rows.iter()
        .map(move |r| Some(shaper.shape(&read_value(&r.wire.as_ref()?.json(), Some(wire)).ok()?)))
}

/// Where the task's events and what client 1 received in a run first
/// differ, and how many agree before that; then, where the task shows
/// how its stream ended (`end`), whether the run's ended so. The run's
/// events are read only up to the first difference: a candidate is cut
/// off there.
async fn compare_received(
    task: &[EventShape],
    end: Option<StreamEnd>,
    run: &Run,
    wire: Wire,
    pause: &mut Pause,
) -> (Option<String>, usize) {
    let rows = received(run);
    let mut got = shaped(&rows, wire).flatten();
    for (i, a) in task.iter().enumerate() {
        // A long run is compared a slice at a time, as it was simulated.
        if i % Search::SLICE_ROWS == Search::SLICE_ROWS - 1 && !pause.now().await {
            return (None, i);
        }
        match got.next() {
            Some(b) if b == *a => {}
            b => return (Some(difference_at(i, Some(a), b.as_ref())), i),
        }
    }
    let n = task.len();
    let more = got.next().map(|b| difference_at(n, None, Some(&b)));
    (more.or_else(|| end_difference(end, run, n)), n)
}

/// Where client 1's last stream in the run ends otherwise than the task's
/// after its `n` events, when an error event ended the task's (a stream
/// the server closed shows nothing to compare).
fn end_difference(end: Option<StreamEnd>, run: &Run, n: usize) -> Option<String> {
    let Some(StreamEnd::Error(code)) = end else {
        return None;
    };
    let got = run
        .streams
        .iter()
        .rev()
        .find(|s| s.client == 1 && !s.rows.is_empty())
        .map(|s| s.end);
    if got == end {
        return None;
    }
    let theirs = match got {
        Some(StreamEnd::Error(other)) => format!("with JSON-RPC error {other}"),
        Some(other) => other.label().replace('_', " "),
        None => "on no stream".to_string(),
    };
    Some(format!(
        "after event {n}: the task's stream ends with JSON-RPC error {code}, the scenario's {theirs}"
    ))
}

/// How many events two lists agree on before they first part.
pub(super) fn agreed<T: PartialEq>(task: &[T], scenario: &[T]) -> usize {
    task.iter()
        .zip(scenario)
        .take_while(|(a, b)| a == b)
        .count()
}

/// The keys read off a task that stops short of its end, with its steps
/// and how it ended left out (neither is on the wire) and `chunks` steps
/// instead.
pub(super) fn cut_short(read: &[setting::Setting], chunks: usize) -> Reading {
    let unseen = [Key::Chunks, Key::Cancel, Key::CancelImpl, Key::Ending];
    let kept = read.iter().filter(|s| !unseen.contains(&s.key)).copied();
    [count(Key::Chunks, chunks)]
        .into_iter()
        .chain(kept)
        .collect()
}

/// Where two event lists first part, if they do.
pub(super) fn first_difference<T: PartialEq + std::fmt::Display>(
    task: &[T],
    scenario: &[T],
) -> Option<String> {
    let n = task.len().max(scenario.len());
    (0..n).find_map(|i| match (task.get(i), scenario.get(i)) {
        (Some(a), Some(b)) if a == b => None,
        (a, b) => Some(difference_at(i, a, b)),
    })
}

/// Where event `i` (from 0) differs, in words: what the task and the
/// scenario have there (`None`: it has ended).
fn difference_at<T: std::fmt::Display>(i: usize, task: Option<&T>, scenario: Option<&T>) -> String {
    let n = i + 1;
    match (task, scenario) {
        (Some(a), Some(b)) => format!("event {n}: the task has {a}, the scenario {b}"),
        (Some(a), None) => format!("event {n}: the task has {a}, the scenario ends"),
        (None, Some(b)) => format!("event {n}: the task ends, the scenario has {b}"),
        (None, None) => format!("event {n}: both end"),
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

/// Where an event of a stream may have come again after a reconnect
/// (`dup`): the event before it again, or a part sent again right after
/// it was sent; or, its bytes changed (`conflict`), an artifact update at
/// the coordinate of the one before. Found in one pass; read only when
/// tried ([`Resend::keys`]).
#[derive(Debug, Clone, Copy)]
struct Resend {
    /// The repeat's index: the events delivered before it.
    at: usize,
    /// Whether its bytes changed.
    conflict: bool,
}

impl Resend {
    /// Every place a resend may have fallen, each repeat before each
    /// changed one.
    fn places(events: &[OwnedEvent], shapes: &[EventShape]) -> Vec<Resend> {
        fn chunk(e: &OwnedEvent) -> Option<(&str, bool, bool)> {
            let a = e.artifacts.first()?;
            Some((a.artifact_id.as_str(), a.append, a.last))
        }
        let mut places = Vec::new();
        for conflict in [false, true] {
            for at in 1..events.len() {
                let (before, now) = (&events[at - 1], &events[at]);
                let again = shapes[at].again || now == before;
                let same_place = now.kind == EventKind::Artifact
                    && before.kind == EventKind::Artifact
                    && chunk(before) == chunk(now);
                if (conflict && same_place && !again) || (!conflict && again) {
                    places.push(Resend { at, conflict });
                }
            }
        }
        places
    }

    /// The places, each repeat before each changed one, and within each
    /// the nearest to event `agree` first (the earlier of two as near):
    /// a merge outward from it, as the places are in order already (the
    /// page's bundle carries no sort for it).
    fn nearest_first(places: &[Resend], agree: usize) -> impl Iterator<Item = Resend> + '_ {
        let (repeats, changed) = places.split_at(places.partition_point(|r| !r.conflict));
        [repeats, changed].into_iter().flat_map(move |group| {
            let split = group.partition_point(|r| r.at < agree);
            let (mut left, mut right) = (group[..split].iter().rev(), group[split..].iter());
            let (mut l, mut r) = (left.next(), right.next());
            std::iter::from_fn(move || {
                let take_left = match (l, r) {
                    (Some(a), Some(b)) => agree - a.at <= b.at - agree,
                    (a, _) => a.is_some(),
                };
                let taken = if take_left { l } else { r };
                if take_left {
                    l = left.next();
                } else {
                    r = right.next();
                }
                taken.copied()
            })
        })
    }

    /// The keys of the events read without the repeat, and the resend.
    fn keys(self, events: &[OwnedEvent], end: Option<StreamEnd>) -> Reading {
        let mut once = events.to_vec();
        once.remove(self.at);
        let mut keys = keys_of(&once, end);
        keys.push(count(Key::Dup, self.at));
        if self.conflict {
            keys.push(word(Key::Conflict, "on"));
        }
        keys
    }
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
    let (agree, closest) = match search.run([vec![read]], &compare).await {
        Ok(found) => return finished(found, &task, search),
        Err(closest) => closest,
    };
    let places = Resend::places(events, &task);
    let readings = Resend::nearest_first(&places, agree).map(|r| vec![r.keys(events, end)]);
    let found = match search.run(readings, &compare).await {
        Ok(found) => found,
        Err((more, other)) if more > agree => other,
        Err(_) => closest,
    };
    finished(found, &task, search)
}
