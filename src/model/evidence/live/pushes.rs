//! The webhook's side of a live session (SPEC §12): when the card
//! declares push, the relay's receiver keeps each POST the agent sends and
//! streams it to the page as one line of the log `check --webhook` reads
//! (`{"headers": [names], "body": …}`, never a header's value). Kept here
//! as that log, the POSTs are judged beside the session's capture by
//! [`PushLog`], as `check session.jsonl --webhook pushes.jsonl` judges
//! them, and laid in the timeline's webhook lane beside the events they
//! mirror.

use crate::model::evidence::capture::CaptureReport;
use crate::model::evidence::finding::FindingCode;
use crate::model::evidence::push_log::PushLog;
use crate::model::state::{SentState, TaskState};
use crate::model::trace::{Disposition, Entry, PushRecord, Row, Source};
use crate::model::wire::answer::{read_answer, Answer};
use crate::model::wire::push::PushPost;
use crate::model::wire::RowWire;

/// The file name of the webhook's log beside `session.jsonl`, under
/// `serve --out` and in the page's download.
pub const PUSHES_FILE: &str = "pushes.jsonl";

/// The POSTs of a live session, as the webhook's log.
#[derive(Debug, Clone, Default)]
pub struct LivePushes {
    /// The log: one POST a line, as `check --webhook` reads it.
    log: String,
    posts: Vec<PushPost>,
    /// Lines that were no POST the log's reader takes (kept out of the
    /// log, which `check` would refuse whole for them).
    unreadable: usize,
}

impl LivePushes {
    /// No POST yet.
    pub fn new() -> LivePushes {
        LivePushes::default()
    }

    /// Takes one line of the relay's stream of POSTs; whether it was
    /// kept (a line the log's reader refuses is counted, not kept).
    #[inline(never)]
    pub fn on_line(&mut self, line: &str) -> bool {
        let line = line.trim();
        if line.is_empty() {
            return false;
        }
        match read_line(line) {
            Some(post) => {
                self.log.push_str(line);
                self.log.push('\n');
                self.posts.push(post);
                true
            }
            None => {
                self.unreadable += 1;
                false
            }
        }
    }

    /// The log so far, as `check --webhook` reads it.
    pub fn log(&self) -> &str {
        &self.log
    }

    /// How many POSTs were kept.
    pub fn len(&self) -> usize {
        self.posts.len()
    }

    /// Whether no POST was kept.
    pub fn is_empty(&self) -> bool {
        self.posts.is_empty()
    }

    /// How many lines were not POSTs the log's reader takes.
    pub fn unreadable(&self) -> usize {
        self.unreadable
    }

    /// `report`, the session's capture judged, with the POSTs judged
    /// beside it: their findings added to its own (and to their tasks'
    /// counts), and each POST a row of its task in the webhook's lane,
    /// right after the event it mirrors. With no POST it is unchanged, as
    /// `check` takes no empty log. Out of line: the page calls it from
    /// code its first view holds, and its work belongs in Live's chunk.
    #[inline(never)]
    pub fn lay(&self, report: &mut CaptureReport) {
        if self.posts.is_empty() {
            return;
        }
        let judged = PushLog::of_posts(self.posts.clone()).judge_unexplained(Some(report));
        for finding in &judged.findings {
            if let Some(task) = report.tasks.iter_mut().find(|t| t.id == finding.task) {
                task.findings += 1;
            }
        }
        let disposition = |index: usize| {
            let found = |code| {
                judged
                    .findings
                    .iter()
                    .any(|f| f.index == index && f.code == code)
            };
            if found(FindingCode::PushedAfterTerminal) {
                Disposition::AfterTerminal
            } else if found(FindingCode::PushDuplicate) {
                Disposition::Duplicate
            } else {
                Disposition::Delivered
            }
        };
        for (task, rows) in report.tasks.iter().zip(report.rows.iter_mut()) {
            let mine: Vec<(&PushPost, Disposition)> = self
                .posts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.event.task_id == task.id)
                .map(|(i, p)| (p, disposition(i)))
                .collect();
            if !mine.is_empty() {
                *rows = beside(std::mem::take(rows), &mine);
            }
        }
        report.findings.extend(judged.findings);
    }
}

