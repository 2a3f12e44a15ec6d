//! The probe's webhook (SPEC §12): what it keeps of a POST and how it
//! answers.

#![cfg(not(target_arch = "wasm32"))]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use a2a_lab::probe::webhook::Webhook;

/// A read timeout for the test's own sockets, so that no test hangs.
const PATIENCE: Duration = Duration::from_secs(8);

fn connect(hook: &Webhook) -> TcpStream {
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

#[test]
fn keeps_names_and_bodies_never_values_and_answers_after_a_delay() {
    let hook = Webhook::start().unwrap();
    let mut conn = connect(&hook);
    let body = r#"{"statusUpdate":{"taskId":"t"}}"#;
    let request = format!(
        "POST /webhook HTTP/1.1\r\nHost: x\r\nX-A2A-Notification-Token: s3cret\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    conn.write_all(request.as_bytes()).unwrap();
    let answer = head(&mut conn);
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.contains("Content-Length: 0\r\n"), "{answer}");
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
