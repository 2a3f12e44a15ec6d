//! The Leptos page over the model: one component per file, state in one
//! context ([`lab::Lab`]), everything shown derived from the scenario.

// `view!` type-erases a reactive closure written in place (`move || f()`)
// into one shared function type, so the page's WebAssembly holds one
// rendering of each value type instead of one per closure: passing the
// named closure `f` itself, as this lint asks, would undo that (1.8 kB of
// the bundle).
#![allow(clippy::redundant_closure)]

pub mod app;
// Benchmark hooks for scripts/perf, never in the production bundle.
#[cfg(feature = "bench-exports")]
pub mod bench;
pub mod browser;
pub mod capture;
pub mod compare;
pub mod controls;
pub mod diagram;
pub mod event_table;
pub mod examples;
pub mod import;
pub mod lab;
pub mod ledger_panel;
pub mod metrics;
pub mod outcome;
pub mod playback;
pub mod timeline;
pub mod toolbar;

use leptos::prelude::{AnyView, IntoAny};

/// `collect_view` into erased views: every list on the page is one type,
/// `Vec<AnyView>`, so the page's WebAssembly holds one copy of the list
/// rendering instead of one per element type.
pub(crate) trait CollectAny {
    /// The views, erased, in order.
    fn collect_any(self) -> Vec<AnyView>;
}

impl<I> CollectAny for I
where
    I: Iterator,
    I::Item: IntoAny,
{
    fn collect_any(self) -> Vec<AnyView> {
        self.map(IntoAny::into_any).collect()
    }
}
