//! An imported capture: its wire, its tasks (id, events, final state,
//! findings) with the chosen one shown in the table, timeline and state
//! diagram, its findings and JSON-RPC errors, and the way back to the
//! simulation. An imported `probe.json` is listed the same way, probe by
//! probe, each finding with what to fix.

use leptos::prelude::*;

use super::CollectAny;

use std::sync::Arc;

use super::deferred::{chunk, ChunkView, PanelStyle};
use super::lab::Lab;
use super::pacer::FramePacer;
use crate::model::evidence::capture::RpcError;
use crate::model::pictures::shown::Shown;

/// Tasks listed before the user asks for all of them: a big capture's list
/// would otherwise take the page a noticeable moment to build.
const LISTED: usize = 200;

chunk!(
    import,
    /// The capture panel's entry, in Import's chunk: a capture is shown only
    /// once Import has read it, so the chunk is in by then.
    pub fn capture_entry() -> ChunkView {
        Ok(|| view! { <PanelStyle/><CaptureTasks/> }.into_any())
    }
);

/// The capture panel; empty while the simulation is shown.
#[component]
pub fn CaptureTasks() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let all = RwSignal::new(false);
    // Each new capture starts with the short list.
    Effect::new(move |last: Option<Option<usize>>| {
        // A new import (not another choice in the same one) starts short.
        let now = lab
            .shown
            .with(|s| s.capture_view().map(|v| Arc::as_ptr(v) as usize));
        if last.is_some_and(|l| l != now) {
            all.set(false);
        }
        now
    });
    // The chosen task, when it waits to be explained, is searched once the
    // page has painted that it is on it, in slices that leave the page
    // free to answer input, until it ends or the user stops it; then the
    // panel shows what it found.
    Effect::new(move |_| {
        let Some((view, job)) = lab.shown.with(Shown::begin_chosen) else {
            return;
        };
        let stops = lab.explain_stops.get_untracked();
        leptos::task::spawn_local(async move {
            super::browser::after_paint().await;
            let stopped = move || lab.explain_stops.get_untracked() != stops;
            let found = job.run(Some(Box::new(FramePacer::new(stopped)))).await;
            view.ended(&job, found);
            lab.shown.update(|_| {});
        });
    });
    let panel = move || {
        let shown = lab.shown.get();
        let view = shown.capture_view()?.clone();
        let listed = if all.get() { usize::MAX } else { LISTED };
        let listing = shown.listing(listed)?;
        let tasks = view.report.tasks.len();
        let more = (!listing.probes && tasks > listed).then(|| more_button(listed, tasks, all));
        let probes = listing.probes;
        let rows = task_rows(listing.rows, shown.chosen(), lab);
        let findings = finding_items(listing.findings);
        let errors = error_items(&view.report.errors);
        let explained = explained_line(&shown, lab);
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
                        <thead><tr>{heads.into_iter().collect_any()}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                    {more}
                </div>
                <h2 class="capture__title">{listing.title}</h2>
                {explained}
                <ul class="capture__findings">{findings}</ul>
                <ul class="capture__errors">{errors}</ul>
            </section>
        }
        .into_any())
    };
    // Through `view!`, so the closure is type-erased like the others.
    view! { {move || panel()} }
}

/// The chosen task explained by a scenario, to open beside it; one that
/// waits says so while its search runs, one stopped offers to run it again.
fn explained_line(shown: &Shown, lab: Lab) -> Option<AnyView> {
    match shown.scenario_of_chosen() {
        Some(scenario) => Some(view! {
            <p class="capture__scenario">
                {scenario.to_string()}
                " "
                <button class="capture__open" on:click=move |_| lab.open_as_scenario()>"Open as a scenario"</button>
            </p>
        }
        .into_any()),
        None if shown.chosen_waits() => Some(view! {
            <p class="capture__explaining" role="status">
                "Explaining this task by a scenario… "
                <button class="capture__stop" on:click=move |_| lab.stop_explaining()>"Stop"</button>
            </p>
        }
        .into_any()),
        None if shown.chosen_stopped() => Some(view! {
            <p class="capture__explaining capture__explaining--stopped" role="status">
                "Explaining this task was stopped. "
                <button class="capture__again" on:click=move |_| lab.explain_again()>"Explain it"</button>
            </p>
        }
        .into_any()),
        None => None,
    }
}

/// The capture's JSON-RPC errors, each with its place in the capture.
fn error_items(errors: &[RpcError]) -> Vec<AnyView> {
    errors
        .iter()
        .map(|e| view! { <li>{format!("#{}: JSON-RPC error {} {}", e.index, e.code, e.message)}</li> })
        .collect_any()
}

/// "The first 200 of N tasks", with the button that lists them all.
fn more_button(listed: usize, tasks: usize, all: RwSignal<bool>) -> AnyView {
    view! {
        <p class="capture__more">
            {format!("The first {listed} of {tasks} tasks. ")}
            <button on:click=move |_| all.set(true)>"List all tasks"</button>
        </p>
    }
    .into_any()
}

/// The listed tasks (or probes), each a button that shows it; the chosen
/// one marked current.
fn task_rows(rows: Vec<([String; 4], bool)>, chosen: usize, lab: Lab) -> Vec<AnyView> {
    rows.into_iter()
        .enumerate()
        .map(|(i, ([label, a, b, c], bad))| {
            let current = i == chosen;
            let pick = move |_| lab.choose(i);
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
        .collect_any()
}

/// The chosen row's findings, each with what to fix where there is advice.
fn finding_items(findings: Vec<(&'static str, String, &'static str)>) -> Vec<AnyView> {
    findings
        .into_iter()
        .map(|(code, text, advice)| {
            let advice = (!advice.is_empty())
                .then(|| view! { <p class="capture__advice">{advice}</p> }.into_any());
            view! { <li><strong>{code}</strong>{text}{advice}</li> }
        })
        .collect_any()
}
