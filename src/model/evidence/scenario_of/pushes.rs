//! A task read off a webhook's log: the POSTs an agent sent for it, each
//! body an event, with the header names and, where the log kept it, the
//! webhook's answer. The events give the task's own keys; when the config
//! took effect, how the webhook answered and which credentials were sent
//! give the push keys; the values the log leaves open are simulated in
//! turn, and the first whose POSTs match, one by one, wins.

use super::setting::{has, Reading, Setting};
use super::{keys_of, sdk_order, shapes, state_of, Budget, EventShape, ScenarioOf, Search};
use crate::model::sim::keys::{Client, Key, Push, PushAuth, PushFollowup, Sdk, Store, Webhook};
use crate::model::sim::profile::Profile;
use crate::model::state::TaskState;
use crate::model::trace::{RowKind, Run, PUSH_RACED};
use crate::model::wire::answer::{read_value, ArtifactParts, EventKind, OwnedEvent};

/// One POST a webhook received for a task.
#[derive(Debug, Clone)]
pub struct Pushed {
    /// Its body, read as an event.
    pub event: OwnedEvent,
    /// The names of its headers, in order.
    pub headers: Vec<String>,
    /// What the webhook answered (`200`, `500`, `timeout`), where the log
    /// kept it.
    pub answer: Option<String>,
}

/// The most events before a config took effect that are tried.
const LATEST: u32 = 24;

/// A POST as compared: its event's shape, its answer where known, its
/// header names where the log kept them (in any order: a log may list
/// them sorted). Its `Display` is the words the page and `check` print.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PostShape {
    shape: EventShape,
    answer: Option<String>,
    headers: Vec<String>,
}

impl PostShape {
    fn new(shape: EventShape, answer: Option<&str>, headers: Option<&[String]>) -> PostShape {
        let mut headers: Vec<String> = headers.unwrap_or_default().to_vec();
        headers.sort_by_key(|h| h.to_ascii_lowercase());
        PostShape {
            shape,
            answer: answer.map(String::from),
            headers,
        }
    }
}

impl std::fmt::Display for PostShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let answer = self.answer.as_deref().unwrap_or("?");
        write!(
            f,
            "{} · {answer} · [{}]",
            self.shape,
            self.headers.join(",")
        )
    }
}

/// The POSTs a run sent for its first task, as compared (answers and
/// headers only where the log has them).
fn run_posts(run: &Run, answers: bool, headers: bool) -> Vec<PostShape> {
    let mut first_task: Option<String> = None;
    let mut events = Vec::new();
    let mut records = Vec::new();
    for row in run.trace.rows.iter().filter(|r| r.kind == RowKind::Push) {
        let (Some(body), Some(push)) = (row.wire.as_ref(), row.push.as_ref()) else {
            continue;
        };
        let Ok(event) = read_value(&body.json(), None) else {
            continue;
        };
        let task = first_task.get_or_insert_with(|| event.task_id.clone());
        if event.task_id == *task {
            events.push(event);
            records.push(push);
        }
    }
    shapes(&events)
        .iter()
        .zip(records)
        .map(|(shape, push)| {
            let answer = answers.then_some(push.answer.as_str());
            PostShape::new(*shape, answer, headers.then_some(&push.headers[..]))
        })
        .collect()
}

