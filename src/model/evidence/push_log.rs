//! A webhook's log judged (SPEC §12): the POST bodies an agent sent, as
//! JSON Lines, a JSON array, or one body per file, read in order; each a
//! body alone or with its headers, on either wire (a 0.3 webhook may be
//! sent whole Task snapshots). Judged per task from what the webhook's
//! owner was told: a POST after the one that told a terminal state
//! (`pushed-after-terminal`), a body sent before, byte for byte
//! (`push-duplicate`), and, beside a stream capture of the same task, a
//! log that ends while the task ended elsewhere (`push-missing-terminal`).

use crate::model::wire::SpelledState;
use std::collections::HashMap;

use serde::Serialize;

use super::capture::{CaptureFinding, CaptureReport};
use super::finding::{check_depth, FindingCode};
use super::scenario_of::pushes::{scenario_of_pushes, Pushed};
use super::scenario_of::ScenarioOf;
use crate::model::state::{SentState, TaskState};
use crate::model::wire::event::json_error;
use crate::model::wire::push::{read_post, PushPost};
use crate::model::wire::read_error::{Place, ReadError, ReadKind};

/// What a webhook was told about one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushedTask {
    /// The task id.
    pub id: String,
    /// POSTs about it.
    pub posts: u32,
    /// The last state it was told (wire spelling), if any: what a
    /// webhook-driven client believes.
    pub last_state: Option<SpelledState>,
    /// The lab's scenario that explains its POSTs, for a task with a
    /// finding (issue 33).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<ScenarioOf>,
}

/// What a webhook's log shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushReport {
    /// POSTs read, over all the log's files.
    pub posts: usize,
    /// Every task, in the order it first appeared.
    pub tasks: Vec<PushedTask>,
    /// Every finding, in log order (`index` is the POST's place in the log).
    pub findings: Vec<CaptureFinding>,
}

/// Reads a webhook's log file by file; [`PushLog::judge`] gives the report.
#[derive(Debug, Default)]
pub struct PushLog {
    posts: Vec<PushPost>,
    files: usize,
    empty_files: Vec<usize>,
}

impl PushLog {
    /// An empty log.
    pub fn new() -> PushLog {
        PushLog::default()
    }

    /// A log of POSTs already read (Live's, one at a time as they came).
    pub fn of_posts(posts: Vec<PushPost>) -> PushLog {
        PushLog {
            posts,
            ..PushLog::default()
        }
    }

    /// Reads one file of the log: JSON Lines, a JSON array, or one body.
    pub fn read_file(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        let file = self.files;
        self.files += 1;
        let before = self.posts.len();
        let text = std::str::from_utf8(bytes).map_err(|e| {
            ReadError::new(ReadKind::NotUtf8 {
                byte: Some(e.valid_up_to()),
            })
        })?;
        let text = text.trim_start_matches('\u{feff}').trim();
        if text.starts_with('[') {
            check_depth(text.as_bytes())?;
            let bodies: Vec<&serde_json::value::RawValue> =
                serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
            for (i, body) in bodies.iter().enumerate() {
                self.push(body.get().as_bytes())
                    .map_err(|e| e.within(Place::Entry(i)))?;
            }
        } else if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
            // One body (possibly pretty-printed over several lines).
            self.push(text.as_bytes())?;
        } else {
            for (i, line) in text.lines().enumerate() {
                if !line.trim().is_empty() {
                    self.push(line.as_bytes())
                        .map_err(|e| e.within(Place::Line(i as u64 + 1)))?;
                }
            }
        }
        if self.posts.len() == before {
            self.empty_files.push(file);
        }
        Ok(())
    }

    fn push(&mut self, element: &[u8]) -> Result<(), ReadError> {
        check_depth(element)?;
        self.posts.push(read_post(element)?);
        Ok(())
    }

    /// The files (by place) that held no POST.
    pub fn empty_files(&self) -> &[usize] {
        &self.empty_files
    }

    /// Judges the log; `stream`, a capture of the same tasks' streams (or
    /// GetTask answers), says which tasks ended.
    pub fn judge(self, stream: Option<&CaptureReport>) -> PushReport {
        let mut report = self.judge_unexplained(stream);
        explain(&self.posts, &mut report.tasks, &report.findings);
        report
    }

    /// As [`PushLog::judge`], the same findings, with no task explained by
    /// a scenario: Live's page judges the log again at each POST, and its
    /// chunk does not carry the search.
    pub fn judge_unexplained(&self, stream: Option<&CaptureReport>) -> PushReport {
        let mut tasks: Vec<PushedTask> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        // Per task: the index of the POST that told a terminal state, and
        // the bodies sent so far.
        let mut ended: Vec<Option<(usize, TaskState)>> = Vec::new();
        let mut sent: Vec<HashMap<&str, usize>> = Vec::new();
        let mut findings = Vec::new();
        for (index, post) in self.posts.iter().enumerate() {
            let id = &post.event.task_id;
            let slot = *by_id.entry(id.clone()).or_insert_with(|| {
                tasks.push(PushedTask {
                    id: id.clone(),
                    posts: 0,
                    last_state: None,
                    scenario: None,
                });
                ended.push(None);
                sent.push(HashMap::new());
                tasks.len() - 1
            });
            let task = &mut tasks[slot];
            task.posts += 1;
            let state = post.event.state.as_ref().and_then(SentState::known);
            let find = |code, message: String| CaptureFinding {
                code,
                task: id.clone(),
                index,
                message,
            };
            if let Some((at, terminal)) = ended[slot] {
                findings.push(find(
                    FindingCode::PushedAfterTerminal,
                    format!(
                        "POST {index} came after POST {at} told the webhook the task was {}",
                        post.event.wire.spell(terminal)
                    ),
                ));
            }
            if let Some(earlier) = sent[slot].get(post.body.as_str()) {
                findings.push(find(
                    FindingCode::PushDuplicate,
                    format!("POST {index} repeats POST {earlier} byte for byte"),
                ));
            } else {
                sent[slot].insert(&post.body, index);
            }
            if let Some(state) = state {
                task.last_state = Some(SpelledState {
                    state,
                    wire: post.event.wire,
                });
                if state.is_terminal() && ended[slot].is_none() {
                    ended[slot] = Some((index, state));
                }
            }
        }
        if let Some(stream) = stream {
            findings.extend(missing_terminals(stream, &tasks, &by_id, self.posts.len()));
        }
        PushReport {
            posts: self.posts.len(),
            tasks,
            findings,
        }
    }
}

