//! What the Live view's buttons do: connect, make a call and feed its
//! frames to the session as they stream in, drop a stream, poll a task
//! until it ends, download the session; and, once connected, follow the
//! webhook's POSTs. The session judges each frame as it comes; the views
//! are given its report, the POSTs laid beside it, after a paint, at most
//! every [`REFRESH_EVERY_MS`], since a report copies every row kept.
//!
//! Each is kept out of line (`inline(never)`): a button's handler is a
//! closure whose address the page's function table holds, and that table,
//! with every function in it, stays in the first view's module; a handler
//! that only calls one of these keeps the work in Live's chunk.

use leptos::prelude::*;

use super::{Link, Live};
use crate::model::evidence::live::ask::LiveAsk;
use crate::model::pictures::shown::Shown;

/// How often "poll until it ends" asks, and how many times at most.
#[cfg(target_arch = "wasm32")]
const POLL_EVERY_MS: u32 = 500;
#[cfg(target_arch = "wasm32")]
const POLLS: usize = 120;

/// The least time between two reports shown while frames stream in.
#[cfg(target_arch = "wasm32")]
const REFRESH_EVERY_MS: f64 = 100.0;

/// Asks the relay to reach for the agent; the doctor shows what it found.
#[inline(never)]
pub fn connect(live: Live) {
    live.link.set(Link::Connecting);
    #[cfg(target_arch = "wasm32")]
    leptos::task::spawn_local(async move {
        let token = live.token.get_value();
        live.link.set(match super::relay::connect(&token).await {
            Ok(found) => {
                if crate::model::evidence::live::doctor::connected(&found.steps) {
                    follow_pushes(live);
                }
                Link::Found(Box::new(found))
            }
            Err(why) => Link::Failed(why),
        });
    });
    #[cfg(not(target_arch = "wasm32"))]
    live.link.set(Link::Failed(
        "Live runs in the browser, from a2a-lab serve --agent".into(),
    ));
}

/// The session as judged, with the webhook's POSTs beside it, shown in
/// the trace table, timeline and diagram, the task the controls act on
/// chosen.
#[inline(never)]
fn refresh(live: Live) {
    #[cfg(target_arch = "wasm32")]
    live.refreshed.set_value(Some(crate::ui::browser::now_ms()));
    live.changed.update(|n| *n += 1);
    let lab = live.lab;
    let judged = live.session.with_value(|s| {
        let chosen = s.task().map(|t| t.id.clone());
        let laid = |mut report| {
            s.pushes().lay(&mut report);
            report
        };
        s.report().map(|r| (r.map(laid), chosen))
    });
    match judged {
        None => {}
        Some((Ok(report), chosen)) => {
            let at = chosen
                .and_then(|id| report.tasks.iter().position(|t| t.id == id))
                .unwrap_or(0);
            lab.show(Shown::capture(report).choose(at));
        }
        Some((Err(e), _)) => lab.error(format!("The session does not read as a capture: {e}")),
    }
}

/// Makes the call `ask` names; a streaming one can be dropped by the
/// controls while it runs.
#[inline(never)]
pub fn call(live: Live, ask: LiveAsk) {
    let number = live.session.try_update_value(|s| s.begin()).unwrap_or(0);
    live.running.update(|r| r.push(number));
    let text = serde_json::to_string(&ask).unwrap_or_default();
    #[cfg(target_arch = "wasm32")]
    {
        let streams = matches!(ask, LiveAsk::Send { .. } | LiveAsk::Subscribe { .. });
        leptos::task::spawn_local(async move {
            let token = live.token.get_value();
            let ended = match super::relay::open(&token, &text).await {
                Ok(reader) => {
                    let reader = std::rc::Rc::new(reader);
                    if streams {
                        live.streams
                            .update_value(|s| s.push((number, std::rc::Rc::clone(&reader))));
                    }
                    let mut on_frames = |frames| take(live, number, frames);
                    super::relay::read(&reader, &mut on_frames).await
                }
                Err(why) => Err(why),
            };
            // A stream the page dropped ends with no last frame.
            live.session.update_value(|s| {
                s.cut(
                    number,
                    &ended.err().unwrap_or_else(|| "dropped by the page".into()),
                )
            });
            live.streams
                .update_value(|s| s.retain(|(n, _)| *n != number));
            live.running.update(|r| r.retain(|n| *n != number));
            refresh(live);
        });
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = text;
        live.session
            .update_value(|s| s.cut(number, "Live runs in the browser"));
        live.running.update(|r| r.retain(|n| *n != number));
        refresh(live);
    }
}

