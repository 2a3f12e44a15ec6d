//! The card, the six probes of SPEC §10 and `push` (§12), as calls: each probe's requests, made in
//! order, steered by the answers the model reads (which task, is this the
//! first artifact), and kept as records. What the records mean (the
//! summary, every finding) is the model's judge's to say
//! ([`ProbeJudge`]); this file decides nothing.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::model::evidence::probe_answers::{first_task, is_running};
use crate::model::evidence::probe_judge::{Judged, ProbeJudge, Streamed};
use crate::model::evidence::probe_records::{
    CallEnd, CallRecord, ProbeCalls, ProbeRecords, PushRecords,
};
use crate::model::evidence::probe_report::{Probe, ProbeReport};
use crate::model::wire::card::Endpoint;

use super::call::{call, Flow, Received};
use super::http::Client;
use super::rpc::{Method, Request, Requests};
use super::webhook::Webhook;
use super::Options;

/// How long the webhook takes to answer the `push` probe's slow task
/// (SPEC §12).
const STALL_DELAY: Duration = Duration::from_secs(2);
/// The webhook is done with the earlier tasks when nothing arrived for
/// this long.
const QUIET: Duration = Duration::from_millis(500);

/// The webhook listening for the `push` probe, the URL the agent is told,
/// and the token sent with the config (its value is never written).
struct Hook {
    webhook: Webhook,
    url: String,
    token: String,
}

struct Prober<'a> {
    client: &'a Client,
    options: &'a Options,
    requests: Requests,
    judge: ProbeJudge,
    records: Vec<ProbeCalls>,
    /// Present when `--webhook` was asked for and the card declares push.
    hook: Option<Hook>,
}

