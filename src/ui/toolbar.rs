//! Export JSON, Import JSON, Copy link and Copy embed code.

use leptos::prelude::*;

use super::browser;
use super::compare::PinButton;
use super::examples::Examples;
use super::lab::{CaptureView, Lab};
use std::sync::Arc;

use crate::model::evidence::check::Imported;
use crate::model::evidence::import::import_files;
use crate::model::evidence::export::{Export, MAX_FILE_BYTES};
use crate::model::sim::simulate;

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

/// Applies imported files to the lab: an export restores its inputs; a
/// capture replaces the simulation in the views until the user goes back;
/// anything else is an inline error and nothing changes.
pub fn apply_import(lab: Lab, files: &[Vec<u8>]) {
    let slices: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    match import_files(&slices) {
        Ok(imported) => {
            let summary = import_summary(&imported);
            match imported {
                Imported::Export { scenario, report } => {
                    lab.leave_capture();
                    lab.scenario.set(scenario);
                    lab.step.set(None);
                    if report.findings.is_empty() {
                        lab.info(summary);
                    } else {
                        lab.error(summary);
                    }
                }
                Imported::Capture(report) => {
                    let clean = report.findings.is_empty();
                    lab.capture_task.set(0);
                    lab.step.set(None);
                    lab.capture.set(Some(Arc::new(CaptureView::new(report))));
                    if clean {
                        lab.info(summary);
                    } else {
                        lab.error(summary);
                    }
                }
            }
        }
        Err(e) => lab.error(format!("Import failed: {e}. Nothing was changed.")),
    }
}

/// The toolbar.
#[component]
pub fn Toolbar() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let export = move |_| {
        let scenario = lab.scenario.get_untracked();
        // The export is the simulation's, even while a capture is shown.
        let text = if lab.capture.with_untracked(Option::is_some) {
            Export::of(&scenario, &simulate(&scenario)).to_json()
        } else {
            lab.run
                .with_untracked(|run| Export::of(&scenario, run).to_json())
        };
        let name = format!("a2a-lab-{}.json", scenario.slug());
        match browser::download(&name, &text) {
            Ok(()) => lab.info(format!("Exported {name}.")),
            Err(e) => lab.error(format!("Export failed: {e}")),
        }
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
            let Some(list) = input.files() else {
                return;
            };
            // Several files are one capture, read in the order chosen.
            let files: Vec<web_sys::File> =
                (0..list.length()).filter_map(|i| list.get(i)).collect();
            input.set_value("");
            let total: f64 = files.iter().map(|f| f.size()).sum();
            if files.is_empty() {
                return;
            }
            if total > MAX_FILE_BYTES as f64 {
                lab.error(format!(
                    "Import failed: {total} bytes; the page reads at most {MAX_FILE_BYTES} (the a2a-lab CLI reads captures of any size). Nothing was changed."
                ));
                return;
            }
            leptos::task::spawn_local(async move {
                let mut contents = Vec::with_capacity(files.len());
                for file in files {
                    match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                        Ok(buffer) => contents.push(js_sys::Uint8Array::new(&buffer).to_vec()),
                        Err(_) => {
                            lab.error(format!(
                                "Import failed: {} could not be read. Nothing was changed.",
                                file.name()
                            ));
                            return;
                        }
                    }
                }
                apply_import(lab, &contents);
            });
        }
        #[cfg(not(target_arch = "wasm32"))]
        let _ = (ev, MAX_FILE_BYTES);
    };
    view! {
        <nav class="toolbar" aria-label="Evidence">
            <Examples/>
            <button on:click=export>"Export JSON"</button>
            <label class="toolbar__import button">
                "Import JSON"
                <input type="file" multiple class="visually-hidden" accept=".json,.jsonl,.txt,.sse,application/json,text/event-stream"
                    on:change=on_file/>
            </label>
            <button on:click=copy_link>"Copy link"</button>
            <button on:click=copy_embed>"Copy embed code"</button>
            <PinButton/>
        </nav>
    }
}
