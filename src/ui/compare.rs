//! Compare mode: pin the current scenario as A (or open a captured task as
//! its scenario, [`super::beside`]), change controls for B, and see both
//! side by side with the differences marked.

use leptos::prelude::*;

use super::{flag, CollectAny};

use super::beside::TaskBeside;
use super::browser;
use super::deferred::{chunk, ChunkView, PanelStyle};
use super::lab::{Lab, Pinned};
use crate::model::evidence::compare::{compare_runs, Comparison};
use crate::model::pictures::metrics::show;
use crate::model::pictures::sdk_difference::{language, sdk_difference};
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::Sdk;
use crate::model::sim::simulate;
use crate::model::trace::Row;

/// The Pin / Unpin button.
#[component]
pub fn PinButton() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let toggle = move |_| {
        if lab.pinned.get_untracked().is_some() {
            lab.pinned.set(None);
        } else {
            lab.pinned
                .set(Some(Pinned::Scenario(lab.scenario.get_untracked())));
            lab.info("Pinned this scenario as A: change the controls to build B.");
        }
    };
    let compare_sdks = move |a: Sdk, b: Sdk| {
        let current = lab.scenario.get_untracked();
        match (current.with("sdk", a.name()), current.with("sdk", b.name())) {
            (Ok(a), Ok(b)) => {
                lab.info(format!(
                    "Comparing the same scenario under {} (A) and {} (B).",
                    Profile::of(a.sdk).name,
                    Profile::of(b.sdk).name
                ));
                lab.pinned.set(Some(Pinned::Scenario(a)));
                lab.scenario.set(b);
            }
            (Err(e), _) | (_, Err(e)) => lab.error(e.to_string()),
        }
    };
    // Every pair of the profile table's SDKs, in the table's order.
    let pairs = Sdk::ALL
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| Sdk::ALL[i + 1..].iter().map(move |&b| (a, b)));
    let pair_buttons = pairs
        .map(|(a, b)| {
            view! {
                <button on:click=move |_| compare_sdks(a, b)>
                    {format!("{} vs {}", language(a), language(b))}
                </button>
            }
        })
        .collect_any();
    view! {
        <button on:click=toggle aria-pressed=move || lab.pinned.with(Option::is_some).to_string()>
            {move || if lab.pinned.with(Option::is_some) { "Unpin A" } else { "Pin as A (compare)" }.to_string()}
        </button>
        <span class="compare__sdks" role="group" aria-label="Compare the scenario under two SDKs">{pair_buttons}</span>
    }
}

fn rows_view(rows: &[Row], from: Option<usize>) -> impl IntoView {
    rows.iter()
        .take(200)
        .map(|r| {
            let diverged = from.is_some_and(|f| r.index >= f);
            view! {
                <li class:compare__row--diverged=diverged>
                    {format!("{} · {} · {} · {}", r.index, r.t_ms, r.event, r.disposition.label())}
                </li>
            }
        })
        .collect_any()
}

chunk!(
    compare,
    /// The comparison's chunk, loaded when A is first pinned: [`Compare`]
    /// and what only it reaches (comparing two runs, a captured task opened
    /// beside its scenario).
    pub fn compare_entry() -> ChunkView {
        Ok(|| view! { <PanelStyle/><Compare/> }.into_any())
    }
);

/// The comparison, shown while a scenario or a captured task is pinned.
#[component]
pub fn Compare() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // Every new comparison counts as a change (comparing two pairs of runs
    // costs the page's WebAssembly more than the redraw).
    let comparison = Memo::new_with_compare(
        move |_| {
            let Some(Pinned::Scenario(a)) = lab.pinned.get() else {
                return None;
            };
            let b = lab.scenario.get();
            let run_b = lab.run.with(|r| (**r).clone());
            Some(compare_runs(&a, simulate(&a), &b, run_b))
        },
        |_, _| true,
    );
    let export = move |_| {
        if let Some(c) = comparison.get_untracked() {
            let name = format!("a2a-lab-compare-{}-vs-{}.json", c.a.slug(), c.b.slug());
            if let Err(e) = browser::download(&name, &c.to_json()) {
                lab.error(format!("Export failed: {e}"));
            }
        }
    };
    let body = move || {
        comparison.with(|c| {
            c.as_ref().map(|c: &Comparison| {
                let label = |q: String| if q.is_empty() { "defaults".to_string() } else { q };
                let metric_rows = metric_rows(c);
                let summary = summary(c);
                let why = why_items(c);
                view! {
                    <p class="compare__summary">{summary}</p>
                    <ul class="compare__why">{why}</ul>
                    <table class="compare__metrics">
                        <caption>"Metrics, A against B"</caption>
                        <thead><tr>
                            <th scope="col">"metric"</th>
                            <th scope="col">{format!("A: {}", label(c.a.to_query()))}</th>
                            <th scope="col">{format!("B: {}", label(c.b.to_query()))}</th>
                            <th scope="col">""</th>
                        </tr></thead>
                        <tbody>{metric_rows}</tbody>
                    </table>
                    <div class="compare__traces">
                        <ol class="compare__trace" aria-label="Trace A">{rows_view(&c.run_a.trace.rows, c.first_divergence)}</ol>
                        <ol class="compare__trace" aria-label="Trace B">{rows_view(&c.run_b.trace.rows, c.first_divergence)}</ol>
                    </div>
                    <button on:click=export>"Export comparison"</button>
                }
                .into_any()
            })
        })
    };
    let pinned = flag(move || lab.pinned.with(Option::is_some));
    view! {
        {move || pinned.get().then(|| view! {
            <section class="compare" aria-label="Compare A and B">
                <h2>"Compare"</h2>
                {move || body()}
                <TaskBeside/>
            </section>
        }.into_any())}
    }
}

/// Each metric of A beside B's, the ones that differ marked.
fn metric_rows(c: &Comparison) -> Vec<AnyView> {
    let a = c.run_a.trace.metrics.entries();
    let b = c.run_b.trace.metrics.entries();
    a.into_iter()
        .zip(b)
        .map(|((metric, a), (_, b))| {
            let differs = a != b;
            view! {
                <tr class:compare__diff=differs>
                    <th scope="row">{metric.name()}</th>
                    <td>{show(&a)}</td>
                    <td>{show(&b)}</td>
                    <td>{if differs { "differs" } else { "" }}</td>
                </tr>
            }
        })
        .collect_any()
}

/// How many metrics differ, and the row where the traces part.
fn summary(c: &Comparison) -> String {
    if c.differences.is_empty() {
        return "A and B give the same metrics.".to_string();
    }
    format!(
        "{} metric(s) differ; the traces part ways at row {}.",
        c.differences.len(),
        c.first_divergence.map_or("—".into(), |i| i.to_string())
    )
}

/// Why each differing metric differs, where A and B run on two SDKs: each
/// side read off its profile row.
fn why_items(c: &Comparison) -> Option<AnyView> {
    (c.a.sdk != c.b.sdk).then(|| {
        let mut reasons: Vec<String> = c
            .differences
            .iter()
            .map(|d| sdk_difference(d.metric, &c.a, &c.b))
            .collect();
        reasons.dedup();
        reasons
            .into_iter()
            .map(|r| view! { <li>{r}</li> })
            .collect_any()
            .into_any()
    })
}
