//! Live's server (`serve --agent`) refuses what is not its own page: a
//! missing or wrong launch token, a foreign Origin or fetch site, a Host
//! other than its loopback address (DNS rebinding), an ask that names a
//! target or is not an ask. The agent here is not running: every refusal
//! comes before the relay would reach for it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use a2a_lab::probe::live::AgentOptions;
use a2a_lab::serve::files;
use a2a_lab::serve::live::LiveServer;
use a2a_lab::serve::{Bound, Limits, Serving};

pub(crate) const TOKEN: &str = "0123456789abcdef0123456789abcdef";
const PAGE: files::Bundle = &[("index.html", b"<p>the lab</p>")];

/// A Live server on an ephemeral port, relaying to `agent`.
pub(crate) fn live(agent: &str) -> Serving {
    let bound = Bound::local(0, Limits::default()).unwrap();
    let port = bound.addr().port();
    let options = AgentOptions {
        url: agent.into(),
        headers: vec![("Authorization".into(), "Bearer never-to-the-page".into())],
        binding: None,
        card: None,
        wire: None,
        timeout: Duration::from_secs(2),
        out: None,
    };
    let live = LiveServer::with_token(port, options, TOKEN.into()).unwrap();
    assert_eq!(
        live.page_url(),
        format!("http://127.0.0.1:{port}/?live={TOKEN}")
    );
    bound.spawn(live.router(files::router(PAGE))).unwrap()
}

