//! What the page shows instead of the simulation, as data: an imported
//! capture (judged, each task as a run) or an imported `probe.json` (each
//! probe's calls as a capture), the one [`Shown`] value that says which and
//! which task or probe is chosen, the listing the capture panel draws, and
//! the sentence an import reports (`listing`). The page only draws these.

mod listing;

pub use listing::{capture_listing, import_summary, probe_listing, Listing};

use std::sync::{Arc, Mutex};

use crate::model::evidence::capture::explaining::{Explaining, Job};
use crate::model::evidence::capture::run::task_run;
use crate::model::evidence::capture::{CaptureReader, CaptureReport};
use crate::model::evidence::probe::records::capture_of_calls;
use crate::model::evidence::probe::report::ProbeReport;
use crate::model::evidence::scenario_of::ScenarioOf;
use crate::model::pictures::beside::PinnedTask;
use crate::model::trace::Run;

/// An imported capture, judged, with each task as a run for the views.
#[derive(Debug)]
pub struct CaptureView {
    /// What the capture breaks, task by task.
    pub report: CaptureReport,
    /// Each task's events as a run, in the order of `report.tasks`.
    pub runs: Vec<Arc<Run>>,
    /// Its tasks explained by a scenario each when first shown, from the
    /// events the reader kept (a lock: the view is shared, and shown).
    explaining: Mutex<Explaining>,
}

impl CaptureView {
    /// A judged capture made ready for the views; the events its reader
    /// kept wait to explain each task when it is shown.
    pub fn new(mut report: CaptureReport) -> CaptureView {
        let rows = std::mem::take(&mut report.rows);
        let runs = rows.into_iter().map(|r| Arc::new(task_run(r))).collect();
        let explaining = Mutex::new(Explaining::of(&mut report));
        CaptureView {
            report,
            runs,
            explaining,
        }
    }

    /// The search for task `i`, to run apart from the view (the page runs
    /// it in steps), if it waits and none is under way.
    pub fn begin(&self, i: usize) -> Option<Job> {
        let mut explaining = self.explaining.lock().ok()?;
        explaining.begin(i, &self.report)
    }

    /// How `job`'s search ended: what it found, or `None` when stopped.
    pub fn ended(&self, job: &Job, found: Option<ScenarioOf>) {
        if let Ok(mut explaining) = self.explaining.lock() {
            explaining.ended(job, found);
        }
    }

    /// Whether task `i` waits to be explained: asking for it searches.
    pub fn waits(&self, i: usize) -> bool {
        self.explaining
            .lock()
            .is_ok_and(|explaining| explaining.waits(i, &self.report))
    }

    /// Whether the user stopped task `i`'s search.
    pub fn stopped(&self, i: usize) -> bool {
        self.explaining
            .lock()
            .is_ok_and(|explaining| explaining.is_stopped(i))
    }

    /// Task `i`, stopped, asked for again.
    pub fn retry(&self, i: usize) {
        if let Ok(mut explaining) = self.explaining.lock() {
            explaining.retry(i);
        }
    }

    /// What explains task `i` without searching: the scenario it was given
    /// or was found for it.
    fn explained(&self, i: usize) -> Option<ScenarioOf> {
        let explaining = self.explaining.lock().ok()?;
        explaining.known(i, &self.report)
    }
}

/// An imported `probe.json`: the report, and each probe's calls judged as
/// one capture for the views.
#[derive(Debug)]
pub struct ProbeView {
    /// What the probe found.
    pub report: ProbeReport,
    /// Each probe's calls as a capture, in the order of `report.probes`.
    pub captures: Vec<Arc<CaptureView>>,
}

impl ProbeView {
    /// Judges each probe's calls (on the wire the agent was spoken to in).
    pub fn new(report: ProbeReport) -> ProbeView {
        let wire = Some(report.agent.wire);
        let captures = report
            .probes
            .iter()
            .map(|p| {
                let calls: Vec<&str> = p.calls.iter().map(String::as_str).collect();
                // A call whose answer the reader cannot take is shown as
                // nothing received; the probe's own findings still say why.
                let judged = capture_of_calls(&calls, wire)
                    .unwrap_or_else(|_| CaptureReader::new(wire).keeping_rows().finish());
                Arc::new(CaptureView::new(judged))
            })
            .collect();
        ProbeView { report, captures }
    }
}

/// What the views show: the simulation, an imported capture with its
/// chosen task, or an imported probe report with its chosen probe (whose
/// calls are shown as a capture). One value, so the choices cannot
/// disagree.
#[derive(Debug, Clone, Default)]
pub enum Shown {
    /// The simulated scenario.
    #[default]
    Simulation,
    /// An imported capture and the task chosen in it.
    Capture {
        /// The capture.
        view: Arc<CaptureView>,
        /// The chosen task, an index into its tasks.
        task: usize,
    },
    /// An imported probe report and the probe chosen in it.
    Probe {
        /// The report.
        view: Arc<ProbeView>,
        /// The chosen probe, an index into its probes.
        probe: usize,
        /// The chosen task of that probe's calls.
        task: usize,
    },
}

