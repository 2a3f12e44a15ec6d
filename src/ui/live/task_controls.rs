//! The controls on the live task: Get, Cancel, drop the stream and
//! resubscribe, poll until it ends; List, the agent's tasks; and the
//! session's download. Each is a call through the relay, recorded in the
//! session and judged with it.

use leptos::prelude::*;

use super::{actions, Link, Live};
use crate::model::evidence::live::ask::LiveAsk;
use crate::model::evidence::live::doctor::connected;

/// The task controls; disabled until an answer named a task, but List,
/// which needs none, on once connected.
#[component]
pub fn TaskControls(
    /// What the Live view's parts share.
    live: Live,
) -> impl IntoView {
    let line = move || {
        live.changed.track();
        task_line(live)
    };
    let none = move || {
        live.changed.track();
        live.session.with_value(|s| s.task().is_none())
    };
    let list = move || list_view(live.link.get());
    // One handler for the row (fewer closures held by the first view's
    // function table): the button pressed says what it does; a disabled
    // one sends no click.
    let pressed = move |ev: leptos::ev::MouseEvent| act(live, &ev);
    view! {
        <div class="live__controls" role="group" aria-label="The live task" on:click=pressed>
            <p class="live__task">{line}</p>
            <fieldset class="live__ops" disabled=none>
                <button data-op="get">"Get"</button>
                <button data-op="cancel">"Cancel"</button>
                <button data-op="resubscribe">"Drop the stream and resubscribe"</button>
                <button data-op="poll">"Poll until it ends"</button>
            </fieldset>
            {list}
            <button data-op="download">"Download session"</button>
        </div>
    }
}

/// List, on once the doctor's steps let a session start; off on a wire
/// with no ListTasks, with the relay's words for why (the page's own
/// words would stay in the first view's module). Out of line (see
/// `actions`).
#[inline(never)]
fn list_view(link: Link) -> impl IntoView {
    let (on, why) = match link {
        Link::Found(found) => (
            connected(&found.steps) && found.no_list.is_none(),
            found.no_list,
        ),
        _ => (false, None),
    };
    view! {
        <button data-op="list" disabled=!on>"List"</button>
        {why.map(|why| view! { <p class="live__status">{why}</p> })}
    }
}

/// The task's line: its id and state, or that there is none yet.
#[inline(never)]
fn task_line(live: Live) -> String {
    live.session.with_value(|s| match s.task() {
        Some(task) => format!("Task {}: {}", task.id, task.state),
        None => "No task yet: send a message.".to_string(),
    })
}

/// What the button pressed does, read off its `data-op`.
#[inline(never)]
fn act(live: Live, ev: &leptos::ev::MouseEvent) {
    use leptos::wasm_bindgen::JsCast;
    let op = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.get_attribute("data-op"));
    let task = live.session.with_value(|s| s.task().map(|t| t.id.clone()));
    match (op.as_deref(), task) {
        (Some("download"), _) => actions::download(live),
        (Some("list"), _) => actions::call(live, LiveAsk::List {}),
        (Some("get"), Some(task_id)) => actions::call(live, LiveAsk::Get { task_id }),
        (Some("cancel"), Some(task_id)) => actions::call(live, LiveAsk::Cancel { task_id }),
        (Some("resubscribe"), Some(task_id)) => actions::resubscribe(live, task_id),
        (Some("poll"), Some(task_id)) => actions::poll(live, task_id),
        _ => {}
    }
}
