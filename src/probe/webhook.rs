//! The probe's webhook (SPEC §12): an HTTP/1.1 receiver on 127.0.0.1, an
//! ephemeral port, on the lab's server stack ([`crate::serve`], whose
//! limits bound every connection). It keeps each POST to its path, with
//! its arrival time, header names as sent (never their values) and body,
//! and answers 200: at once, or after a delay when asked. Any other
//! method there is answered 405 and any other path 404, and neither is
//! kept: a health check or a browser is no push. A POST refused for a
//! limit is not kept either, and counted by why ([`RefusedPosts`]), for
//! the report to say (a head over the server's limit is refused before
//! any route sees it, and not counted: nothing read of it says it was a
//! POST to the webhook). What the POSTs mean is the model's judge's to say.
//! Live's receiver ([`WebhookServer::for_token`]) keeps only the POSTs that
//! carry the token it handed out with the push config, and tells whoever
//! follows it of each one kept ([`WebhookServer::follow`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::post;
use axum::{Extension, Router};

use crate::model::evidence::probe::records::{PostRecord, RefusedPosts};
use crate::serve::{self, Bound, SentHeaderNames, Serving};

/// The path the agent is told to POST to.
const PATH: &str = "/webhook";

/// What the webhook puts up with.
#[derive(Debug, Clone, Copy)]
pub struct WebhookLimits {
    /// Its server's: among them the longest body kept (a longer one is
    /// answered 413), how long a body may be silent, how long a head may
    /// take.
    pub server: serve::Limits,
    /// The most POSTs kept; past it a POST is answered 503.
    pub max_posts: usize,
}

impl Default for WebhookLimits {
    /// A 4 MiB body, silent for at most 30 s; 10,000 POSTs; the server's
    /// other limits as they are.
    fn default() -> WebhookLimits {
        WebhookLimits {
            server: serve::Limits {
                max_body: 4 << 20,
                body_timeout: Duration::from_secs(30),
                ..serve::Limits::default()
            },
            max_posts: 10_000,
        }
    }
}

/// What the handlers share.
struct Hook {
    started: Instant,
    max_posts: usize,
    delay_ms: AtomicU64,
    posts: Mutex<Vec<PostRecord>>,
    refused: Mutex<RefusedPosts>,
    last: Mutex<Instant>,
    /// The token a POST must carry (Live's), when one was handed out.
    token: Option<String>,
    /// How many POSTs were kept, for those who follow them.
    kept: tokio::sync::watch::Sender<usize>,
}

impl Hook {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn touch(&self) {
        *lock(&self.last) = Instant::now();
    }
}

/// A webhook listening until dropped.
pub struct WebhookServer {
    hook: Arc<Hook>,
    server: Serving,
}

impl WebhookServer {
    /// Listens on 127.0.0.1, an ephemeral port, with the default
    /// [`WebhookLimits`].
    pub fn start() -> Result<WebhookServer, String> {
        WebhookServer::start_with(WebhookLimits::default())
    }

    /// Listens on 127.0.0.1, an ephemeral port, with `limits`.
    pub fn start_with(limits: WebhookLimits) -> Result<WebhookServer, String> {
        WebhookServer::start_guarded(limits, None)
    }

    /// Live's receiver: as [`WebhookServer::start`], keeping only the
    /// POSTs that carry `token` (the push config's) in the header A2A
    /// names for it; any other is answered 403 and not kept.
    pub fn for_token(token: String) -> Result<WebhookServer, String> {
        WebhookServer::start_guarded(WebhookLimits::default(), Some(token))
    }

    fn start_guarded(
        limits: WebhookLimits,
        token: Option<String>,
    ) -> Result<WebhookServer, String> {
        let fail = |e: String| format!("--webhook: cannot listen on {e}");
        let now = Instant::now();
        let hook = Arc::new(Hook {
            started: now,
            max_posts: limits.max_posts,
            delay_ms: AtomicU64::new(0),
            posts: Mutex::new(Vec::new()),
            refused: Mutex::new(RefusedPosts::default()),
            last: Mutex::new(now),
            token,
            kept: tokio::sync::watch::Sender::new(0),
        });
        let routes = Router::new()
            .route(PATH, post(keep))
            .with_state(Arc::clone(&hook));
        let watched = Arc::clone(&hook);
        let server = Bound::local(0, limits.server)
            .map_err(fail)?
            .with_header_names()
            .spawn_around(routes, |bounded| {
                bounded.layer(middleware::from_fn_with_state(watched, count_refused))
            })
            .map_err(fail)?;
        Ok(WebhookServer { hook, server })
    }

