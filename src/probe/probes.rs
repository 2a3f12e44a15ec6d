//! The six probes of SPEC §10. Each makes its calls, keeps what came back,
//! and turns it into findings: stream findings from the model's capture
//! reader, the probe's own from what the answers say.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::model::evidence::capture::Wire;
use crate::model::evidence::finding::FindingCode;
use crate::model::evidence::probe_report::{
    judge_streams, Outcome, ProbeCode, ProbeReport, ProbeResult,
};
use crate::model::state::TaskState;

use super::call::{call, End, Flow, Received};
use super::http::Client;
use super::rpc::{
    error_of, event_of, kind_of, state_of, streamed_artifacts, task_id, Kind, Method, Requests,
};
use super::Options;
use crate::model::wire::card::Endpoint;

/// A finding before it is filed under its probe.
type Found = Vec<(ProbeCode, String)>;

/// What the first probe's task came to, for the probes that need a
/// finished task.
struct Streamed {
    task: Option<String>,
    state: Option<TaskState>,
    elements: Vec<Value>,
}

struct Prober<'a> {
    client: &'a Client,
    endpoint: &'a Endpoint,
    options: &'a Options,
    requests: Requests,
}

/// Runs the probes in order, adding each to `report`.
pub fn run(
    client: &Client,
    endpoint: &Endpoint,
    options: &Options,
    mut report: ProbeReport,
) -> Result<ProbeReport, String> {
    let salt = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut prober = Prober {
        client,
        endpoint,
        options,
        requests: Requests::new(endpoint.wire, format!("{salt:x}")),
    };
    let (streamed, result, found) = prober.stream()?;
    report.push(result, found);
    let (result, found) = prober.get(&streamed)?;
    report.push(result, found);
    let (result, found) = prober.cancel()?;
    report.push(result, found);
    let (result, found) = prober.cancel_terminal(&streamed)?;
    report.push(result, found);
    let (result, found) = prober.resubscribe()?;
    report.push(result, found);
    let (result, found) = prober.subscribe_terminal(&streamed)?;
    report.push(result, found);
    Ok(report)
}

