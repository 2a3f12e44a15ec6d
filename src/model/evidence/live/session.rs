//! A live session as data: every frame the relay sent, kept as the
//! capture `check` reads (JSON Lines: each request sent, then the answers
//! it got, in order), the calls as the page lists them, and the task
//! under the user's hands (its id, context and state, read by the wire's
//! reader; never one a ListTasks answer names) for the controls. Judging
//! is the capture reader's, on the same lines a downloaded session holds,
//! so that the page and `check` agree; the reader takes each line as it
//! is kept and judges it then, so an event costs the same whether it is
//! the first or the ten-thousandth.

use super::pushes::LivePushes;
use crate::model::evidence::capture::{CaptureReader, CaptureReport};
use crate::model::evidence::probe::request::LIST_TASKS;
use crate::model::state::{SentState, TaskState};
use crate::model::wire::answer::{read_answer, Answer};
use crate::model::wire::read_error::ReadError;

use super::frame::{CallEnded, Frame};

/// The task the controls act on: the last one an answer named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveTask {
    /// Its id.
    pub id: String,
    /// Its context, once an answer named one.
    pub context_id: Option<String>,
    /// Its last state, spelled as its wire spells it (`TASK_STATE_WORKING`,
    /// `working`), or as sent when it is none of the eight.
    pub state: String,
    /// One of the eight states, when it is.
    pub known: Option<TaskState>,
}

impl LiveTask {
    /// The task waits on the user (INPUT_REQUIRED, AUTH_REQUIRED): the
    /// page offers a reply that continues it.
    pub fn waits_on_user(&self) -> bool {
        self.known.is_some_and(TaskState::is_interrupted)
    }

    /// The task ended.
    pub fn ended(&self) -> bool {
        self.known.is_some_and(TaskState::is_terminal)
    }
}

/// One call as the page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveCall {
    /// The request sent, as kept.
    pub sent: String,
    /// Each answer as it came, as text.
    pub answers: Vec<String>,
    /// How it ended, once it did.
    pub end: Option<CallEnded>,
}