/// Frames of call `number`, into the session, then the views.
#[cfg(target_arch = "wasm32")]
#[inline(never)]
fn take(live: Live, number: usize, frames: Vec<crate::model::evidence::live::frame::Frame>) {
    live.session.update_value(|s| {
        for frame in frames {
            s.on_frame(number, frame);
        }
    });
    refresh_soon(live);
}

/// Shows the session's report after the next paint, and no sooner than
/// [`REFRESH_EVERY_MS`] after the last one; a report already due takes
/// the frames read meanwhile.
#[cfg(target_arch = "wasm32")]
#[inline(never)]
fn refresh_soon(live: Live) {
    use crate::ui::browser::{after_paint, now_ms, sleep};
    let Some(last) = live.refreshed.get_value() else {
        return;
    };
    live.refreshed.set_value(None);
    leptos::task::spawn_local(async move {
        let wait = last + REFRESH_EVERY_MS - now_ms();
        if wait > 0.0 {
            sleep(wait as u32).await;
        }
        after_paint().await;
        refresh(live);
    });
}

/// Drops the streams under way (the page stops reading; the relay drops
/// the agent's stream).
#[inline(never)]
pub fn drop_streams(live: Live) {
    #[cfg(target_arch = "wasm32")]
    live.streams.update_value(|streams| {
        for (_, reader) in streams.drain(..) {
            reader.cancel();
        }
    });
    #[cfg(not(target_arch = "wasm32"))]
    let _ = live;
}

/// Drops the task's stream, then subscribes to it again.
#[inline(never)]
pub fn resubscribe(live: Live, task_id: String) {
    drop_streams(live);
    call(live, LiveAsk::Subscribe { task_id });
}

/// Asks GetTask until the task ends (or [`POLLS`] times).
#[inline(never)]
pub fn poll(live: Live, task_id: String) {
    #[cfg(target_arch = "wasm32")]
    leptos::task::spawn_local(async move {
        for _ in 0..POLLS {
            let ended = live
                .session
                .with_value(|s| s.task().is_some_and(|t| t.id == task_id && t.ended()));
            if ended {
                return;
            }
            call(
                live,
                LiveAsk::Get {
                    task_id: task_id.clone(),
                },
            );
            crate::ui::browser::sleep(POLL_EVERY_MS).await;
        }
    });
    #[cfg(not(target_arch = "wasm32"))]
    call(live, LiveAsk::Get { task_id });
}

/// Downloads the session: the capture `check` reads, requests included.
#[inline(never)]
pub fn download(live: Live) {
    let text = live.session.with_value(|s| s.capture().to_string());
    if let Err(e) = crate::ui::browser::download("a2a-lab-session.jsonl", &text) {
        live.lab.error(format!("Download failed: {e}"));
    }
}

/// One POST into the log, then the views.
#[cfg(target_arch = "wasm32")]
#[inline(never)]
fn take_post(live: Live, line: &str) {
    live.session.update_value(|s| {
        s.pushes_mut().on_line(line);
    });
    refresh_soon(live);
}

/// Follows the webhook's POSTs for as long as the page is open; nothing
/// when the relay has none (the card declares no push: an empty answer).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline(never)]
fn follow_pushes(live: Live) {
    #[cfg(target_arch = "wasm32")]
    leptos::task::spawn_local(async move {
        let token = live.token.get_value();
        let Ok(reader) = super::relay::follow(&token).await else {
            return;
        };
        let mut on_line = |line: &str| take_post(live, line);
        if let Err(why) = super::relay::read_lines(&reader, &mut on_line).await {
            live.lab
                .error(format!("The webhook's POSTs stopped: {why}"));
        }
    });
    #[cfg(not(target_arch = "wasm32"))]
    let _ = live;
}
