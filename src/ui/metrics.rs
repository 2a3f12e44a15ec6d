//! The metrics of SPEC §4, each with its change against the defaults.

use leptos::prelude::*;
use serde_json::Value;

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

/// The metrics panel.
#[component]
pub fn MetricsPanel() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let cards = move || {
        let base = lab.baseline.with_value(|m| m.entries());
        lab.run.with(|run| {
            run.trace
                .metrics
                .entries()
                .into_iter()
                .zip(base)
                .map(|((name, value), (_, base))| {
                    let change = delta(&value, &base);
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
        })
    };
    view! {
        <section class="metrics" aria-label="Metrics">
            <dl class="metrics__grid">{cards}</dl>
        </section>
    }
}