impl Prober<'_> {
    fn wait(&self) -> Duration {
        self.options.timeout
    }

    fn call(
        &self,
        request: &Value,
        on_element: impl FnMut(&Value) -> Flow,
    ) -> Result<Received, String> {
        call(
            self.client,
            &self.endpoint.url,
            request,
            self.wait(),
            on_element,
        )
    }

    /// Writes a capture under `--out`, returning its file name.
    fn keep(&self, name: &str, received: &Received) -> Result<Option<String>, String> {
        let Some(dir) = &self.options.out else {
            return Ok(None);
        };
        let file = format!("{name}.{}", received.ext);
        let path = dir.join(&file);
        std::fs::write(&path, &received.raw).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Some(file))
    }

    fn result(
        &self,
        name: &str,
        summary: String,
        kept: &[(&str, &Received)],
    ) -> Result<ProbeResult, String> {
        let mut captures = Vec::new();
        let mut calls = Vec::new();
        for (file, received) in kept {
            captures.extend(self.keep(file, received)?);
            calls.push(received.body());
        }
        Ok(ProbeResult {
            name: name.to_string(),
            outcome: Outcome::Clean,
            summary,
            findings: Vec::new(),
            captures,
            calls,
        })
    }

    fn skipped(&self, name: &str, why: &str) -> (ProbeResult, Found) {
        let result = ProbeResult {
            name: name.to_string(),
            outcome: Outcome::Skipped,
            summary: why.to_string(),
            findings: Vec::new(),
            captures: Vec::new(),
            calls: Vec::new(),
        };
        (result, Vec::new())
    }

    /// The stream findings of one or more streams read as one session;
    /// a stream that hung is `hung`, not also `missing-terminal`.
    fn judge(&self, streams: &[&Received]) -> Result<Found, String> {
        let bodies: Vec<String> = streams.iter().map(|r| r.body()).collect();
        let bodies: Vec<&str> = bodies.iter().map(String::as_str).collect();
        let report = judge_streams(&bodies, Some(self.endpoint.wire))?;
        let mut found: Found = Vec::new();
        let last = streams.last();
        for f in report.findings {
            let code = ProbeCode::Stream(f.code);
            if matches!(last, Some(r) if matches!(r.end, End::TimedOut(_)))
                && code == ProbeCode::Stream(FindingCode::MissingTerminal)
            {
                continue;
            }
            found.push((code, format!("event {}: {}", f.index, f.message)));
        }
        if let Some(Received {
            end: End::TimedOut(waited),
            elements,
            ..
        }) = last
        {
            found.push((
                ProbeCode::Hung,
                format!(
                    "the stream was still open after {} ms, the task {}",
                    waited.as_millis(),
                    state_text(self.endpoint.wire, last_state(elements))
                ),
            ));
        }
        Ok(found)
    }

    /// `stream`: a streaming message, read to the end.
    fn stream(&mut self) -> Result<(Streamed, ProbeResult, Found), String> {
        let request = self.requests.send(&self.options.message);
        let received = self.call(&request, |_| Flow::Read)?;
        refuse_error("SendStreamingMessage", &received)?;
        let found = self.judge(&[&received])?;
        let streamed = Streamed {
            task: first_task(&received.elements),
            state: last_state(&received.elements),
            elements: received.elements.clone(),
        };
        let summary = format!(
            "{}, {}, the task {}",
            count(received.elements.len()),
            end_text(&received.end),
            state_text(self.endpoint.wire, streamed.state)
        );
        let result = self.result("stream", summary, &[("stream", &received)])?;
        Ok((streamed, result, found))
    }

    /// `get`: GetTask agrees with what was streamed.
    fn get(&mut self, streamed: &Streamed) -> Result<(ProbeResult, Found), String> {
        let Some(task) = &streamed.task else {
            return Ok(self.skipped("get", "the stream named no task"));
        };
        let request = self.requests.on_task(Method::Get, task);
        let received = self.call(&request, |_| Flow::Read)?;
        let mut found = Found::new();
        let summary;
        match (received.elements.first(), &received.end) {
            (_, End::TimedOut(waited)) => {
                summary = "GetTask did not answer".to_string();
                found.push((
                    ProbeCode::Hung,
                    format!("GetTask gave no answer in {} ms", waited.as_millis()),
                ));
            }
            (Some(answer), _) if error_of(answer).is_some() => {
                let (code, message) = error_of(answer).unwrap_or_default();
                summary = format!("GetTask failed: {code} {message}");
                found.push((
                    ProbeCode::GetTaskMismatch,
                    format!("GetTask on the streamed task failed: {code} {message}"),
                ));
            }
            (Some(answer), _) => {
                let got = event_of(answer);
                let state = state_of(got);
                summary = format!(
                    "GetTask: the task {}",
                    state_text(self.endpoint.wire, state)
                );
                if state != streamed.state {
                    found.push((
                        ProbeCode::GetTaskMismatch,
                        format!(
                            "GetTask says the task {}, the stream said {}",
                            state_text(self.endpoint.wire, state),
                            state_text(self.endpoint.wire, streamed.state)
                        ),
                    ));
                }
                let stored = super::rpc::artifacts_of(got);
                let held = streamed_artifacts(&streamed.elements);
                if stored != held {
                    found.push((
                        ProbeCode::GetTaskMismatch,
                        format!(
                            "GetTask holds {} artifact(s) with {} part(s), the stream delivered {} with {}",
                            stored.len(),
                            parts(&stored),
                            held.len(),
                            parts(&held)
                        ),
                    ));
                }
            }
            (None, _) => return Err("GetTask: an empty answer".into()),
        }
        Ok((self.result("get", summary, &[("get", &received)])?, found))
    }

    /// `cancel`: a new task, CancelTask after its first artifact; it must
    /// end CANCELED with nothing after.
    fn cancel(&mut self) -> Result<(ProbeResult, Found), String> {
        let request = self.requests.send(&self.options.message);
        let mut cancel_answer: Option<Result<Received, String>> = None;
        let mut task: Option<String> = None;
        let wire = self.endpoint.wire;
        let (client, url, wait) = (self.client, self.endpoint.url.clone(), self.wait());
        let requests = &mut self.requests;
        let stream = call(client, &url, &request, wait, |element| {
            let event = event_of(element);
            if task.is_none() {
                task = task_id(event);
            }
            if cancel_answer.is_none() && kind_of(event) == Kind::Artifact {
                if let Some(id) = &task {
                    let cancel = requests.on_task(Method::Cancel, id);
                    cancel_answer = Some(call(client, &url, &cancel, wait, |_| Flow::Read));
                }
            }
            Flow::Read
        })?;
        refuse_error(Method::Stream.name(wire), &stream)?;
        let Some(answer) = cancel_answer else {
            return Ok(self.skipped(
                "cancel",
                "the task sent no artifact before it ended, so there was no moment to cancel it",
            ));
        };
        let answer = answer?;
        let mut found = self.judge(&[&stream])?;
        let state = last_state(&stream.elements);
        let refused = answer.elements.first().and_then(error_of);
        if let End::TimedOut(waited) = answer.end {
            found.push((
                ProbeCode::Hung,
                format!("CancelTask gave no answer in {} ms", waited.as_millis()),
            ));
        }
        if state != Some(TaskState::Canceled) && !matches!(stream.end, End::TimedOut(_)) {
            let answered = match refused {
                Some((code, message)) => format!("CancelTask failed ({code} {message}) and "),
                None => "CancelTask was accepted, but ".to_string(),
            };
            found.push((
                ProbeCode::CancelNotCanceled,
                format!(
                    "{answered}the task {}",
                    state_text(self.endpoint.wire, state)
                ),
            ));
        }
        let summary = format!(
            "CancelTask after the first artifact; {}, the task {}",
            end_text(&stream.end),
            state_text(self.endpoint.wire, state)
        );
        let result = self.result(
            "cancel",
            summary,
            &[("cancel", &stream), ("cancel-call", &answer)],
        )?;
        Ok((result, found))
    }

    /// `cancel-terminal`: CancelTask on the finished task fails with -32002.
    fn cancel_terminal(&mut self, streamed: &Streamed) -> Result<(ProbeResult, Found), String> {
        let Some(task) = finished(streamed) else {
            return Ok(self.skipped(
                "cancel-terminal",
                "the stream probe's task did not finish, so there is no finished task to cancel",
            ));
        };
        let request = self.requests.on_task(Method::Cancel, &task);
        let received = self.call(&request, |_| Flow::Read)?;
        let mut found = Found::new();
        let summary = match (received.elements.first(), &received.end) {
            (_, End::TimedOut(waited)) => {
                found.push((
                    ProbeCode::Hung,
                    format!("CancelTask gave no answer in {} ms", waited.as_millis()),
                ));
                "CancelTask did not answer".to_string()
            }
            (Some(a), _) => match error_of(a) {
                Some((-32002, message)) => format!("refused: -32002 {message}"),
                Some((code, message)) => {
                    found.push((ProbeCode::CancelTerminalAccepted, format!("CancelTask on a finished task failed with {code} {message}, not -32002 (TaskNotCancelableError)")));
                    format!("refused: {code} {message}")
                }
                None => {
                    let state = state_of(event_of(a));
                    found.push((
                        ProbeCode::CancelTerminalAccepted,
                        format!(
                            "CancelTask on a finished task was accepted: the task {}",
                            state_text(self.endpoint.wire, state)
                        ),
                    ));
                    format!(
                        "accepted: the task {}",
                        state_text(self.endpoint.wire, state)
                    )
                }
            },
            (None, _) => return Err("CancelTask: an empty answer".into()),
        };
        Ok((
            self.result(
                "cancel-terminal",
                summary,
                &[("cancel-terminal", &received)],
            )?,
            found,
        ))
    }

    /// `resubscribe`: a new task, the stream dropped after its first
    /// artifact, then SubscribeToTask; both streams judged as one session.
    fn resubscribe(&mut self) -> Result<(ProbeResult, Found), String> {
        let request = self.requests.send(&self.options.message);
        let dropped = self.call(&request, |element| {
            if kind_of(event_of(element)) == Kind::Artifact {
                Flow::Drop
            } else {
                Flow::Read
            }
        })?;
        refuse_error(Method::Stream.name(self.endpoint.wire), &dropped)?;
        if dropped.end != End::Dropped {
            return Ok(self.skipped("resubscribe", "the task sent no artifact before it ended, so there was no moment to drop the stream"));
        }
        let Some(task) = first_task(&dropped.elements) else {
            return Ok(self.skipped("resubscribe", "the stream named no task"));
        };
        let request = self.requests.on_task(Method::Subscribe, &task);
        let subscribed = self.call(&request, |_| Flow::Read)?;
        if let Some((code, message)) = subscribed.elements.first().and_then(error_of) {
            let result = self.result(
                "resubscribe",
                format!("SubscribeToTask failed: {code} {message}"),
                &[
                    ("resubscribe-dropped", &dropped),
                    ("resubscribe-subscribed", &subscribed),
                ],
            )?;
            let found = vec![(ProbeCode::Stream(FindingCode::MissingTerminal), format!("the stream was dropped with the task {} and SubscribeToTask failed: {code} {message}", state_text(self.endpoint.wire, last_state(&dropped.elements))))];
            return Ok((result, found));
        }
        let found = self.judge(&[&dropped, &subscribed])?;
        let state = last_state(&subscribed.elements);
        let summary = format!(
            "dropped after {}, resubscribed: {}, {}, the task {}",
            count(dropped.elements.len()),
            count(subscribed.elements.len()),
            end_text(&subscribed.end),
            state_text(self.endpoint.wire, state)
        );
        let result = self.result(
            "resubscribe",
            summary,
            &[
                ("resubscribe-dropped", &dropped),
                ("resubscribe-subscribed", &subscribed),
            ],
        )?;
        Ok((result, found))
    }

    /// `subscribe-terminal`: SubscribeToTask on the finished task fails
    /// (-32004 on A2A 1.0).
    fn subscribe_terminal(&mut self, streamed: &Streamed) -> Result<(ProbeResult, Found), String> {
        let Some(task) = finished(streamed) else {
            return Ok(self.skipped("subscribe-terminal", "the stream probe's task did not finish, so there is no finished task to subscribe to"));
        };
        let request = self.requests.on_task(Method::Subscribe, &task);
        let received = self.call(&request, |_| Flow::Read)?;
        let mut found = Found::new();
        let first = received.elements.first();
        let summary = match (first.and_then(error_of), &received.end) {
            (Some((code, message)), _) if self.endpoint.wire == Wire::V0_3 || code == -32004 => {
                format!("refused: {code} {message}")
            }
            (Some((code, message)), _) => {
                found.push((ProbeCode::SubscribeTerminalAccepted, format!("SubscribeToTask on a finished task failed with {code} {message}, not -32004 (UnsupportedOperationError)")));
                format!("refused: {code} {message}")
            }
            (None, End::TimedOut(waited)) => {
                found.push((ProbeCode::SubscribeTerminalAccepted, format!("SubscribeToTask on a finished task was accepted and its stream stayed open for {} ms with {} event(s)", waited.as_millis(), received.elements.len())));
                "accepted; the stream stayed open".to_string()
            }
            (None, _) => {
                found.push((
                    ProbeCode::SubscribeTerminalAccepted,
                    format!(
                        "SubscribeToTask on a finished task was accepted: {} event(s)",
                        received.elements.len()
                    ),
                ));
                format!("accepted: {} event(s)", received.elements.len())
            }
        };
        Ok((
            self.result(
                "subscribe-terminal",
                summary,
                &[("subscribe-terminal", &received)],
            )?,
            found,
        ))
    }
}