/// One line as the relay writes it (`PostRecord::log_line`: the header
/// names, then the body as sent, as JSON or as the text of it), read as
/// `check --webhook` reads it (`read_post`), without the other forms a
/// log may take, which Live's chunk does not carry.
fn read_line(line: &str) -> Option<PushPost> {
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(default)]
        headers: Vec<String>,
        #[serde(borrow)]
        body: &'a serde_json::value::RawValue,
    }
    let Line { headers, body } = serde_json::from_str(line).ok()?;
    let body = match serde_json::from_str::<String>(body.get()) {
        Ok(text) => text,
        Err(_) => body.get().to_string(),
    };
    match read_answer(body.as_bytes(), None).ok()? {
        Answer::Event(event) => Some(PushPost {
            headers,
            body,
            event,
        }),
        Answer::Error { .. } => None,
    }
}

/// `rows` with each POST placed right after the first event, after the
/// one the POST before it mirrors, that moved the task to the same state
/// (an artifact's or a message's POST: the next event that moved it to
/// none); a POST that mirrors no event goes last. Renumbered in order.
fn beside(rows: Vec<Row>, posts: &[(&PushPost, Disposition)]) -> Vec<Row> {
    let mut after: Vec<Option<usize>> = Vec::with_capacity(posts.len());
    let mut from = 0;
    for (post, _) in posts {
        let state = post.event.state.as_ref().and_then(SentState::known);
        let mirrored = rows
            .iter()
            .skip(from)
            .position(|r| r.source != Source::Webhook && r.target == state)
            .map(|at| at + from);
        if let Some(at) = mirrored {
            from = at + 1;
        }
        after.push(mirrored);
    }
    let last = rows.last().map(|r| (r.t_ms, r.state_after));
    let row = |(post, disposition): &(&PushPost, Disposition), at: Option<(u64, _)>| {
        let (t_ms, state) = at.or(last).unwrap_or((0, None));
        push_row(post, *disposition, t_ms, state)
    };
    let mut laid = Vec::with_capacity(rows.len() + posts.len());
    for (i, r) in rows.into_iter().enumerate() {
        let at = Some((r.t_ms, r.state_after));
        laid.push(r);
        for (p, _) in after.iter().enumerate().filter(|(_, a)| **a == Some(i)) {
            laid.push(row(&posts[p], at));
        }
    }
    for (p, _) in after.iter().enumerate().filter(|(_, a)| a.is_none()) {
        laid.push(row(&posts[p], None));
    }
    for (i, r) in laid.iter_mut().enumerate() {
        r.index = i;
    }
    laid
}

/// One POST as a row of the webhook's lane: what it told, its body as
/// sent, its header names; answered 200, as the receiver keeps no other.
fn push_row(
    post: &PushPost,
    disposition: Disposition,
    t_ms: u64,
    state_after: Option<TaskState>,
) -> Row {
    let event = &post.event;
    let told = match &event.state {
        Some(SentState::Known(state)) => event.wire.spell(*state).to_string(),
        Some(SentState::Other(text)) => text.to_string(),
        None => event.kind.wrapper().to_string(),
    };
    let body = serde_json::from_str(&post.body)
        .unwrap_or_else(|_| serde_json::Value::String(post.body.clone()));
    Entry::push_event(format!("POST {told} to the webhook → 200"), disposition)
        .target(event.state.as_ref().and_then(SentState::known))
        .wire(Some(RowWire::Json(body)))
        .push(PushRecord {
            headers: post.headers.clone(),
            answer: "200".into(),
            answered_ms: None,
        })
        .row(0, t_ms, state_after)
}