/// Each task with a finding explained by the scenario read off its POSTs
/// (issue 33; a log keeps no answers).
fn explain(posts: &[PushPost], tasks: &mut [PushedTask], findings: &[CaptureFinding]) {
    for task in tasks {
        if findings.iter().any(|f| f.task == task.id) {
            let mine: Vec<Pushed> = posts
                .iter()
                .filter(|p| p.event.task_id == task.id)
                .map(|p| Pushed {
                    event: p.event.clone(),
                    headers: p.headers.clone(),
                    answer: None,
                })
                .collect();
            task.scenario = Some(scenario_of_pushes(&mine));
        }
    }
}

/// `push-missing-terminal`: each task the stream (or GetTask) says ended
/// while the webhook was last told neither a terminal nor an interrupted
/// state; `after` is the log's length, where the finding is placed.
fn missing_terminals(
    stream: &CaptureReport,
    tasks: &[PushedTask],
    by_id: &HashMap<String, usize>,
    after: usize,
) -> Vec<CaptureFinding> {
    let mut findings = Vec::new();
    for summary in &stream.tasks {
        if !summary.final_state.state.is_terminal() {
            continue;
        }
        let told = by_id
            .get(&summary.id)
            .and_then(|&slot| tasks[slot].last_state);
        let settled = told.is_some_and(|t| t.state.is_terminal() || t.state.is_interrupted());
        if !settled {
            findings.push(CaptureFinding {
                code: FindingCode::PushMissingTerminal,
                task: summary.id.clone(),
                index: after,
                message: format!(
                    "the webhook was last told {}, never {}: the stream or GetTask says the task ended",
                    told.map_or("nothing".to_string(), |t| t.to_string()),
                    summary.final_state
                ),
            });
        }
    }
    findings
}

impl PushReport {
    /// A line per task and per finding, for `check`'s text output.
    pub fn to_text(&self) -> String {
        let mut out = format!("webhook log: {} POST(s)\n", self.posts);
        for task in &self.tasks {
            out.push_str(&format!(
                "  task {}: {} POST(s), last told {}\n",
                task.id,
                task.posts,
                task.last_state
                    .map_or("no state".to_string(), |s| s.to_string())
            ));
            if let Some(scenario) = &task.scenario {
                out.push_str(&format!("    {scenario}\n"));
            }
        }
        for f in &self.findings {
            out.push_str(&format!(
                "  {} (task {}, POST {}): {}\n",
                f.code, f.task, f.index, f.message
            ));
        }
        out
    }
}
