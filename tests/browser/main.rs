//! The page's tests, one binary: in headless Chromium (wasm-bindgen-test)
//! the components and the pictures; the page explaining a capture as
//! `check` does runs there and natively under `cargo test`.
// Tests may panic on what they did not expect; that is how they fail.
#![allow(clippy::unwrap_used)]

#[cfg(target_arch = "wasm32")]
#[path = "../support/mod.rs"]
mod support;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

// The fixtures' typed records alone: the rest of the model's support
// reads files the page's tests have no use for.
#[path = "../model_support/recorded.rs"]
#[allow(dead_code)]
mod recorded;

mod browser;
mod browser_pictures;
mod page_explains;
