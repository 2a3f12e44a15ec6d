//! Compare mode: differences between two scenarios, checked for two pairs
//! of examples.

use crate::model_support;

use a2a_lab::model::evidence::compare::compare;
use model_support::scenario;
use serde_json::{json, Value};

#[test]
fn late_artifact_against_its_guard_differs_in_exactly_the_guarded_metrics() {
    let c = compare(&scenario("late=0"), &scenario("late=0&guard=on"));
    let names: Vec<&str> = c.differences.iter().map(|d| d.metric.name()).collect();
    assert_eq!(
        names,
        [
            "events_delivered",
            "events_after_terminal",
            "dropped_by_guard",
            "get_task_artifacts"
        ]
    );
    assert_eq!(
        (c.differences[0].a.clone(), c.differences[0].b.clone()),
        (json!(7), json!(6))
    );
    assert_eq!(c.first_divergence, Some(6), "the late artifact row");
}

#[test]
fn memory_against_database_restart_differs_in_loss() {
    let c = compare(
        &scenario("restart=2&store=memory"),
        &scenario("restart=2&store=database"),
    );
    let names: Vec<&str> = c.differences.iter().map(|d| d.metric.name()).collect();
    assert!(
        names.contains(&"task_lost") && names.contains(&"final_state"),
        "{names:?}"
    );
    let doc: Value = serde_json::from_str(&c.to_json()).unwrap();
    assert_eq!(doc["format"], "a2a-lifecycle-lab/comparison");
    assert_eq!(doc["a"]["inputs"]["store"], "memory");
    assert_eq!(doc["b"]["inputs"]["store"], "database");
}

#[test]
fn identical_scenarios_have_no_differences() {
    let c = compare(&scenario(""), &scenario(""));
    assert!(c.differences.is_empty());
    assert_eq!(c.first_divergence, None);
}
