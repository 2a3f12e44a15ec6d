//! Compare mode: two scenarios side by side, with the metrics that differ
//! and the first row where the traces part ways.

use serde::Serialize;
use serde_json::Value;

use crate::model::evidence::export::{pretty_json, Export};
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::trace::Run;
use crate::model::trace::{Metric, Row};

/// A metric whose value differs between A and B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricDiff {
    /// The metric (its fixed name in JSON).
    #[serde(rename = "name")]
    pub metric: Metric,
    /// Its value under A.
    pub a: Value,
    /// Its value under B.
    pub b: Value,
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Scenario A (pinned).
    pub a: Scenario,
    /// Scenario B (current).
    pub b: Scenario,
    /// A's run.
    pub run_a: Run,
    /// B's run.
    pub run_b: Run,
    /// Metrics that differ, in the fixed order.
    pub differences: Vec<MetricDiff>,
    /// The first row index where the traces differ (ignoring time), if any.
    pub first_divergence: Option<usize>,
}

/// What two rows must share to count as the same step.
fn same_step(x: &Row, y: &Row) -> bool {
    x.source == y.source
        && x.client == y.client
        && x.event == y.event
        && x.disposition == y.disposition
        && x.state_after == y.state_after
}

/// Compares two already simulated runs.
pub fn compare_runs(a: &Scenario, run_a: Run, b: &Scenario, run_b: Run) -> Comparison {
    let differences = run_a
        .trace
        .metrics
        .entries()
        .into_iter()
        .zip(run_b.trace.metrics.entries())
        .filter(|((_, x), (_, y))| x != y)
        .map(|((metric, x), (_, y))| MetricDiff { metric, a: x, b: y })
        .collect();
    let rows_a = &run_a.trace.rows;
    let rows_b = &run_b.trace.rows;
    let first_divergence = rows_a
        .iter()
        .zip(rows_b)
        .position(|(x, y)| !same_step(x, y))
        .or_else(|| (rows_a.len() != rows_b.len()).then(|| rows_a.len().min(rows_b.len())));
    Comparison {
        a: a.clone(),
        b: b.clone(),
        run_a,
        run_b,
        differences,
        first_divergence,
    }
}

/// Simulates both scenarios and compares them.
pub fn compare(a: &Scenario, b: &Scenario) -> Comparison {
    compare_runs(a, simulate(a), b, simulate(b))
}

/// The export of a comparison: both exports and the differences.
#[derive(Serialize)]
struct ComparisonExport<'a> {
    format: &'static str,
    version: u32,
    a: Export,
    b: Export,
    differences: &'a [MetricDiff],
    first_divergence: Option<usize>,
}

impl Comparison {
    /// Pretty JSON carrying both exports.
    pub fn to_json(&self) -> String {
        let doc = ComparisonExport {
            format: "a2a-lifecycle-lab/comparison",
            version: 1,
            a: Export::of(&self.a, &self.run_a),
            b: Export::of(&self.b, &self.run_b),
            differences: &self.differences,
            first_divergence: self.first_divergence,
        };
        pretty_json(&doc)
    }
}
