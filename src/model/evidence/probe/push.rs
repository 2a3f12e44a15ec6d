//! The `push` probe's judgement (SPEC §12): what the webhook was POSTed
//! about the `stream` and `cancel` tasks, judged per task as a webhook's
//! log beside their streams, and how a slow webhook held up a stream.

use super::judge::{Judged, ProbeJudge};
use super::records::{AnswerEnd, CallRecord, PostRecord, PushRecords};
use super::report::ProbeCode;
use super::unreadable::Unreadable;
use crate::model::evidence::capture::CaptureReader;
use crate::model::evidence::push_log::PushLog;

impl ProbeJudge {
    /// `push`: the POSTs about the `stream` and `cancel` tasks judged per
    /// task as a webhook's log, beside what their streams and GetTask say
    /// (`push-missing-terminal`, `pushed-after-terminal`,
    /// `push-duplicate`), and the slow webhook's task (`push-stalls-stream`:
    /// its stream took the webhook's delay longer than the `stream`
    /// probe's).
    pub fn push(&self, streams: &[&CallRecord], push: &PushRecords) -> Result<Judged, Unreadable> {
        if !push.declared {
            return Ok(Judged::skipped(
                "the agent card does not declare capabilities.pushNotifications, so no push was asked for",
            ));
        }
        let mut reader = CaptureReader::new(Some(self.wire));
        for call in streams {
            reader.read_bytes(call.read_body().as_bytes())?;
        }
        let ended = reader.finish();
        let prompt: Vec<&PostRecord> = push.posts.iter().filter(|p| !p.slow).collect();
        let mut log = PushLog::new();
        let lines: String = prompt.iter().map(|p| p.log_line() + "\n").collect();
        log.read_file(lines.as_bytes()).map_err(Unreadable::Post)?;
        let report = log.judge(Some(&ended));
        let mut found: Vec<(ProbeCode, String)> = report
            .findings
            .iter()
            .map(|f| {
                (
                    ProbeCode::Stream(f.code),
                    format!("task {}: {}", f.task, f.message),
                )
            })
            .collect();
        let told: Vec<String> = report
            .tasks
            .iter()
            .map(|t| {
                t.last_state
                    .map_or("no state".to_string(), |s| s.to_string())
            })
            .collect();
        let mut summary = format!(
            "{} POST(s) about {} task(s), the webhook last told {}",
            prompt.len(),
            report.tasks.len(),
            if told.is_empty() {
                "nothing".to_string()
            } else {
                told.join(" and ")
            }
        );
        let (clause, stalls) = stalled(streams, push);
        summary.push_str(&clause.unwrap_or_default());
        found.extend(stalls);
        if let Some(refused) = push.refused.sentence() {
            summary.push_str(&format!("; {refused}"));
        }
        let stall: Vec<&CallRecord> = push.stall.iter().collect();
        let mut judged = self.ran(summary, found, &stall);
        judged.scenario = report.tasks.iter().find_map(|t| t.scenario.clone());
        Ok(judged)
    }
}

/// What the slow webhook's task says of the stream: the summary's clause,
/// and `push-stalls-stream` where the stream waited for the webhook (it
/// took the webhook's delay longer than the `stream` probe's).
fn stalled(
    streams: &[&CallRecord],
    push: &PushRecords,
) -> (Option<String>, Option<(ProbeCode, String)>) {
    let (Some(prompt_ms), Some(stall), Some(stall_ms)) =
        (push.stream_ms, push.stall.as_ref(), push.stall_ms)
    else {
        return (None, None);
    };
    if !streams.first().is_some_and(|s| s.end == AnswerEnd::Closed) {
        let clause = "; the stream probe's stream did not close, so a slow webhook's effect on it cannot be told";
        return (Some(clause.to_string()), None);
    }
    let how = match stall.end {
        AnswerEnd::TimedOut(waited) => format!("was still open after {waited} ms"),
        _ => format!("took {stall_ms} ms"),
    };
    let clause = format!(
        "; with a webhook that answers after {} ms the stream {how} ({prompt_ms} ms with a prompt one)",
        push.delay_ms
    );
    let finding = (stall_ms >= prompt_ms + push.delay_ms).then(|| {
        (
            ProbeCode::PushStallsStream,
            format!(
                "with a webhook that answers after {} ms the stream {how}, with a prompt one {prompt_ms} ms: the agent waits for the webhook before the stream gets the event",
                push.delay_ms
            ),
        )
    });
    (Some(clause), finding)
}
