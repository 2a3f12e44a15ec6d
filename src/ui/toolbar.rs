//! Export JSON, Import JSON, Copy link and Copy embed code.

use leptos::prelude::*;

use std::sync::Arc;

use super::browser;
use super::compare::PinButton;
use super::deferred::{chunk, enter, Unloaded};
use super::examples::Examples;
#[cfg(target_arch = "wasm32")]
use super::import::import;
use super::import::{limit_text, preload};
use super::lab::Lab;
use crate::model::pictures::shown::Shown;

use crate::model::evidence::export::Export;
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::trace::Run;

chunk!(
    rest,
    /// Export's chunk: the export's JSON of `scenario`, from `run` when it is
    /// the scenario's simulation already (simulated here otherwise).
    fn export_json(scenario: Scenario, run: Option<Arc<Run>>) -> Result<String, Unloaded> {
        let run = run.unwrap_or_else(|| Arc::new(simulate(&scenario)));
        Ok(Export::of(&scenario, &run).to_json())
    }
);

/// The toolbar.
#[component]
pub fn Toolbar() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let export = move |_| {
        let scenario = lab.scenario.get_untracked();
        // The export is the simulation's, even while a capture is shown.
        let run = lab
            .shown
            .with_untracked(Shown::is_simulation)
            .then(|| lab.run.get_untracked());
        leptos::task::spawn_local(async move {
            let name = format!("a2a-lab-{}.json", scenario.slug());
            match enter!(export_json(scenario, run)) {
                Ok(text) => match browser::download(&name, &text) {
                    Ok(()) => lab.info(format!("Exported {name}.")),
                    Err(e) => lab.error(format!("Export failed: {e}")),
                },
                Err(_) => lab.error("Export could not load its writer: the page's server did not send it (offline?). Export JSON again to retry."),
            }
        });
    };
    let link = move || {
        let query = lab.scenario.with(|s| s.to_query());
        let base = browser::base_url();
        if query.is_empty() {
            base
        } else {
            format!("{base}?{query}")
        }
    };
    let copy_link = move |_| {
        browser::copy(&link());
        lab.info("Link copied.");
    };
    let copy_embed = move |_| {
        let url = link();
        let sep = if url.contains('?') { '&' } else { '?' };
        let code = format!(
            "<iframe src=\"{url}{sep}embed=1\" width=\"720\" height=\"480\" title=\"A2A Lifecycle Lab\" loading=\"lazy\"></iframe>"
        );
        browser::copy(&code);
        lab.info(format!("Embed code copied: {code}"));
    };
    let on_file = move |ev: leptos::ev::Event| {
        #[cfg(target_arch = "wasm32")]
        {
            use wasm_bindgen::JsCast;
            let Some(input) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            else {
                return;
            };
            // Several files are one capture, read in the order chosen.
            let files: Vec<web_sys::File> = input.files().map_or_else(Vec::new, |list| {
                (0..list.length()).filter_map(|i| list.get(i)).collect()
            });
            input.set_value("");
            import(lab, files);
        }
        #[cfg(not(target_arch = "wasm32"))]
        let _ = (ev, lab);
    };
    view! {
        <nav class="toolbar" aria-label="Evidence">
            <Examples/>
            <button on:click=export>"Export JSON"</button>
            <label class="toolbar__import button" on:click=move |_| preload()>
                "Import JSON"
                <input type="file" multiple class="visually-hidden" accept=".json,.jsonl,.txt,.sse,application/json,text/event-stream"
                    aria-describedby="import-hint" on:change=on_file/>
            </label>
            <button on:click=copy_link>"Copy link"</button>
            <button on:click=copy_embed>"Copy embed code"</button>
            <PinButton/>
            <span class="toolbar__hint" id="import-hint">
                {format!("Import JSON takes an export or a capture; several files are one capture, read in the order chosen. Files can be dropped on the page too. Up to {} here; the a2a-lab CLI reads any size.", limit_text())}
            </span>
        </nav>
    }
}