/// A message-starting call that answered a JSON-RPC error: the agent does
/// not take the probe's message, so nothing can be probed.
fn refuse_error(method: &str, received: &Received) -> Result<(), String> {
    match received.elements.first().and_then(error_of) {
        Some((code, message)) if received.elements.len() == 1 => Err(format!(
            "{method} was refused: JSON-RPC error {code} {message}"
        )),
        _ => Ok(()),
    }
}

fn first_task(elements: &[Value]) -> Option<String> {
    elements.iter().find_map(|e| task_id(event_of(e)))
}

fn last_state(elements: &[Value]) -> Option<TaskState> {
    elements.iter().rev().find_map(|e| state_of(event_of(e)))
}

fn finished(streamed: &Streamed) -> Option<String> {
    streamed
        .state
        .filter(|s| s.is_terminal())
        .and(streamed.task.clone())
}

/// `was STATE`, spelled as on `wire`.
fn state_text(wire: Wire, state: Option<TaskState>) -> String {
    match state {
        Some(state) => format!("was {}", wire.spell(state)),
        None => "had no state".to_string(),
    }
}

fn end_text(end: &End) -> String {
    match end {
        End::Closed => "the stream closed".to_string(),
        End::Dropped => "the probe dropped the stream".to_string(),
        End::TimedOut(waited) => format!("still open after {} ms", waited.as_millis()),
    }
}

/// `1 event`, `5 events`.
fn count(events: usize) -> String {
    match events {
        1 => "1 event".to_string(),
        n => format!("{n} events"),
    }
}

fn parts(artifacts: &[(String, Vec<Value>)]) -> usize {
    artifacts.iter().map(|(_, p)| p.len()).sum()
}