/// Sends one raw request (its head's lines given, Host included) and
/// reads the whole answer: its status and its body.
fn raw(server: &Serving, head: &[String], body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut text = head.join("\r\n");
    text.push_str(&format!(
        "\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(text.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// A request from the page itself: its Host, its Origin, the token.
fn own(server: &Serving, line: &str) -> Vec<String> {
    let host = format!("127.0.0.1:{}", server.addr().port());
    vec![
        line.to_string(),
        format!("Host: {host}"),
        format!("Origin: http://{host}"),
        format!("X-A2A-Lab-Token: {TOKEN}"),
        "Sec-Fetch-Site: same-origin".into(),
    ]
}

/// `head` with the header `name` dropped, or set to `value`.
fn with(head: &[String], name: &str, value: Option<&str>) -> Vec<String> {
    let prefix = format!("{}:", name.to_ascii_lowercase());
    let mut head: Vec<String> = head
        .iter()
        .filter(|l| !l.to_ascii_lowercase().starts_with(&prefix))
        .cloned()
        .collect();
    if let Some(value) = value {
        head.push(format!("{name}: {value}"));
    }
    head
}

#[test]
fn the_relay_answers_only_its_own_page_with_the_token() {
    // Nothing listens on port 9 of the loopback: the relay's answers
    // below are its own.
    let server = live("http://127.0.0.1:9");
    let port = server.addr().port();
    let ask = r#"{"op":"get","taskId":"t-1"}"#;
    let call = own(&server, "POST /live/call HTTP/1.1");
    // The page's own call gets past the gate: not connected yet.
    let (status, body) = raw(&server, &call, ask);
    assert_eq!(
        (status, body.as_str()),
        (409, "not connected to the agent: connect first")
    );
    let refused = [
        (with(&call, "X-A2A-Lab-Token", None), "no launch token"),
        (
            with(
                &call,
                "X-A2A-Lab-Token",
                Some("0123456789abcdef0123456789abcdeF"),
            ),
            "no launch token",
        ),
        (with(&call, "X-A2A-Lab-Token", Some("0")), "no launch token"),
        (
            with(&call, "Origin", Some("http://evil.example")),
            "another site",
        ),
        (
            with(
                &call,
                "Origin",
                Some(&format!("http://127.0.0.1:{}", port + 1)),
            ),
            "another site",
        ),
        (with(&call, "Origin", Some("null")), "another site"),
        (
            with(&call, "Sec-Fetch-Site", Some("cross-site")),
            "another site",
        ),
        (
            with(&call, "Host", Some(&format!("rebound.example:{port}"))),
            "Host",
        ),
        (with(&call, "Host", Some("127.0.0.1")), "Host"),
        (with(&call, "Host", None), "Host"),
    ];
    for (head, why) in refused {
        let (status, body) = raw(&server, &head, ask);
        assert_eq!(status, 403, "{head:?}: {body}");
        assert!(body.contains(why), "{head:?}: {body}");
    }
    // The connect route is behind the same gate.
    let connect = own(&server, "GET /live/connect HTTP/1.1");
    let (status, _) = raw(&server, &with(&connect, "X-A2A-Lab-Token", None), "");
    assert_eq!(status, 403);
}

#[test]
fn the_page_is_served_to_its_own_host_only() {
    let server = live("http://127.0.0.1:9");
    let port = server.addr().port();
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
        let head = vec!["GET / HTTP/1.1".to_string(), format!("Host: {host}")];
        assert_eq!(raw(&server, &head, ""), (200, "<p>the lab</p>".into()));
    }
    let rebound = vec![
        "GET / HTTP/1.1".to_string(),
        format!("Host: attacker.example:{port}"),
    ];
    assert_eq!(raw(&server, &rebound, "").0, 403);
}

#[test]
fn an_ask_names_a_call_never_a_target() {
    let server = live("http://127.0.0.1:9");
    let call = own(&server, "POST /live/call HTTP/1.1");
    for (ask, why) in [
        (
            r#"{"op":"get","taskId":"t","url":"http://evil.example/"}"#,
            "unknown field",
        ),
        (
            r#"{"op":"fetch","url":"http://evil.example/"}"#,
            "unknown variant",
        ),
        (r#"{"op":"send","text":"  "}"#, "a text or a data part"),
        (r#"{"op":"send","text":"hi","data":[1]}"#, "a JSON object"),
        (r#"{"op":"cancel","taskId":""}"#, "taskId is empty"),
        ("not json", "a bad ask"),
    ] {
        let (status, body) = raw(&server, &call, ask);
        assert_eq!(status, 400, "{ask}: {body}");
        assert!(body.contains(why), "{ask}: {body}");
    }
}

#[test]
fn a_connect_to_an_agent_that_is_not_there_says_so_and_sends_no_credential() {
    let server = live("http://127.0.0.1:9");
    let (status, body) = raw(&server, &own(&server, "GET /live/connect HTTP/1.1"), "");
    assert_eq!(status, 200, "{body}");
    let found: a2a_lab::model::evidence::live::doctor::Diagnosis =
        serde_json::from_str(&body).unwrap();
    let connect = found.connect;
    assert_eq!(connect.tried.len(), 2, "{body}");
    assert!(
        connect.card.is_none() && connect.interface.is_none(),
        "{body}"
    );
    assert!(!body.contains("never-to-the-page"), "{body}");
    // The relay sends the doctor's steps: the page carries none of their words.
    let steps = found.steps;
    assert_eq!(
        steps,
        a2a_lab::model::evidence::live::doctor::steps(&connect)
    );
    assert_eq!(steps[0].name, "Card");
    assert!(steps[0].fix.as_deref().unwrap().contains("--card"));
    assert!(!a2a_lab::model::evidence::live::doctor::connected(&steps));
}

#[test]
fn an_out_folder_that_cannot_be_made_is_said_before_serving() {
    let scratch = crate::cli_support::Scratch::new("live-out");
    let file = scratch.write("a-file", b"not a folder");
    let options = AgentOptions {
        url: "http://127.0.0.1:9".into(),
        headers: vec![],
        binding: None,
        card: None,
        wire: None,
        timeout: Duration::from_secs(2),
        out: Some(file.join("session")),
    };
    let refused = LiveServer::with_token(0, options, TOKEN.into())
        .err()
        .unwrap();
    assert!(refused.starts_with("--out "), "{refused}");
}
