//! The metrics panel as data: each metric of SPEC §4 as it reads, its
//! change against the defaults ("change one thing at a time"), and whether
//! the compact strip shows it. The page only draws these.

use serde_json::Value;

use crate::model::state::TaskState;
use crate::model::trace::{Metric, Metrics};

/// Metrics the compact strip always shows; the others appear in it when
/// they differ from the defaults.
const STRIP_ALWAYS: [Metric; 2] = [Metric::EventsDelivered, Metric::FinalState];

/// One metric as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricCard {
    /// Which metric.
    pub metric: Metric,
    /// Its value, as it reads.
    pub value: String,
    /// Its change against the defaults (`+1`, `−2`, `was COMPLETED`), or
    /// empty.
    pub change: String,
    /// Whether the compact strip shows it.
    pub in_strip: bool,
}

/// How a metric's value reads: a state by its short name, a flag as
/// yes/no, a count as its number, nothing as a dash. A metric is never a
/// fraction, a list or an object ([`Metrics::value`]); were one, it too
/// would read as a dash, which keeps JSON's writers off the page's first
/// view.
pub fn show(value: &Value) -> String {
    match value {
        Value::String(s) => {
            TaskState::from_wire(s).map_or_else(|| s.clone(), |st| st.short().to_string())
        }
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        Value::Number(n) => n.as_i64().map_or_else(|| "—".into(), |n| n.to_string()),
        _ => "—".into(),
    }
}

/// The change from `base` to `now`: `+1`, `−2`, `was COMPLETED`, or empty.
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

/// Every metric of `now`, in the fixed order, against `base`.
pub fn metric_cards(now: &Metrics, base: &Metrics) -> Vec<MetricCard> {
    let base = base.entries();
    now.entries()
        .into_iter()
        .map(|(metric, value)| {
            // A push metric has no value in a baseline without push.
            let base = base
                .iter()
                .find(|(m, _)| *m == metric)
                .map_or(Value::Null, |(_, v)| v.clone());
            let change = delta(&value, &base);
            MetricCard {
                metric,
                in_strip: STRIP_ALWAYS.contains(&metric) || !change.is_empty(),
                value: show(&value),
                change,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sim::scenario::Scenario;
    use crate::model::sim::simulate;

    fn metrics(query: &str) -> Metrics {
        simulate(&Scenario::from_query(query).unwrap())
            .trace
            .metrics
    }

    #[test]
    fn a_late_artifact_changes_two_metrics_against_the_defaults_and_the_strip_shows_them() {
        let cards = metric_cards(&metrics("late=0"), &metrics(""));
        let changed: Vec<(&str, &str)> = cards
            .iter()
            .filter(|c| !c.change.is_empty())
            .map(|c| (c.metric.name(), c.change.as_str()))
            .collect();
        assert_eq!(
            changed,
            [
                ("events_delivered", "+1"),
                ("events_after_terminal", "+1"),
                ("get_task_artifacts", "+1")
            ]
        );
        let strip: Vec<&str> = cards
            .iter()
            .filter(|c| c.in_strip)
            .map(|c| c.metric.name())
            .collect();
        assert_eq!(
            strip,
            [
                "events_delivered",
                "events_after_terminal",
                "final_state",
                "get_task_artifacts"
            ]
        );
        let state = cards
            .iter()
            .find(|c| c.metric == Metric::FinalState)
            .unwrap();
        assert_eq!(
            (state.value.as_str(), state.change.as_str()),
            ("COMPLETED", "")
        );
    }

    #[test]
    fn a_state_that_changed_says_what_it_was_and_nothing_reads_as_a_dash() {
        let cards = metric_cards(&metrics("cancel=1&cancel_impl=raise"), &metrics(""));
        let state = cards
            .iter()
            .find(|c| c.metric == Metric::FinalState)
            .unwrap();
        assert_eq!(
            (state.value.as_str(), state.change.as_str()),
            ("FAILED", "was COMPLETED")
        );
        let blocking = cards
            .iter()
            .find(|c| c.metric == Metric::BlockingResultArtifacts)
            .unwrap();
        assert_eq!(blocking.value, "—");
        assert_eq!(delta(&Value::from(1), &Value::from(3)), "−2");
        assert_eq!(show(&Value::Bool(true)), "yes");
    }
}
