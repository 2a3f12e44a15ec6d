//! The shell: the lab's state ([`Lab`]) read from the URL, provided once,
//! and the layout.

use std::sync::Arc;

use leptos::prelude::*;

use super::browser;
use super::capture::capture_entry;
use super::compare::compare_entry;
use super::controls::Controls;
use super::deferred::{chunk, enter, ChunkView, Deferred, PanelStyle};
use super::diagram::StateDiagram;
use super::event_table::EventTable;
use super::flag;
use super::import::{on_drag, ImportStatus};
use super::lab::{arc_changed, Lab, Level, Message};
use super::ledger_panel::LedgerPanel;
use super::live::live_entry;
use super::metrics::MetricsPanel;
use super::outcome::{CarriesOver, OutcomeSentence};
use super::playback::Playback;
use super::timeline::Timeline;
use super::toolbar::Toolbar;
use crate::model::pictures::page::PageUrl;
use crate::model::pictures::shown::Shown;
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::trace::Run;

/// The page.
#[component]
pub fn App() -> impl IntoView {
    let PageUrl {
        scenario,
        step,
        embed,
        live,
        problem,
    } = PageUrl::read(&browser::query());
    let scenario = RwSignal::new(scenario);
    let shown = RwSignal::new(Shown::Simulation);
    // The views show the simulation, or the chosen task of an import.
    // A new run is a change even when it equals the last one: comparing
    // whole runs would cost the page's WebAssembly more than the redraw.
    let run = Memo::new_with_compare(
        move |_| {
            shown
                .with(Shown::run)
                .unwrap_or_else(|| Arc::new(scenario.with(simulate)))
        },
        arc_changed::<Run>,
    );
    let lab = Lab {
        scenario,
        step: RwSignal::new(step),
        playing: RwSignal::new(false),
        message: RwSignal::new(problem.map(|text| Message {
            level: Level::Error,
            text,
        })),
        run,
        baseline: StoredValue::new(simulate(&Scenario::default()).trace.metrics),
        embed,
        pinned: RwSignal::new(None),
        shown,
        import: RwSignal::new(None),
        dragging: RwSignal::new(false),
        explain_stops: RwSignal::new(0),
    };
    // Drag enters and leaves every element on the way; files are over the
    // lab while more enters than leaves were seen.
    let depth = StoredValue::new(0i32);
    provide_context(lab);

    // Live's page keeps the URL it was opened at (its token); the
    // scenario's query is not Live's to write.
    let live = live.is_some();
    mirror_url(lab, !live);

    // The simulation's own panels, hidden while an import is shown.
    let simulation = flag(move || !lab.showing_import());
    let pinned = flag(move || lab.pinned.with(Option::is_some));
    // The pictures are drawn once the trace above them has painted: on a
    // slow phone building them held the first trace row back.
    let painted = RwSignal::new(false);
    leptos::task::spawn_local(async move {
        browser::after_paint().await;
        painted.set(true);
        lab.resized();
    });

    view! {
        <div class="lab" class:lab--embed=embed
            on:dragenter=move |ev| on_drag(lab, depth, &ev)
            on:dragover=move |ev| on_drag(lab, depth, &ev)
            on:dragleave=move |ev| on_drag(lab, depth, &ev)
            on:drop=move |ev| on_drag(lab, depth, &ev)>
            {(!embed).then(|| view! {
                <header class="lab-header">
                    <h1>"A2A Lifecycle Lab"</h1>
                    <p class="lab-header__sub">{crate::model::pictures::sdk_difference::subtitle()}</p>
                </header>
            }.into_any())}
            <Toolbar/>
            <LabMessage/>
            <ImportStatus/>
            <div class="lab-body">
                <Controls/>
                <main class="lab-main">
                    {live.then(|| view! {
                        <Deferred what="Live" load=|| Box::pin(async { enter!(live_entry()) })/>
                    }.into_any())}
                    {move || (!simulation.get()).then(|| view! {
                        <Deferred what="The capture's tasks" load=|| Box::pin(async { enter!(capture_entry()) })/>
                    }.into_any())}
                    {move || simulation.get().then(|| view! {
                        <OutcomeSentence/>
                        <MetricsPanel/>
                    }.into_any())}
                    <Playback/>
                    <section class="pictures">{move || painted.get().then(|| view! { <StateDiagram/><Timeline/> }.into_any())}</section>
                    <EventTable/>
                    {move || simulation.get().then(|| view! {
                        {move || pinned.get().then(|| view! {
                            <Deferred what="Compare" load=|| Box::pin(async { enter!(compare_entry()) })/>
                        }.into_any())}
                        <Deferred what="What carries over, and the ledger" load=|| Box::pin(async { enter!(below_entry()) })/>
                    }.into_any())}
                </main>
            </div>
        </div>
    }
}

chunk!(
    rest,
    /// The simulation's panels below the trace, loaded once the first view
    /// shows: the advice that carries over and the ledger's cards.
    fn below_entry() -> ChunkView {
        Ok(|| view! { <PanelStyle/><CarriesOver/><LedgerPanel/> }.into_any())
    }
);

/// The URL mirrors the inputs and the slider, unless not `mirrored` (Live's
/// page keeps the URL with its token); embedded, the page tells its host
/// its height whenever it may have changed.
fn mirror_url(lab: Lab, mirrored: bool) {
    if !mirrored {
        return post_height(lab);
    }
    Effect::new(move |_| {
        let rows = lab.run.with(|r| r.trace.rows.len());
        let query = lab
            .scenario
            .with(|s| PageUrl::write(s, lab.step.get(), rows, lab.embed));
        browser::replace_query(&query);
    });
    post_height(lab);
}

/// Embedded, the page tells its host its height whenever it may have
/// changed.
fn post_height(lab: Lab) {
    if lab.embed {
        Effect::new(move |_| {
            lab.run.track();
            lab.step.track();
            browser::post_height_soon();
        });
    }
}

/// The lab's message to the user (a bad URL, an import's result), until
/// dismissed.
#[component]
fn LabMessage() -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        lab.message.get().map(|m| {
            view! {
                <p class=format!("lab-message lab-message--{}", m.level.class()) role=m.level.role()>
                    {m.text}
                    <button class="lab-message__close" aria-label="Dismiss message" on:click=move |_| lab.message.set(None)>"×"</button>
                </p>
            }
            .into_any()
        })
    }
}
