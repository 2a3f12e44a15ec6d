//! A2A Lifecycle Lab: a pure, deterministic model of an A2A task's lifecycle
//! (`model`) and a thin Leptos page over it (`ui`).
//!
//! The model never reads a clock or touches the DOM: a scenario goes in, a
//! complete trace comes out, and the page, the CLI and the tests are views of
//! that value.

// The command line is native only: its argument parser never enters the page.
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod model;
#[cfg(not(target_arch = "wasm32"))]
pub mod probe;
pub mod ui;
