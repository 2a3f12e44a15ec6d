//! A connection's socket as the server reads and writes it: a write the
//! client does not take for [`super::Limits::write_timeout`] fails (hyper
//! sets no bound on writing), and, where asked, the last bytes read are
//! kept, to read each request's header names as the client wrote them.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::Request;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// The names of a request's headers as the client wrote them, in order
/// (hyper's header map holds them lowercased): a request's extension,
/// on a server bound [`super::Bound::with_header_names`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentHeaderNames(pub Vec<String>);

/// A connection's socket.
pub(super) struct Io {
    stream: TcpStream,
    write_timeout: Duration,
    /// Since when a write has waited on the client, as a timer.
    stalled: Option<Pin<Box<Sleep>>>,
    read: Option<Arc<Mutex<Tail>>>,
}

impl Io {
    /// `stream`, keeping the last `keep` bytes read when `keep` is given.
    pub(super) fn new(stream: TcpStream, write_timeout: Duration, keep: Option<usize>) -> Io {
        Io {
            stream,
            write_timeout,
            stalled: None,
            read: keep.map(|keep| {
                Arc::new(Mutex::new(Tail {
                    bytes: Vec::new(),
                    keep,
                }))
            }),
        }
    }

    /// What reads the names of each request's headers off the bytes kept.
    pub(super) fn names(&self) -> Option<Names> {
        self.read.clone().map(Names)
    }

    /// `polled`, unless it has waited on the client for the write timeout.
    fn bounded<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let timeout = self.write_timeout;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client did not take the answer",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for Io {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), Some(read)) = (&polled, &this.read) {
            lock(read).push(&buf.filled()[before..]);
        }
        polled
    }
}

impl AsyncWrite for Io {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write(cx, data);
        this.bounded(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write_vectored(cx, data);
        this.bounded(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_flush(cx);
        this.bounded(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The last bytes a connection read: at least `keep`, at most twice as
/// many and one read more.
struct Tail {
    bytes: Vec<u8>,
    keep: usize,
}

impl Tail {
    fn push(&mut self, read: &[u8]) {
        self.bytes.extend_from_slice(read);
        if self.bytes.len() > 2 * self.keep {
            let cut = self.bytes.len() - self.keep;
            self.bytes.drain(..cut);
        }
    }
}

/// Reads each request's header names off its connection's last bytes.
#[derive(Clone)]
pub(super) struct Names(Arc<Mutex<Tail>>);

impl Names {
    /// The names of `request`'s headers as sent, when its head is among
    /// the bytes kept: called as hyper hands the request over, its head
    /// read and at most a buffer of its body (or of the next request)
    /// after it. The last head that reads as this request's (its method,
    /// target and number of headers) is its own.
    pub(super) fn of<B>(&self, request: &Request<B>) -> Option<SentHeaderNames> {
        let tail = lock(&self.0);
        let bytes = &tail.bytes[..];
        let method = request.method().as_str().as_bytes();
        let target = request.uri().to_string();
        // Anywhere: a head follows the last body's byte with no line break.
        let starts = (0..bytes.len()).rev().filter(|&at| {
            bytes[at..].starts_with(method) && bytes.get(at + method.len()) == Some(&b' ')
        });
        for at in starts {
            let mut headers = [httparse::EMPTY_HEADER; 128];
            let mut head = httparse::Request::new(&mut headers);
            if let Ok(httparse::Status::Complete(_)) = head.parse(&bytes[at..]) {
                if head.path == Some(target.as_str())
                    && head.headers.len() == request.headers().len()
                {
                    let names = head.headers.iter().map(|h| h.name.to_string()).collect();
                    return Some(SentHeaderNames(names));
                }
            }
        }
        None
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
