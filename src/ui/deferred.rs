//! Parts of the page that load on first use. In the page's split build
//! (feature `split`, scripts/split-wasm.sh) each entry below is a
//! WebAssembly chunk of its own, fetched the first time it is shown; the
//! first view (controls, trace, metrics, diagram, timeline) never waits
//! for them. Until a chunk arrives a "Loading" line holds its place and
//! input goes on; a chunk that does not arrive says so and offers a retry
//! (a failed load is not remembered, so the retry fetches it again).
//!
//! Without the feature (the native build, `cargo test`, the component
//! tests) the entries are plain functions and the part shows at once.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use leptos::prelude::*;

use super::lab::Lab;

/// A chunk that did not load (the network, or a server without it).
pub type Unloaded = leptos::wasm_split::SplitLoaderError;

/// What a chunk's view entry gives: the function that renders its part.
pub type ChunkView = Result<fn() -> AnyView, Unloaded>;

/// A chunk's view entry, started: resolves once the chunk is in.
pub type Loading = Pin<Box<dyn Future<Output = ChunkView>>>;

/// Calls a chunk's entry: awaited in the split build, where the call
/// first fetches the chunk; a plain call otherwise.
macro_rules! enter {
    ($call:expr) => {{
        #[cfg(feature = "split")]
        let entered = $call.await;
        #[cfg(not(feature = "split"))]
        let entered = $call;
        entered
    }};
}
pub(crate) use enter;

/// Marks a chunk's entry: in the split build the function, and everything
/// only it reaches, is the chunk `$name`, fetched at its first call (or at
/// its `preload`). Always `fallible`: a chunk that does not arrive is an
/// `Err` the page shows, never a panic, which would stop the whole page.
macro_rules! chunk {
    ($name:ident, preload = $preload:ident, $entry:item) => {
        #[cfg_attr(
            feature = "split",
            leptos::wasm_split::wasm_split(
                $name,
                wasm_split_path = ::leptos::wasm_split,
                preload($preload),
                fallible
            )
        )]
        $entry
    };
    ($name:ident, $entry:item) => {
        #[cfg_attr(
            feature = "split",
            leptos::wasm_split::wasm_split($name, wasm_split_path = ::leptos::wasm_split, fallible)
        )]
        $entry
    };
}
pub(crate) use chunk;

/// Where a deferred part stands.
#[derive(Clone, Copy)]
enum State {
    Loading,
    Failed,
    Ready(fn() -> AnyView),
}

/// A part of the page from a chunk: `what` names it in the loading and
/// failure lines ("Compare", "The capture's tasks"); `load` starts its
/// entry. An entry whose chunk is already in shows at once.
#[component]
pub fn Deferred(
    /// The part's name in its loading and failure lines.
    what: &'static str,
    /// Starts the part's chunk entry.
    load: fn() -> Loading,
) -> impl IntoView {
    let state = RwSignal::new(State::Loading);
    // A part that arrives later makes the page taller: a host that embeds
    // the lab is told.
    let lab = use_context::<Lab>();
    let start = move || {
        let mut loading = load();
        // A chunk already in (or no split at all) answers at the first
        // poll: shown in this render, with no "Loading" flash.
        match loading
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(entry) => state.set(settled(entry)),
            Poll::Pending => {
                state.set(State::Loading);
                leptos::task::spawn_local(async move {
                    state.set(settled(loading.await));
                    if let Some(lab) = lab {
                        lab.resized();
                    }
                });
            }
        }
    };
    start();
    move || {
        match state.get() {
        State::Ready(part) => part(),
        State::Loading => view! {
            <p class="deferred" role="status">{format!("Loading {}…", what.to_ascii_lowercase())}</p>
        }
        .into_any(),
        State::Failed => view! {
            <p class="deferred deferred--failed" role="alert">
                {format!("{what} could not be loaded: the page's server did not send it (offline?). The rest of the lab works. ")}
                <button class="deferred__retry" on:click=move |_| start()>"Retry"</button>
            </p>
        }
        .into_any(),
    }
    }
}

fn settled(entry: ChunkView) -> State {
    entry.map_or(State::Failed, State::Ready)
}

/// The panels' stylesheet (style/panels.css, beside the bundle), linked by
/// each chunk's panel when it first shows, so the first view neither
/// carries nor waits for it. Once it applies the panel is taller: an
/// embedding host is told (a page in no frame tells itself, and nobody
/// listens).
#[component]
pub fn PanelStyle() -> impl IntoView {
    view! { <link rel="stylesheet" href="panels.css" on:load=|_| super::browser::post_height_soon()/> }
}