impl Shown {
    /// A capture, its first task chosen.
    pub fn capture(report: CaptureReport) -> Shown {
        Shown::Capture {
            view: Arc::new(CaptureView::new(report)),
            task: 0,
        }
    }

    /// A probe report, its first probe that received anything chosen (the
    /// `card` probe, first, makes no call to show as a trace).
    pub fn probe(report: ProbeReport) -> Shown {
        let probe = report
            .probes
            .iter()
            .position(|p| !p.calls.is_empty())
            .unwrap_or(0);
        Shown::Probe {
            view: Arc::new(ProbeView::new(report)),
            probe,
            task: 0,
        }
    }

    /// Whether the simulation is shown.
    pub fn is_simulation(&self) -> bool {
        matches!(self, Shown::Simulation)
    }

    /// The capture whose task the views show, if any (a probe's is the
    /// chosen probe's calls).
    pub fn capture_view(&self) -> Option<&Arc<CaptureView>> {
        match self {
            Shown::Simulation => None,
            Shown::Capture { view, .. } => Some(view),
            Shown::Probe { view, probe, .. } => view.captures.get(*probe),
        }
    }

    /// The chosen task's run when an import is shown: empty when there is
    /// no such task (a probe that made no call, such as `card`), so that
    /// the views never fall back to the simulation while an import is
    /// shown.
    pub fn run(&self) -> Option<Arc<Run>> {
        let task = match self {
            Shown::Simulation => return None,
            Shown::Capture { task, .. } | Shown::Probe { task, .. } => *task,
        };
        let run = self.capture_view().and_then(|v| v.runs.get(task).cloned());
        Some(run.unwrap_or_else(|| Arc::new(task_run(Vec::new()))))
    }

    /// The same import with row `i` of its listing chosen: a capture's
    /// task, or a probe (whose first task is then shown). Out of range, it
    /// is unchanged.
    pub fn choose(&self, i: usize) -> Shown {
        match self {
            Shown::Capture { view, .. } if i < view.report.tasks.len() => Shown::Capture {
                view: view.clone(),
                task: i,
            },
            Shown::Probe { view, .. } if i < view.captures.len() => Shown::Probe {
                view: view.clone(),
                probe: i,
                task: 0,
            },
            other => other.clone(),
        }
    }

    /// What the capture panel lists, the first `listed` tasks of a capture.
    pub fn listing(&self, listed: usize) -> Option<Listing> {
        match self {
            Shown::Simulation => None,
            Shown::Capture { view, task } => Some(capture_listing(view, *task, listed)),
            Shown::Probe { view, probe, .. } => Some(probe_listing(view, *probe)),
        }
    }

    /// The chosen task: of the capture, or of the chosen probe's calls.
    fn chosen_task(&self) -> Option<(&CaptureView, usize)> {
        match self {
            Shown::Simulation => None,
            Shown::Capture { task, .. } | Shown::Probe { task, .. } => {
                Some((self.capture_view()?, *task))
            }
        }
    }

    /// The scenario that explains the chosen task, where it has a finding
    /// and its events were read (issue 33), once it is explained.
    pub fn scenario_of_chosen(&self) -> Option<ScenarioOf> {
        let (view, task) = self.chosen_task()?;
        view.explained(task)
    }

    /// Whether the chosen task waits to be explained.
    pub fn chosen_waits(&self) -> bool {
        self.chosen_task()
            .is_some_and(|(view, task)| view.waits(task))
    }

    /// The chosen task's search, to run apart (the page runs it in steps,
    /// once it has painted that it is on it), with the view to hand back
    /// what it finds.
    pub fn begin_chosen(&self) -> Option<(Arc<CaptureView>, Job)> {
        let view = Arc::clone(self.capture_view()?);
        let (_, task) = self.chosen_task()?;
        let job = view.begin(task)?;
        Some((view, job))
    }

    /// Whether the user stopped the chosen task's search.
    pub fn chosen_stopped(&self) -> bool {
        self.chosen_task()
            .is_some_and(|(view, task)| view.stopped(task))
    }

    /// The chosen task, stopped, asked for again.
    pub fn retry_chosen(&self) {
        if let Some((view, task)) = self.chosen_task() {
            view.retry(task);
        }
    }

    /// The chosen task as compare mode pins it, beside its scenario.
    pub fn pinned_task(&self) -> Option<Arc<PinnedTask>> {
        let (view, task) = self.chosen_task()?;
        let summary = view.report.tasks.get(task)?;
        let rows = &view.runs.get(task)?.trace.rows;
        PinnedTask::new(&summary.id, view.explained(task).as_ref(), rows)
    }