/// A task's snapshots, one per POST (a sender that posts the whole task
/// for each event, as @a2a-js/sdk does on 0.3), read back as the events
/// they tell: parts that grew an artifact update, else a status update of
/// the state. A snapshot does not say whether an artifact was closed:
/// `closed` takes each artifact's last growth as its last chunk.
fn from_snapshots(events: &[OwnedEvent], closed: bool) -> Vec<OwnedEvent> {
    let held = |e: &OwnedEvent| -> Vec<(String, usize)> {
        e.artifacts
            .iter()
            .map(|a| (a.artifact_id.clone(), a.parts.len()))
            .collect()
    };
    let mut out = vec![events[0].clone()];
    for (i, pair) in events.windows(2).enumerate() {
        let (before, now) = (held(&pair[0]), held(&pair[1]));
        let grown = now
            .iter()
            .find(|(id, n)| before.iter().find(|(b, _)| b == id).map_or(0, |(_, m)| *m) < *n);
        let mut event = pair[1].clone();
        match grown {
            Some((id, n)) => {
                let had = before.iter().find(|(b, _)| b == id).map_or(0, |(_, m)| *m);
                let last = closed && events[i + 2..].iter().all(|e| held(e) == now);
                let parts = pair[1]
                    .artifacts
                    .iter()
                    .find(|a| &a.artifact_id == id)
                    .map(|a| a.parts[had..*n].to_vec())
                    .unwrap_or_default();
                event.kind = EventKind::Artifact;
                event.state = None;
                event.artifacts = vec![ArtifactParts {
                    artifact_id: id.clone(),
                    append: had > 0,
                    last,
                    parts,
                }];
            }
            None => {
                event.kind = EventKind::Status;
                event.artifacts = Vec::new();
            }
        }
        out.push(event);
    }
    out
}

/// Whether the log starts at the task's start (a config sent with the
/// message) rather than mid-way (one set later).
fn push_from_start(posts: &[Pushed]) -> bool {
    let first = &posts[0].event;
    first.kind == EventKind::Task && state_of(first) == Some(TaskState::Submitted)
}

/// The task's own keys as the POSTs tell them, one reading each: read off
/// their events (or the events a task's snapshots tell, closed or not); a
/// log that starts mid-way leaves out the steps before it (up to three
/// more tried).
fn own_keys(events: &[OwnedEvent], from_start: bool) -> Vec<Reading> {
    let snapshots = events.len() > 1 && events.iter().all(|e| e.kind == EventKind::Task);
    let told: Vec<Vec<OwnedEvent>> = match snapshots {
        true => vec![from_snapshots(events, true), from_snapshots(events, false)],
        false => vec![events.to_vec()],
    };
    // A config sent again with each turn's message (`push_followup`) may
    // POST each event twice: read once as well.
    let once: Vec<Vec<OwnedEvent>> = told
        .iter()
        .map(|events| {
            let mut once = events.clone();
            once.dedup();
            once
        })
        .collect();
    let mut own: Vec<Reading> = Vec::new();
    for events in told.iter().chain(&once) {
        let keys = keys_of(events, None);
        let more = if from_start { 0 } else { 3 };
        for extra in 0..=more {
            let keys: Reading = keys
                .iter()
                .map(|s| match *s {
                    Setting::Chunks(n) => Setting::Chunks(n + extra),
                    other => other,
                })
                .collect();
            if !own.contains(&keys) {
                own.push(keys);
            }
        }
    }
    own
}

/// The scenario's POSTs with each `race` answer (a webhook that answered
/// at the sender's timeout, SPEC §14) taken as the task's, where that was
/// an answer or a timeout: the race goes either way.
fn raced(got: Vec<PostShape>, task: &[PostShape]) -> Vec<PostShape> {
    got.into_iter()
        .enumerate()
        .map(|(i, mut post)| {
            let seen = task.get(i).and_then(|p| p.answer.as_deref());
            if post.answer.as_deref() == Some(PUSH_RACED) && matches!(seen, Some("200" | "timeout"))
            {
                post.answer = seen.map(String::from);
            }
            post
        })
        .collect()
}

/// The push keys the log allows, each list one key's values.
fn push_keys(posts: &[Pushed]) -> Vec<Vec<Reading>> {
    let mut lists = vec![if push_from_start(posts) {
        vec![vec![Setting::Push(Push::Inline)]]
    } else {
        (1..=LATEST)
            .map(|k| vec![Setting::Push(Push::After(k))])
            .collect()
    }];
    let answers: Vec<&str> = posts.iter().filter_map(|p| p.answer.as_deref()).collect();
    lists.push(if answers.contains(&"500") {
        vec![vec![Setting::Webhook(Webhook::Error)]]
    } else if answers.contains(&"timeout") {
        // The sender gave up: the webhook answered past its timeout, by
        // how much the log does not say; or at it, in a race.
        vec![
            vec![Setting::WebhookDelayMs(5005)],
            vec![Setting::WebhookDelayMs(4995)],
        ]
    } else {
        vec![Reading::new()]
    });
    let headers = &posts[0].headers;
    let bearer = headers
        .iter()
        .any(|h| h.eq_ignore_ascii_case("authorization"));
    // The token header as any SDK names it (a2a-rs: without `X-`).
    let token = headers.iter().any(|h| {
        Sdk::ALL
            .iter()
            .any(|s| h.eq_ignore_ascii_case(Profile::of(*s).push.auth_headers[0]))
    });
    lists.push(vec![match (bearer, token) {
        (true, true) => vec![Setting::PushAuth(PushAuth::Both)],
        (true, false) => vec![Setting::PushAuth(PushAuth::Bearer)],
        _ => Reading::new(),
    }]);
    lists
}

