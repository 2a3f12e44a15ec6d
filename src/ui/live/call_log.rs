//! The calls of the session, newest first: the request as sent and each
//! answer as it came, as text (an agent's answer is never HTML here), and
//! how each call ended.

use leptos::prelude::*;

use super::Live;
use crate::model::evidence::live::frame::CallEnded;
use crate::model::evidence::probe::records::AnswerEnd;

/// The most answers of one call listed (the trace table has them all).
const LISTED: usize = 50;

/// The session's calls.
#[component]
pub fn CallLog(
    /// What the Live view's parts share.
    live: Live,
) -> impl IntoView {
    let calls = move || {
        live.changed.track();
        calls_view(live)
    };
    let unreadable = move || {
        live.changed.track();
        unreadable_view(live)
    };
    view! {
        <div class="live__log">
            {unreadable}
            <ol class="live__calls" aria-label="Calls">{calls}</ol>
        </div>
    }
}

/// Each call as listed, newest first; out of line (see `actions`).
#[inline(never)]
fn calls_view(live: Live) -> Vec<impl IntoView> {
    live.session.with_value(|s| {
            s.calls()
                .iter()
                .enumerate()
                .rev()
                .map(|(i, call)| {
                    let answers: Vec<String> = call.answers.iter().take(LISTED).cloned().collect();
                    let more = call.answers.len().saturating_sub(LISTED);
                    let end = call.end.as_ref().map_or("under way".to_string(), ended);
                    view! {
                        <li class="live__call">
                            <details>
                                <summary>{format!("#{} {} · {} answer(s) · {end}", i + 1, name(&call.sent), call.answers.len())}</summary>
                                <pre class="live__sent">{call.sent.clone()}</pre>
                                {answers.into_iter().map(|a| view! { <pre class="live__answer">{a}</pre> }).collect::<Vec<_>>()}
                                {(more > 0).then(|| view! { <p>{format!("and {more} more (in the trace table)")}</p> })}
                            </details>
                        </li>
                    }
                })
                .collect::<Vec<_>>()
        })
}

/// How many answers were not JSON, when any; out of line (see `actions`).
#[inline(never)]
fn unreadable_view(live: Live) -> Option<impl IntoView> {
    let n = live.session.with_value(|s| s.unreadable());
    (n > 0).then(|| view! {
        <p class="live__status live__status--bad">{format!("{n} answer(s) were not JSON: listed below, not judged")}</p>
    })
}

/// The call's name, read from the request kept.
fn name(sent: &str) -> String {
    serde_json::from_str::<serde_json::Value>(sent)
        .ok()
        .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_string))
        .unwrap_or_else(|| "call".into())
}

fn ended(end: &CallEnded) -> String {
    let how = match end.how {
        AnswerEnd::Closed => "ended".to_string(),
        AnswerEnd::Dropped => "dropped".to_string(),
        AnswerEnd::TimedOut(ms) => format!("timed out after {ms} ms"),
    };
    match (&end.error, &end.status) {
        (Some(e), _) => format!("{how}: {e}"),
        (None, Some(status)) => format!(
            "{how}, {}",
            serde_json::to_string(status).unwrap_or_default()
        ),
        (None, None) => format!("{how} in {} ms", end.ms),
    }
}
