//! The plan driven by a recorded run (quinn-proto's `Pair`): each call it
//! asks for is the next call recorded for its probe, each answer steers
//! as it did live, so `cargo test` proves the order and the steering with
//! no agent running.

use super::{not_pushed, Ask, PlanOptions, ProbePlan, Steer};
use crate::model::evidence::probe::judge::{Judged, ProbeJudge};
use crate::model::evidence::probe::records::{CallRecord, ProbeRecords};
use crate::model::evidence::probe::report::{Probe, ProbeReport, ProbedAgent};
use crate::model::evidence::probe::unreadable::Unreadable;
use crate::model::wire::card::Endpoint;

/// Judges a recorded run by driving the plan with its records, as the
/// live pump drives it with HTTP: each call the plan asks for is the next
/// call recorded for its probe, each answer steers as it did live.
pub fn replay(records: &ProbeRecords) -> Result<Vec<(Probe, Judged)>, Unreadable> {
    replayed(records).map(|plan| plan.judged)
}

/// The report a recorded run gives, as the live run gave it (its agent
/// unnamed: the records do not keep it).
pub fn replay_report(records: &ProbeRecords) -> Result<ProbeReport, Unreadable> {
    replayed(records).map(|plan| plan.finish().0)
}

fn replayed(records: &ProbeRecords) -> Result<ProbePlan, Unreadable> {
    if !records.probes.iter().any(|p| p.probe == Probe::Stream) {
        return Err(Unreadable::NoStream);
    }
    let mut plan = replaying(records);
    let mut recorded = Recorded {
        records,
        taken: Vec::new(),
    };
    loop {
        match plan.poll() {
            Ask::Done => return Ok(plan),
            Ask::Push { call, .. } => {
                let push = records.push.clone().unwrap_or_else(|| not_pushed(false));
                plan.on_pushed(
                    call.id,
                    push.stall.clone(),
                    push.posts.clone(),
                    push.refused,
                );
                // The records keep the timings as they were measured.
                plan.push = Some(push);
            }
            Ask::Calls(calls) => {
                let steered = calls.len() == 1;
                for call in calls {
                    let record = recorded.take(call.probe);
                    let wire = plan.judge.wire;
                    let answers = match (&record, steered) {
                        (Some(r), true) => r.readable_answers(wire),
                        _ => Vec::new(),
                    };
                    for answer in answers {
                        if let Steer::Call(nested) = plan.on_answer(&answer) {
                            plan.on_end(nested.id, recorded.take(nested.probe));
                        }
                    }
                    plan.on_end(call.id, record);
                }
            }
        }
    }
}

/// A plan for a recorded run: its wire, binding, card and options as the
/// records show them.
fn replaying(records: &ProbeRecords) -> ProbePlan {
    let judge = ProbeJudge::of(records);
    let declared = records.push.as_ref().is_some_and(|p| p.declared);
    let endpoint = Endpoint {
        name: String::new(),
        url: "http://replay".to_string(),
        wire: judge.wire,
        binding: judge.binding,
        push: declared,
        offered: true,
    };
    let options = PlanOptions {
        message: String::new(),
        tasks: records
            .probes
            .iter()
            .find(|p| p.probe == Probe::Stream)
            .map_or(1, |p| p.calls.len()),
        push: declared.then(|| ("http://replay/webhook".to_string(), String::new())),
        webhook: records.push.is_some(),
        keep_files: false,
    };
    let report = ProbeReport::new(ProbedAgent {
        name: String::new(),
        url: String::new(),
        wire: judge.wire,
        binding: judge.binding,
        offered: true,
        headers: Vec::new(),
    });
    let card = records.card.clone();
    ProbePlan::new(judge, &endpoint, card, options, report, String::new())
}

/// The recorded calls, handed out per probe in the order they were made.
struct Recorded<'a> {
    records: &'a ProbeRecords,
    taken: Vec<(Probe, usize)>,
}

impl Recorded<'_> {
    /// The next recorded call of `probe`, if the run made one.
    fn take(&mut self, probe: Probe) -> Option<CallRecord> {
        let n = match self.taken.iter().position(|(p, _)| *p == probe) {
            Some(i) => i,
            None => {
                self.taken.push((probe, 0));
                self.taken.len() - 1
            }
        };
        let k = self.taken[n].1;
        self.taken[n].1 += 1;
        self.records
            .probes
            .iter()
            .find(|p| p.probe == probe)?
            .calls
            .get(k)
            .cloned()
    }
}
