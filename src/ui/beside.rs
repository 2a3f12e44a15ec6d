//! A task of an imported capture pinned as A beside the scenario shown as
//! B (issue 33's "Open as a scenario"): both event lists, the events that
//! differ marked. B follows the controls, so a policy toggled on shows on
//! the task's own events.

use leptos::prelude::*;

use super::lab::{Lab, Pinned};
use super::CollectAny;
use crate::model::pictures::beside::{beside, Beside};

/// One side's events, those that differ marked.
fn side(beside: &Beside, task: bool) -> impl IntoView {
    beside
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let event = if task { &row.task } else { &row.scenario };
            let text = format!("{} · {}", i + 1, event.as_deref().unwrap_or("—"));
            view! { <li class:compare__row--diverged=row.differs()>{text}</li> }
        })
        .collect_any()
}

/// The pinned task beside the scenario, while a task is pinned.
#[component]
pub fn TaskBeside() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let shown = Memo::new(move |_| {
        let Some(Pinned::Task(task)) = lab.pinned.get() else {
            return None;
        };
        let scenario = lab.scenario.get();
        let b = lab.run.with(|run| beside(&task, &scenario, run));
        Some((task.id.clone(), scenario.to_query(), b))
    });
    move || {
        shown.with(|s| {
            s.as_ref().map(|(id, query, b)| {
                let query = if query.is_empty() { "defaults".into() } else { format!("?{query}") };
                view! {
                    <p class="compare__summary">{b.summary.clone()}</p>
                    <div class="compare__traces">
                        <div>
                            <p class="compare__side">{format!("A: task {id}, as captured")}</p>
                            <ol class="compare__trace" aria-label="A: the captured task">{side(b, true)}</ol>
                        </div>
                        <div>
                            <p class="compare__side">{format!("B: {query}, simulated")}</p>
                            <ol class="compare__trace" aria-label="B: the scenario">{side(b, false)}</ol>
                        </div>
                    </div>
                }
                .into_any()
            })
        })
    }
}
