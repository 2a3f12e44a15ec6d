//! `check --baseline`: a capture (a live session, a recorded stream) held
//! to an earlier one. Findings are counted by code, as two sessions with
//! the same agent have tasks of different ids: the capture passes while no
//! code has more findings than the baseline had.

use std::collections::BTreeMap;

use serde::Serialize;

use super::report::CaptureReport;

/// A finding code and how often each capture has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeCount {
    /// The finding's code (`after-terminal`).
    pub code: String,
    /// How many this capture has.
    pub now: usize,
    /// How many the baseline had.
    pub before: usize,
}

/// How a capture differs from its baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CaptureBaselineDiff {
    /// Codes with more findings than the baseline had.
    pub new: Vec<CodeCount>,
    /// Codes with fewer.
    pub gone: Vec<CodeCount>,
}

impl CaptureBaselineDiff {
    /// `report` against `baseline`, code by code in the codes' order.
    pub fn of(report: &CaptureReport, baseline: &CaptureReport) -> CaptureBaselineDiff {
        let count = |r: &CaptureReport| {
            let mut by = BTreeMap::<String, usize>::new();
            for f in &r.findings {
                *by.entry(f.code.to_string()).or_default() += 1;
            }
            by
        };
        let (now, before) = (count(report), count(baseline));
        let mut diff = CaptureBaselineDiff::default();
        let codes = now
            .keys()
            .chain(before.keys())
            .collect::<std::collections::BTreeSet<_>>();
        for code in codes {
            let counted = CodeCount {
                code: code.clone(),
                now: now.get(code).copied().unwrap_or(0),
                before: before.get(code).copied().unwrap_or(0),
            };
            if counted.now > counted.before {
                diff.new.push(counted);
            } else if counted.now < counted.before {
                diff.gone.push(counted);
            }
        }
        diff
    }

    /// Whether the capture passes: no code has more findings than before.
    pub fn passes(&self) -> bool {
        self.new.is_empty()
    }

    /// A line per difference, then the verdict when it passes.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in &self.new {
            out.push_str(&format!(
                "baseline: new finding {} ({}, the baseline had {})\n",
                c.code, c.now, c.before
            ));
        }
        for c in &self.gone {
            out.push_str(&format!(
                "baseline: finding gone {} ({}, the baseline had {})\n",
                c.code, c.now, c.before
            ));
        }
        if self.passes() {
            out.push_str("baseline: no new finding\n");
        }
        out
    }
}
