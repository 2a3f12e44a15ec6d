//! The probe's webhook (SPEC §12): an HTTP/1.1 receiver on 127.0.0.1, an
//! ephemeral port, on tiny_http. It keeps every POST's arrival time,
//! header names (never their values) and body, and answers 200: at once,
//! or after a delay when asked. What the POSTs mean is the model's judge's
//! to say.
//!
//! tiny_http (0.12) parses the requests; the limits are this file's, since
//! tiny_http sets no timeout, body limit or header limit of its own. A
//! request over a limit is answered 4xx and not kept. Two things no limit
//! here reaches: tiny_http reads a header line whole before it can be
//! refused, and a request line of HTTP/2.0 leaves its connection open and
//! unanswered for good (tiny_http's 505 waits on the request it answers).

use std::io::{self, ErrorKind, Read};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use tiny_http::{Request, Response, Server};

use crate::model::evidence::probe::records::PostRecord;

/// The most POSTs kept.
const MAX_POSTS: usize = 10_000;
/// The most header lines of one request.
const MAX_HEADERS: usize = 100;
/// The longest header line.
const MAX_HEADER_LINE: usize = 64 << 10;
/// The longest request target (the path).
const MAX_TARGET: usize = 8 << 10;
/// A refused body declared longer than this is never read (see `refuse`).
const MAX_DRAINED: usize = 64 << 20;

/// What the webhook puts up with.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The longest body kept; a longer one is answered 413 and not kept.
    pub max_body: usize,
    /// How long a connection may send nothing, in a request or between
    /// two, before it is closed; a request cut short so is not kept. Set on
    /// the listening socket, for systems whose accepted connections inherit
    /// it (Linux, macOS, the BSDs).
    pub read_timeout: Duration,
}

impl Default for Limits {
    /// 4 MiB and 30 s.
    fn default() -> Limits {
        Limits {
            max_body: 4 << 20,
            read_timeout: Duration::from_secs(30),
        }
    }
}

struct Shared {
    started: Instant,
    limits: Limits,
    delay_ms: AtomicU64,
    stopped: AtomicBool,
    posts: Mutex<Vec<PostRecord>>,
    last: Mutex<Instant>,
    /// The listening socket, which each server is given a clone of;
    /// `None` once the webhook stops.
    listener: Mutex<Option<TcpListener>>,
    /// Every server started, each to be unblocked when the webhook stops.
    servers: Mutex<Vec<Arc<Server>>>,
}

/// A webhook listening until dropped.
pub struct WebhookServer {
    shared: Arc<Shared>,
    port: u16,
}

impl WebhookServer {
    /// Listens on 127.0.0.1, an ephemeral port, with the default
    /// [`Limits`].
    pub fn start() -> Result<WebhookServer, String> {
        WebhookServer::start_with(Limits::default())
    }

