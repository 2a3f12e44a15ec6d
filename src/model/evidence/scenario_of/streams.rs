//! A task read off several streams: client 1's first call and what came
//! after it (a resubscription, a retried call, a restart that broke it)
//! and a second client's subscriptions. The keys that set where a stream
//! dropped or a client came in are not all on the wire: each value the
//! streams allow is simulated, and the first whose streams match the
//! task's, stream by stream, event by event, and in how each ended, wins.

use super::{keys_of, shapes, state_of, ScenarioOf};
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::state::TaskState;
use crate::model::trace::{Run, StreamEnd};
use crate::model::wire::answer::{EventKind, OwnedEvent};
use crate::model::wire::Wire;

/// One call's stream of a task, as a client received it.
#[derive(Debug, Clone, Copy)]
pub struct Received<'a> {
    /// 1, or 2 for a second client.
    pub client: u8,
    /// Its events, in order.
    pub events: &'a [OwnedEvent],
    /// How it ended, where known.
    pub end: Option<StreamEnd>,
}

/// A stream as compared: whose, its events' shapes, its end.
type Compared = (u8, Vec<String>, Option<&'static str>);

/// The most values of a key that says when a client came in that are
/// tried: past a task's events, none changes anything.
const LATEST: usize = 24;

/// Whether a later stream of client 1 is a retried call: a new task,
/// submitted afresh.
fn is_retry(first: &Received, later: &Received) -> bool {
    let id = first.events.first().map(|e| e.task_id.as_str());
    later.events.first().is_some_and(|e| {
        e.kind == EventKind::Task
            && state_of(e) == Some(TaskState::Submitted)
            && Some(e.task_id.as_str()) != id
    })
}

/// The task as client 1 saw it across its streams: the first, then each
/// later one's events after the snapshot it opens with; a retried call's
/// stream is the task again from the start.
fn whole_task(c1: &[&Received]) -> (Vec<OwnedEvent>, Option<StreamEnd>) {
    let Some(first) = c1.first() else {
        return (Vec::new(), None);
    };
    if let Some(retry) = c1.get(1).filter(|r| is_retry(first, r)) {
        return (retry.events.to_vec(), retry.end);
    }
    let mut events = first.events.to_vec();
    for later in &c1[1..] {
        let snapshot = later
            .events
            .first()
            .is_some_and(|e| e.kind == EventKind::Task);
        events.extend_from_slice(&later.events[usize::from(snapshot)..]);
    }
    let end = c1.iter().rev().find(|s| !s.events.is_empty()).and_then(|s| s.end);
    (events, end.filter(|e| *e == StreamEnd::Hung))
}

/// Every value of each key the streams leave open, one list per key
/// (`[""]` where the key is not in play).
fn open_keys(c1: &[&Received], c2: &[&Received], seen: usize) -> Vec<Vec<String>> {
    let Some(first) = c1.first() else {
        return Vec::new();
    };
    let retry = c1.get(1).is_some_and(|r| is_retry(first, r));
    let broken = c1.iter().any(|s| s.end == Some(StreamEnd::Broken));
    let mut open = Vec::new();
    if retry {
        open.push(vec!["retry=on".to_string()]);
    } else if c1.len() > 1 {
        // Dropped by the client at its last event; the kill broke it
        // first, before the client's drop came; or either, unknown.
        let k = first.events.len();
        let from = match first.end {
            Some(StreamEnd::DroppedByClient) => k..=k,
            Some(StreamEnd::Broken) => k + 1..=k + 4,
            _ => k..=k + 4,
        };
        open.push(from.map(|k| format!("resubscribe={k}")).collect());
    }
    if broken || ends_unknown(c1) {
        // Where ends are unknown, no restart comes first.
        let none = (!broken).then(String::new);
        let restarts = (0..=seen.min(LATEST)).flat_map(|k| {
            ["memory", "database"].map(|store| format!("restart={k}&store={store}"))
        });
        open.push(none.into_iter().chain(restarts).collect());
    }
    if !c2.is_empty() {
        open.push(
            (1..=seen.min(LATEST))
                .map(|k| format!("second_client={k}"))
                .collect(),
        );
    }
    open
}

/// How the task as client 1 saw it stops short of its end, if it does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// It was seen to its end, or its stream's end says nothing more.
    No,
    /// It was seen until a stream dropped and no later one carried the
    /// rest (a resubscription refused): how it ended is not on the wire.
    Unseen,
    /// A restart broke it: the steps it never reached are not either.
    Broken,
    /// Its streams' ends are not known (a capture lists a task's events,
    /// not how each call ended): either of the above, or neither.
    Unknown,
}

