//! A task read off several streams: client 1's first call and what came
//! after it (a resubscription, a retried call, a restart that broke it)
//! and a second client's subscriptions. The keys that set where a stream
//! dropped or a client came in are not all on the wire: each value the
//! streams allow is simulated, and the first whose streams match the
//! task's, stream by stream, event by event, and in how each ended, wins.

use super::setting::{chunks_of, Reading, Setting};
use super::{keys_of, shapes, state_of, EventShape, ScenarioOf, Search};
use crate::model::sim::keys::Store;
use crate::model::state::TaskState;
use crate::model::trace::{Run, StreamEnd};
use crate::model::wire::answer::{ArtifactParts, EventKind, OwnedEvent};
use crate::model::wire::Wire;

/// One call's stream of a task, as a client received it.
#[derive(Debug, Clone, Copy)]
pub struct ClientStream<'a> {
    /// 1, or 2 for a second client.
    pub client: u8,
    /// Its events, in order.
    pub events: &'a [OwnedEvent],
    /// How it ended, where known.
    pub end: Option<StreamEnd>,
}

/// A stream as compared: whose, its events' shapes, its end.
type Compared = (u8, Vec<EventShape>, Option<&'static str>);

/// The most values of a key that says when a client came in that are
/// tried: past a task's events, none changes anything.
const LATEST: usize = 24;

/// Whether a later stream of client 1 is a retried call: a new task,
/// submitted afresh.
fn is_retry(first: &ClientStream, later: &ClientStream) -> bool {
    let id = first.events.first().map(|e| e.task_id.as_str());
    later.events.first().is_some_and(|e| {
        e.kind == EventKind::Task
            && state_of(e) == Some(TaskState::Submitted)
            && Some(e.task_id.as_str()) != id
    })
}

/// Whether a stream opens with a task snapshot (a call's first event, or a
/// subscription's); one that does not continues client 1's call (a resumed
/// turn, as the recorders list it).
fn opens(stream: &ClientStream) -> bool {
    stream
        .events
        .first()
        .is_none_or(|e| e.kind == EventKind::Task)
}

/// What one of client 1's streams is to the task.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// The call that made the task.
    Call,
    /// The same message sent again: a new task.
    Retry,
    /// A resumed turn, carrying the call on.
    Continues,
    /// A subscription to the task.
    Subscribes,
}

/// Each of client 1's streams' role. A stream that opens with a task
/// snapshot is a subscription, unless `resent`, the call's stream before it
/// was not dropped (a client drops a stream to subscribe again), and the
/// snapshot repeats the question the call last asked: a resumed turn that
/// sends the task again first (@a2a-js/sdk does), which a capture cannot
/// tell from a subscription.
fn roles(c1: &[&ClientStream], resent: bool) -> Vec<Role> {
    let mut out = Vec::new();
    let mut asked: Option<TaskState> = None;
    let mut dropped = false;
    for (i, s) in c1.iter().enumerate() {
        let head = s.events.first();
        let role = if i == 0 {
            Role::Call
        } else if !out.contains(&Role::Retry) && is_retry(c1[0], s) {
            Role::Retry
        } else if !opens(s)
            || (resent && !dropped && asked.is_some() && head.and_then(state_of) == asked)
        {
            Role::Continues
        } else {
            Role::Subscribes
        };
        match role {
            Role::Subscribes => {
                // The question pending as it opened, which a resumed turn
                // answers next.
                dropped = false;
                asked = head
                    .and_then(state_of)
                    .filter(|s| s.is_interrupted())
                    .or(asked);
            }
            _ => {
                let last = s.events.iter().rev().find_map(state_of);
                asked = last.filter(|s| s.is_interrupted());
                dropped = matches!(s.end, Some(StreamEnd::DroppedByClient | StreamEnd::Broken));
            }
        }
        out.push(role);
    }
    out
}

