//! The probe's webhook (SPEC §12): a small HTTP/1.1 receiver on
//! 127.0.0.1, an ephemeral port, in threads of its own. It keeps every
//! POST's arrival time, header names (never their values) and body, and
//! answers 200: at once, or after a delay when asked. What the POSTs mean
//! is the model's judge's to say.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::model::evidence::probe::records::PostRecord;

/// The largest body kept; a longer POST is answered 413 and not kept.
const MAX_BODY: usize = 4 << 20;
/// The most POSTs kept.
const MAX_POSTS: usize = 10_000;
/// The most header lines read of one request.
const MAX_HEADERS: usize = 100;

struct Shared {
    started: Instant,
    delay_ms: AtomicU64,
    stopped: AtomicBool,
    posts: Mutex<Vec<PostRecord>>,
    last: Mutex<Instant>,
}

/// A webhook listening until dropped.
pub struct Webhook {
    shared: Arc<Shared>,
    port: u16,
}

impl Webhook {
    /// Listens on 127.0.0.1, an ephemeral port.
    pub fn start() -> Result<Webhook, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| format!("--webhook: cannot listen on 127.0.0.1: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("--webhook: {e}"))?
            .port();
        let now = Instant::now();
        let shared = Arc::new(Shared {
            started: now,
            delay_ms: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            posts: Mutex::new(Vec::new()),
            last: Mutex::new(now),
        });
        let accepting = Arc::clone(&shared);
        thread::spawn(move || {
            for conn in listener.incoming() {
                if accepting.stopped.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    let shared = Arc::clone(&accepting);
                    thread::spawn(move || serve(conn, &shared));
                }
            }
        });
        Ok(Webhook { shared, port })
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
            let last = *self.shared.last.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() >= quiet {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Every POST kept so far, in the order they arrived.
    pub fn posts(&self) -> Vec<PostRecord> {
        self.shared
            .posts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn millis(shared: &Shared) -> u64 {
    u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// One connection: requests one after another (keep-alive) until it
/// closes, fails, or the webhook stops.
fn serve(conn: TcpStream, shared: &Shared) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(mut writer) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    while !shared.stopped.load(Ordering::SeqCst) {
        let Some((headers, body)) = read_request(&mut reader) else {
            return;
        };
        let arrived = millis(shared);
        touch(shared);
        let Some(body) = body else {
            let _ = writer.write_all(
                b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            return;
        };
        let delay = shared.delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            thread::sleep(Duration::from_millis(delay));
        }
        // Kept before the answer goes out, so that whoever saw the answer
        // finds the POST kept.
        let post = PostRecord {
            ms: arrived,
            answered_ms: millis(shared),
            slow: delay > 0,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        };
        let mut posts = shared.posts.lock().unwrap_or_else(|e| e.into_inner());
        if posts.len() < MAX_POSTS {
            // In the order they arrived, whatever order they were answered.
            let at = posts.partition_point(|p| p.ms <= post.ms);
            posts.insert(at, post);
        }
        drop(posts);
        if writer
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            .is_err()
        {
            return;
        }
        touch(shared);
    }
}

fn touch(shared: &Shared) {
    *shared.last.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
}

/// Reads one request: its header names and its body (`None` when too
/// large). `None` when the connection ends or the request is not HTTP.
type Request = (Vec<String>, Option<Vec<u8>>);

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    // The request line (blank lines before it are skipped).
    loop {
        line.clear();
        if reader.by_ref().take(8192).read_line(&mut line).ok()? == 0 {
            return None;
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut names = Vec::new();
    let mut length: Option<usize> = None;
    let mut chunked = false;
    for _ in 0..MAX_HEADERS {
        line.clear();
        if reader.by_ref().take(65536).read_line(&mut line).ok()? == 0 {
            return None;
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            let body = if chunked {
                read_chunked(reader)?
            } else {
                match length.unwrap_or(0) {
                    n if n > MAX_BODY => None,
                    n => {
                        let mut body = vec![0; n];
                        reader.read_exact(&mut body).ok()?;
                        Some(body)
                    }
                }
            };
            return Some((names, body));
        }
        let (name, value) = header.split_once(':')?;
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse().ok()?);
        }
        if name.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked") {
            chunked = true;
        }
        // The name only: a value (a token, credentials) is never kept.
        names.push(name.to_string());
    }
    None
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> Option<Option<Vec<u8>>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.by_ref().take(1024).read_line(&mut line).ok()?;
        let size = usize::from_str_radix(line.trim().split(';').next()?.trim(), 16).ok()?;
        if body.len() + size > MAX_BODY {
            return Some(None);
        }
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk).ok()?;
        body.extend_from_slice(&chunk[..size]);
        if size == 0 {
            // Trailers, if any, end with a blank line; the CRLF just read
            // was that line when there were none.
            return Some(Some(body));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_names_and_bodies_never_values_and_answers_after_a_delay() {
        let hook = Webhook::start().unwrap();
        let port = hook
            .url()
            .split(':')
            .nth(2)
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string();
        let mut conn = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
        let body = r#"{"statusUpdate":{"taskId":"t"}}"#;
        let request = format!(
            "POST /webhook HTTP/1.1\r\nHost: x\r\nX-A2A-Notification-Token: s3cret\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        conn.write_all(request.as_bytes()).unwrap();
        let mut answer = [0; 38];
        conn.read_exact(&mut answer).unwrap();
        assert!(answer.starts_with(b"HTTP/1.1 200 OK\r\n"));
        hook.answer_after(Duration::from_millis(150));
        let chunked =
            "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{}\n\r\n0\r\n\r\n";
        let started = Instant::now();
        conn.write_all(chunked.as_bytes()).unwrap();
        let mut rest = [0; 38];
        conn.read_exact(&mut rest).unwrap();
        assert!(started.elapsed() >= Duration::from_millis(150));
        hook.wait_quiet(Duration::from_millis(50), Duration::from_secs(2));
        let posts = hook.posts();
        assert_eq!(posts.len(), 2);
        assert_eq!(
            posts[0].headers,
            ["Host", "X-A2A-Notification-Token", "Content-Length"]
        );
        assert_eq!(posts[0].body, body);
        assert!(!posts[0].slow && posts[1].slow);
        assert_eq!(posts[1].body, "{}\n");
        assert!(!format!("{posts:?}").contains("s3cret"));
    }
}
