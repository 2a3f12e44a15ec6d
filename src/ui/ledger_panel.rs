//! The operator's view of seed 000: which accepted status owns the task,
//! from receipts alone.

use leptos::prelude::*;

use super::CollectAny;

use super::lab::Lab;

/// The ledger panel, one card per task, as the ledger stands at the end of
/// the trace.
#[component]
pub fn LedgerPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let cards = move || {
        lab.run.with(|run| {
            let end = run.trace.rows.last().map_or(0, |r| r.t_ms);
            run.ledgers
                .iter()
                .map(|ledger| {
                    let p = ledger.panel(end);
                    let artifacts = p
                        .artifacts
                        .iter()
                        .map(|a| {
                            let expected = a.parts_expected.map_or("?".to_string(), |n| n.to_string());
                            let done = if a.complete { "complete" } else { "open" };
                            view! { <li>{format!("{}: {}/{expected} parts, {done}", a.artifact_id, a.parts_stored)}</li> }
                        })
                        .collect_any();
                    let receipt = p.terminal_receipt.as_ref().map_or("none (not terminal)".to_string(), |r| {
                        format!("{} at sequence {}, digest {}…", r.event_id, r.sequence, &r.digest[..16])
                    });
                    view! {
                        <div class="ledger-panel__card">
                            <h3>{format!("Task {}", p.task_id)}</h3>
                            <dl>
                                <dt>"owns the task"</dt><dd>{p.state.label()}</dd>
                                <dt>"owner"</dt><dd>{p.owner.clone().unwrap_or_else(|| "—".into())}</dd>
                                <dt>"age in state"</dt><dd>{format!("{} ms", p.age_in_state_ms)}</dd>
                                <dt>"last accepted sequence"</dt><dd>{p.last_accepted_sequence.to_string()}</dd>
                                <dt>"rejected"</dt><dd>{p.rejected_count.to_string()}</dd>
                                <dt>"cancel requests"</dt><dd>{p.cancel_requests.to_string()}</dd>
                                <dt>"incidents"</dt><dd>{p.incidents.to_string()}</dd>
                                <dt>"manifest"</dt><dd>{p.manifest.clone().unwrap_or_else(|| "—".into())}</dd>
                                <dt>"terminal receipt"</dt><dd class="ledger-panel__digest">{receipt}</dd>
                            </dl>
                            <ul class="ledger-panel__artifacts">{artifacts}</ul>
                        </div>
                    }
                })
                .collect_any()
        })
    };
    view! {
        <details class="ledger-panel" on:toggle=move |_| lab.resized()>
            <summary>"Ledger (operator view)"</summary>
            <div class="ledger-panel__cards">{move || cards()}</div>
        </details>
    }
}