/// Whether how client 1's streams before the last ended is unknown.
fn ends_unknown(c1: &[&Received]) -> bool {
    c1.len() > 1 && c1[..c1.len() - 1].iter().any(|s| s.end.is_none())
}

/// How the task as client 1 saw it stops short of its end.
fn cut_of(c1: &[&Received]) -> Cut {
    if c1.iter().any(|s| s.end == Some(StreamEnd::Broken)) {
        return Cut::Broken;
    }
    if ends_unknown(c1) {
        return Cut::Unknown;
    }
    let last = c1.iter().rev().find(|s| !s.events.is_empty());
    match last.and_then(|s| s.end) {
        Some(StreamEnd::DroppedByClient) => Cut::Unseen,
        _ => Cut::No,
    }
}

/// The task's own keys: those read off its whole events, and where it
/// stops short of its end, those the wire cannot tell left open: how it
/// ended, and after a restart the steps it never reached (one to three
/// more than it sent).
fn own_keys(events: &[OwnedEvent], end: Option<StreamEnd>, cut: Cut) -> Vec<Vec<String>> {
    let read = keys_of(events, end);
    let unseen = |k: &String| {
        ["chunks=", "cancel=", "cancel_impl=", "ending="]
            .iter()
            .any(|p| k.starts_with(p))
    };
    let kept: Vec<String> = read.iter().filter(|k| !unseen(k)).cloned().collect();
    let sent = events
        .iter()
        .filter(|e| e.kind == EventKind::Artifact)
        .count();
    let with_chunks = |chunks: usize| {
        let mut keys = vec![format!("chunks={chunks}")];
        keys.extend(kept.iter().cloned());
        keys
    };
    match cut {
        Cut::No => vec![read],
        Cut::Unseen => vec![read.clone(), with_chunks(sent)],
        Cut::Broken => (sent..=sent + 2).map(with_chunks).collect(),
        Cut::Unknown => [read]
            .into_iter()
            .chain((sent..=sent + 2).map(with_chunks))
            .collect(),
    }
}

/// Each combination of one value per list, in order.
fn combinations(lists: &[Vec<String>]) -> Vec<Vec<String>> {
    lists.iter().fold(vec![Vec::new()], |done, list| {
        done.iter()
            .flat_map(|keys| {
                list.iter().map(move |v| {
                    let mut keys = keys.clone();
                    keys.push(v.clone());
                    keys
                })
            })
            .collect()
    })
}

/// A run's streams as compared, client 1's first, each in the order
/// opened; one that carried nothing (a subscription refused) is left out,
/// as a capture of a task's events does not list it.
fn run_streams(run: &Run, wire: Wire) -> Vec<Compared> {
    let mut streams: Vec<Compared> = run
        .streams
        .iter()
        .map(|s| {
            let rows: Vec<&crate::model::trace::Row> =
                s.rows.iter().filter_map(|&i| run.trace.rows.get(i)).collect();
            let shapes = super::row_shapes(&rows, wire).into_iter().flatten().collect();
            (s.client, shapes, Some(s.end.label()))
        })
        .filter(|s: &Compared| !s.1.is_empty())
        .collect();
    streams.sort_by_key(|s| s.0);
    streams
}

