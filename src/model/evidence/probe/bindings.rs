//! `probe --binding all` (SPEC §16): the same probes over every binding a
//! card offers, and where one agent answers them differently. A2A 1.0
//! §5.1 asks every binding of an agent for "semantically equivalent
//! results for the same requests" and the same errors in each binding's
//! form (§5.4); a difference is a `binding-mismatch`, filed under the
//! probe that shows it.
//!
//! What is compared is what a probe's calls meant, not their bytes: each
//! call's end (the last state its answers carry, the A2A error it answered,
//! that it hung) and the probe's own outcome and findings. Each binding is
//! judged by the one judge first, so one that breaks a rule the others keep
//! differs in its findings too.

use super::read::last_state;
use super::records::{AnswerEnd, CallRecord, ProbeRecords};
use super::report::{Probe, ProbeCode, ProbeReport, ProbeResult};
use crate::model::wire::rest::Binding;

/// One binding's run: its report and what it received.
pub struct BindingRun {
    /// The binding spoken.
    pub binding: Binding,
    /// What the probe found over it.
    pub report: ProbeReport,
    /// What it received.
    pub records: ProbeRecords,
}

/// The report of a run over several bindings: the first binding's report
/// (the one a probe prefers), with a `binding-mismatch` finding on each
/// probe whose calls meant something else over another binding. `None`
/// when there is no run.
pub fn compared(runs: &[BindingRun]) -> Option<ProbeReport> {
    let (first, others) = runs.split_first()?;
    let mut report = ProbeReport::new(first.report.agent.clone());
    for result in &first.report.probes {
        let mut found: Vec<(ProbeCode, String)> = first
            .report
            .findings
            .iter()
            .filter(|f| f.probe == result.name)
            .map(|f| (f.code, f.message.clone()))
            .collect();
        for other in others {
            let Some(theirs) = other.report.probes.iter().find(|p| p.name == result.name) else {
                continue;
            };
            let ours = gist(first, result);
            let said = gist(other, theirs);
            if ours != said {
                found.push((
                    ProbeCode::BindingMismatch,
                    format!(
                        "over {} {}; over {} {} (A2A 1.0 §5.1: every binding returns \
                         semantically equivalent results for the same requests)",
                        first.binding.card_name(),
                        ours.join(", "),
                        other.binding.card_name(),
                        said.join(", "),
                    ),
                ));
            }
        }
        // Filed again with what was added; its outcome follows them.
        report.push(result.clone(), found);
    }
    Some(report)
}

/// What a probe's calls meant over one binding, in words: its outcome and
/// findings, then how each call ended.
fn gist(run: &BindingRun, result: &ProbeResult) -> Vec<String> {
    let mut said = vec![result.outcome.name().to_string()];
    // Which rules broke, not how often: how many events a race repeats
    // (an executor that shares its queue) is timing, not the binding.
    let mut codes: Vec<&str> = result
        .findings
        .iter()
        .filter(|c| **c != ProbeCode::BindingMismatch)
        .map(|c| c.code())
        .collect();
    codes.sort_unstable();
    codes.dedup();
    if !codes.is_empty() {
        said.push(format!("found {}", codes.join(" ")));
    }
    let calls = run
        .records
        .probes
        .iter()
        .find(|p| p.probe == result.name)
        .map(|p| p.calls.as_slice())
        .unwrap_or_default();
    // Where the probe steers by timing (a stream dropped or canceled at its
    // first WORKING), the state it was left in is the probe's doing, not
    // the agent's; the calls after it say what the agent did.
    let steered = matches!(result.name, Probe::Cancel | Probe::Resubscribe);
    for call in calls {
        if steered && call.end == AnswerEnd::Dropped {
            continue;
        }
        said.push(ended(run, call));
    }
    said
}

/// How one call ended: hung, an A2A error (its JSON-RPC code, whatever the
/// binding's form), or the last state its answers carry.
fn ended(run: &BindingRun, call: &CallRecord) -> String {
    if let AnswerEnd::TimedOut(_) = call.end {
        return "a call hung".into();
    }
    let answers = call.readable_answers(run.records.wire);
    if let Some((code, _)) = answers.iter().rev().find_map(|a| a.error()) {
        return format!("error {code}");
    }
    match last_state(&answers) {
        Some(state) => state.wire().to_string(),
        None => "no state".into(),
    }
}
