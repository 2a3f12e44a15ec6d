//! Export JSON, Import JSON, Copy link and Copy embed code.

use leptos::prelude::*;

use super::browser;
use super::compare::PinButton;
use super::examples::Examples;
use super::lab::Lab;
use crate::model::evidence::check::{import_bytes, Imported};
use crate::model::evidence::export::{Export, MAX_FILE_BYTES};

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
            let tasks: Vec<String> = report
                .tasks
                .iter()
                .take(8)
                .map(|t| {
                    format!(
                        "{} ({} events, {}, {} finding(s))",
                        t.id, t.events, t.final_state, t.findings
                    )
                })
                .collect();
            let more = report.tasks.len().saturating_sub(8);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let findings: Vec<String> = report
                .findings
                .iter()
                .take(8)
                .map(|f| {
                    format!(
                        "{} at event {} of {}: {}",
                        f.code, f.index, f.task, f.message
                    )
                })
                .collect();
            let verdict = if findings.is_empty() {
                "nothing broken".to_string()
            } else {
                findings.join("; ")
            };
            format!(
                "Checked a capture on the A2A {} wire: {} events, {} task(s): {}{more}. {verdict}.{}",
                report.wire,
                report.read,
                report.tasks.len(),
                tasks.join(", "),
                if report.errors.is_empty() {
                    String::new()
                } else {
                    format!(" {} JSON-RPC error(s).", report.errors.len())
                }
            )
        }
    }
}

/// Applies a file's bytes to the lab: an export restores its inputs; a raw
/// log is classified; anything else is an inline error and nothing changes.
pub fn apply_import(lab: Lab, bytes: &[u8]) {
    match import_bytes(bytes) {
        Ok(imported) => {
            let summary = import_summary(&imported);
            if let Imported::Export { scenario, report } = &imported {
                lab.scenario.set(scenario.clone());
                lab.step.set(None);
                if report.findings.is_empty() {
                    lab.info(summary);
                } else {
                    lab.error(summary);
                }
            } else if matches!(&imported, Imported::Capture(r) if r.findings.is_empty()) {
                lab.info(summary);
            } else {
                lab.error(summary);
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
        let text = lab
            .run
            .with_untracked(|run| Export::of(&scenario, run).to_json());
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
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            input.set_value("");
            if file.size() > MAX_FILE_BYTES as f64 {
                lab.error(format!(
                    "Import failed: {} is {} bytes; the lab reads at most {MAX_FILE_BYTES}. Nothing was changed.",
                    file.name(),
                    file.size()
                ));
                return;
            }
            leptos::task::spawn_local(async move {
                match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                    Ok(buffer) => apply_import(lab, &js_sys::Uint8Array::new(&buffer).to_vec()),
                    Err(_) => {
                        lab.error("Import failed: the file could not be read. Nothing was changed.")
                    }
                }
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
                <input type="file" class="visually-hidden" accept=".json,.txt,.sse,application/json,text/event-stream"
                    on:change=on_file/>
            </label>
            <button on:click=copy_link>"Copy link"</button>
            <button on:click=copy_embed>"Copy embed code"</button>
            <PinButton/>
        </nav>
    }
}
