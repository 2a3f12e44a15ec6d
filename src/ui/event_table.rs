//! The decision trace as a table: one row per revealed trace row, the
//! current one marked; a long trace renders only a window around it. When
//! a client subscribes (SPEC §9), each row a client received or sent is
//! labelled with that client.

use leptos::prelude::*;

use super::CollectAny;

use super::lab::Lab;
use crate::model::trace::{Row, Run, Source};

/// Rows kept in the DOM at once, so a 10,000-row trace stays smooth.
pub const WINDOW: usize = 60;

/// The first and one-past-last row index rendered for `revealed` rows.
pub fn window(revealed: usize) -> (usize, usize) {
    (revealed.saturating_sub(WINDOW), revealed)
}

/// The event table.
#[component]
pub fn EventTable() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let rows = move || {
        let revealed = lab.revealed();
        let (from, to) = window(revealed);
        lab.run.with(|run| {
            let labelled = has_subscribers(run);
            run.trace.rows[from..to]
                .iter()
                .map(|row| render_row(lab, row, row.index + 1 == revealed, labelled))
                .collect_any()
        })
    };
    let note = move || {
        let revealed = lab.revealed();
        let (from, _) = window(revealed);
        (from > 0).then(|| {
            format!(
                "Showing rows {}–{} of {revealed} revealed; move the slider to see earlier rows.",
                from,
                revealed - 1
            )
            .into_any()
        })
    };
    view! {
        <section class="event-table" aria-label="Event trace">
            <div class="event-table__scroll" tabindex="0" role="region" aria-label="Trace rows (scrollable)">
                <table>
                    <caption>"Decision trace: each event with its time, source, disposition and the task state after it"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"#"</th>
                            <th scope="col">"t (ms)"</th>
                            <th scope="col">"source"</th>
                            <th scope="col">"event"</th>
                            <th scope="col">"disposition"</th>
                            <th scope="col">"state after"</th>
                        </tr>
                    </thead>
                    <tbody>{move || rows()}</tbody>
                </table>
            </div>
            <p class="event-table__note">{move || note()}</p>
        </section>
    }
}

/// Whether a client subscribed in this run, so rows say which client.
fn has_subscribers(run: &Run) -> bool {
    run.streams.iter().any(|s| s.role.is_subscription())
}

/// The client a row's label names: one that received it or acted.
pub fn client_label(row: &Row, labelled: bool) -> Option<String> {
    let names_a_client = row.wire.is_some() || row.source == Source::Client || row.client != 1;
    (labelled && names_a_client).then(|| format!("client {}", row.client))
}

fn render_row(lab: Lab, row: &Row, current: bool, labelled: bool) -> impl IntoView {
    let index = row.index;
    let disposition = row.disposition.label();
    // A zero-width space after the underscore lets a narrow column wrap
    // INPUT_REQUIRED there rather than inside a word.
    let state = row
        .state_after
        .map_or("lost".to_string(), |s| s.short().replace('_', "_\u{200b}"));
    let assumed = row.assumed.then(|| " (assumed)".into_any());
    // Always there, empty when the row names no client (one shape per row
    // keeps the page's WebAssembly small).
    let client = client_label(row, labelled).unwrap_or_default();
    view! {
        <tr class=format!("event-table__row disp-{disposition}") class:event-table__row--current=current
            aria-current=current.then_some("step") on:click=move |_| lab.step.set(Some(index + 1))>
            <td>{index.to_string()}</td>
            <td>{row.t_ms.to_string()}</td>
            <td>{row.source.label()}</td>
            <td><span class="event-table__client" data-client=row.client.to_string()>{client}</span>{row.event.clone()}{assumed}</td>
            <td><span class=format!("badge disp-{disposition}")>{disposition}</span></td>
            <td>{state}</td>
        </tr>
    }
}
