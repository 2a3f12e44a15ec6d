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
pub mod beside;
pub mod browser;
pub mod capture;
pub mod compare;
pub mod controls;
pub mod deferred;
pub mod diagram;
pub mod event_table;
pub mod examples;
pub mod import;
pub mod lab;
pub mod ledger_panel;
pub mod live;
pub mod metrics;
pub mod outcome;
pub mod pacer;
pub mod playback;
pub mod timeline;
pub mod toolbar;

use leptos::prelude::{AnyView, IntoAny, Memo};

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

/// A condition as a memo, for the page's `{move || when.get().then(..)}`
/// in place of Leptos's `<Show>`: `<Show>` is generic over its children,
/// so each use brought its own copy of the children's and the either's
/// rendering code, where an erased optional view shares one. The memo
/// re-renders only when the condition changes, as `<Show>`'s does; the
/// condition is boxed so that every memo on it is one type.
pub(crate) fn flag(when: impl Fn() -> bool + Send + Sync + 'static) -> Memo<bool> {
    let when: Box<dyn Fn() -> bool + Send + Sync> = Box::new(when);
    Memo::new(move |_| when())
}
