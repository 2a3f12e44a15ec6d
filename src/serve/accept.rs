//! The accept loop and each connection's HTTP/1.1: a connection is a task
//! holding one of the server's slots, never a thread; the slots are
//! taken before the accept, so past the cap a connection waits in the
//! kernel's queue; a failed accept (no file descriptor left) is retried
//! after a wait that doubles, never at once.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

use super::io::Io;
use super::Limits;

/// The first wait after a failed accept, and the longest.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(1));

/// hyper's smallest read buffer, which bounds the head from below.
const MIN_HEAD: usize = 8 << 10;

/// What each connection serves, and how.
pub(super) struct Served {
    router: Router,
    limits: Limits,
    names: bool,
}

impl Served {
    /// `router` (its limits' layers on) on connections within `limits`.
    pub(super) fn new(router: Router, limits: Limits, names: bool) -> Arc<Served> {
        Arc::new(Served {
            router,
            limits,
            names,
        })
    }
}

/// Accepts connections on `listener`, each served as a task of its own
/// while it holds one of `served`'s slots, until the runtime ends.
pub(super) async fn accept(listener: TcpListener, served: Arc<Served>) {
    let slots = Arc::new(Semaphore::new(served.limits.max_connections.max(1)));
    let mut backoff = BACKOFF.0;
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        match listener.accept().await {
            Ok((stream, _)) => {
                backoff = BACKOFF.0;
                tokio::spawn(connection(stream, Arc::clone(&served), slot));
            }
            Err(_) => {
                drop(slot);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF.1);
            }
        }
    }
}

/// One connection's requests, in turn, until it closes or a limit ends
/// it; its slot is given back then.
async fn connection(stream: TcpStream, served: Arc<Served>, slot: OwnedSemaphorePermit) {
    let limits = served.limits;
    let max_head = limits.max_head.max(MIN_HEAD);
    let _ = stream.set_nodelay(true);
    // The head and one buffer after it (see `Names::of`).
    let io = Io::new(
        stream,
        limits.write_timeout,
        served.names.then_some(2 * max_head),
    );
    let names = io.names();
    let router = served.router.clone();
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        if let Some(sent) = names.as_ref().and_then(|n| n.of(&request)) {
            request.extensions_mut().insert(sent);
        }
        router.clone().oneshot(request)
    });
    let _ = http1::Builder::new()
        .timer(TokioTimer::new())
        .max_buf_size(max_head)
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), service)
        .await;
    drop(slot);
}
