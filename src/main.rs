//! The WebAssembly entry: mounts the lab's page.

#[cfg(target_arch = "wasm32")]
fn main() {
    leptos::mount::mount_to_body(a2a_lab::ui::app::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the page runs in a browser: build it with `trunk build`; the CLI is `a2a-lab`");
}