/// A live session.
pub struct Session {
    /// The capture: one JSON value a line.
    capture: String,
    /// The capture reader, fed each line as it is kept.
    reader: CaptureReader,
    /// Why the reader refused the capture, once it did (it is then fed no
    /// more, as a capture refused is bad input).
    refused: Option<ReadError>,
    calls: Vec<LiveCall>,
    task: Option<LiveTask>,
    /// Answers that were not JSON (kept in the calls, not in the
    /// capture, which `check` would refuse whole for them).
    unreadable: usize,
    /// The calls that list tasks: the tasks they name may be any
    /// session's, so the controls never follow one.
    lists: Vec<usize>,
    /// The webhook's POSTs, when the card declares push: their own log,
    /// judged beside the capture.
    pushes: LivePushes,
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session {
            capture: String::new(),
            reader: CaptureReader::new(None).keeping_rows().keeping_events(),
            refused: None,
            calls: Vec::new(),
            task: None,
            unreadable: 0,
            lists: Vec::new(),
            pushes: LivePushes::new(),
        }
    }

    /// A call begins: its number, which its frames name. Calls may run at
    /// once (a cancel while a stream runs); their frames are kept in the
    /// capture in the order they came, as a client saw them.
    pub fn begin(&mut self) -> usize {
        self.calls.push(LiveCall {
            sent: String::new(),
            answers: Vec::new(),
            end: None,
        });
        self.calls.len() - 1
    }

    /// Takes the next frame of call `call` (a number [`Session::begin`]
    /// gave; any other is ignored).
    pub fn on_frame(&mut self, call: usize, frame: Frame) {
        if call >= self.calls.len() {
            return;
        }
        match frame {
            Frame::Sent(request) => {
                if request.get("method").and_then(|m| m.as_str()) == Some(LIST_TASKS) {
                    self.lists.push(call);
                }
                let line = request.to_string();
                self.keep(&line);
                self.calls[call].sent = line;
            }
            Frame::Answer(text) => {
                match one_line(&text) {
                    Some(line) => {
                        self.keep(&line);
                        if !self.lists.contains(&call) {
                            self.read(&line);
                        }
                    }
                    None => self.unreadable += 1,
                }
                self.calls[call].answers.push(text);
            }
            Frame::End(end) => self.calls[call].end = Some(end),
        }
    }

    /// Call `call` ended without the relay's last frame (the page dropped
    /// it, or the relay went away): `why` says which.
    pub fn cut(&mut self, call: usize, why: &str) {
        if let Some(c) = self.calls.get_mut(call).filter(|c| c.end.is_none()) {
            c.end = Some(CallEnded {
                how: crate::model::evidence::probe::records::AnswerEnd::Dropped,
                status: None,
                ms: 0,
                error: Some(why.to_string()),
            });
        }
    }

    fn keep(&mut self, line: &str) {
        let start = self.capture.len();
        self.capture.push_str(line);
        self.capture.push('\n');
        if self.refused.is_none() {
            if let Err(e) = self.reader.feed(&self.capture.as_bytes()[start..]) {
                self.refused = Some(e);
            }
        }
    }

    /// Follows the task an answer names.
    fn read(&mut self, line: &str) {
        let Ok(Answer::Event(event)) = read_answer(line.as_bytes(), None) else {
            return;
        };
        let same = self.task.as_ref().is_some_and(|t| t.id == event.task_id);
        let mut task = match (same, self.task.take()) {
            (true, Some(task)) => task,
            _ => LiveTask {
                id: event.task_id.clone(),
                context_id: None,
                state: String::new(),
                known: None,
            },
        };
        if event.context_id.is_some() {
            task.context_id = event.context_id.clone();
        }
        if let Some(state) = &event.state {
            (task.state, task.known) = match state {
                SentState::Known(known) => (event.wire.spell(*known).to_string(), Some(*known)),
                SentState::Other(text) => (text.to_string(), None),
            };
        }
        self.task = Some(task);
    }

    /// The capture so far, as `check` reads it and the page downloads it.
    pub fn capture(&self) -> &str {
        &self.capture
    }

    /// The calls so far.
    pub fn calls(&self) -> &[LiveCall] {
        &self.calls
    }

    /// The task the controls act on.
    pub fn task(&self) -> Option<&LiveTask> {
        self.task.as_ref()
    }

    /// The webhook's POSTs so far.
    pub fn pushes(&self) -> &LivePushes {
        &self.pushes
    }

    /// The webhook's POSTs, to take the next.
    pub fn pushes_mut(&mut self) -> &mut LivePushes {
        &mut self.pushes
    }

    /// How many answers were not JSON.
    pub fn unreadable(&self) -> usize {
        self.unreadable
    }

    /// The capture judged as `check` judges it, with the rows the page
    /// shows; `None` while it holds no answer. While a call is under way
    /// its task has not yet missed its terminal state.
    pub fn report(&self) -> Option<Result<CaptureReport, ReadError>> {
        if self.calls.iter().all(|c| c.answers.is_empty()) {
            return None;
        }
        let ended = self.calls.iter().all(|c| c.end.is_some());
        Some(match &self.refused {
            Some(e) => Err(e.clone()),
            None => Ok(self.reader.so_far(ended)),
        })
    }
}

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

/// An answer as one line of the capture: as it came when it is one line,
/// else the same JSON written on one line; `None` when it is not JSON.
fn one_line(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    if !trimmed.contains('\n') && !trimmed.contains('\r') {
        return serde_json::from_str::<serde::de::IgnoredAny>(trimmed)
            .ok()
            .map(|_| trimmed.to_string());
    }
    serde_json::from_str::<serde_json::Value>(trimmed)
        .ok()
        .map(|v| v.to_string())
}