    /// The chosen row of the listing.
    pub fn chosen(&self) -> usize {
        match self {
            Shown::Simulation => 0,
            Shown::Capture { task, .. } => *task,
            Shown::Probe { probe, .. } => *probe,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evidence::import::{import_bytes, Imported};

    /// Two tasks: a clean one and one with an artifact after its terminal
    /// status.
    fn two_tasks() -> CaptureReport {
        let lines = [
            r#"{"kind":"task","id":"a","contextId":"c","status":{"state":"submitted"}}"#,
            r#"{"kind":"status-update","taskId":"a","contextId":"c","status":{"state":"completed"},"final":true}"#,
            r#"{"kind":"task","id":"b","contextId":"c","status":{"state":"submitted"}}"#,
            r#"{"kind":"status-update","taskId":"b","contextId":"c","status":{"state":"completed"},"final":true}"#,
            r#"{"kind":"artifact-update","taskId":"b","contextId":"c","artifact":{"artifactId":"x","parts":[]},"append":false,"lastChunk":true}"#,
        ];
        let mut reader = CaptureReader::new(None).keeping_rows();
        reader.read_bytes(lines.join("\n").as_bytes()).unwrap();
        reader.finish()
    }

    #[test]
    fn a_capture_lists_its_tasks_and_shows_the_chosen_ones_findings_and_run() {
        let shown = Shown::capture(two_tasks());
        assert!(!shown.is_simulation());
        let listing = shown.listing(200).unwrap();
        assert_eq!(listing.rows.len(), 2);
        assert_eq!(listing.rows[0].0[0], "a");
        assert!(!listing.rows[0].1 && listing.rows[1].1, "only b is broken");
        assert!(listing.findings.is_empty(), "a has no findings");
        assert_eq!(shown.run().unwrap().trace.rows.len(), 2);

        let b = shown.choose(1);
        assert_eq!(b.chosen(), 1);
        let listing = b.listing(200).unwrap();
        assert_eq!(listing.title, "Findings for b");
        assert_eq!(listing.findings[0].0, "after-terminal");
        assert_eq!(b.run().unwrap().trace.rows.len(), 3);
        // A row that is not there changes nothing.
        assert_eq!(b.choose(7).chosen(), 1);
        // The listing stops at what was asked for.
        assert_eq!(shown.listing(1).unwrap().rows.len(), 1);
    }

    #[test]
    fn a_probe_report_opens_on_its_first_probe_with_calls() {
        let stream =
            "data: {\"kind\":\"task\",\"id\":\"t\",\"status\":{\"state\":\"completed\"}}\n\n";
        let text = serde_json::json!({
            "format": "a2a-lifecycle-lab/probe",
            "agent": {"name": "A", "url": "http://h", "wire": "0.3", "binding": "rest"},
            "probes": [
                {"name": "card", "outcome": "broken", "summary": "s", "findings": ["card-field"]},
                {"name": "stream", "outcome": "clean", "summary": "s", "findings": [], "calls": [stream]}
            ],
            "findings": [{"code": "card-field", "probe": "card", "message": "`skills` is an empty list"}]
        });
        let report = ProbeReport::from_json(&text.to_string()).unwrap();
        let shown = Shown::probe(report);
        assert_eq!(shown.chosen(), 1, "the stream, not the card");
        assert_eq!(shown.run().unwrap().trace.rows.len(), 1);
        let card = shown.choose(0);
        let listing = card.listing(10).unwrap();
        assert!(
            listing
                .summary
                .contains("on the A2A 0.3 wire over HTTP+JSON"),
            "{}",
            listing.summary
        );
        assert_eq!(listing.findings[0].0, "card-field");
        let nothing = card.run().expect("an import is shown");
        assert!(nothing.trace.rows.is_empty(), "the card probe made no call");
    }

    #[test]
    fn the_simulation_lists_nothing_and_has_no_imported_run() {
        let shown = Shown::Simulation;
        assert!(shown.is_simulation());
        assert!(shown.listing(10).is_none() && shown.run().is_none());
        assert!(shown.choose(1).is_simulation());
    }

    #[test]
    fn an_import_says_what_was_read() {
        let mut reader = CaptureReader::new(None);
        reader
            .read_bytes(b"{\"kind\":\"task\",\"id\":\"t\",\"status\":{\"state\":\"working\"}}")
            .unwrap();
        let imported = Imported::Capture(reader.finish());
        let said = import_summary(&imported);
        assert!(
            said.starts_with("Read a capture on the A2A 0.3 wire: 1 events, 1 task(s)"),
            "{said}"
        );
        assert!(said.contains("missing-terminal at event 0 of t"), "{said}");
        let export = crate::model::evidence::export::export_json(
            &crate::model::sim::scenario::Scenario::default(),
        );
        let said = import_summary(&import_bytes(export.as_bytes()).unwrap());
        assert_eq!(
            said,
            "Imported an export of `defaults`: the re-simulated trace matches the file."
        );
    }
}
