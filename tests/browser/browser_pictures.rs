//! The pictures in headless Chromium (wasm-bindgen-test): the page draws the
//! model's diagram and timeline, lights the path up to the slider, and the
//! timeline's cursor and marks follow and drive the slider.
#![cfg(target_arch = "wasm32")]

use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::sim::simulate;
use a2a_lab::model::state::TaskState;
use wasm_bindgen_test::*;

use crate::support;

use support::{all, button, document, drawn, home, mount, one};

fn taken(host: &web_sys::HtmlElement) -> Vec<(String, String)> {
    all(host, ".diagram__edge--taken")
        .iter()
        .map(|e| {
            (
                e.get_attribute("data-from").unwrap(),
                e.get_attribute("data-to").unwrap(),
            )
        })
        .collect()
}

fn cursor_x(host: &web_sys::HtmlElement) -> f64 {
    one(host, ".timeline__cursor")
        .get_attribute("x1")
        .unwrap()
        .parse()
        .unwrap()
}

#[wasm_bindgen_test]
async fn the_diagram_draws_8_states_and_the_25_allowlist_edges() {
    let host = mount();
    drawn().await;
    let nodes = all(&host, ".diagram__svg .diagram__node");
    assert_eq!(nodes.len(), 8);
    let terminal: Vec<String> = all(&host, ".diagram__node--terminal")
        .iter()
        .map(|n| n.get_attribute("data-state").unwrap())
        .collect();
    assert_eq!(terminal, ["completed", "failed", "canceled", "rejected"]);
    assert_eq!(all(&host, ".diagram__node--interrupted").len(), 2);
    assert_eq!(all(&host, ".diagram__svg .diagram__edge").len(), 25);
    assert_eq!(TaskState::allowlist_edges().len(), 25);
    host.remove();
}

#[wasm_bindgen_test]
async fn the_path_is_lit_up_to_the_slider() {
    let host = mount();
    drawn().await;
    // All rows: submitted → working → completed, completed current.
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        taken(&host),
        [pair("submitted", "working"), pair("working", "completed")]
    );
    let current = one(&host, ".diagram__node--current");
    assert_eq!(current.get_attribute("data-state").unwrap(), "completed");
    // Step 2: only submitted → working.
    home();
    leptos::task::tick().await;
    assert!(taken(&host).is_empty());
    let next = button(&host, "Next step");
    next.click();
    next.click();
    leptos::task::tick().await;
    assert_eq!(taken(&host), [pair("submitted", "working")]);
    let current = one(&host, ".diagram__node--current");
    assert_eq!(current.get_attribute("data-state").unwrap(), "working");
    host.remove();
}

#[wasm_bindgen_test]
async fn the_timeline_has_a_lane_per_source_and_a_mark_per_row() {
    let host = mount();
    drawn().await;
    let lanes: Vec<String> = all(&host, ".timeline__lane")
        .iter()
        .map(|l| l.get_attribute("data-source").unwrap())
        .collect();
    assert_eq!(
        lanes,
        ["executor", "cancel()", "handler", "client", "server"]
    );
    let model = simulate(&Scenario::default());
    let marks = all(&host, ".timeline__svg .timeline__mark");
    assert_eq!(marks.len(), model.trace.rows.len());
    let label = marks[5].get_attribute("aria-label").unwrap();
    assert_eq!(label, "#5 600 ms executor status COMPLETED delivered");
    assert_eq!(marks[5].get_attribute("tabindex").as_deref(), Some("0"));
    one(&host, ".timeline__terminal");
    host.remove();
}

#[wasm_bindgen_test]
async fn the_cursor_moves_with_next_step_and_a_click_on_a_mark_moves_the_slider() {
    let host = mount();
    drawn().await;
    home();
    leptos::task::tick().await;
    let next = button(&host, "Next step");
    next.click();
    leptos::task::tick().await;
    let first = cursor_x(&host);
    next.click();
    leptos::task::tick().await;
    let second = cursor_x(&host);
    assert!(second > first, "cursor stayed at {first}");
    // Clicking row #4's mark reveals five rows.
    let mark = one(&host, ".timeline__mark[data-index=\"4\"]");
    // SVG elements have no click(): a bubbling click event, as a pointer
    // would send, reaches the page's delegated handler.
    let click = document().create_event("Event").unwrap();
    click.init_event_with_bubbles("click", true);
    mark.dispatch_event(&click).unwrap();
    leptos::task::tick().await;
    assert_eq!(all(&host, ".event-table tbody tr").len(), 5);
    assert!(cursor_x(&host) > second);
    host.remove();
}
