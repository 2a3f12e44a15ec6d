//! Live's webhook (`serve --agent`, SPEC §12). When the card declares
//! push, the relay starts the probe's receiver ([`WebhookServer`], on this
//! same server stack: 127.0.0.1, an ephemeral port, bounded reads) with a
//! token of its own, and sends its URL and token with each message that
//! starts a task; the receiver keeps only the POSTs that carry the token.
//! `GET /live/pushes`, behind the gate as the relay is, streams every POST
//! kept, from the first (a page opened again gets them all), each as it
//! arrives, as a line of the log `check --webhook` reads: the header names
//! and the body, never a header's value. With `--out` the same lines go to
//! `DIR/pushes.jsonl`, beside `session.jsonl`.

use std::convert::Infallible;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, StatusCode};
use axum::response::Response;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;

use super::gate::launch_token;
use crate::model::evidence::live::pushes::{LivePushes, PUSHES_FILE};
use crate::probe::webhook::WebhookServer;

/// How many POSTs may wait for the page before the stream waits for it.
const POSTS_AHEAD: usize = 256;

/// How often a quiet stream of POSTs looks whether the page still reads.
const STILL_READ_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The relay's webhook, listening until the relay ends.
pub struct LiveHook {
    server: WebhookServer,
    token: String,
}

impl LiveHook {
    /// Starts the receiver with a token of its own; with `out`, its POSTs
    /// are kept in `out/pushes.jsonl` as they come (the error says which
    /// path failed). Called on the server's runtime, which the keeping
    /// runs on.
    pub fn start(out: Option<&Path>) -> Result<Arc<LiveHook>, String> {
        let token = launch_token()?;
        let server = WebhookServer::for_token(token.clone())?;
        let hook = Arc::new(LiveHook { server, token });
        if let Some(dir) = out {
            let path = dir.join(PUSHES_FILE);
            let file = std::fs::File::create(&path)
                .map_err(|e| format!("--out {}: {e}", path.display()))?;
            tokio::spawn(keep(Arc::clone(&hook), file));
        }
        Ok(hook)
    }

    /// The push config sent with a message: the receiver's URL and token.
    pub fn config(&self) -> (String, String) {
        (self.server.url(), self.token.clone())
    }

    /// The POSTs kept from the `from`th on, a log line each.
    fn lines_from(&self, from: usize) -> Vec<String> {
        self.server
            .posts_from(from)
            .iter()
            .map(|p| p.log_line() + "\n")
            .collect()
    }
}

/// Sends each POST `hook` kept, from the first, into `to` as it arrives,
/// until nobody reads (looked at every few seconds while no POST comes).
async fn feed(hook: Arc<LiveHook>, to: tokio::sync::mpsc::Sender<String>) {
    let mut kept = hook.server.follow();
    let mut from = 0;
    while !to.is_closed() {
        let lines = hook.lines_from(from);
        from += lines.len();
        for line in lines {
            if to.send(line).await.is_err() {
                return;
            }
        }
        let waited = tokio::time::timeout(STILL_READ_EVERY, kept.changed()).await;
        if waited.is_ok_and(|changed| changed.is_err()) {
            return;
        }
    }
}

/// `--out`: each POST that reads as one, appended to `pushes.jsonl`, so
/// that `check session.jsonl --webhook pushes.jsonl` reads what the page
/// showed.
async fn keep(hook: Arc<LiveHook>, mut file: std::fs::File) {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(POSTS_AHEAD);
    tokio::spawn(feed(hook, tx));
    let mut log = LivePushes::new();
    while let Some(line) = rx.recv().await {
        // A disk that fails is said once per POST, and Live goes on.
        if log.on_line(&line) {
            if let Err(e) = file.write_all(line.as_bytes()) {
                eprintln!("a2a-lab: serve --out: {e}");
            }
        }
    }
}

/// `GET /live/pushes`: every POST kept, from the first, as JSON Lines as
/// they come; 204, no POST ever, when the relay has no webhook (the card
/// declares no push, or the agent is not connected yet): the page asks
/// after every connect, and a browser logs an error status as a fault.
pub fn answer(hook: Option<Arc<LiveHook>>) -> Response {
    let Some(hook) = hook else {
        return Response::builder()
            .status(StatusCode::NO_CONTENT)
            .header(header::CACHE_CONTROL, "no-store")
            .body(Body::empty())
            .unwrap_or_default();
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(POSTS_AHEAD);
    tokio::spawn(feed(hook, tx));
    let lines = ReceiverStream::new(rx).map(|line| Ok::<_, Infallible>(Bytes::from(line)));
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/x-ndjson")
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::from_stream(lines))
        .unwrap_or_default()
}
