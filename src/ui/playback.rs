//! Start trace / Pause, Next step, Show all, Reset and the slider: playback
//! is only an index into the finished trace.

use gloo_timers::callback::Interval;
use leptos::ev;
use leptos::prelude::*;

use super::browser;
use super::lab::Lab;
use crate::model::sim::scenario::Scenario;

/// Virtual trace rows revealed per second of playback.
const ROWS_PER_SECOND: u32 = 3;

/// The playback bar.
#[component]
pub fn Playback() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let timer = StoredValue::new_local(None::<Interval>);
    let len = move || lab.run.with(|r| r.trace.rows.len());

    let stop = move || {
        timer.set_value(None);
        lab.playing.set(false);
    };
    let next = move || {
        lab.step.set(lab.cursor().next());
        if lab.cursor().at_end() {
            stop();
        }
    };
    let start = move || {
        lab.step.set(lab.cursor().start());
        lab.playing.set(true);
        timer.set_value(Some(Interval::new(1000 / ROWS_PER_SECOND, next)));
    };
    let toggle = move || {
        if lab.playing.get_untracked() {
            stop()
        } else {
            start()
        }
    };
    let show_all = move || {
        stop();
        lab.step.set(None);
    };
    let reset = move || {
        stop();
        lab.leave_capture();
        lab.message.set(None);
        lab.scenario.set(Scenario::default());
        lab.step.set(None);
    };
    let jump = move |n: usize| {
        stop();
        lab.step.set(lab.cursor().jump(n));
    };

    let handle = window_event_listener(ev::keydown, move |e| {
        if browser::field_owns_key(e.target(), &e.key())
            || e.ctrl_key()
            || e.meta_key()
            || e.alt_key()
        {
            return;
        }
        let handled = match e.key().as_str() {
            " " => {
                toggle();
                true
            }
            "ArrowRight" => {
                stop();
                next();
                true
            }
            "ArrowLeft" => {
                stop();
                lab.step.set(lab.cursor().back());
                true
            }
            "Home" => {
                jump(0);
                true
            }
            "End" => {
                show_all();
                true
            }
            _ => false,
        };
        if handled {
            e.prevent_default();
        }
    });
    on_cleanup(move || handle.remove());

    view! {
        <section class="playback" aria-label="Playback">
            <button class="playback__start" on:click=move |_| toggle()>
                {move || if lab.playing.get() { "Pause" } else { "Start trace" }.to_string()}
            </button>
            <button on:click=move |_| { stop(); next(); }>"Next step"</button>
            <button on:click=move |_| show_all()>"Show all"</button>
            <label class="playback__slider">
                <span class="visually-hidden">"Trace step"</span>
                <input type="range" min="0" max=move || len().to_string() step="1"
                    prop:value=move || lab.revealed().to_string()
                    aria-valuetext=move || format!("step {} of {}", lab.revealed(), len())
                    on:input=move |e| jump(event_target_value(&e).parse().unwrap_or(0))/>
            </label>
            <output class="playback__position" aria-live="polite">
                {move || format!("step {} / {}", lab.revealed(), len())}
            </output>
            <button class="playback__reset" on:click=move |_| reset()>"Reset"</button>
        </section>
    }
}
