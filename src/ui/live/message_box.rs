//! The message box: a text part, and a data part as JSON when given. It
//! starts a new task, or, when the task waits on the user
//! (INPUT_REQUIRED, AUTH_REQUIRED), replies to it: the message then
//! carries the task's `taskId` and `contextId` (A2A 1.0 §3.4.3).

use leptos::prelude::*;

use super::{actions, Live};
use crate::model::evidence::live::ask::LiveAsk;

/// The message a new session offers to send.
const DEFAULT_TEXT: &str = "Where is my order BBS-1042?";

/// The message box and its Send and Reply buttons.
#[component]
pub fn MessageBox(
    /// What the Live view's parts share.
    live: Live,
) -> impl IntoView {
    let text = RwSignal::new(String::from(DEFAULT_TEXT));
    let data = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    // The task a reply continues, while it waits on the user.
    let waiting = move || {
        live.changed.track();
        live.session.with_value(|s| {
            s.task()
                .filter(|t| t.waits_on_user())
                .map(|t| (t.id.clone(), t.context_id.clone(), t.state.clone()))
        })
    };
    let send = move |reply: bool| send(live, text, data, problem, reply.then(waiting).flatten());
    view! {
        <form class="live__message" on:submit=move |ev| { ev.prevent_default(); send(false); }>
            <label class="live__field">
                "Message"
                <textarea rows="2" on:input=move |ev| text.set(event_target_value(&ev))>{DEFAULT_TEXT}</textarea>
            </label>
            <label class="live__field">
                "Data part (JSON, optional)"
                <textarea rows="2" placeholder="{\"orderId\": \"BBS-1042\"}"
                    on:input=move |ev| data.set(event_target_value(&ev))></textarea>
            </label>
            <div class="live__buttons">
                <button type="submit">"Send as a new task"</button>
                {move || waiting().map(|(task, _, state)| view! {
                    <button type="button" class="live__reply" on:click=move |_| send(true)>
                        {format!("Reply to task {task} ({state})")}
                    </button>
                })}
            </div>
            {move || problem.get().map(|p| view! { <p class="live__status live__status--bad" role="alert">{p}</p> })}
        </form>
    }
}

/// Sends the message box's message: a new task, or with `reply` (the
/// task waiting on the user, its context and state) its continuation.
/// Out of line (see `actions`).
#[inline(never)]
fn send(
    live: Live,
    text: RwSignal<String>,
    data: RwSignal<String>,
    problem: RwSignal<Option<String>>,
    reply: Option<(String, Option<String>, String)>,
) {
    let data = data.get_untracked();
    let data = match data.trim() {
        "" => None,
        json => match serde_json::from_str::<serde_json::Value>(json) {
            Ok(value) if value.is_object() => Some(value),
            _ => {
                problem.set(Some(
                    "The data part is a JSON object: {\"key\": \"value\"}.".into(),
                ));
                return;
            }
        },
    };
    let (task_id, context_id) = match reply {
        Some((task, context, _)) => (Some(task), context),
        None => (None, None),
    };
    let text = text.get_untracked();
    if text.trim().is_empty() && data.is_none() {
        problem.set(Some("Write a message, or a data part.".into()));
        return;
    }
    problem.set(None);
    actions::call(
        live,
        LiveAsk::Send {
            text,
            data,
            task_id,
            context_id,
        },
    );
}
