//! A2A Lifecycle Lab: a pure, deterministic model of an A2A task's lifecycle
//! (`model`) and a thin Leptos page over it (`ui`).
//!
//! The model never reads a clock or touches the DOM: a scenario goes in, a
//! complete trace comes out, and the page, the CLI and the tests are views of
//! that value.

// Every public item says what it is (clippy's -D warnings makes it an error).
#![warn(missing_docs)]

// The command line is native only: its argument parser never enters the page.
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod model;
#[cfg(not(target_arch = "wasm32"))]
pub mod probe;
// The one server stack, `serve`'s and the probe webhook's (tokio, hyper).
#[cfg(not(target_arch = "wasm32"))]
pub mod serve;
pub mod ui;
