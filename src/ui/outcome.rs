//! The outcome in one sentence and the advice that carries over, read off
//! the trace by the model.

use leptos::prelude::*;

use super::CollectAny;

use super::lab::Lab;
use crate::model::pictures::explain::{advice, outcome};

/// The one-sentence outcome, announced politely when it changes.
#[component]
pub fn OutcomeSentence() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let sentence = move || lab.scenario.with(|s| lab.run.with(|r| outcome(s, r)));
    view! {
        <p class="outcome" aria-live="polite">{move || sentence()}</p>
    }
}

/// "What carries over": the advice that applies to this scenario.
#[component]
pub fn CarriesOver() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let items = move || {
        lab.scenario.with(|s| {
            lab.run.with(|r| {
                advice(s, r)
                    .into_iter()
                    .map(|a| view! { <li><strong>{a.title}</strong>": "{a.why}</li> })
                    .collect_any()
            })
        })
    };
    view! {
        <section class="carries-over" aria-label="What carries over">
            <h2>"What carries over"</h2>
            <ul>{move || items()}</ul>
        </section>
    }
}