/// Runs the probes in order, adding each to `report`; returns it with
/// everything received, as records.
pub fn run(
    client: &Client,
    endpoint: &Endpoint,
    card: &str,
    options: &Options,
    mut report: ProbeReport,
) -> Result<(ProbeReport, ProbeRecords), String> {
    let salt = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let hook = match options.webhook && endpoint.push {
        true => {
            let webhook = Webhook::start()?;
            if let Some(public) = &options.webhook_url {
                // The forwarder needs the port the webhook listens on.
                eprintln!(
                    "probe: the webhook listens on {}; the agent is told to POST to {public}",
                    webhook.url()
                );
            }
            Some(Hook {
                url: options.webhook_url.clone().unwrap_or_else(|| webhook.url()),
                webhook,
                token: format!("a2a-lab-token-{salt:x}"),
            })
        }
        false => None,
    };
    let mut prober = Prober {
        client,
        options,
        requests: Requests::new(endpoint, format!("{salt:x}")),
        judge: ProbeJudge::new(endpoint.wire).on(endpoint.binding),
        records: Vec::new(),
        hook,
    };
    let judged = prober.judge.card(Some(card));
    report.file(Probe::Card, judged, Vec::new(), Vec::new());
    let (streamed, stream_ms) = prober.stream(&mut report)?;
    prober.get(&streamed, &mut report)?;
    prober.cancel(&mut report)?;
    prober.cancel_terminal(&streamed, &mut report)?;
    prober.resubscribe(&mut report)?;
    prober.subscribe_terminal(&streamed, &mut report)?;
    let push = match options.webhook {
        true => Some(prober.push(stream_ms, &mut report)?),
        false => None,
    };
    let records = ProbeRecords {
        wire: endpoint.wire.name().to_string(),
        binding: endpoint.binding.name().to_string(),
        card: Some(card.to_string()),
        probes: prober.records,
        push,
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
        request: &Request,
        on_answer: impl FnMut(&crate::model::wire::answer::Answer) -> Flow,
    ) -> Result<Received, String> {
        call(self.client, request, self.wait(), on_answer)
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
        // The push probe's calls are kept with what the webhook received.
        if probe != Probe::Push {
            self.records.push(ProbeCalls {
                probe,
                calls: records,
            });
        }
        report.file(probe, judged, captures, calls);
        Ok(())
    }

    /// A streaming message starting a new task, with the push config
    /// when the probe listens for pushes.
    fn new_task(&mut self) -> Request {
        let push = self
            .hook
            .as_ref()
            .map(|h| (h.url.as_str(), h.token.as_str()));
        self.requests.send(&self.options.message, push)
    }

    /// `stream`: a streaming message, read to the end; with `--tasks N`,
    /// N at once (only the first with the push config, so that the push
    /// probe hears of the tasks it judges). Returns how long the first
    /// took too.
    fn stream(&mut self, report: &mut ProbeReport) -> Result<(Streamed, u64), String> {
        let tasks = self.options.tasks.max(1);
        let mut requests = vec![self.new_task()];
        for _ in 1..tasks {
            requests.push(self.requests.send(&self.options.message, None));
        }
        let received: Vec<Received> = match &requests[..] {
            [one] => vec![self.call(one, |_| Flow::Read)?],
            many => {
                let (client, wait) = (self.client, self.wait());
                std::thread::scope(|scope| {
                    let streams: Vec<_> = many
                        .iter()
                        .map(|request| {
                            scope.spawn(move || call(client, request, wait, |_| Flow::Read))
                        })
                        .collect();
                    streams
                        .into_iter()
                        .map(|s| s.join().unwrap_or_else(|_| Err("a stream failed".into())))
                        .collect::<Result<Vec<_>, String>>()
                })?
            }
        };
        let records: Vec<CallRecord> = received.iter().map(Received::record).collect();
        let (streamed, judged) = self.judge.stream_settled(&records);
        let names: Vec<String> = match tasks {
            1 => vec!["stream".to_string()],
            n => (1..=n).map(|k| format!("stream-{k}")).collect(),
        };
        let kept: Vec<(&str, &Received)> =
            names.iter().map(String::as_str).zip(&received).collect();
        self.file(Probe::Stream, &kept, judged, report)?;
        Ok((streamed, received.first().map_or(0, |r| r.ms)))
    }

    /// `push`: waits until the webhook is quiet, judges what it received
    /// about the `stream` and `cancel` tasks, then streams one more task
    /// while the webhook answers after [`STALL_DELAY`].
    fn push(&mut self, stream_ms: u64, report: &mut ProbeReport) -> Result<PushRecords, String> {
        let delay_ms = u64::try_from(STALL_DELAY.as_millis()).unwrap_or(u64::MAX);
        let mut records = PushRecords {
            declared: self.hook.is_some(),
            delay_ms,
            stream_ms: None,
            stall: None,
            stall_ms: None,
            posts: Vec::new(),
        };
        let mut stall = None;
        if let Some(hook) = &self.hook {
            hook.webhook.wait_quiet(QUIET, self.wait());
            hook.webhook.answer_after(STALL_DELAY);
            let push = Some((hook.url.as_str(), hook.token.as_str()));
            let request = self.requests.send(&self.options.message, push);
            // Long enough to see a stream held up by two slow answers.
            let wait = self.wait() + STALL_DELAY * 2;
            let received = call(self.client, &request, wait, |_| Flow::Read)?;
            records.stream_ms = Some(stream_ms);
            records.stall = Some(received.record());
            records.stall_ms = Some(received.ms);
            records.posts = hook.webhook.posts();
            stall = Some(received);
        }
        let calls = |probe: Probe| {
            self.records
                .iter()
                .find(|p| p.probe == probe)
                .and_then(|p| p.calls.first())
        };
        let streams: Vec<&CallRecord> = [Probe::Stream, Probe::Get, Probe::Cancel]
            .into_iter()
            .filter_map(calls)
            .collect();
        let judged = self.judge.settle(self.judge.push(&streams, &records));
        let kept: Vec<(&str, &Received)> = stall.iter().map(|s| ("push-stall", s)).collect();
        self.file(Probe::Push, &kept, judged, report)?;
        if let Some(result) = report.probes.last_mut().filter(|_| records.declared) {
            if self.options.out.is_some() {
                result.captures.push("push.jsonl".to_string());
            }
            // What the page shows of the push probe: the webhook's POSTs.
            result.calls = vec![records.capture()];
        }
        Ok(records)
    }

    /// `get`: GetTask on the streamed task.
    fn get(&mut self, streamed: &Streamed, report: &mut ProbeReport) -> Result<(), String> {
        let received = match streamed.task() {
            Some(task) => {
                let request = self.requests.on_task(Method::Get, task);
                Some(self.call(&request, |_| Flow::Read)?)
            }
            None => None,
        };
        let judged = self.judge.settle(
            self.judge
                .get(streamed, received.as_ref().map(Received::record).as_ref()),
        );
        let kept: Vec<(&str, &Received)> = received.iter().map(|r| ("get", r)).collect();
        self.file(Probe::Get, &kept, judged, report)
    }

    /// `cancel`: a new task, CancelTask once it shows it is running, then
    /// GetTask when its stream has ended.
    fn cancel(&mut self, report: &mut ProbeReport) -> Result<(), String> {
        let request = self.new_task();
        let mut cancel_answer: Option<Result<Received, String>> = None;
        let mut task: Option<String> = None;
        let mut read = 0;
        let (client, wait) = (self.client, self.wait());
        let requests = &mut self.requests;
        let stream = call(client, &request, wait, |answer| {
            read += 1;
            if task.is_none() {
                task = first_task(std::slice::from_ref(answer));
            }
            if cancel_answer.is_none() && is_running(answer) {
                if let Some(id) = &task {
                    let cancel = requests.on_task(Method::Cancel, id);
                    let answered = call(client, &cancel, wait, |_| Flow::Read);
                    cancel_answer = Some(answered.map(|mut a| {
                        a.at_event = Some(read);
                        a
                    }));
                }
            }
            Flow::Read
        })?;
        let answer = cancel_answer.transpose()?;
        let after = match (&answer, &task) {
            (Some(_), Some(id)) => {
                let request = self.requests.on_task(Method::Get, id);
                Some(self.call(&request, |_| Flow::Read)?)
            }
            _ => None,
        };
        let judged = self.judge.settle(self.judge.cancel(
            &stream.record(),
            answer.as_ref().map(Received::record).as_ref(),
            after.as_ref().map(Received::record).as_ref(),
        ));
        let mut kept = vec![("cancel", &stream)];
        kept.extend(answer.iter().map(|a| ("cancel-call", a)));
        kept.extend(after.iter().map(|a| ("cancel-get", a)));
        self.file(Probe::Cancel, &kept, judged, report)
    }

    /// `cancel-terminal`: CancelTask on the finished task.
    fn cancel_terminal(
        &mut self,
        streamed: &Streamed,
        report: &mut ProbeReport,
    ) -> Result<(), String> {
        let received = self.on_finished_task(Method::Cancel, streamed)?;
        let judged = self.judge.settle(
            self.judge
                .cancel_terminal(streamed, received.as_ref().map(Received::record).as_ref()),
        );
        self.file_one(Probe::CancelTerminal, received.as_ref(), judged, report)
    }

    /// The call `method` on the stream probe's task, when it finished.
    fn on_finished_task(
        &mut self,
        method: Method,
        streamed: &Streamed,
    ) -> Result<Option<Received>, String> {
        let Some(task) = streamed.finished_task() else {
            return Ok(None);
        };
        let request = self.requests.on_task(method, task);
        self.call(&request, |_| Flow::Read).map(Some)
    }

    /// Files a probe of one call (or none, when it was skipped), its
    /// capture named for the probe.
    fn file_one(
        &mut self,
        probe: Probe,
        received: Option<&Received>,
        judged: Judged,
        report: &mut ProbeReport,
    ) -> Result<(), String> {
        let kept: Vec<(&str, &Received)> =
            received.map(|r| (probe.name(), r)).into_iter().collect();
        self.file(probe, &kept, judged, report)
    }

    /// `resubscribe`: a new task, the stream dropped once it shows it is
    /// running, then SubscribeToTask; GetTask when that was refused, to
    /// tell a task that had already ended.
    fn resubscribe(&mut self, report: &mut ProbeReport) -> Result<(), String> {
        let request = self.requests.send(&self.options.message, None);
        let dropped = self.call(&request, |answer| match is_running(answer) {
            true => Flow::Drop,
            false => Flow::Read,
        })?;
        let record = dropped.record();
        let task = first_task(&dropped.answers);
        let subscribed = match &task {
            Some(task) if record.end == CallEnd::Dropped => {
                let request = self.requests.on_task(Method::Subscribe, task);
                Some(self.call(&request, |_| Flow::Read)?)
            }
            _ => None,
        };
        let refused = subscribed
            .as_ref()
            .is_some_and(|s| s.answers.first().is_some_and(|a| a.error().is_some()));
        let after = match (&task, refused) {
            (Some(task), true) => {
                let request = self.requests.on_task(Method::Get, task);
                Some(self.call(&request, |_| Flow::Read)?)
            }
            _ => None,
        };
        let judged = self.judge.settle(self.judge.resubscribe(
            &record,
            subscribed.as_ref().map(Received::record).as_ref(),
            after.as_ref().map(Received::record).as_ref(),
        ));
        let mut kept = vec![("resubscribe-dropped", &dropped)];
        kept.extend(subscribed.iter().map(|s| ("resubscribe-subscribed", s)));
        kept.extend(after.iter().map(|a| ("resubscribe-get", a)));
        self.file(Probe::Resubscribe, &kept, judged, report)
    }

    /// `subscribe-terminal`: SubscribeToTask on the finished task.
    fn subscribe_terminal(
        &mut self,
        streamed: &Streamed,
        report: &mut ProbeReport,
    ) -> Result<(), String> {
        let received = self.on_finished_task(Method::Subscribe, streamed)?;
        let judged = self.judge.settle(
            self.judge
                .subscribe_terminal(streamed, received.as_ref().map(Received::record).as_ref()),
        );
        self.file_one(Probe::SubscribeTerminal, received.as_ref(), judged, report)
    }
}
