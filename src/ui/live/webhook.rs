//! The webhook's part of the Live view (SPEC §12), when the agent's card
//! declares push: the relay's receiver gets the POSTs, the page follows
//! them as they come into [`LivePushes`], judged beside the session and
//! laid in the timeline's webhook lane; here, how many came, their log's
//! download, and the `check` that reads it beside the session.

use leptos::prelude::*;

use super::Live;
use crate::model::evidence::live::pushes::PUSHES_FILE;

/// The name the session downloads as (`actions::download`).
const SESSION_FILE: &str = "a2a-lab-session.jsonl";

/// The webhook's line, once a POST came.
#[component]
pub fn WebhookLog(
    /// What the Live view's parts share.
    live: Live,
) -> impl IntoView {
    let said = move || {
        live.changed.track();
        posts_line(live)
    };
    // Static markup with a text and an attribute that change: the least
    // the first view's module holds of this part.
    view! {
        <div class="live__webhook" role="group" aria-label="The webhook" hidden=move || said().is_none()>
            <p>{move || said().unwrap_or_default()}</p>
            <button on:click=move |_| download(live)>"Download webhook log"</button>
        </div>
    }
}

/// How many POSTs came and how to check them; `None` before the first.
#[inline(never)]
fn posts_line(live: Live) -> Option<String> {
    live.session.with_value(|s| {
        let p = s.pushes();
        let unreadable = match p.unreadable() {
            0 => String::new(),
            n => format!(" ({n} more that were not A2A events, left out)"),
        };
        (!p.is_empty() || p.unreadable() > 0).then(|| {
            format!(
                "Webhook: {} POST(s){unreadable}, in the timeline's webhook lane. \
                 Download both and check them as here: \
                 a2a-lab check {SESSION_FILE} --webhook a2a-lab-{PUSHES_FILE}",
                p.len()
            )
        })
    })
}

/// Downloads the webhook's log, as `check --webhook` reads it.
#[inline(never)]
fn download(live: Live) {
    let text = live.session.with_value(|s| s.pushes().log().to_string());
    if let Err(e) = crate::ui::browser::download(&format!("a2a-lab-{PUSHES_FILE}"), &text) {
        live.lab.error(format!("Download failed: {e}"));
    }
}
