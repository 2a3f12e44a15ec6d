//! An imported capture: its wire, its tasks (id, events, final state,
//! findings) with the chosen one shown in the table, timeline and state
//! diagram, its findings and JSON-RPC errors, and the way back to the
//! simulation. An imported `probe.json` is listed the same way, probe by
//! probe, each finding with what to fix.

use leptos::prelude::*;

use super::lab::{CaptureView, Lab, ProbeView};
use crate::model::evidence::probe_report::Outcome;

/// Tasks listed before the user asks for all of them: a big capture's list
/// would otherwise take the page a noticeable moment to build.
const LISTED: usize = 200;

/// What the panel lists: a capture's tasks, or the probes of an imported
/// `probe.json` (one markup for both keeps the page's bundle small).
struct Listing {
    summary: String,
    caption: &'static str,
    heads: [&'static str; 4],
    /// Each row's four cells, and whether it found something broken.
    rows: Vec<([String; 4], bool)>,
    title: String,
    /// Each finding: its code, what happened, and what to fix (probes).
    findings: Vec<(&'static str, String, &'static str)>,
    probes: bool,
}

fn capture_listing(view: &CaptureView, chosen: usize, listed: usize) -> Listing {
    let report = &view.report;
    let task_id = report
        .tasks
        .get(chosen)
        .map(|t| t.id.clone())
        .unwrap_or_default();
    Listing {
        summary: format!(
            "A capture on the A2A {} wire: {} events, {} task(s), {} finding(s).",
            report.wire,
            report.read,
            report.tasks.len(),
            report.findings.len()
        ),
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
                    t.final_state.clone(),
                    t.findings.to_string(),
                ];
                (cells, t.findings > 0)
            })
            .collect(),
        findings: report
            .findings
            .iter()
            .filter(|f| f.task == task_id)
            .map(|f| {
                (
                    f.code.code(),
                    format!(" at event {}: {}", f.index, f.message),
                    "",
                )
            })
            .collect(),
        title: format!("Findings for {task_id}"),
        probes: false,
    }
}

fn probe_listing(view: &ProbeView, chosen: usize) -> Listing {
    let report = &view.report;
    let probe = report.probes.get(chosen).map(|p| p.name);
    let broken = report
        .probes
        .iter()
        .filter(|p| p.outcome == Outcome::Broken)
        .count();
    Listing {
        summary: format!(
            "A probe of {} at {} on the A2A {} wire: {broken} of {} probes found something broken.",
            report.agent.name,
            report.agent.url,
            report.agent.wire,
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
                (cells, p.outcome == Outcome::Broken)
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

/// The capture panel; empty while the simulation is shown.
#[component]
pub fn CaptureTasks() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let all = RwSignal::new(false);
    // Each new capture starts with the short list.
    Effect::new(move |_| {
        lab.capture.track();
        all.set(false);
    });
    move || {
        let view = lab.capture.get()?;
        let listed = if all.get() { usize::MAX } else { LISTED };
        let (listing, chosen) = match lab.probe.get() {
            Some(probe) => {
                let chosen = lab.probe_pick.get();
                (probe_listing(&probe, chosen), chosen)
            }
            None => {
                let chosen = lab.capture_task.get();
                (capture_listing(&view, chosen, listed), chosen)
            }
        };
        let tasks = view.report.tasks.len();
        let more = (!listing.probes && tasks > listed).then(|| {
            view! {
                <p class="capture__more">
                    {format!("The first {listed} of {tasks} tasks. ")}
                    <button on:click=move |_| all.set(true)>"List all tasks"</button>
                </p>
            }
        });
        let probes = listing.probes;
        let rows = listing
            .rows
            .into_iter()
            .enumerate()
            .map(|(i, ([label, a, b, c], bad))| {
                let current = i == chosen;
                let pick = move |_| {
                    if probes {
                        lab.show_probe(i);
                    } else {
                        lab.capture_task.set(i);
                        lab.step.set(None);
                    }
                };
                view! {
                    <tr class="capture__task" class:capture__task--current=current
                        aria-current=current.then_some("true")>
                        <td>
                            <button class="capture__pick" aria-pressed=current.to_string() on:click=pick>
                                {label}
                            </button>
                        </td>
                        <td>{a}</td>
                        <td>{b}</td>
                        <td class:capture__bad=bad>{c}</td>
                    </tr>
                }
            })
            .collect_view();
        let findings = listing
            .findings
            .into_iter()
            .map(|(code, text, advice)| {
                let advice =
                    (!advice.is_empty()).then(|| view! { <p class="capture__advice">{advice}</p> });
                view! { <li><strong>{code}</strong>{text}{advice}</li> }
            })
            .collect_view();
        let errors = view
            .report
            .errors
            .iter()
            .map(|e| view! { <li>{format!("#{}: JSON-RPC error {} {}", e.index, e.code, e.message)}</li> })
            .collect_view();
        let heads = listing.heads.map(|h| view! { <th scope="col">{h}</th> });
        Some(view! {
            <section class="capture" class:capture--probe=probes aria-label=if probes { "Imported probe" } else { "Imported capture" }>
                <div class="capture__head">
                    <p class="capture__summary">{listing.summary}</p>
                    <button class="capture__back" on:click=move |_| lab.leave_capture()>"Back to the simulation"</button>
                </div>
                <div class="capture__scroll">
                    <table class="capture__tasks">
                        <caption>{listing.caption}</caption>
                        <thead><tr>{heads.into_iter().collect_view()}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                    {more}
                </div>
                <h2 class="capture__title">{listing.title}</h2>
                <ul class="capture__findings">{findings}</ul>
                <ul class="capture__errors">{errors}</ul>
            </section>
        })
    }
}
