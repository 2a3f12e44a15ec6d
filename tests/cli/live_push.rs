//! Live's webhook (`serve --agent` on a card that declares push): the
//! receiver listens on the loopback only and keeps only the POSTs that
//! carry the token it handed out with the push config; its stream to the
//! page (`/live/pushes`) is behind the relay's gate, and there is none
//! before a card that declares push was found.

use std::time::Duration;

use a2a_lab::probe::webhook::WebhookServer;

use crate::live::TOKEN;

fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent()
}

const BODY: &str = r#"{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_WORKING"}}}"#;

/// POSTs a body to `url` with the header `name: value` when given.
fn post(url: &str, header: Option<(&str, &str)>) -> u16 {
    let mut request = client()
        .post(url)
        .header("Content-Type", "application/json");
    if let Some((name, value)) = header {
        request = request.header(name, value);
    }
    request.send(BODY).unwrap().status().as_u16()
}

#[test]
fn the_receiver_keeps_only_the_posts_that_carry_its_token() {
    let hook = WebhookServer::for_token("the-token".into()).unwrap();
    let url = hook.url();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let mut kept = hook.follow();
    for refused in [
        None,
        Some(("X-A2A-Notification-Token", "another")),
        Some(("X-A2A-Notification-Token", "the-toke")),
        Some(("Authorization", "the-token")),
    ] {
        assert_eq!(post(&url, refused), 403, "{refused:?}");
    }
    assert!(hook.posts().is_empty());
    assert!(!kept.has_changed().unwrap());
    // As a2a-sdk and @a2a-js/sdk send it, then as a2a-rs does.
    assert_eq!(
        post(&url, Some(("X-A2A-Notification-Token", "the-token"))),
        200
    );
    assert_eq!(
        post(&url, Some(("A2A-Notification-Token", "the-token"))),
        200
    );
    assert!(kept.has_changed().unwrap());
    assert_eq!(*kept.borrow_and_update(), 2);
    let posts = hook.posts_from(1);
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].body, BODY);
    // The names are kept, never a value: the token is in no record.
    assert!(!posts[0].log_line().contains("the-token"));
    assert!(hook.posts_from(5).is_empty());
    // Only on the loopback: no other address of the machine answers.
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .unwrap()
        .parse::<u16>()
        .unwrap();
    let other = std::net::TcpStream::connect_timeout(
        &std::net::SocketAddr::from(([127, 0, 0, 2], port)),
        Duration::from_secs(1),
    );
    assert!(other.is_err(), "127.0.0.2:{port} answered");
}

#[test]
fn the_pushes_stream_is_behind_the_gate_and_none_before_push() {
    // No agent there: the relay never found a card, so no webhook.
    let server = crate::live::live("http://127.0.0.1:9");
    let url = format!("http://127.0.0.1:{}/live/pushes", server.addr().port());
    let answer = |token: Option<&str>| {
        let mut request = client().get(&url);
        if let Some(token) = token {
            request = request.header("X-A2A-Lab-Token", token);
        }
        let mut answer = request.call().unwrap();
        let status = answer.status().as_u16();
        (status, answer.body_mut().read_to_string().unwrap())
    };
    let (status, body) = answer(None);
    assert_eq!(status, 403, "{body}");
    let (status, body) = answer(Some("0"));
    assert_eq!(status, 403, "{body}");
    // The page's own: no card that declares push was found, no webhook.
    let (status, body) = answer(Some(TOKEN));
    assert_eq!((status, body.as_str()), (204, ""));
}
