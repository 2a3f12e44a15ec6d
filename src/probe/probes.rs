//! The six probes of SPEC §10, as calls: each probe's requests, made in
//! order, steered by the answers the model reads (which task, is this the
//! first artifact), and kept as records. What the records mean (the
//! summary, every finding) is the model's judge's to say
//! ([`ProbeJudge`]); this file decides nothing.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::model::evidence::probe_judge::{
    first_task, is_artifact, refusal, CallRecord, Judged, ProbeCalls, ProbeJudge, ProbeRecords,
    Streamed,
};
use crate::model::evidence::probe_report::{Outcome, Probe, ProbeReport, ProbeResult};
use crate::model::wire::card::Endpoint;

use super::call::{call, Flow, Received};
use super::http::Client;
use super::rpc::{Method, Requests};
use super::Options;

struct Prober<'a> {
    client: &'a Client,
    endpoint: &'a Endpoint,
    options: &'a Options,
    requests: Requests,
    judge: ProbeJudge,
    records: Vec<ProbeCalls>,
}

/// Runs the probes in order, adding each to `report`; returns it with
/// everything received, as records.
pub fn run(
    client: &Client,
    endpoint: &Endpoint,
    options: &Options,
    mut report: ProbeReport,
) -> Result<(ProbeReport, ProbeRecords), String> {
    let salt = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut prober = Prober {
        client,
        endpoint,
        options,
        requests: Requests::new(endpoint.wire, format!("{salt:x}")),
        judge: ProbeJudge::new(endpoint.wire),
        records: Vec::new(),
    };
    let streamed = prober.stream(&mut report)?;
    prober.get(&streamed, &mut report)?;
    prober.cancel(&mut report)?;
    prober.cancel_terminal(&streamed, &mut report)?;
    prober.resubscribe(&mut report)?;
    prober.subscribe_terminal(&streamed, &mut report)?;
    let records = ProbeRecords {
        wire: endpoint.wire.name().to_string(),
        probes: prober.records,
    };
    Ok((report, records))
}

