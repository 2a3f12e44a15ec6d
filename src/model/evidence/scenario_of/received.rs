//! What client 1 received in a simulated run, and where it first parts
//! from the task's events: the comparison every candidate is judged by.

use crate::model::trace::{Disposition, Row, RowKind, Run, StreamEnd};
use crate::model::wire::answer::read_value;
use crate::model::wire::Wire;

use super::search::{Pause, Search};
use super::shape::{EventShape, Shaper};

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

/// Each row's event as compared ([`shapes`](super::shapes)), `None` for a row that never
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
pub(super) async fn compare_received(
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
