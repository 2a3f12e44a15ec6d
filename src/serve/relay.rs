//! The relay of `serve --agent` (Live): the page's only way to the agent,
//! since a page cannot call an agent on another origin. Two routes, both
//! behind the gate ([`super::gate`]) (and a third, `GET /live/pushes`, the
//! webhook's POSTs when the card declares push: [`super::pushes`]):
//! `GET /live/connect` reaches for the
//! agent and answers what it found with the doctor's steps on it
//! ([`Diagnosis`]); `POST /live/call`
//! takes one ask ([`LiveAsk`]) and streams its frames back as JSON Lines, each
//! as it comes; a bad ask, or one the agent's wire has no call for
//! (ListTasks on 0.3), is refused 400 with why, and nothing is sent. A call runs on a thread of its own (the probe's callers
//! block); when the page stops reading, the call is dropped.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;

use crate::model::evidence::live::ask::LiveAsk;
use crate::model::evidence::live::doctor::Diagnosis;
use crate::model::evidence::live::frame::Frame;
use crate::model::evidence::live::session::Session;
use crate::probe::live::{connect, AgentOptions, Reachable};

use super::pushes::LiveHook;

/// How many frames may wait for the page before the call waits for it.
const FRAMES_AHEAD: usize = 256;

/// What the relay's routes share: the agent, and the session with it once
/// connected.
pub struct Relay {
    options: AgentOptions,
    reachable: Mutex<Option<Arc<Reachable>>>,
    /// The session as the relay keeps it (`--out`).
    kept: Option<Mutex<Kept>>,
    /// The webhook, once a card that declares push was found.
    hook: Mutex<Option<Arc<LiveHook>>>,
}

/// The session kept under `--out`: every frame read into a [`Session`],
/// whose new lines are appended to `session.jsonl` as they come, so that
/// the file is the capture the page downloads, whatever the page does.
struct Kept {
    session: Session,
    file: std::fs::File,
    written: usize,
}

impl Kept {
    /// Call `call`'s next frame, and the lines it adds, written.
    fn take(&mut self, call: usize, frame: Frame) {
        use std::io::Write;
        self.session.on_frame(call, frame);
        let capture = self.session.capture();
        if let Some(new) = capture.get(self.written..) {
            // A disk that fails is said once per frame, and the call goes on.
            if let Err(e) = self.file.write_all(new.as_bytes()) {
                eprintln!("a2a-lab: serve --out: {e}");
            }
        }
        self.written = capture.len();
    }
}

impl Relay {
    /// A relay to the agent `options` name, not yet connected; with
    /// `options.out`, the folder made and `session.jsonl` begun (the
    /// error says which path failed).
    pub fn new(options: AgentOptions) -> Result<Arc<Relay>, String> {
        let kept = match &options.out {
            None => None,
            Some(dir) => {
                let fail = |e: std::io::Error| format!("--out {}: {e}", dir.display());
                std::fs::create_dir_all(dir).map_err(fail)?;
                let file = std::fs::File::create(dir.join("session.jsonl")).map_err(fail)?;
                Some(Mutex::new(Kept {
                    session: Session::new(),
                    file,
                    written: 0,
                }))
            }
        };
        Ok(Arc::new(Relay {
            options,
            reachable: Mutex::new(None),
            kept,
            hook: Mutex::new(None),
        }))
    }

    /// The webhook, when the agent's card declares push.
    pub fn hook(&self) -> Option<Arc<LiveHook>> {
        self.hook.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Starts the webhook, once: a page opened again finds the same one.
    fn arm_hook(&self) {
        let mut hook = self.hook.lock().unwrap_or_else(|e| e.into_inner());
        if hook.is_none() {
            match LiveHook::start(self.options.out.as_deref()) {
                Ok(started) => *hook = Some(started),
                // Live goes on without push, and says why.
                Err(e) => eprintln!("a2a-lab: no webhook for push: {e}"),
            }
        }
    }
}

/// The relay's routes.
pub fn router(relay: Arc<Relay>) -> Router {
    Router::new()
        .route("/live/connect", get(connect_route))
        .route("/live/call", post(call_route))
        .route("/live/pushes", get(pushes_route))
        .with_state(relay)
}

fn answer(status: StatusCode, content_type: &str, body: impl Into<Body>) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        // What the relay answers is the agent's: never kept by a cache.
        .header(header::CACHE_CONTROL, "no-store")
        .body(body.into())
        .unwrap_or_default()
}

fn text(status: StatusCode, message: impl Into<String>) -> Response {
    answer(status, "text/plain; charset=utf-8", message.into())
}

async fn connect_route(State(relay): State<Arc<Relay>>) -> Response {
    let options = relay.options.clone();
    let (tx, rx) = tokio::sync::oneshot::channel();
    // The callers block (ureq, and gRPC on a runtime of its own).
    let spawned = std::thread::Builder::new()
        .name("a2a-lab-connect".into())
        .spawn(move || {
            let _ = tx.send(connect(&options));
        });
    if spawned.is_err() {
        return text(StatusCode::SERVICE_UNAVAILABLE, "no thread to connect on");
    }
    let Ok((found, reachable)) = rx.await else {
        return text(StatusCode::INTERNAL_SERVER_ERROR, "the connection failed");
    };
    if reachable.is_some() && found.interface.as_ref().is_some_and(|i| i.push) {
        relay.arm_hook();
    }
    *relay.reachable.lock().unwrap_or_else(|e| e.into_inner()) = reachable.map(Arc::new);
    answer(
        StatusCode::OK,
        "application/json",
        serde_json::to_string(&Diagnosis::of(found)).unwrap_or_default(),
    )
}

async fn pushes_route(State(relay): State<Arc<Relay>>) -> Response {
    super::pushes::answer(relay.hook())
}

async fn call_route(State(relay): State<Arc<Relay>>, body: Bytes) -> Response {
    let ask = match LiveAsk::parse(&body) {
        Ok(ask) => ask,
        Err(why) => return text(StatusCode::BAD_REQUEST, why),
    };
    let reachable = relay
        .reachable
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let Some(reachable) = reachable else {
        return text(
            StatusCode::CONFLICT,
            "not connected to the agent: connect first",
        );
    };
    let request = match reachable.request(&ask) {
        Ok(request) => request,
        Err(why) => return text(StatusCode::BAD_REQUEST, why),
    };
    let push = relay.hook().map(|hook| hook.config());
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(FRAMES_AHEAD);
    let keeping = Arc::clone(&relay);
    let spawned = std::thread::Builder::new()
        .name("a2a-lab-call".into())
        .spawn(move || {
            let kept = keeping.kept.as_ref();
            let number = kept.map(|k| k.lock().unwrap_or_else(|e| e.into_inner()).session.begin());
            let push = push
                .as_ref()
                .map(|(url, token)| (url.as_str(), token.as_str()));
            reachable.call(&ask, request, push, &mut |frame| {
                let line = frame.line();
                if let (Some(kept), Some(number)) = (kept, number) {
                    kept.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take(number, frame);
                }
                tx.blocking_send(line).is_ok()
            });
        });
    if spawned.is_err() {
        return text(StatusCode::SERVICE_UNAVAILABLE, "no thread to call on");
    }
    let frames = ReceiverStream::new(rx).map(|line| Ok::<_, Infallible>(Bytes::from(line)));
    answer(
        StatusCode::OK,
        "application/x-ndjson",
        Body::from_stream(frames),
    )
}
