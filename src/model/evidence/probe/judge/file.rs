//! A judged probe filed in the report: its outcome, what its calls
//! received, and (natively) the scenario that explains the task it
//! streamed, where it found something.

use super::Judged;
use crate::model::evidence::probe::report::{Probe, ProbeOutcome, ProbeReport, ProbeResult};
use crate::model::wire::signs::SseHeaders;
#[cfg(not(target_arch = "wasm32"))]
use crate::model::{
    evidence::capture::CaptureReader, evidence::scenario_of::ScenarioOf, wire::answer::OwnedEvent,
    wire::Wire,
};

impl ProbeReport {
    /// Adds a judged probe: its outcome from the judgement (skipped, or
    /// clean or broken by its findings), with the captures it kept and what
    /// its calls received (the headers of its SSE answers name the SDK
    /// where the bodies do not).
    pub fn file(
        &mut self,
        probe: Probe,
        judged: Judged,
        (captures, calls): (Vec<String>, Vec<String>),
        headers: &[SseHeaders],
    ) {
        // The page reads probe.json and never explains a probe itself.
        #[cfg(not(target_arch = "wasm32"))]
        let scenario = judged.scenario.or_else(|| {
            // The calls that streamed the task: the cancel probe's stream,
            // not its CancelTask.
            let streamed = match probe {
                Probe::Stream | Probe::Resubscribe => &calls[..],
                Probe::Cancel => &calls[..calls.len().min(1)],
                _ => &[],
            };
            (!judged.found.is_empty() && !streamed.is_empty())
                .then(|| scenario_of_calls(streamed, self.agent.wire, headers))
                .flatten()
        });
        #[cfg(target_arch = "wasm32")]
        let (scenario, _) = (judged.scenario, headers);
        let result = ProbeResult {
            name: probe,
            outcome: if judged.skipped {
                ProbeOutcome::Skipped
            } else {
                ProbeOutcome::Clean
            },
            summary: judged.summary,
            load: judged.load,
            findings: Vec::new(),
            scenario,
            captures,
            calls,
        };
        self.push(result, judged.found);
    }
}

/// The scenario that explains the task a probe's calls streamed: each
/// call a stream of client 1 (a dropped stream and its resubscription),
/// each holding the first task they name (the capture reader's, keeping
/// its events), ended by the error event the reader saw end it, if any.
#[cfg(not(target_arch = "wasm32"))]
fn scenario_of_calls(calls: &[String], wire: Wire, headers: &[SseHeaders]) -> Option<ScenarioOf> {
    use crate::model::evidence::scenario_of::streams::{scenario_of_streams_within, ClientStream};
    use crate::model::evidence::scenario_of::{sdk_order, Budget, Search};
    use crate::model::sim::profile::sdk_named;
    use crate::model::trace::StreamEnd;
    use crate::model::wire::signs::WireSigns;
    let mut task: Option<String> = None;
    let mut read: Vec<(Vec<OwnedEvent>, Option<StreamEnd>)> = Vec::new();
    // What the answers' bytes show of the SDK, over every call.
    let mut signs = WireSigns::default();
    for seen in headers {
        signs.read_headers(seen);
    }
    for call in calls {
        let mut reader = CaptureReader::new(Some(wire)).keeping_events();
        reader.read_bytes(call.as_bytes()).ok()?;
        let report = reader.finish();
        let id = task.get_or_insert_with(|| {
            report
                .events
                .iter()
                .flatten()
                .next()
                .map_or(String::new(), |e| e.task_id.clone())
        });
        let mut mine = Vec::new();
        let mut end = None;
        for (i, events) in report.events.into_iter().enumerate() {
            if let Some(task) = report.tasks.get(i).filter(|t| t.id == *id) {
                if let Some(seen) = report.signs.get(i) {
                    signs.absorb(seen);
                }
                end = task.stream_end();
                mine.extend(events);
            }
        }
        read.push((mine, end));
    }
    let streams: Vec<ClientStream> = read
        .iter()
        .filter(|(events, _)| !events.is_empty())
        .map(|(events, end)| ClientStream {
            client: 1,
            events,
            end: *end,
        })
        .collect();
    if streams.is_empty() {
        return None;
    }
    let events = streams.iter().map(|s| s.events.len()).sum();
    let mut search = Search::new(sdk_order(sdk_named(&signs)), Budget::for_events(events));
    Some(scenario_of_streams_within(&streams, &mut search))
}