impl Prober<'_> {
    fn wait(&self) -> Duration {
        self.options.timeout
    }

    /// Makes one call.
    fn call(
        &mut self,
        method: Method,
        request: &Value,
        on_answer: impl FnMut(&crate::model::wire::event::Answer) -> Flow,
    ) -> Result<Received, String> {
        let wire = self.endpoint.wire;
        call(
            self.client,
            &self.endpoint.url,
            (method.name(wire), wire),
            request,
            self.wait(),
            on_answer,
        )
    }

    /// A task-starting call answered with a JSON-RPC error alone: nothing
    /// can be probed.
    fn refuse(&self, method: Method, received: &Received) -> Result<(), String> {
        match refusal(method.name(self.endpoint.wire), &received.answers) {
            Some(why) => Err(why),
            None => Ok(()),
        }
    }

    /// Files a probe: its calls kept (under `--out`, and as records), its
    /// judgement added to the report.
    fn file(
        &mut self,
        probe: Probe,
        kept: &[(&str, &Received)],
        judged: Judged,
        report: &mut ProbeReport,
    ) -> Result<(), String> {
        let mut captures = Vec::new();
        let mut calls = Vec::new();
        let mut records: Vec<CallRecord> = Vec::new();
        for (file, received) in kept {
            if let Some(dir) = &self.options.out {
                let file = format!("{file}.{}", received.ext());
                let path = dir.join(&file);
                std::fs::write(&path, &received.raw)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                captures.push(file);
            }
            calls.push(received.body());
            records.push(received.record());
        }
        self.records.push(ProbeCalls {
            probe,
            calls: records,
        });
        let result = ProbeResult {
            name: probe,
            outcome: if judged.skipped {
                Outcome::Skipped
            } else {
                Outcome::Clean
            },
            summary: judged.summary,
            findings: Vec::new(),
            captures,
            calls,
        };
        report.push(result, judged.found);
        Ok(())
    }

    /// `stream`: a streaming message, read to the end.
    fn stream(&mut self, report: &mut ProbeReport) -> Result<Streamed, String> {
        let request = self.requests.send(&self.options.message);
        let received = self.call(Method::Stream, &request, |_| Flow::Read)?;
        self.refuse(Method::Stream, &received)?;
        let (streamed, judged) = self.judge.stream(&received.record())?;
        self.file(Probe::Stream, &[("stream", &received)], judged, report)?;
        Ok(streamed)
    }

    /// `get`: GetTask on the streamed task.
    fn get(&mut self, streamed: &Streamed, report: &mut ProbeReport) -> Result<(), String> {
        let received = match streamed.task() {
            Some(task) => {
                let request = self.requests.on_task(Method::Get, task);
                Some(self.call(Method::Get, &request, |_| Flow::Read)?)
            }
            None => None,
        };
        let judged = self
            .judge
            .get(streamed, received.as_ref().map(Received::record).as_ref())?;
        let kept: Vec<(&str, &Received)> = received.iter().map(|r| ("get", r)).collect();
        self.file(Probe::Get, &kept, judged, report)
    }

    /// `cancel`: a new task, CancelTask after its first artifact.
    fn cancel(&mut self, report: &mut ProbeReport) -> Result<(), String> {
        let request = self.requests.send(&self.options.message);
        let mut cancel_answer: Option<Result<Received, String>> = None;
        let mut task: Option<String> = None;
        let wire = self.endpoint.wire;
        let (client, url, wait) = (self.client, self.endpoint.url.clone(), self.wait());
        let requests = &mut self.requests;
        let stream = call(
            client,
            &url,
            (Method::Stream.name(wire), wire),
            &request,
            wait,
            |answer| {
                if task.is_none() {
                    task = first_task(std::slice::from_ref(answer));
                }
                if cancel_answer.is_none() && is_artifact(answer) {
                    if let Some(id) = &task {
                        let cancel = requests.on_task(Method::Cancel, id);
                        let method = (Method::Cancel.name(wire), wire);
                        cancel_answer =
                            Some(call(client, &url, method, &cancel, wait, |_| Flow::Read));
                    }
                }
                Flow::Read
            },
        )?;
        self.refuse(Method::Stream, &stream)?;
        let answer = cancel_answer.transpose()?;
        let judged = self.judge.cancel(
            &stream.record(),
            answer.as_ref().map(Received::record).as_ref(),
        )?;
        let mut kept = vec![("cancel", &stream)];
        kept.extend(answer.iter().map(|a| ("cancel-call", a)));
        self.file(Probe::Cancel, &kept, judged, report)
    }

    /// `cancel-terminal`: CancelTask on the finished task.
    fn cancel_terminal(
        &mut self,
        streamed: &Streamed,
        report: &mut ProbeReport,
    ) -> Result<(), String> {
        let received = match streamed.finished_task() {
            Some(task) => {
                let request = self.requests.on_task(Method::Cancel, task);
                Some(self.call(Method::Cancel, &request, |_| Flow::Read)?)
            }
            None => None,
        };
        let judged = self
            .judge
            .cancel_terminal(streamed, received.as_ref().map(Received::record).as_ref())?;
        let kept: Vec<(&str, &Received)> =
            received.iter().map(|r| ("cancel-terminal", r)).collect();
        self.file(Probe::CancelTerminal, &kept, judged, report)
    }

    /// `resubscribe`: a new task, the stream dropped after its first
    /// artifact, then SubscribeToTask.
    fn resubscribe(&mut self, report: &mut ProbeReport) -> Result<(), String> {
        let request = self.requests.send(&self.options.message);
        let dropped = self.call(Method::Stream, &request, |answer| {
            if is_artifact(answer) {
                Flow::Drop
            } else {
                Flow::Read
            }
        })?;
        self.refuse(Method::Stream, &dropped)?;
        let record = dropped.record();
        let subscribed = match first_task(&dropped.answers) {
            Some(task) if record.end == crate::model::evidence::probe_judge::CallEnd::Dropped => {
                let request = self.requests.on_task(Method::Subscribe, &task);
                Some(self.call(Method::Subscribe, &request, |_| Flow::Read)?)
            }
            _ => None,
        };
        let judged = self
            .judge
            .resubscribe(&record, subscribed.as_ref().map(Received::record).as_ref())?;
        let mut kept = vec![("resubscribe-dropped", &dropped)];
        kept.extend(subscribed.iter().map(|s| ("resubscribe-subscribed", s)));
        self.file(Probe::Resubscribe, &kept, judged, report)
    }

    /// `subscribe-terminal`: SubscribeToTask on the finished task.
    fn subscribe_terminal(
        &mut self,
        streamed: &Streamed,
        report: &mut ProbeReport,
    ) -> Result<(), String> {
        let received = match streamed.finished_task() {
            Some(task) => {
                let request = self.requests.on_task(Method::Subscribe, task);
                Some(self.call(Method::Subscribe, &request, |_| Flow::Read)?)
            }
            None => None,
        };
        let judged = self
            .judge
            .subscribe_terminal(streamed, received.as_ref().map(Received::record).as_ref())?;
        let kept: Vec<(&str, &Received)> =
            received.iter().map(|r| ("subscribe-terminal", r)).collect();
        self.file(Probe::SubscribeTerminal, &kept, judged, report)
    }
}