/// The events a subscription's snapshot tells that the client did not
/// see: its state where that is new (or, with `gap`, a WORKING update it
/// stands for), and a chunk for each part it holds beyond those seen.
fn told_by(snapshot: &OwnedEvent, seen: &[OwnedEvent], gap: bool) -> Vec<OwnedEvent> {
    let mut told = Vec::new();
    let before = seen.iter().rev().find_map(state_of);
    let state = state_of(snapshot);
    if state.is_some() && (state != before || (gap && state == Some(TaskState::Working))) {
        let mut status = snapshot.clone();
        status.kind = EventKind::Status;
        status.artifacts = Vec::new();
        told.push(status);
    }
    let parts = |e: &OwnedEvent| e.artifacts.iter().map(|a| a.parts.len()).sum::<usize>();
    let had: usize = seen
        .iter()
        .filter(|e| e.kind == EventKind::Artifact)
        .map(parts)
        .sum();
    for artifact in &snapshot.artifacts {
        for (n, part) in artifact.parts.iter().enumerate().skip(had) {
            let mut chunk = snapshot.clone();
            chunk.kind = EventKind::Artifact;
            chunk.state = None;
            chunk.artifacts = vec![ArtifactParts {
                artifact_id: artifact.artifact_id.clone(),
                append: n > 0,
                last: false,
                parts: vec![part.clone()],
            }];
            told.push(chunk);
        }
    }
    told
}

/// The task as client 1 saw it across its streams, in order: its call's
/// (a retried call's, where it sent the message again); each resumed
/// turn's where no subscription carried it already; each subscription's
/// events, after those its snapshot tells ([`told_by`]).
fn whole_task(
    c1: &[&ClientStream],
    roles: &[Role],
    gap: bool,
) -> (Vec<OwnedEvent>, Option<StreamEnd>) {
    let from = roles.iter().position(|r| *r == Role::Retry).unwrap_or(0);
    let mut events: Vec<OwnedEvent> = Vec::new();
    // Turns a subscription carried that a resumed turn's stream repeats.
    let mut covered = 0;
    for (s, role) in c1.iter().zip(roles).skip(from) {
        let Some(head) = s.events.first() else {
            continue;
        };
        match role {
            Role::Call | Role::Retry => events.extend_from_slice(s.events),
            Role::Continues if covered > 0 => covered -= 1,
            Role::Continues => {
                let resent = usize::from(head.kind == EventKind::Task);
                events.extend_from_slice(&s.events[resent..]);
            }
            Role::Subscribes => {
                covered = s.events[1..]
                    .iter()
                    .filter(|e| e.kind == EventKind::Status)
                    .filter(|e| state_of(e).is_some_and(|s| s.is_interrupted() || s.is_terminal()))
                    .count();
                let told = told_by(head, &events, gap);
                events.extend(told);
                events.extend_from_slice(&s.events[1..]);
            }
        }
    }
    let end = c1
        .iter()
        .rev()
        .find(|s| !s.events.is_empty())
        .and_then(|s| s.end);
    (
        events,
        end.filter(|e| matches!(e, StreamEnd::Hung | StreamEnd::Error(_))),
    )
}

/// The streams as the lab records them: a resumed turn's events continue
/// client 1's call's stream, which ends as the turn's does, unless an
/// error ended that stream (@a2a-js/sdk's kept open at AUTH_REQUIRED):
/// then the turn streams on a record of its own, as the model's does.
fn as_recorded<'a>(
    streams: &[ClientStream<'a>],
    roles: &[Role],
) -> Vec<(u8, Vec<&'a OwnedEvent>, Option<StreamEnd>)> {
    let mut out: Vec<(u8, Vec<&OwnedEvent>, Option<StreamEnd>)> = Vec::new();
    let mut call: Option<usize> = None;
    let mut mine = roles.iter();
    for s in streams {
        let role = if s.client == 1 {
            mine.next().copied()
        } else {
            None
        };
        match (role, call) {
            (Some(Role::Continues), Some(at))
                if !matches!(out[at].2, Some(StreamEnd::Error(_))) =>
            {
                out[at].1.extend(s.events);
                out[at].2 = s.end;
            }
            _ => {
                if matches!(role, Some(Role::Call | Role::Retry | Role::Continues)) {
                    call = Some(out.len());
                }
                out.push((s.client, s.events.iter().collect(), s.end));
            }
        }
    }
    out
}