    /// Listens on 127.0.0.1, an ephemeral port, with `limits`.
    pub fn start_with(limits: Limits) -> Result<WebhookServer, String> {
        let fail = |e: String| format!("--webhook: cannot listen on 127.0.0.1: {e}");
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| fail(e.to_string()))?;
        let port = listener
            .local_addr()
            .map_err(|e| fail(e.to_string()))?
            .port();
        let listener =
            with_read_timeout(listener, limits.read_timeout).map_err(|e| fail(e.to_string()))?;
        let now = Instant::now();
        let shared = Arc::new(Shared {
            started: now,
            limits,
            delay_ms: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            posts: Mutex::new(Vec::new()),
            last: Mutex::new(now),
            listener: Mutex::new(Some(listener)),
            servers: Mutex::new(Vec::new()),
        });
        serve(&shared).map_err(fail)?;
        Ok(WebhookServer { shared, port })
    }

    /// The address the agent is told when no `--webhook-url` is given.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/webhook", self.port)
    }

    /// From now on, answer each POST after `delay`.
    pub fn answer_after(&self, delay: Duration) {
        let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.shared.delay_ms.store(ms, Ordering::SeqCst);
    }

    /// Waits until no POST arrived or was answered for `quiet`, at most
    /// `cap`.
    pub fn wait_quiet(&self, quiet: Duration, cap: Duration) {
        let until = Instant::now() + cap;
        while Instant::now() < until {
            if lock(&self.shared.last).elapsed() >= quiet {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every POST kept so far, in the order they arrived.
    pub fn posts(&self) -> Vec<PostRecord> {
        lock(&self.shared.posts).clone()
    }
}

impl Drop for WebhookServer {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // The listener first, so that no server starts after the unblocking.
        drop(lock(&self.shared.listener).take());
        // Each server closes when its receiving thread lets it go.
        for server in std::mem::take(&mut *lock(&self.shared.servers)) {
            server.unblock();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn now_ms(shared: &Shared) -> u64 {
    u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn touch(shared: &Shared) {
    *lock(&shared.last) = Instant::now();
}

/// Gives the listening socket a read timeout, which the connections it
/// accepts inherit (Linux, macOS, the BSDs): tiny_http accepts them itself
/// and sets none. std sets the option on streams only, and the socket is
/// one for that purpose.
#[cfg(unix)]
fn with_read_timeout(listener: TcpListener, timeout: Duration) -> io::Result<TcpListener> {
    use std::os::fd::OwnedFd;
    let socket = TcpStream::from(OwnedFd::from(listener));
    socket.set_read_timeout(Some(timeout))?;
    Ok(TcpListener::from(OwnedFd::from(socket)))
}

#[cfg(windows)]
fn with_read_timeout(listener: TcpListener, timeout: Duration) -> io::Result<TcpListener> {
    use std::os::windows::io::OwnedSocket;
    let socket = TcpStream::from(OwnedSocket::from(listener));
    socket.set_read_timeout(Some(timeout))?;
    Ok(TcpListener::from(OwnedSocket::from(socket)))
}

#[cfg(not(any(unix, windows)))]
fn with_read_timeout(listener: TcpListener, _: Duration) -> io::Result<TcpListener> {
    Ok(listener)
}

/// Starts a server on a clone of the listening socket, and a thread that
/// hands each of its requests to a thread of its own.
fn serve(shared: &Arc<Shared>) -> Result<(), String> {
    // Held until the server is listed, so that a drop either comes first
    // (and no server starts) or unblocks this one too.
    let listener = lock(&shared.listener);
    let Some(listener) = listener.as_ref() else {
        return Ok(());
    };
    let clone = listener.try_clone().map_err(|e| e.to_string())?;
    let server = Arc::new(Server::from_listener(clone, None).map_err(|e| e.to_string())?);
    lock(&shared.servers).push(Arc::clone(&server));
    let shared = Arc::clone(shared);
    thread::spawn(move || receive(&server, &shared));
    Ok(())
}

/// Hands each request of `server` to a thread of its own, until the webhook
/// stops.
fn receive(server: &Server, shared: &Arc<Shared>) {
    loop {
        match server.recv() {
            Ok(request) => {
                let shared = Arc::clone(shared);
                thread::spawn(move || answer_post(request, &shared));
            }
            Err(_) if shared.stopped.load(Ordering::SeqCst) => return,
            // tiny_http stops accepting at its first failed accept, as when
            // an accept waited a whole read timeout (the listening socket's,
            // on Linux). A new server takes the socket over; this one goes
            // on with the connections it has.
            Err(e) => {
                if !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) {
                    // Such as no file descriptor left: not at full speed.
                    thread::sleep(Duration::from_millis(100));
                }
                while serve(shared).is_err() && !shared.stopped.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }
}

/// One request: kept and answered 200, or refused.
fn answer_post(mut request: Request, shared: &Shared) {
    let max = shared.limits.max_body;
    if let Some(status) = malformed(&request) {
        return refuse(request, status);
    }
    let declared = request.body_length();
    if declared.is_some_and(|n| n > max) {
        touch(shared);
        return refuse(request, 413);
    }
    // tiny_http hands an upgrade request the rest of the connection as its
    // body; the webhook never upgrades, and reads the body declared.
    let limit = match declared {
        Some(n) => n,
        None if upgrade(&request) => 0,
        None => max.saturating_add(1),
    };
    let mut body = Vec::new();
    let read = request
        .as_reader()
        .take(u64::try_from(limit).unwrap_or(u64::MAX))
        .read_to_end(&mut body);
    match read {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            return refuse(request, 408)
        }
        Err(_) => return refuse(request, 400),
        // The connection closed before the whole body came.
        Ok(n) if declared.is_some_and(|d| n < d) => return refuse(request, 400),
        Ok(_) => {}
    }
    let arrived = now_ms(shared);
    touch(shared);
    if body.len() > max {
        return refuse(request, 413);
    }
    let delay = shared.delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        thread::sleep(Duration::from_millis(delay));
    }
    // Kept before the answer goes out, so that whoever saw the answer
    // finds the POST kept.
    let post = PostRecord {
        ms: arrived,
        answered_ms: now_ms(shared),
        slow: delay > 0,
        // The names only: a value (a token, credentials) is never kept.
        headers: request
            .headers()
            .iter()
            .map(|h| h.field.to_string())
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let mut posts = lock(&shared.posts);
    if posts.len() < MAX_POSTS {
        // In the order they arrived, whatever order they were answered.
        let at = posts.partition_point(|p| p.ms <= post.ms);
        posts.insert(at, post);
    }
    drop(posts);
    if request.respond(Response::empty(200)).is_ok() {
        touch(shared);
    }
}

/// The status a request is refused with before its body is read, if it is.
fn malformed(request: &Request) -> Option<u16> {
    let headers = request.headers();
    let has = |name: &'static str| headers.iter().any(|h| h.field.equiv(name));
    if request.url().len() > MAX_TARGET {
        return Some(414);
    }
    let line = |h: &tiny_http::Header| h.field.as_str().len() + h.value.len() + 2;
    if headers.len() > MAX_HEADERS || headers.iter().any(|h| line(h) > MAX_HEADER_LINE) {
        return Some(431);
    }
    // tiny_http reads an unreadable length as no body, and the body as the
    // next request.
    if has("Content-Length") && !has("Transfer-Encoding") && request.body_length().is_none() {
        return Some(400);
    }
    // A chunked body the connection would hand over raw.
    if upgrade(request) && has("Transfer-Encoding") {
        return Some(400);
    }
    None
}

fn upgrade(request: &Request) -> bool {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Connection"))
        .is_some_and(|h| h.value.as_str().to_ascii_lowercase().contains("upgrade"))
}

/// Answers `status` and keeps nothing.
fn refuse(request: Request, status: u16) {
    if request.body_length().is_some_and(|n| n > MAX_DRAINED) {
        // tiny_http reads what is left of a declared body into a buffer of
        // that length when the request is dropped, and a declared terabyte
        // would end the process. `upgrade` answers without dropping it, and
        // the connection is left open and unread: a thread and a socket
        // for as long as the probe runs, for a request no agent sends.
        std::mem::forget(request.upgrade("none", Response::empty(status)));
        return;
    }
    let _ = request.respond(Response::empty(status));
}
