//! Component tests in headless Chromium (wasm-bindgen-test): the page shows
//! the model, and its controls and buttons change what it shows.
#![cfg(target_arch = "wasm32")]

use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::sim::simulate;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

use crate::support;

use support::{all, button, home, mount, one};

/// The event table's rows, as text.
fn rows(host: &web_sys::HtmlElement) -> Vec<String> {
    all(host, ".event-table tbody tr")
        .iter()
        .map(|row| row.text_content().unwrap_or_default())
        .collect()
}

/// What the metric card `name` shows.
fn metric(host: &web_sys::HtmlElement, name: &str) -> String {
    one(host, &format!("[data-metric=\"{name}\"] .metric__value"))
        .text_content()
        .unwrap()
}

fn click(host: &web_sys::HtmlElement, selector: &str) {
    let el: web_sys::HtmlElement = one(host, selector).unchecked_into();
    el.click();
}

fn choose(host: &web_sys::HtmlElement, id: &str, value: &str) {
    let select: web_sys::HtmlSelectElement = one(host, id).unchecked_into();
    select.set_value(value);
    let event = web_sys::Event::new("change").unwrap();
    select.dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn the_table_shows_every_row_of_the_model_trace() {
    let host = mount();
    leptos::task::tick().await;
    let model = simulate(&Scenario::default());
    let shown = rows(&host);
    assert_eq!(shown.len(), model.trace.rows.len());
    for (row, text) in model.trace.rows.iter().zip(&shown) {
        assert!(text.contains(&row.event), "{text} lacks {}", row.event);
    }
    assert_eq!(
        metric(&host, "events_delivered"),
        model.trace.metrics.events_delivered.to_string()
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn choosing_an_ending_recomputes_metrics_and_marks_the_change() {
    let host = mount();
    leptos::task::tick().await;
    choose(&host, "#key-ending", "never");
    leptos::task::tick().await;
    assert_eq!(metric(&host, "hung_streams"), "1");
    let card = one(&host, "[data-metric=\"hung_streams\"]");
    assert!(card.class_list().contains("metric--changed"));
    // A control that does not apply is disabled with its reason.
    let work: web_sys::HtmlSelectElement = one(&host, "#key-work").unchecked_into();
    assert!(work.disabled());
    assert!(work.title().contains("cancel"));
    click(&host, ".playback__reset");
    leptos::task::tick().await;
    assert_eq!(metric(&host, "hung_streams"), "0");
    host.remove();
}

#[wasm_bindgen_test]
async fn next_step_reveals_one_row_and_marks_it_current() {
    let host = mount();
    leptos::task::tick().await;
    let next = button(&host, "Next step");
    // Home: no rows, then one step at a time.
    home();
    leptos::task::tick().await;
    assert_eq!(rows(&host).len(), 0);
    next.click();
    next.click();
    leptos::task::tick().await;
    assert_eq!(rows(&host).len(), 2);
    let current = one(&host, ".event-table__row--current td");
    assert_eq!(current.text_content().unwrap(), "1");
    host.remove();
}