/// Each key's values the log allows, one list per key: the task's own,
/// the push keys, a restart where the POSTs stop short, and across the
/// turns the config sent again and the client's mode.
fn candidates(posts: &[Pushed], events: &[OwnedEvent]) -> Vec<Vec<Reading>> {
    let mut own = own_keys(events, push_from_start(posts));
    // POSTs that stop before a final or interrupted state: the agent died
    // (a restart), where the steps it never reached are not in the log.
    let stopped = events
        .iter()
        .rev()
        .find_map(state_of)
        .is_none_or(|s| !s.is_terminal() && !s.is_interrupted());
    let sent = events
        .iter()
        .filter(|e| e.kind == EventKind::Artifact)
        .count();
    if stopped {
        let read = own[0].clone();
        own.extend((sent..=sent + 2).map(|chunks| super::cut_short(&read, chunks)));
    }
    let mut lists = vec![own];
    lists.extend(push_keys(posts));
    if stopped {
        let restarts = (0..=sent).flat_map(|k| {
            Store::ALL
                .iter()
                .map(move |&store| vec![Setting::Restart(k), Setting::Store(store)])
        });
        lists.push([Reading::new()].into_iter().chain(restarts).collect());
    }
    if lists[0].iter().any(|r| has(r, Key::Interrupt)) {
        // Across the turns, the config sent again, and the client's mode
        // (@a2a-js/sdk POSTs a blocking call's turns otherwise) show.
        lists.push(vec![
            Reading::new(),
            vec![Setting::PushFollowup(PushFollowup::Repeat)],
        ]);
        lists.push(vec![Reading::new(), vec![Setting::Client(Client::Block)]]);
    }
    lists
}

/// The scenario that explains a task's POSTs, as a webhook's log holds
/// them: the keys read off their events, the push keys the log allows,
/// both SDKs, a2a-sdk first; the first whose POSTs match wins, else the
/// one that agrees the longest.
pub fn scenario_of_pushes(posts: &[Pushed]) -> ScenarioOf {
    let events: Vec<OwnedEvent> = posts.iter().map(|p| p.event.clone()).collect();
    let answers = posts.iter().all(|p| p.answer.is_some());
    let headers = posts.iter().all(|p| !p.headers.is_empty());
    let task: Vec<PostShape> = shapes(&events)
        .iter()
        .zip(posts)
        .map(|(shape, p)| {
            PostShape::new(
                *shape,
                p.answer.as_deref(),
                headers.then_some(&p.headers[..]),
            )
        })
        .collect();
    if posts.is_empty() {
        return ScenarioOf {
            query: String::new(),
            reproduces: false,
            first_difference: Some("no POST to read".into()),
            budget_ran_out: false,
            events: Vec::new(),
        };
    }
    let lists = candidates(posts, &events);
    let mut search = Search::new(sdk_order(None), Budget::for_events(posts.len()));
    let compare = async |run: &Run, _: &mut super::Pause| {
        let got = raced(run_posts(run, answers, headers), &task);
        let difference =
            super::first_difference(&task, &got).map(|d| d.replacen("event", "POST", 1));
        (difference, super::agreed(&task, &got))
    };
    let found =
        super::at_once(search.run(super::search::combinations(&lists), posts.len(), compare));
    super::finished(found.unwrap_or_else(|(_, closest)| closest), &task, &search)
}
