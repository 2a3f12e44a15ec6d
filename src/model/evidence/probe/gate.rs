//! The probe as a CI gate (SPEC §11): a probe run as JUnit and SARIF
//! cases, and a run held against an earlier one (`--baseline`): every
//! probe with the same outcome and no new finding passes; a finding gone
//! is listed, and fails only where it changes an outcome.

use serde::Serialize;

use super::report::{Probe, ProbeCode, ProbeOutcome, ProbeReport};
use crate::model::evidence::ci_report::{Case, Finding};

/// One JUnit testcase per probe: a finding a failure, a skipped probe
/// skipped with its reason.
pub fn cases(report: &ProbeReport) -> Vec<Case> {
    report
        .probes
        .iter()
        .map(|p| Case {
            name: p.name.name().to_string(),
            failures: report
                .findings
                .iter()
                .filter(|f| f.probe == p.name)
                .map(|f| (f.code.code(), f.message.clone()))
                .collect(),
            skipped: (p.outcome == ProbeOutcome::Skipped).then(|| p.summary.clone()),
        })
        .collect()
}

/// One SARIF result per finding, its rule's help what to fix.
pub fn findings(report: &ProbeReport) -> Vec<Finding> {
    report
        .findings
        .iter()
        .map(|f| Finding {
            code: f.code.code(),
            help: f.code.advice(),
            message: f.message.clone(),
            place: ("probe", f.probe.name().to_string()),
        })
        .collect()
}

/// A finding as a baseline compares it: which probe, which code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BaselineFinding {
    /// The probe.
    pub probe: Probe,
    /// The code.
    pub code: ProbeCode,
}

/// A probe whose outcome changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// The probe.
    pub probe: Probe,
    /// Its outcome in the baseline.
    pub was: &'static str,
    /// Its outcome now.
    pub now: &'static str,
}

/// How a run differs from its baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BaselineDiff {
    /// Findings the baseline did not have.
    pub new: Vec<BaselineFinding>,
    /// Findings of the baseline this run did not find.
    pub gone: Vec<BaselineFinding>,
    /// Probes whose outcome changed.
    pub changed: Vec<Changed>,
}

impl BaselineDiff {
    /// Whether the run passes against its baseline: no new finding and
    /// every outcome the same.
    pub fn passes(&self) -> bool {
        self.new.is_empty() && self.changed.is_empty()
    }

    /// A line per difference.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for f in &self.new {
            out.push_str(&format!(
                "baseline: new finding {} in {}\n",
                f.code, f.probe
            ));
        }
        for f in &self.gone {
            out.push_str(&format!(
                "baseline: finding gone {} in {}\n",
                f.code, f.probe
            ));
        }
        for c in &self.changed {
            out.push_str(&format!(
                "baseline: {} was {}, now {}\n",
                c.probe, c.was, c.now
            ));
        }
        if self.passes() {
            out.push_str("baseline: the same outcomes, no new finding\n");
        }
        out
    }
}

/// This run against an earlier one. Findings compare by probe and code
/// (their messages carry times and ids), each pair once.
pub fn against(run: &ProbeReport, baseline: &ProbeReport) -> BaselineDiff {
    // Each (probe, code) once: how many times a finding repeats (one per
    // stream under `--tasks`, one per field of a card) is not a change.
    let found = |r: &ProbeReport| -> Vec<BaselineFinding> {
        let mut out: Vec<BaselineFinding> = Vec::new();
        for f in &r.findings {
            let found = BaselineFinding {
                probe: f.probe,
                code: f.code,
            };
            if !out.contains(&found) {
                out.push(found);
            }
        }
        out
    };
    let (before, now) = (found(baseline), found(run));
    let new = now
        .iter()
        .filter(|f| !before.contains(f))
        .cloned()
        .collect();
    let gone = before
        .iter()
        .filter(|f| !now.contains(f))
        .cloned()
        .collect();
    // A probe the baseline never ran (one added since) has no outcome to
    // change; what it finds is new all the same.
    let changed = run
        .probes
        .iter()
        .filter_map(|p| {
            let was = baseline.probes.iter().find(|b| b.name == p.name)?.outcome;
            (was != p.outcome).then(|| Changed {
                probe: p.name,
                was: was.name(),
                now: p.outcome.name(),
            })
        })
        .collect();
    BaselineDiff { new, gone, changed }
}