/// Where the task's streams and the scenario's first part, if they do.
fn first_difference(task: &[Compared], scenario: &[Compared]) -> Option<String> {
    if task.len() != scenario.len() {
        return Some(format!(
            "the task has {} stream(s), the scenario {}",
            task.len(),
            scenario.len()
        ));
    }
    task.iter()
        .zip(scenario)
        .enumerate()
        .find_map(|(i, ((client, a, end_a), (_, b, end_b)))| {
            let at = format!("stream {} (client {client})", i + 1);
            if let Some(d) = super::first_difference(a, b) {
                return Some(format!("{at}, {d}"));
            }
            match (end_a, end_b) {
                (Some(a), Some(b)) if a != b => {
                    Some(format!("{at}: it ended {a}, the scenario's {b}"))
                }
                _ => None,
            }
        })
}

/// The scenario that explains a task received on several streams (each
/// with its client and how it ended, where known): the keys read off the
/// whole task, with each value the streams leave open tried in turn, both
/// SDKs, a2a-sdk first; the first to match every stream wins, else the one
/// that agrees the longest.
pub fn scenario_of_streams(streams: &[Received]) -> ScenarioOf {
    // One stream that ended on its own is read as one; one a restart
    // broke is read with the keys a restart leaves open.
    if let [one] = streams {
        if one.client == 1 && one.end != Some(StreamEnd::Broken) {
            return super::scenario_of_one(one.events, one.end);
        }
    }
    let c1: Vec<&Received> = streams.iter().filter(|s| s.client == 1).collect();
    let c2: Vec<&Received> = streams.iter().filter(|s| s.client != 1).collect();
    let (events, end) = whole_task(&c1);
    let seen = c1.iter().map(|s| s.events.len()).sum();
    let mut lists = vec![own_keys(&events, end, cut_of(&c1))
        .into_iter()
        .map(|k| k.join("&"))
        .collect::<Vec<_>>()];
    lists.extend(open_keys(&c1, &c2, seen));
    let mut task: Vec<Compared> = streams
        .iter()
        .filter(|s| !s.events.is_empty())
        .map(|s| (s.client, shapes(s.events), s.end.map(StreamEnd::label)))
        .collect();
    task.sort_by_key(|s| s.0);
    let wire = events.first().map_or(Wire::V1_0, |e| e.wire);
    let flat: Vec<String> = streams.iter().flat_map(|s| shapes(s.events)).collect();
    let mut best: Option<(usize, ScenarioOf)> = None;
    for keys in combinations(&lists) {
        for sdk in ["", "sdk=js"] {
            let query: Vec<&str> = keys
                .iter()
                .map(String::as_str)
                .chain([sdk])
                .filter(|k| !k.is_empty())
                .collect();
            let Ok(scenario) = Scenario::from_query(&query.join("&")) else {
                continue;
            };
            let got = run_streams(&simulate(&scenario), wire);
            let difference = first_difference(&task, &got);
            let agree = agreement(&task, &got);
            let candidate = ScenarioOf {
                query: scenario.to_query(),
                reproduces: difference.is_none(),
                first_difference: difference,
                events: flat.clone(),
            };
            if candidate.reproduces {
                return candidate;
            }
            if best.as_ref().is_none_or(|(most, _)| agree > *most) {
                best = Some((agree, candidate));
            }
        }
    }
    best.map(|(_, s)| s).unwrap_or(ScenarioOf {
        query: lists
            .iter()
            .filter_map(|l| l.first().cloned())
            .collect::<Vec<_>>()
            .join("&"),
        reproduces: false,
        first_difference: Some("no scenario takes these keys".into()),
        events: flat,
    })
}

/// How many events, stream by stream, agree before the first difference.
fn agreement(task: &[Compared], scenario: &[Compared]) -> usize {
    let mut agree = 0;
    for ((_, a, _), (_, b, _)) in task.iter().zip(scenario) {
        let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        agree += same;
        if same < a.len().max(b.len()) {
            break;
        }
    }
    agree
}
