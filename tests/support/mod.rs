//! Shared by the browser tests (wasm32 only): mount the lab into a fresh
//! element, find what it shows, and drive it as a user does. (Each test
//! crate uses some of it.)
#![allow(dead_code)]

use a2a_lab::ui::app::App;
use wasm_bindgen::JsCast;

/// The page's document.
pub fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Mounts the whole lab into a new element appended to the body, from the
/// page's bare address: the lab writes its state into the URL, and the
/// tests share one page, so a test would otherwise open on the scenario
/// and step an earlier test left there.
pub fn mount() -> web_sys::HtmlElement {
    let window = web_sys::window().unwrap();
    let path = window.location().pathname().unwrap();
    window
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path))
        .unwrap();
    let host: web_sys::HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone(), App);
    handle.forget();
    host
}

/// Resolves once the lab's pictures are drawn: the page draws them after
/// the trace has painted. Two paints: the page asked for its paint in a
/// task spawned at mount, which runs after the test has asked for its own.
pub async fn drawn() {
    for _ in 0..2 {
        a2a_lab::ui::browser::after_paint().await;
        leptos::task::tick().await;
    }
}

/// Every element under `host` that `selector` matches, in document order.
pub fn all(host: &web_sys::HtmlElement, selector: &str) -> Vec<web_sys::Element> {
    let list = host.query_selector_all(selector).unwrap();
    (0..list.length())
        .map(|i| list.item(i).unwrap().unchecked_into())
        .collect()
}

/// The first element under `host` that `selector` matches; none fails the
/// test, naming the selector.
pub fn one(host: &web_sys::HtmlElement, selector: &str) -> web_sys::Element {
    host.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
}

/// The playback button labelled `text` (`Next step`).
pub fn button(host: &web_sys::HtmlElement, text: &str) -> web_sys::HtmlElement {
    all(host, ".playback button")
        .into_iter()
        .map(|b| b.unchecked_into::<web_sys::HtmlElement>())
        .find(|b| b.text_content().as_deref() == Some(text))
        .unwrap()
}

/// Home: the slider back to step 0, as the keyboard does it.
pub fn home() {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("Home");
    let event =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    web_sys::window().unwrap().dispatch_event(&event).unwrap();
}
