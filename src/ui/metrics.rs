//! The metrics of SPEC §4, each with its change against the defaults.

use leptos::prelude::*;
use serde_json::Value;

use super::browser;
use super::lab::Lab;
use crate::model::trace::METRICS;

/// A metric's label for people, from the model's one table.
fn label(name: &str) -> &str {
    METRICS
        .iter()
        .find(|m| m.name == name)
        .map_or(name, |m| m.label)
}

/// How a metric's value reads.
pub fn show(value: &Value) -> String {
    match value {
        Value::Null => "—".into(),
        Value::String(s) => s.trim_start_matches("TASK_STATE_").to_string(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        other => other.to_string(),
    }
}

/// The change against the defaults: `+1`, `−2`, `was COMPLETED`, or empty.
pub fn delta(now: &Value, base: &Value) -> String {
    if now == base {
        return String::new();
    }
    match (now.as_i64(), base.as_i64()) {
        (Some(a), Some(b)) if a > b => format!("+{}", a - b),
        (Some(a), Some(b)) => format!("−{}", b - a),
        _ => format!("was {}", show(base)),
    }
}

/// Metrics the compact strip always shows; the others appear in it when
/// they differ from the defaults.
const STRIP_ALWAYS: [&str; 2] = ["events_delivered", "final_state"];

/// The metrics panel: every metric with its change against the defaults,
/// and, in a small frame or on a phone, a one-line strip of the metrics
/// that tell this scenario's story, with the full set one click away.
#[component]
pub fn MetricsPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let rows = move || {
        let base = lab.baseline.with_value(|m| m.entries());
        lab.run.with(|run| {
            run.trace
                .metrics
                .entries()
                .into_iter()
                .zip(base)
                .map(|((name, value), (_, base))| (name, delta(&value, &base), value))
                .collect::<Vec<_>>()
        })
    };
    let cards = move || {
        rows()
            .into_iter()
            .map(|(name, change, value)| {
                let changed = !change.is_empty();
                view! {
                    <div class="metric" class:metric--changed=changed data-metric=name>
                        <dt>{label(name)}</dt>
                        <dd>
                            <span class="metric__value">{show(&value)}</span>
                            <span class="metric__delta">{change}</span>
                        </dd>
                    </div>
                }
            })
            .collect_view()
    };
    let strip = move || {
        rows()
            .into_iter()
            .filter(|(name, change, _)| STRIP_ALWAYS.contains(name) || !change.is_empty())
            .map(|(name, change, value)| {
                let changed = !change.is_empty();
                view! {
                    <li class="metrics__chip" class:metrics__chip--changed=changed data-strip=name>
                        {label(name)}" "<strong>{show(&value)}</strong>
                        {changed.then(|| view! { " " <span class="metric__delta">{change.clone()}</span> })}
                    </li>
                }
            })
            .collect_view()
    };
    let compact = lab.embed || browser::is_narrow();
    view! {
        <section class="metrics" aria-label="Metrics">
            <ul class="metrics__strip" aria-label="Metrics that tell this scenario">{strip}</ul>
            <details class="metrics__all" open=!compact>
                <summary class="metrics__toggle">{format!("All {} metrics", METRICS.len())}</summary>
                <dl class="metrics__grid">{cards}</dl>
            </details>
        </section>
    }
}
