//! What the capture panel lists (a capture's tasks, a probe report's
//! probes, the chosen one's findings) and the sentence an import reports.

use super::{CaptureView, ProbeView};
use crate::model::evidence::capture::{CaptureReport, WiresSeen};
use crate::model::evidence::import::Imported;
use crate::model::evidence::probe::report::{ProbeOutcome, ProbeReport};

/// What the panel lists: a capture's tasks, or the probes of an imported
/// `probe.json` (one markup for both keeps the page's bundle small).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// What was imported, in a sentence.
    pub summary: String,
    /// The table's caption.
    pub caption: &'static str,
    /// The table's column heads.
    pub heads: [&'static str; 4],
    /// Each row's four cells, and whether it found something broken.
    pub rows: Vec<([String; 4], bool)>,
    /// The heading over the chosen row's findings.
    pub title: String,
    /// Each finding: its code, what happened, and what to fix (probes).
    pub findings: Vec<(&'static str, String, &'static str)>,
    /// Whether the rows are probes (else a capture's tasks).
    pub probes: bool,
}

/// A capture in a sentence: its wire, what it holds, what it breaks; the
/// JSON-RPC errors it lists, when it has any (a capture of one error
/// answer alone is read, SPEC §8).
fn capture_summary(report: &CaptureReport) -> String {
    let wire = match report.wire {
        WiresSeen::None => "A capture".to_string(),
        wire => format!("A capture on the A2A {wire} wire"),
    };
    let errors = match report.errors.len() {
        0 => String::new(),
        n => format!(", {n} JSON-RPC error(s)"),
    };
    format!(
        "{wire}: {} events, {} task(s), {} finding(s){errors}.",
        report.read,
        report.tasks.len(),
        report.findings.len()
    )
}

/// A capture's tasks, the first `listed` of them, with task `chosen`'s
/// findings.
pub fn capture_listing(view: &CaptureView, chosen: usize, listed: usize) -> Listing {
    let report = &view.report;
    let task_id = report.tasks.get(chosen).map(|t| t.id.as_str());
    Listing {
        summary: capture_summary(report),
        caption: "Tasks in the capture: choose one to see its events",
        heads: ["task", "events", "final state", "findings"],
        rows: report
            .tasks
            .iter()
            .take(listed)
            .map(|t| {
                let cells = [
                    t.id.clone(),
                    t.events.to_string(),
                    t.final_state.to_string(),
                    t.findings.to_string(),
                ];
                (cells, t.findings > 0)
            })
            .collect(),
        findings: report
            .findings
            .iter()
            .filter(|f| Some(f.task.as_str()) == task_id)
            .map(|f| {
                (
                    f.code.code(),
                    format!(" at event {}: {}", f.index, f.message),
                    "",
                )
            })
            .collect(),
        title: match task_id {
            Some(task) => format!("Findings for {task}"),
            None => "Findings".to_string(),
        },
        probes: false,
    }
}

/// A `probe.json`'s probes, with probe `chosen`'s findings and what to fix.
pub fn probe_listing(view: &ProbeView, chosen: usize) -> Listing {
    let report = &view.report;
    let probe = report.probes.get(chosen).map(|p| p.name);
    let broken = report
        .probes
        .iter()
        .filter(|p| p.outcome == ProbeOutcome::Broken)
        .count();
    Listing {
        summary: format!(
            "A probe of {} at {} on {}: {broken} of {} probes found something broken.",
            report.agent.name,
            report.agent.url,
            spoken(report),
            report.probes.len()
        ),
        caption: "Probes: choose one to see what it received",
        heads: ["probe", "outcome", "what happened", "findings"],
        rows: report
            .probes
            .iter()
            .map(|p| {
                let cells = [
                    p.name.name().to_string(),
                    p.outcome.name().to_string(),
                    p.summary.clone(),
                    p.findings.len().to_string(),
                ];
                (cells, p.outcome == ProbeOutcome::Broken)
            })
            .collect(),
        findings: report
            .findings
            .iter()
            .filter(|f| Some(f.probe) == probe)
            .map(|f| (f.code.code(), format!(": {}", f.message), f.code.advice()))
            .collect(),
        title: match probe {
            Some(probe) => format!("Findings of the {probe} probe"),
            None => "Findings".to_string(),
        },
        probes: true,
    }
}

/// `the A2A 1.0 wire`, and `over HTTP+JSON` when the probe spoke REST.
fn spoken(report: &ProbeReport) -> String {
    let over = match report.agent.spoke_other() {
        Some(name) => format!(" over {name}"),
        None => String::new(),
    };
    format!("the A2A {} wire{over}", report.agent.wire)
}

/// What an import did, for the inline message.
pub fn import_summary(imported: &Imported) -> String {
    match imported {
        Imported::Export { scenario, report } => {
            let which = if scenario.to_query().is_empty() {
                "defaults".to_string()
            } else {
                scenario.to_query()
            };
            if report.findings.is_empty() {
                format!("Imported an export of `{which}`: the re-simulated trace matches the file.")
            } else {
                format!(
                    "Imported an export of `{which}`: it does NOT match the model ({} difference(s); first: {}).",
                    report.findings.len(),
                    report.findings[0].message
                )
            }
        }
        Imported::Probe(report) => {
            let broken = report
                .probes
                .iter()
                .filter(|p| !p.findings.is_empty())
                .count();
            format!(
                "Read a probe of {} on {}: {} probes, {} found something broken.",
                report.agent.name,
                spoken(report),
                report.probes.len(),
                broken
            )
        }
        Imported::Capture(report) => {
            // The task list and the findings are in the capture panel;
            // the message says what was read and names the findings.
            let codes: Vec<String> = report
                .findings
                .iter()
                .take(8)
                .map(|f| format!("{} at event {} of {}", f.code, f.index, f.task))
                .collect();
            format!(
                "Read a capture on the A2A {} wire: {} events, {} task(s), {} JSON-RPC error(s): {}.",
                report.wire,
                report.read,
                report.tasks.len(),
                report.errors.len(),
                if codes.is_empty() {
                    "nothing broken".to_string()
                } else {
                    codes.join("; ")
                }
            )
        }
    }
}
