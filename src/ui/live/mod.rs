//! The Live view (`serve --agent`): the lab on the user's own agent. It
//! loads as a chunk of its own when the page is opened with a launch
//! token, never in the first view. Connect runs the doctor; the message
//! box and the task controls each make one call through the relay; every
//! frame goes into the [`Session`], whose capture the capture reader
//! judges, and the trace table, timeline and diagram show it as they show
//! an import. What the agent sent is shown as text, never as HTML.

mod actions;
mod call_log;
mod doctor;
mod message_box;
pub mod relay;
mod task_controls;
mod webhook;

use leptos::prelude::*;

use super::deferred::{chunk, ChunkView};
use crate::model::evidence::live::doctor::DoctorView;
use crate::model::evidence::live::session::Session;

use call_log::CallLog;
use doctor::DoctorSteps;
use message_box::MessageBox;
use task_controls::TaskControls;
use webhook::WebhookLog;

/// Where the connection stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    /// Reaching for the agent.
    Connecting,
    /// The relay answered what it found, with the doctor's steps.
    Found(Box<DoctorView>),
    /// The relay could not be asked.
    Failed(String),
}

/// What the Live view's parts share.
#[derive(Clone, Copy)]
pub struct Live {
    /// The lab whose views show the session.
    lab: super::lab::Lab,
    /// The launch token the relay asks for.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    token: StoredValue<String>,
    /// The doctor's findings.
    link: RwSignal<Link>,
    /// Every frame so far, and the webhook's POSTs; `changed` counts its
    /// changes.
    session: StoredValue<Session>,
    /// Bumped whenever the session changes.
    changed: RwSignal<u64>,
    /// The calls under way, by their numbers in the session.
    running: RwSignal<Vec<usize>>,
    /// When the views were last given the session's report; `None` while
    /// a report is due.
    #[cfg(target_arch = "wasm32")]
    refreshed: StoredValue<Option<f64>>,
    /// The streams the controls may drop, by call number.
    #[cfg(target_arch = "wasm32")]
    streams: StoredValue<Vec<(usize, std::rc::Rc<relay::Reader>)>, LocalStorage>,
}

chunk!(
    live,
    /// The Live view's entry: its own chunk, fetched when the page opens
    /// with a launch token.
    pub fn live_entry() -> ChunkView {
        Ok(|| view! { <LivePanel/> }.into_any())
    }
);

/// The Live view.
#[component]
pub fn LivePanel() -> impl IntoView {
    // The lab is always provided; a panel without one shows nothing.
    let Some(lab) = use_context::<super::lab::Lab>() else {
        return ().into_any();
    };
    let url = crate::model::pictures::page::PageUrl::read(&super::browser::query());
    let token = url.live.unwrap_or_default();
    let checked = crate::model::evidence::live::launch_token(&token).map(drop);
    let live = Live {
        lab,
        token: StoredValue::new(token),
        link: RwSignal::new(Link::Connecting),
        session: StoredValue::new(Session::new()),
        changed: RwSignal::new(0),
        running: RwSignal::new(Vec::new()),
        #[cfg(target_arch = "wasm32")]
        refreshed: StoredValue::new(Some(0.0)),
        #[cfg(target_arch = "wasm32")]
        streams: StoredValue::new_local(Vec::new()),
    };
    match checked {
        Ok(()) => {
            actions::connect(live);
            // The session is shown by the capture's panel, in Import's
            // chunk: fetched now, while the doctor runs, not when the
            // first event comes.
            super::import::preload();
        }
        Err(why) => live.link.set(Link::Failed(why.to_string())),
    }
    view! {
        // Its own stylesheet (style/live.css, beside the bundle's files):
        // the first view's does not carry it, and the page's policy takes
        // no inline style.
        <link rel="stylesheet" href="live.css"/>
        <section class="live" aria-label="Live: your agent">
            <h2 class="live__title">"Live: your agent"</h2>
            <DoctorSteps live/>
            <MessageBox live/>
            <TaskControls live/>
            <WebhookLog live/>
            <CallLog live/>
        </section>
    }
    .into_any()
}
