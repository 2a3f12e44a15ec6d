//! An imported capture: its wire, its tasks (id, events, final state,
//! findings) with the chosen one shown in the table, timeline and state
//! diagram, its findings and JSON-RPC errors, and the way back to the
//! simulation.

use leptos::prelude::*;

use super::lab::Lab;

/// Tasks listed before the user asks for all of them: a big capture's list
/// would otherwise take the page a noticeable moment to build.
const LISTED: usize = 200;

/// The capture panel; empty while the simulation is shown.
#[component]
pub fn CaptureTasks() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let all = RwSignal::new(false);
    // Each new capture starts with the short list.
    Effect::new(move |_| {
        lab.capture.track();
        all.set(false);
    });
    move || {
        let view = lab.capture.get()?;
        let report = &view.report;
        let chosen = lab.capture_task.get();
        let listed = if all.get() { usize::MAX } else { LISTED };
        let more = (report.tasks.len() > listed).then(|| {
            view! {
                <p class="capture__more">
                    {format!("The first {listed} of {} tasks. ", report.tasks.len())}
                    <button on:click=move |_| all.set(true)>"List all tasks"</button>
                </p>
            }
        });
        let rows = report
            .tasks
            .iter()
            .take(listed)
            .enumerate()
            .map(|(i, t)| {
                let current = i == chosen;
                let id = t.id.clone();
                let bad = t.findings > 0;
                view! {
                    <tr class="capture__task" class:capture__task--current=current
                        aria-current=current.then_some("true")>
                        <td>
                            <button class="capture__pick" aria-pressed=current.to_string()
                                on:click=move |_| { lab.capture_task.set(i); lab.step.set(None); }>
                                {id}
                            </button>
                        </td>
                        <td>{t.events}</td>
                        <td>{t.final_state.clone()}</td>
                        <td class:capture__bad=bad>{t.findings}</td>
                    </tr>
                }
            })
            .collect_view();
        let task_id = report
            .tasks
            .get(chosen)
            .map(|t| t.id.clone())
            .unwrap_or_default();
        let findings = report
            .findings
            .iter()
            .filter(|f| f.task == task_id)
            .map(|f| view! { <li><strong>{f.code.code()}</strong>{format!(" at event {}: {}", f.index, f.message)}</li> })
            .collect_view();
        let errors = report
            .errors
            .iter()
            .map(|e| view! { <li>{format!("#{}: JSON-RPC error {} {}", e.index, e.code, e.message)}</li> })
            .collect_view();
        let summary = format!(
            "A capture on the A2A {} wire: {} events, {} task(s), {} finding(s).",
            report.wire,
            report.read,
            report.tasks.len(),
            report.findings.len()
        );
        Some(view! {
            <section class="capture" aria-label="Imported capture">
                <div class="capture__head">
                    <p class="capture__summary">{summary}</p>
                    <button class="capture__back" on:click=move |_| lab.leave_capture()>"Back to the simulation"</button>
                </div>
                <div class="capture__scroll">
                    <table class="capture__tasks">
                        <caption>"Tasks in the capture: choose one to see its events"</caption>
                        <thead><tr><th scope="col">"task"</th><th scope="col">"events"</th><th scope="col">"final state"</th><th scope="col">"findings"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                    {more}
                </div>
                <h2 class="capture__title">{format!("Findings for {task_id}")}</h2>
                <ul class="capture__findings">{findings}</ul>
                <ul class="capture__errors">{errors}</ul>
            </section>
        })
    }
}
