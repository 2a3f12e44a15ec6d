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

/// What the playback bar does: every control and key acts through it.
#[derive(Clone, Copy)]
struct Player {
    lab: Lab,
    timer: StoredValue<Option<Interval>, LocalStorage>,
}

impl Player {
    fn stop(self) {
        self.timer.set_value(None);
        self.lab.playing.set(false);
    }

    fn next(self) {
        self.lab.step.set(self.lab.cursor().next());
        if self.lab.cursor().at_end() {
            self.stop();
        }
    }

    fn start(self) {
        self.lab.step.set(self.lab.cursor().start());
        self.lab.playing.set(true);
        let interval = Interval::new(1000 / ROWS_PER_SECOND, move || self.next());
        self.timer.set_value(Some(interval));
    }

    fn toggle(self) {
        if self.lab.playing.get_untracked() {
            self.stop()
        } else {
            self.start()
        }
    }

    fn show_all(self) {
        self.stop();
        self.lab.step.set(None);
    }

    fn reset(self) {
        self.stop();
        self.lab.leave_capture();
        self.lab.message.set(None);
        self.lab.scenario.set(Scenario::default());
        self.lab.step.set(None);
    }

    fn jump(self, n: usize) {
        self.stop();
        self.lab.step.set(self.lab.cursor().jump(n));
    }

    /// A key pressed anywhere on the page; `true` when playback took it.
    fn key(self, key: &str) -> bool {
        match key {
            " " => self.toggle(),
            "ArrowRight" => {
                self.stop();
                self.next();
            }
            "ArrowLeft" => {
                self.stop();
                self.lab.step.set(self.lab.cursor().back());
            }
            "Home" => self.jump(0),
            "End" => self.show_all(),
            _ => return false,
        }
        true
    }
}

/// The playback bar.
#[component]
pub fn Playback() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let player = Player {
        lab,
        timer: StoredValue::new_local(None::<Interval>),
    };
    let len = move || lab.run.with(|r| r.trace.rows.len());

    let handle = window_event_listener(ev::keydown, move |e| {
        let modified = e.ctrl_key() || e.meta_key() || e.alt_key();
        if browser::field_owns_key(e.target(), &e.key()) || modified {
            return;
        }
        if player.key(e.key().as_str()) {
            e.prevent_default();
        }
    });
    on_cleanup(move || handle.remove());

    view! {
        <section class="playback" aria-label="Playback">
            <button class="playback__start" on:click=move |_| player.toggle()>
                {move || if lab.playing.get() { "Pause" } else { "Start trace" }.to_string()}
            </button>
            <button on:click=move |_| { player.stop(); player.next(); }>"Next step"</button>
            <button on:click=move |_| player.show_all()>"Show all"</button>
            <label class="playback__slider">
                <span class="visually-hidden">"Trace step"</span>
                <input type="range" min="0" max=move || len().to_string() step="1"
                    prop:value=move || lab.revealed().to_string()
                    aria-valuetext=move || format!("step {} of {}", lab.revealed(), len())
                    on:input=move |e| player.jump(event_target_value(&e).parse().unwrap_or(0))/>
            </label>
            <output class="playback__position" aria-live="polite">
                {move || format!("step {} / {}", lab.revealed(), len())}
            </output>
            <button class="playback__reset" on:click=move |_| player.reset()>"Reset"</button>
        </section>
    }
}
