//! A labelled control for every scenario key, grouped as SPEC §6 says; a
//! control that does not apply is disabled with its reason, not hidden.

use leptos::prelude::*;

use super::CollectAny;

use super::browser;
use super::lab::Lab;
use crate::model::sim::scenario::{Key, KeySpec, KEYS};

const GROUPS: [(&str, &str); 4] = [
    ("executor", "Executor"),
    ("client", "Client"),
    ("faults", "Faults"),
    ("policy", "Policy"),
];

/// The controls panel.
#[component]
pub fn Controls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    // An import is not a scenario: the controls cannot change what it
    // shows, and say so while it is shown.
    let imported = move || lab.showing_import();
    let note = move || {
        imported().then(|| {
            view! {
                <p class="controls__imported" id="controls-imported" role="note">
                    "These controls set the simulated scenario; they do not apply to the import shown now. Changing one goes back to the simulation."
                </p>
            }
            .into_any()
        })
    };
    // Closed on a phone, the panel's few hundred elements are built when
    // it is first opened: building them cost the first trace row about a
    // third of the page's start on a slow phone.
    let open = !browser::is_narrow();
    let opened = RwSignal::new(open);
    view! {
        <details class="controls" open=open
            on:toggle=move |_| {
                if !opened.get_untracked() {
                    opened.set(true);
                }
                lab.resized();
            }>
            <summary class="controls__summary">"Scenario controls"</summary>
            {move || note()}
            <form class="controls__form" class:controls__form--inactive=move || imported()
                aria-describedby=move || imported().then_some("controls-imported")
                on:submit=|ev| ev.prevent_default()>{move || opened.get().then(groups)}</form>
        </details>
    }
}

/// Every key's control, in its group.
fn groups() -> Vec<AnyView> {
    GROUPS
        .iter()
        .map(|(group, title)| {
            let keys = KEYS
                .iter()
                .filter(|k| k.group == *group)
                .map(|spec| view! { <KeyControl spec=spec/> })
                .collect_any();
            view! {
                <fieldset class="controls__group">
                    <legend>{*title}</legend>
                    {keys}
                </fieldset>
            }
        })
        .collect_any()
}

/// One key's label and control.
#[component]
fn KeyControl(spec: &'static KeySpec) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let id = format!("key-{}", spec.name);
    let value = move || lab.scenario.with(|s| s.get(spec.name).unwrap_or_default());
    let reason = move || lab.scenario.with(|s| s.applies(spec.key).err());
    let disabled = move || reason().is_some();
    let title = move || {
        reason().map_or(spec.help.to_string(), |r| {
            format!("{} — disabled: {r}", spec.help)
        })
    };
    let note_id = format!("{id}-note");
    // A preset may be absent: its control offers "none" first.
    let none: &[&str] = if spec.key == Key::Preset { &[""] } else { &[] };
    let control = if spec.choices().is_empty() {
        view! {
            <input id=id.clone() name=spec.name type="text" inputmode="numeric" autocomplete="off"
                class="controls__input" prop:value=move || value() disabled=move || disabled() title=move || title()
                aria-describedby=note_id.clone()
                on:change=move |ev| lab.set_key(spec.key, event_target_value(&ev).trim())/>
        }
        .into_any()
    } else {
        let options = none
            .iter()
            .chain(spec.choices())
            .map(|c| {
                let label = if c.is_empty() {
                    "none".to_string()
                } else {
                    c.to_string()
                };
                view! { <option value=c.to_string() selected=move || value() == *c>{label}</option> }
            })
            .collect_any();
        view! {
            <select id=id.clone() name=spec.name class="controls__input" prop:value=move || value() disabled=move || disabled() title=move || title()
                aria-describedby=note_id.clone()
                on:change=move |ev| lab.set_key(spec.key, &event_target_value(&ev))>
                {options}
            </select>
        }
        .into_any()
    };
    view! {
        <div class="controls__row" class:controls__row--off=move || disabled()>
            <label for=id>{spec.name}</label>
            {control}
            <small class="controls__note" id=note_id>{move || reason().map_or(spec.values.to_string(), |r| r.to_string())}</small>
        </div>
    }
}
