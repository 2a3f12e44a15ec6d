//! The metrics of SPEC §4, each with its change against the defaults.

use leptos::prelude::*;

use super::CollectAny;

use super::browser;
use super::lab::Lab;
use crate::model::pictures::metrics::metric_cards;

/// The metrics panel: every metric with its change against the defaults,
/// and, in a small frame or on a phone, a one-line strip of the metrics
/// that tell this scenario's story, with the full set one click away.
#[component]
pub fn MetricsPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let rows = move || {
        lab.baseline
            .with_value(|base| lab.run.with(|run| metric_cards(&run.trace.metrics, base)))
    };
    let cards = move || {
        rows()
            .into_iter()
            .map(|card| {
                let changed = !card.change.is_empty();
                view! {
                    <div class="metric" class:metric--changed=changed data-metric=card.metric.name()>
                        <dt>{card.metric.label()}</dt>
                        <dd>
                            <span class="metric__value">{card.value}</span>
                            <span class="metric__delta">{card.change}</span>
                        </dd>
                    </div>
                }
            })
            .collect_any()
    };
    let strip = move || {
        rows()
            .into_iter()
            .filter(|card| card.in_strip)
            .map(|card| {
                let changed = !card.change.is_empty();
                let change = card.change;
                view! {
                    <li class="metrics__chip" class:metrics__chip--changed=changed data-strip=card.metric.name()>
                        {card.metric.label()}" "<strong>{card.value}</strong>
                        {changed.then(|| view! { " " <span class="metric__delta">{change}</span> }.into_any())}
                    </li>
                }
            })
            .collect_any()
    };
    let compact = lab.embed || browser::is_narrow();
    // Closed (in a frame, on a phone), the cards are built when first
    // opened, not before the first trace row.
    let opened = RwSignal::new(!compact);
    view! {
        <section class="metrics" aria-label="Metrics">
            <ul class="metrics__strip" aria-label="Metrics that tell this scenario">{move || strip()}</ul>
            <details class="metrics__all" open=!compact
                on:toggle=move |_| {
                    if !opened.get_untracked() {
                        opened.set(true);
                    }
                    lab.resized();
                }>
                <summary class="metrics__toggle">{move || format!("All {} metrics", rows().len())}</summary>
                <dl class="metrics__grid">{move || opened.get().then(cards)}</dl>
            </details>
        </section>
    }
}
