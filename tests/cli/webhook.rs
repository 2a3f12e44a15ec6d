//! The probe's webhook (SPEC §12) against what a listening socket meets:
//! a slow drip, an oversized body, a malformed request, a request that
//! never ends, many connections at once. Each is answered 4xx or closed,
//! never kept, and the webhook goes on keeping the POSTs that are fine,
//! their header names and never a header's value.

#![cfg(not(target_arch = "wasm32"))]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use a2a_lab::probe::webhook::{WebhookLimits, WebhookServer};

/// A read timeout for the test's own sockets, so that no test hangs.
const PATIENCE: Duration = Duration::from_secs(8);

/// A webhook whose heads must arrive within `timeout` and whose bodies
/// may be silent for as long.
fn short(timeout: Duration) -> WebhookServer {
    let mut limits = WebhookLimits::default();
    limits.server.header_timeout = timeout;
    limits.server.body_timeout = timeout;
    WebhookServer::start_with(limits).unwrap()
}

fn connect(hook: &WebhookServer) -> TcpStream {
    let url = hook.url();
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap();
    let conn = TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(PATIENCE)).unwrap();
    conn
}

/// The head of the answer (status line and headers), or whatever came
/// before the connection closed, failed or stayed silent for `PATIENCE`.
fn head(conn: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut buf = [0; 4096];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// Sends `request` whole on a new connection and reads the answer's head.
fn send(hook: &WebhookServer, request: &[u8]) -> String {
    let mut conn = connect(hook);
    // A refused request may be closed on before it is all written.
    let _ = conn.write_all(request);
    head(&mut conn)
}

fn post(body: &str) -> String {
    format!(
        "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn bodies(hook: &WebhookServer) -> Vec<String> {
    hook.posts().into_iter().map(|p| p.body).collect()
}

/// Refused: answered 4xx, or closed without an answer.
fn refused(answer: &str) -> bool {
    answer.is_empty() || (answer.starts_with("HTTP/1.1 4") && answer.contains("\r\n\r\n"))
}

#[test]
fn keeps_names_and_bodies_never_values_and_answers_after_a_delay() {
    let hook = WebhookServer::start().unwrap();
    let mut conn = connect(&hook);
    let body = r#"{"statusUpdate":{"taskId":"t"}}"#;
    let request = format!(
        "POST /webhook HTTP/1.1\r\nHost: x\r\nX-A2A-Notification-Token: s3cret\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    conn.write_all(request.as_bytes()).unwrap();
    let answer = head(&mut conn);
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    // Header names as hyper writes them: lowercase, which HTTP reads alike.
    assert!(answer.contains("content-length: 0\r\n"), "{answer}");
    // The same connection, kept alive, a chunked body, answered late.
    hook.answer_after(Duration::from_millis(150));
    let chunked =
        "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{}\n\r\n0\r\n\r\n";
    let started = Instant::now();
    conn.write_all(chunked.as_bytes()).unwrap();
    let answer = head(&mut conn);
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
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
    assert!(posts[1].answered_ms >= posts[1].ms + 150);
    assert_eq!(posts[1].headers, ["Transfer-Encoding"]);
    assert_eq!(posts[1].body, "{}\n");
    assert!(!format!("{posts:?}").contains("s3cret"));
    // Dropped, it listens no more.
    let addr = conn.peer_addr().unwrap();
    drop(hook);
    let until = Instant::now() + Duration::from_secs(3);
    while TcpStream::connect(addr).is_ok() {
        assert!(Instant::now() < until, "still listening after the drop");
        thread::sleep(Duration::from_millis(20));
    }
}

/// A POST sent a few bytes at a time, for longer than the body's silence
/// timeout (which is for silence, not for a slow body), its head within
/// the header timeout: the other POSTs are answered meanwhile, and the
/// slow one is kept whole when it ends.
#[test]
fn a_slow_drip_is_kept_whole_and_holds_up_no_one() {
    let mut limits = WebhookLimits::default();
    limits.server.header_timeout = Duration::from_secs(5);
    limits.server.body_timeout = Duration::from_secs(1);
    let hook = Arc::new(WebhookServer::start_with(limits).unwrap());
    let dripped = r#"{"kind":"status-update","taskId":"drip","final":true}"#;
    let request = post(dripped);
    let dripper = {
        let hook = Arc::clone(&hook);
        thread::spawn(move || {
            let mut conn = connect(&hook);
            let started = Instant::now();
            for piece in request.as_bytes().chunks(4) {
                conn.write_all(piece).unwrap();
                thread::sleep(Duration::from_millis(60));
            }
            (head(&mut conn), started.elapsed())
        })
    };
    thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let answer = send(&hook, post(r#"{"kind":"prompt"}"#).as_bytes());
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(bodies(&hook), [r#"{"kind":"prompt"}"#]);
    let (answer, took) = dripper.join().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(took > Duration::from_millis(1500), "{took:?}");
    assert_eq!(bodies(&hook), [r#"{"kind":"prompt"}"#, dripped]);
}

/// Bodies over the limit, declared or chunked, are answered 413 and not
/// kept; a declared length too large to buffer ends nothing.
#[test]
fn an_oversized_body_is_answered_413_and_not_kept() {
    let hook = WebhookServer::start().unwrap();
    let max = WebhookLimits::default().server.max_body;
    // hyper refuses a length past its own bound (u64::MAX - 2) with the
    // head, as 431, before the webhook sees it.
    for (declared, status) in [
        ((max + 1).to_string(), "413"),
        ((1u64 << 40).to_string(), "413"),
        (usize::MAX.to_string(), "431"),
    ] {
        let request =
            format!("POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: {declared}\r\n\r\n{{");
        let answer = send(&hook, request.as_bytes());
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status} ")),
            "{declared}: {answer}"
        );
    }
    // Longer than any length: unreadable, so refused as malformed.
    let answer = send(
        &hook,
        b"POST /webhook HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n{}",
    );
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    // Chunked, 64 KiB at a time past the limit, written while the answer
    // is read.
    let mut conn = connect(&hook);
    let mut writer = conn.try_clone().unwrap();
    let chunks = max / (64 << 10) + 4;
    let sender = thread::spawn(move || {
        let chunk = format!("10000\r\n{}\r\n", "a".repeat(64 << 10));
        let _ = writer.write_all(b"POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
        for _ in 0..chunks {
            if writer.write_all(chunk.as_bytes()).is_err() {
                return;
            }
        }
        let _ = writer.write_all(b"0\r\n\r\n");
    });
    let answer = head(&mut conn);
    assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");
    drop(conn);
    sender.join().unwrap();
    // Exactly at a limit is kept, one byte over is not.
    let mut limits = WebhookLimits::default();
    limits.server.max_body = 8;
    let small = WebhookServer::start_with(limits).unwrap();
    assert!(send(&small, post("12345678").as_bytes()).starts_with("HTTP/1.1 200 "));
    assert!(send(&small, post("123456789").as_bytes()).starts_with("HTTP/1.1 413 "));
    let chunked = |body: &str| {
        format!(
            "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
            body.len()
        )
    };
    assert!(send(&small, chunked("abcdefgh").as_bytes()).starts_with("HTTP/1.1 200 "));
    assert!(send(&small, chunked("abcdefghi").as_bytes()).starts_with("HTTP/1.1 413 "));
    assert_eq!(bodies(&small), ["12345678", "abcdefgh"]);
    // The webhook goes on, and kept none of the oversized.
    assert!(send(&hook, post("{}").as_bytes()).starts_with("HTTP/1.1 200 "));
    assert_eq!(bodies(&hook), ["{}"]);
}

/// Requests that are not HTTP, or are over a limit before their body:
/// answered 4xx or closed, never kept, and the webhook goes on.
#[test]
fn a_malformed_request_is_refused_and_not_kept() {
    let hook = WebhookServer::start().unwrap();
    let huge_header = format!(
        "POST /webhook HTTP/1.1\r\nHost: x\r\nX-Huge: {}\r\nContent-Length: 2\r\n\r\n{{}}",
        "h".repeat(1 << 20)
    );
    let many_headers = format!(
        "POST /webhook HTTP/1.1\r\n{}Content-Length: 2\r\n\r\n{{}}",
        "X-One: 1\r\n".repeat(200)
    );
    let long_target = format!(
        "POST /{} HTTP/1.1\r\nContent-Length: 2\r\n\r\n{{}}",
        "p".repeat(100 << 10)
    );
    let inputs: [(&str, Vec<u8>, &str); 7] = [
        (
            "binary garbage",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\xff\xfe\r\n\r\n".to_vec(),
            "",
        ),
        (
            "no HTTP version",
            b"POST /webhook\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
            "HTTP/1.1 400 ",
        ),
        (
            "a header without a colon",
            b"POST /webhook HTTP/1.1\r\nno colon here\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
            "HTTP/1.1 400 ",
        ),
        (
            "a bad chunk size",
            b"POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
                .to_vec(),
            "HTTP/1.1 400 ",
        ),
        ("a 1 MiB header", huge_header.into_bytes(), "HTTP/1.1 431 "),
        ("200 headers", many_headers.into_bytes(), "HTTP/1.1 431 "),
        // Past the 16 KiB head before its request line ends.
        ("a 100 KiB path", long_target.into_bytes(), "HTTP/1.1 431 "),
    ];
    for (what, request, want) in inputs {
        let answer = send(&hook, &request);
        assert!(refused(&answer), "{what}: {answer}");
        assert!(answer.starts_with(want), "{what}: {answer}");
    }
    assert!(hook.posts().is_empty(), "{:?}", hook.posts());
    assert!(send(&hook, post("{}").as_bytes()).starts_with("HTTP/1.1 200 "));
    assert_eq!(bodies(&hook), ["{}"]);
}

/// Requests that stop half-way and leave the connection open: not kept,
/// closed once silent for the read timeout, and no one else waits.
#[test]
fn a_request_that_never_ends_is_closed_after_the_read_timeout() {
    let timeout = Duration::from_secs(1);
    let hook = Arc::new(short(timeout));
    let stalled: [&'static str; 3] = [
        // A short body, cut short.
        "POST /webhook HTTP/1.1\r\nContent-Length: 1000\r\n\r\n0123456789",
        // A body the webhook reads.
        "POST /webhook HTTP/1.1\r\nContent-Length: 5000\r\n\r\n0123456789",
        // Headers that never end.
        "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Le",
    ];
    let waiting: Vec<_> = stalled
        .iter()
        .map(|&request| {
            let hook = Arc::clone(&hook);
            thread::spawn(move || {
                let mut conn = connect(&hook);
                conn.write_all(request.as_bytes()).unwrap();
                let started = Instant::now();
                let answer = head(&mut conn);
                // Then the close, if it did not come with the answer.
                let mut rest = Vec::new();
                let closed = conn.read_to_end(&mut rest).is_ok();
                (answer, closed, started.elapsed())
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let answer = send(&hook, post(r#"{"on":"time"}"#).as_bytes());
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(started.elapsed() < Duration::from_millis(500));
    for (request, waited) in stalled.iter().zip(waiting) {
        let (answer, closed, took) = waited.join().unwrap();
        assert!(refused(&answer), "{request}: {answer}");
        assert!(closed, "{request}: still open after {took:?}");
        // Silent for the timeout once, at most three times (the body, what
        // is left of it, the next request).
        assert!(took >= timeout - Duration::from_millis(100), "{took:?}");
        assert!(took < timeout * 3 + Duration::from_secs(1), "{took:?}");
    }
    assert_eq!(bodies(&hook), [r#"{"on":"time"}"#]);
    // Idle for longer than the timeout, it still listens.
    thread::sleep(timeout + Duration::from_millis(200));
    let answer = send(&hook, post(r#"{"after":"idle"}"#).as_bytes());
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert_eq!(bodies(&hook), [r#"{"on":"time"}"#, r#"{"after":"idle"}"#]);
}

/// A hundred clients POSTing at once: each answered 200 and kept with its
/// body and header names, and no header value anywhere in the records.
#[test]
fn many_connections_at_once_are_all_kept() {
    const CLIENTS: usize = 100;
    let hook = Arc::new(WebhookServer::start().unwrap());
    let ready = Arc::new(Barrier::new(CLIENTS));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|n| {
            let (hook, ready) = (Arc::clone(&hook), Arc::clone(&ready));
            thread::spawn(move || {
                let body = format!(r#"{{"client":{n}}}"#);
                let request = format!(
                    "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A2A-Notification-Token: secret-{n}\r\nAuthorization: Bearer credential-{n}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let mut conn = connect(&hook);
                ready.wait();
                conn.write_all(request.as_bytes()).unwrap();
                head(&mut conn)
            })
        })
        .collect();
    for client in clients {
        let answer = client.join().unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    }
    hook.wait_quiet(Duration::from_millis(100), Duration::from_secs(5));
    let posts = hook.posts();
    assert_eq!(posts.len(), CLIENTS);
    let mut got = bodies(&hook);
    got.sort();
    let mut want: Vec<_> = (0..CLIENTS)
        .map(|n| format!(r#"{{"client":{n}}}"#))
        .collect();
    want.sort();
    assert_eq!(got, want);
    for post in &posts {
        assert_eq!(
            post.headers,
            [
                "Host",
                "X-A2A-Notification-Token",
                "Authorization",
                "Content-Type",
                "Content-Length"
            ]
        );
        assert!(!post.slow);
    }
    assert!(posts.windows(2).all(|w| w[0].ms <= w[1].ms));
    let kept = format!("{posts:?}");
    assert!(!kept.contains("secret-"), "{kept}");
    assert!(!kept.contains("credential-"), "{kept}");
}
