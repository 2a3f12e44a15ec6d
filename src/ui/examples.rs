//! The examples menu: each step of the seeds' comparisons, one click away.

use leptos::prelude::*;

use super::CollectAny;

use super::lab::Lab;
use crate::model::pictures::examples::EXAMPLES;
use crate::model::sim::scenario::Scenario;

/// A select that loads an example scenario.
#[component]
pub fn Examples() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // Which example the scenario is, worked out once per scenario: each
    // option asking for itself wrote the query out once per option.
    let current = Memo::new(move |_| {
        let q = lab.scenario.with(Scenario::to_query);
        EXAMPLES.iter().position(|e| e.query == q)
    });
    let options = EXAMPLES
        .iter()
        .enumerate()
        .map(|(i, e)| view! { <option value=i.to_string() selected=move || current.get() == Some(i)>{e.label}</option> })
        .collect_any();
    let choose = move |ev: leptos::ev::Event| {
        let Ok(i) = event_target_value(&ev).parse::<usize>() else {
            return;
        };
        let Some(example) = EXAMPLES.get(i) else {
            return;
        };
        match Scenario::from_query(example.query) {
            Ok(s) => {
                lab.message.set(None);
                lab.scenario.set(s);
                lab.step.set(None);
            }
            Err(e) => lab.error(e.to_string()),
        }
    };
    view! {
        <label class="examples">
            <span>"Example"</span>
            <select class="examples__select" prop:value=move || current.get().map_or(String::new(), |i| i.to_string()) on:change=choose>
                <option value="" disabled=true>"(your own scenario)"</option>
                {options}
            </select>
        </label>
    }
}
