//! Shared by the browser tests: mount the lab into a fresh element.

use a2a_lab::ui::app::App;
use wasm_bindgen::JsCast;

/// The page's document.
pub fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Mounts the whole lab into a new element appended to the body.
pub fn mount() -> web_sys::HtmlElement {
    let host: web_sys::HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone(), App);
    handle.forget();
    host
}
