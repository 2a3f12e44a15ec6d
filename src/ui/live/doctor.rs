//! The connection doctor's steps as the page lists them: each step's
//! verdict, what was found, and the fix when it failed; the card as the
//! agent served it, as text.

use leptos::prelude::*;

use super::{actions, Link, Live};
use crate::model::evidence::live::doctor::StepVerdict;

/// The doctor's steps, and Connect again.
#[component]
pub fn DoctorSteps(
    /// What the Live view's parts share.
    live: Live,
) -> impl IntoView {
    let list = move || steps_view(live.link.get());
    view! {
        <div class="live__doctor">
            {list}
            <button on:click=move |_| actions::connect(live)>"Connect again"</button>
        </div>
    }
}

/// The steps as listed: out of line, as the closure that redraws them is
/// held by the page's function table (see `actions`).
#[inline(never)]
fn steps_view(link: Link) -> impl IntoView {
    use leptos::either::EitherOf3;
    match link {
        Link::Connecting => EitherOf3::A(
            view! { <p class="live__status" role="status">"Connecting to the agent…"</p> },
        ),
        Link::Failed(why) => {
            EitherOf3::B(view! { <p class="live__status live__status--bad" role="alert">{why}</p> })
        }
        Link::Found(found) => {
            let rows = found
                .steps
                .into_iter()
                .map(|step| {
                    let mark = match step.verdict {
                        StepVerdict::Ok => "✓",
                        StepVerdict::Warn => "!",
                        StepVerdict::Fail => "✗",
                        StepVerdict::Skipped => "–",
                    };
                    let class = format!("live__step live__step--{}", verdict_name(step.verdict));
                    view! {
                        <li class=class>
                            <span class="live__mark" aria-hidden="true">{mark}</span>
                            <strong>{step.name}</strong>": "{step.said}
                            {step.fix.map(|fix| view! { <span class="live__fix">" Fix: "{fix}</span> })}
                        </li>
                    }
                })
                .collect::<Vec<_>>();
            let card = found.card;
            EitherOf3::C(view! {
                <ol class="live__steps" aria-label="Connection doctor">{rows}</ol>
                {card.map(|card| view! {
                    <details class="live__card">
                        <summary>"The agent's card, as served"</summary>
                        <pre>{card}</pre>
                    </details>
                })}
            })
        }
    }
}

fn verdict_name(verdict: StepVerdict) -> &'static str {
    match verdict {
        StepVerdict::Ok => "ok",
        StepVerdict::Warn => "warn",
        StepVerdict::Fail => "fail",
        StepVerdict::Skipped => "skipped",
    }
}
