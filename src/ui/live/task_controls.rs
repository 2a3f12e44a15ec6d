//! The controls on the live task: Get, Cancel, drop the stream and
//! resubscribe, poll until it ends, and the session's download. Each is a
//! call through the relay, recorded in the session and judged with it.

use leptos::prelude::*;

use super::{actions, Live};
use crate::model::evidence::live::ask::Ask;

/// The task controls; disabled until an answer named a task.
#[component]
pub fn TaskControls(
    /// What the Live view's parts share.
    live: Live,
) -> impl IntoView {
    let task = move || {
        live.changed.track();
        live.session
            .with_value(|s| s.task().map(|t| (t.id.clone(), t.state.clone())))
    };
    let id = move || task().map(|(id, _)| id).unwrap_or_default();
    let none = move || task().is_none();
    let empty = move || {
        live.changed.track();
        live.session.with_value(|s| s.capture().is_empty())
    };
    view! {
        <div class="live__controls" role="group" aria-label="The live task">
            <p class="live__task">{move || match task() {
                Some((id, state)) => format!("Task {id}: {state}"),
                None => "No task yet: send a message.".to_string(),
            }}</p>
            <button disabled=none on:click=move |_| actions::call(live, Ask::Get { task_id: id() })>"Get"</button>
            <button disabled=none on:click=move |_| actions::call(live, Ask::Cancel { task_id: id() })>"Cancel"</button>
            <button disabled=none on:click=move |_| actions::resubscribe(live, id())>"Drop the stream and resubscribe"</button>
            <button disabled=none on:click=move |_| actions::poll(live, id())>"Poll until it ends"</button>
            <button disabled=empty on:click=move |_| actions::download(live)>"Download session"</button>
        </div>
    }
}
