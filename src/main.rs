//! The WebAssembly entry: mounts the lab's page.

#[cfg(target_arch = "wasm32")]
fn main() {
    // index.html's "Loading the lab…" line, shown until now; it goes in the
    // same task that builds the first view, so no frame shows neither.
    if let Some(line) = leptos::prelude::document().get_element_by_id("lab-boot") {
        line.remove();
    }
    leptos::mount::mount_to_body(a2a_lab::ui::app::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the page runs in a browser: build it with `trunk build`; the CLI is `a2a-lab`");
}
