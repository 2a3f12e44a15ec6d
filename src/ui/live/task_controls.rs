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
    // Two of each kind, made by one function each: one closure type per
    // kind, as the first view's function table holds every closure type's
    // redraw (List's own closure took 41 bytes of it; shared, 6).
    let line = said(live, false);
    let why = said(live, true);
    let none = off(live, false);
    let unlisted = off(live, true);
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
            <button data-op="list" disabled=unlisted>"List"</button>
            <p class="live__status">{why}</p>
            <button data-op="download">"Download session"</button>
        </div>
    }
}

/// A line redrawn as the session or the link changes: the task's, or
/// with `list` why List is off (empty while it is on).
fn said(live: Live, list: bool) -> impl Fn() -> String + Copy {
    move || {
        live.changed.track();
        match list {
            true => list_off(live).flatten().unwrap_or_default(),
            false => task_line(live),
        }
    }
}

/// Whether the task's controls are off (no task yet), or with `list`
/// whether List is.
fn off(live: Live, list: bool) -> impl Fn() -> bool + Copy {
    move || {
        live.changed.track();
        match list {
            true => list_off(live).is_some(),
            false => live.session.with_value(|s| s.task().is_none()),
        }
    }
}

/// List is on once the doctor's steps let a session start (`None`); off
/// before, and on a wire with no ListTasks, with why in the relay's words
/// (as the doctor's steps are). Out of line (see `actions`).
#[inline(never)]
fn list_off(live: Live) -> Option<Option<String>> {
    live.link.with(|link| match link {
        Link::Found(found) if connected(&found.steps) => found.no_list.clone().map(Some),
        _ => Some(None),
    })
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