    /// The address the agent is told when no `--webhook-url` is given.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{PATH}", self.server.addr().port())
    }

    /// From now on, answer each POST after `delay`.
    pub fn answer_after(&self, delay: Duration) {
        let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.hook.delay_ms.store(ms, Ordering::SeqCst);
    }

    /// Waits until no POST arrived or was answered for `quiet`, at most
    /// `cap`.
    pub fn wait_quiet(&self, quiet: Duration, cap: Duration) {
        let until = Instant::now() + cap;
        while Instant::now() < until {
            if lock(&self.hook.last).elapsed() >= quiet {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every POST kept so far, in the order they arrived.
    pub fn posts(&self) -> Vec<PostRecord> {
        lock(&self.hook.posts).clone()
    }

    /// The POSTs kept from the `from`th on, in the order they arrived.
    pub fn posts_from(&self, from: usize) -> Vec<PostRecord> {
        lock(&self.hook.posts)
            .get(from..)
            .map(<[PostRecord]>::to_vec)
            .unwrap_or_default()
    }

    /// Changes each time a POST is kept, to the number kept so far.
    pub fn follow(&self) -> tokio::sync::watch::Receiver<usize> {
        self.hook.kept.subscribe()
    }

    /// The POSTs refused so far, by why.
    pub fn refused(&self) -> RefusedPosts {
        *lock(&self.hook.refused)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A POST read whole within the limits: kept, then answered 200 (after
/// the delay asked for), or 503 past the most kept.
async fn keep(
    State(hook): State<Arc<Hook>>,
    sent: Option<Extension<SentHeaderNames>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    if let Some(token) = &hook.token {
        if !carries(&headers, token) {
            return StatusCode::FORBIDDEN;
        }
    }
    let arrived = hook.now_ms();
    hook.touch();
    let delay = hook.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    // The names only: a value (a token, credentials) is never kept. As
    // sent where the head was read back, else as hyper holds them.
    let names = match sent {
        Some(Extension(SentHeaderNames(names))) => names,
        None => headers.keys().map(|k| k.as_str().to_string()).collect(),
    };
    // Kept before the answer goes out, so that whoever saw the answer
    // finds the POST kept.
    let post = PostRecord {
        ms: arrived,
        answered_ms: hook.now_ms(),
        slow: delay > 0,
        headers: names,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let mut posts = lock(&hook.posts);
    if posts.len() >= hook.max_posts {
        return StatusCode::SERVICE_UNAVAILABLE;
    }
    // In the order they arrived, whatever order they were answered.
    let at = posts.partition_point(|p| p.ms <= post.ms);
    posts.insert(at, post);
    let kept = posts.len();
    drop(posts);
    hook.kept.send_replace(kept);
    hook.touch();
    StatusCode::OK
}

/// Whether a POST carries `token` where the SDKs send a push config's
/// token: `X-A2A-Notification-Token` (a2a-sdk, @a2a-js/sdk), or
/// `A2A-Notification-Token` (a2a-rs); compared in constant time.
fn carries(headers: &HeaderMap, token: &str) -> bool {
    ["x-a2a-notification-token", "a2a-notification-token"]
        .iter()
        .filter_map(|name| headers.get(*name))
        .any(|sent| crate::serve::gate::same(sent.as_bytes(), token.as_bytes()))
}

/// Around every route and limit: a POST to the webhook's path that was
/// not kept is counted by the status it was refused with.
async fn count_refused(State(hook): State<Arc<Hook>>, request: Request, next: Next) -> Response {
    let push = request.method() == Method::POST && request.uri().path() == PATH;
    let response = next.run(request).await;
    if push && !response.status().is_success() {
        let mut refused = lock(&hook.refused);
        match response.status() {
            StatusCode::PAYLOAD_TOO_LARGE => refused.too_long += 1,
            StatusCode::SERVICE_UNAVAILABLE => refused.too_many += 1,
            _ => refused.unread += 1,
        }
        drop(refused);
        hook.touch();
    }
    response
}