/// Every value of each key the streams leave open, one list per key (an
/// empty reading where the key may be unset).
fn open_keys(
    c1: &[&ClientStream],
    roles: &[Role],
    c2: &[&ClientStream],
    seen: usize,
) -> Vec<Vec<Reading>> {
    let broken = c1.iter().any(|s| s.end == Some(StreamEnd::Broken));
    let mut open = Vec::new();
    if roles.contains(&Role::Retry) {
        open.push(vec![vec![Setting::Retry]]);
    }
    if let Some(sub) = roles.iter().position(|r| *r == Role::Subscribes) {
        // The call's stream that dropped before it: dropped by the client
        // at its last event; the kill broke it first, before the client's
        // drop came; or either, unknown.
        let call = (0..sub)
            .rev()
            .find(|&i| matches!(roles[i], Role::Call | Role::Retry))
            .unwrap_or(0);
        let k = c1[call].events.len();
        let from = match c1[call].end {
            Some(StreamEnd::DroppedByClient) => k..=k,
            Some(StreamEnd::Broken) => k + 1..=k + 4,
            _ => k..=k + 4,
        };
        open.push(from.map(|k| vec![Setting::Resubscribe(k)]).collect());
    }
    if broken || ends_unknown(c1) {
        // Where ends are unknown, no restart comes first.
        let none = (!broken).then(Reading::new);
        let restarts = (0..=seen.min(LATEST)).flat_map(|k| {
            Store::ALL
                .iter()
                .map(move |&store| vec![Setting::Restart(k), Setting::Store(store)])
        });
        open.push(none.into_iter().chain(restarts).collect());
    }
    if !c2.is_empty() {
        open.push(
            (1..=seen.min(LATEST))
                .map(|k| vec![Setting::SecondClient(k)])
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
fn ends_unknown(c1: &[&ClientStream]) -> bool {
    c1.len() > 1 && c1[..c1.len() - 1].iter().any(|s| s.end.is_none())
}

/// How the task as client 1 saw it stops short of its end.
fn cut_of(c1: &[&ClientStream]) -> Cut {
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
fn own_keys(events: &[OwnedEvent], end: Option<StreamEnd>, cut: Cut) -> Vec<Reading> {
    let read = keys_of(events, end);
    let sent = events
        .iter()
        .filter(|e| e.kind == EventKind::Artifact)
        .count();
    let cut_short = |chunks| super::cut_short(&read, chunks);
    match cut {
        Cut::No => vec![read],
        Cut::Unseen => {
            // How it ended is unseen: its steps as read, or as many as sent.
            let steps = chunks_of(&read).unwrap_or(sent);
            vec![read.clone(), cut_short(steps), cut_short(sent)]
        }
        Cut::Broken => (sent..=sent + 2).map(cut_short).collect(),
        Cut::Unknown => [read.clone()]
            .into_iter()
            .chain((sent..=sent + 2).map(cut_short))
            .collect(),
    }
}

/// A run's streams as compared, client 1's first, each in the order
/// opened; one that carried nothing (a subscription refused) is left out,
/// as a capture of a task's events does not list it.
fn run_streams(run: &Run, wire: Wire) -> Vec<Compared> {
    let streams: Vec<Compared> = run
        .streams
        .iter()
        .map(|s| {
            let rows: Vec<&crate::model::trace::Row> = s
                .rows
                .iter()
                .filter_map(|&i| run.trace.rows.get(i))
                .collect();
            let shapes = super::row_shapes(&rows, wire)
                .into_iter()
                .flatten()
                .collect();
            (s.client, shapes, Some(s.end.label()))
        })
        .filter(|s: &Compared| !s.1.is_empty())
        .collect();
    by_client(streams)
}

/// Client 1's streams, then the second client's, each in the order opened
/// (a partition, not a sort: the page's bundle carries no more sort code).
fn by_client(streams: Vec<Compared>) -> Vec<Compared> {
    let (mut first, second): (Vec<Compared>, Vec<Compared>) =
        streams.into_iter().partition(|s| s.0 == 1);
    first.extend(second);
    first
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
/// that agrees the longest. A stream that opens with the question the call
/// last asked is read first as a subscription, then as a resumed turn.
/// The SDKs are tried and the budget drawn as `search` says.
pub fn scenario_of_streams_within(streams: &[ClientStream], search: &mut Search) -> ScenarioOf {
    super::at_once(scenario_of_streams_paced(streams, search))
}

/// [`scenario_of_streams_within`] as a search its pacer may pause.
pub async fn scenario_of_streams_paced(
    streams: &[ClientStream<'_>],
    search: &mut Search,
) -> ScenarioOf {
    let c1: Vec<&ClientStream> = streams.iter().filter(|s| s.client == 1).collect();
    let c2: Vec<&ClientStream> = streams.iter().filter(|s| s.client != 1).collect();
    // Client 1's call alone, its turns one after another, or a blocking
    // call's answers, ended on their own: read as one list; a call a
    // restart broke is read with the keys a restart leaves open.
    let one_call = c1.iter().skip(1).all(|s| !opens(s));
    let all: Vec<OwnedEvent> = c1.iter().flat_map(|s| s.events.iter().cloned()).collect();
    let end = c1.last().and_then(|s| s.end);
    if c2.is_empty() && end != Some(StreamEnd::Broken) && (one_call || super::answers_only(&all)) {
        return super::scenario_of_one(&all, end, search).await;
    }
    let flat: Vec<EventShape> = streams.iter().flat_map(|s| shapes(s.events)).collect();
    let strict = roles(&c1, false);
    let (agree, closest) = match read_as(streams, &c1, &c2, &strict, search).await {
        Ok(found) => return super::finished(found, &flat, search),
        Err(closest) => closest,
    };
    let resent = roles(&c1, true);
    if resent == strict || search.stopped() {
        return super::finished(closest, &flat, search);
    }
    let found = match read_as(streams, &c1, &c2, &resent, search).await {
        Ok(found) => found,
        Err((more, other)) if more > agree => other,
        Err(_) => closest,
    };
    super::finished(found, &flat, search)
}

/// The streams read with these roles: the scenario that reproduces them,
/// or the closest and how many events it agrees on.
async fn read_as(
    streams: &[ClientStream<'_>],
    c1: &[&ClientStream<'_>],
    c2: &[&ClientStream<'_>],
    roles: &[Role],
    search: &mut Search,
) -> Result<ScenarioOf, (usize, ScenarioOf)> {
    let seen = c1.iter().map(|s| s.events.len()).sum();
    let mut own: Vec<Reading> = Vec::new();
    for gap in [false, true] {
        let (events, end) = whole_task(c1, roles, gap);
        for keys in own_keys(&events, end, cut_of(c1)) {
            if !own.contains(&keys) {
                own.push(keys);
            }
        }
    }
    let mut lists = vec![own];
    lists.extend(open_keys(c1, roles, c2, seen));
    let task: Vec<Compared> = as_recorded(streams, roles)
        .into_iter()
        .filter(|s| !s.1.is_empty())
        .map(|(client, events, end)| {
            let events: Vec<OwnedEvent> = events.into_iter().cloned().collect();
            (client, shapes(&events), end.map(StreamEnd::label))
        })
        .collect();
    let task = by_client(task);
    let wire = c1
        .iter()
        .find_map(|s| s.events.first())
        .map_or(Wire::V1_0, |e| e.wire);
    search
        .run(
            super::search::combinations(&lists),
            streams.iter().map(|s| s.events.len()).sum(),
            async |run: &Run, _: &mut super::Pause| {
                let got = run_streams(run, wire);
                (first_difference(&task, &got), agreement(&task, &got))
            },
        )
        .await
}

/// How many events, stream by stream, agree before the first difference.
fn agreement(task: &[Compared], scenario: &[Compared]) -> usize {
    let mut agree = 0;
    for ((_, a, _), (_, b, _)) in task.iter().zip(scenario) {
        let same = super::agreed(a, b);
        agree += same;
        if same < a.len().max(b.len()) {
            break;
        }
    }
    agree
}
