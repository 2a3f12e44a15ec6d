//! The lab's one server stack (native only): `serve`'s page and the probe's
//! webhook, each an axum [`Router`] of small handlers on the hyper and
//! tokio that tonic already brings. Every limit is set here once, for
//! every route: a listener on 127.0.0.1 only; at most
//! [`Limits::max_connections`] connections at once (past it, a connection
//! waits in the kernel's queue until one ends); a request's head of at
//! most [`Limits::max_head`] bytes, all of it within
//! [`Limits::header_timeout`] (past either it is answered 431 or closed,
//! and a connection idle between two requests is closed after the same
//! time); a body of at most [`Limits::max_body`] bytes, never silent for
//! [`Limits::body_timeout`]; a whole request answered within
//! [`Limits::request_timeout`]; an answer the client does not read for
//! [`Limits::write_timeout`] ends its connection.

mod accept;
pub mod files;
pub mod gate;
mod io;
pub mod live;
pub mod pushes;
pub mod relay;

use std::net::{SocketAddr, TcpListener};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::Router;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};

pub use io::SentHeaderNames;

/// What a server puts up with; each is one bound on what a client can
/// hold of it.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most connections served at once.
    pub max_connections: usize,
    /// The longest request head (request line and headers), in bytes; at
    /// least 8 KiB (hyper's smallest read buffer).
    pub max_head: usize,
    /// How long a head may take to arrive whole, from its first wait; also
    /// how long a kept-alive connection may sit idle between two requests.
    pub header_timeout: Duration,
    /// The longest body read; a longer one is answered 413.
    pub max_body: usize,
    /// How long a body may send nothing before it is given up (answered
    /// 400 when its handler reads it).
    pub body_timeout: Duration,
    /// How long a request may take from its head to its answer (408).
    pub request_timeout: Duration,
    /// How long an answer may wait on a client that does not read it
    /// before the connection is closed.
    pub write_timeout: Duration,
}

impl Default for Limits {
    /// 512 connections; a 16 KiB head within 10 s; a 64 KiB body, silent
    /// for at most 10 s; 60 s a request; 30 s a stalled write.
    fn default() -> Limits {
        Limits {
            max_connections: 512,
            max_head: 16 << 10,
            header_timeout: Duration::from_secs(10),
            max_body: 64 << 10,
            body_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(30),
        }
    }
}

/// A socket bound on 127.0.0.1, not yet served.
pub struct Bound {
    listener: TcpListener,
    addr: SocketAddr,
    limits: Limits,
    /// Whether each request carries its headers' names as sent
    /// ([`SentHeaderNames`]).
    names: bool,
}

impl Bound {
    /// Binds 127.0.0.1:`port` (0: an ephemeral port); the error says the
    /// address.
    pub fn local(port: u16, limits: Limits) -> Result<Bound, String> {
        let fail = |e: std::io::Error| format!("127.0.0.1:{port}: {e}");
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(fail)?;
        listener.set_nonblocking(true).map_err(fail)?;
        let addr = listener.local_addr().map_err(fail)?;
        Ok(Bound {
            listener,
            addr,
            limits,
            names: false,
        })
    }

    /// Each request carries the names of its headers as the client wrote
    /// them ([`SentHeaderNames`]): hyper lowercases them.
    pub fn with_header_names(mut self) -> Bound {
        self.names = true;
        self
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `router` on this thread until the process ends.
    pub fn run(self, router: Router) -> Result<(), String> {
        let runtime = runtime()?;
        let served = accept::Served::new(bounded(router, &self.limits), self.limits, self.names);
        runtime.block_on(async move {
            let listener =
                tokio::net::TcpListener::from_std(self.listener).map_err(|e| e.to_string())?;
            accept::accept(listener, served).await;
            Ok(())
        })
    }

    /// Serves `router` on a thread of its own until the [`Serving`] is
    /// dropped.
    pub fn spawn(self, router: Router) -> Result<Serving, String> {
        self.spawn_around(router, |bounded| bounded)
    }

    /// As [`Bound::spawn`], `router` within the limits then wrapped by
    /// `around`: a layer there sees every answer, the limits' refusals
    /// among them.
    pub fn spawn_around(
        self,
        router: Router,
        around: impl FnOnce(Router) -> Router,
    ) -> Result<Serving, String> {
        let runtime = runtime()?;
        let router = around(bounded(router, &self.limits));
        let served = accept::Served::new(router, self.limits, self.names);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let listener = self.listener;
        let thread = std::thread::Builder::new()
            .name("a2a-lab-server".into())
            .spawn(move || {
                runtime.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => {
                            tokio::spawn(accept::accept(listener, served));
                            // Every task, the listener's and each
                            // connection's, ends with the runtime.
                            let _ = stopped.await;
                        }
                        Err(e) => eprintln!("a2a-lab: cannot serve: {e}"),
                    }
                });
            })
            .map_err(|e| e.to_string())?;
        Ok(Serving {
            addr: self.addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

/// One thread's runtime: every connection is a task on it, none a thread.
fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))
}

/// A server running on a thread of its own; dropped, it stops listening
/// and closes every connection.
pub struct Serving {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Serving {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `router` with the limits every route shares: the body's length and
/// silence, the whole request's time.
fn bounded(router: Router, limits: &Limits) -> Router {
    router
        // The body limit is tower-http's, which also refuses a declared
        // length before the body is read; axum's own (2 MB) is not a second.
        .layer(DefaultBodyLimit::disable())
        .layer(RequestBodyLimitLayer::new(limits.max_body))
        .layer(RequestBodyTimeoutLayer::new(limits.body_timeout))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout,
        ))
}
