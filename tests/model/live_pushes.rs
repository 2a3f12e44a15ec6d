//! Live's webhook (`model::evidence::live::pushes`): the POSTs the relay
//! streams are kept as the log `check --webhook` reads, judged beside the
//! session's capture as they arrive, and laid in the webhook's lane right
//! after the events they mirror.

use a2a_lab::model::evidence::finding::FindingCode;
use a2a_lab::model::evidence::live::pushes::LivePushes;
use a2a_lab::model::evidence::live::session::Session;
use a2a_lab::model::trace::{Disposition, RowKind, Source};
use serde_json::{json, Value};

use crate::live::{rpc, stream};

fn status(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": state}}})
}

fn artifact() -> Value {
    json!({"artifactUpdate": {"taskId": "t-1", "contextId": "c-1",
        "artifact": {"artifactId": "a", "parts": [{"text": "late"}]}}})
}

/// A streamed task: submitted, working, completed.
fn streamed() -> Session {
    let mut session = Session::new();
    let task = json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}});
    let events = [
        task,
        status("TASK_STATE_WORKING"),
        status("TASK_STATE_COMPLETED"),
    ];
    stream(
        &mut session,
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}),
        &events.map(rpc),
    );
    session
}

/// A POST as the relay streams it: its header names and its body.
fn post(body: &Value) -> String {
    json!({"headers": ["Content-Type", "X-A2A-Notification-Token"], "body": body}).to_string()
}

fn codes(session: &Session, pushes: &LivePushes) -> Vec<FindingCode> {
    let mut report = session.report().unwrap().unwrap();
    pushes.lay(&mut report);
    report.findings.iter().map(|f| f.code).collect()
}

#[test]
fn posts_are_judged_beside_the_session_as_they_arrive() {
    let session = streamed();
    let mut pushes = LivePushes::new();
    // No POST yet: the session is judged alone, as `check` without a log.
    assert_eq!(codes(&session, &pushes), []);
    assert!(pushes.on_line(&post(&status("TASK_STATE_WORKING"))));
    // The stream ended, the webhook was told WORKING only so far.
    assert_eq!(codes(&session, &pushes), [FindingCode::PushMissingTerminal]);
    assert!(pushes.on_line(&post(&status("TASK_STATE_COMPLETED"))));
    assert_eq!(codes(&session, &pushes), []);
    // An artifact after COMPLETED, then the same body again.
    assert!(pushes.on_line(&post(&artifact())));
    assert_eq!(codes(&session, &pushes), [FindingCode::PushedAfterTerminal]);
    assert!(pushes.on_line(&post(&artifact())));
    assert_eq!(
        codes(&session, &pushes),
        [
            FindingCode::PushedAfterTerminal,
            FindingCode::PushedAfterTerminal,
            FindingCode::PushDuplicate
        ]
    );
    // A line that is no POST is counted, and left out of the log.
    assert!(!pushes.on_line(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#));
    assert!(!pushes.on_line("<html>"));
    assert_eq!((pushes.len(), pushes.unreadable()), (4, 2));
    assert_eq!(pushes.log().lines().count(), 4);
    // The log is the lines the relay sent, as they came.
    assert_eq!(
        pushes.log().lines().next(),
        Some(post(&status("TASK_STATE_WORKING")).as_str())
    );
}

#[test]
fn each_post_is_laid_beside_the_event_it_mirrors() {
    let session = streamed();
    let mut pushes = LivePushes::new();
    for body in [
        status("TASK_STATE_WORKING"),
        status("TASK_STATE_COMPLETED"),
        artifact(),
    ] {
        pushes.on_line(&post(&body));
    }
    let mut report = session.report().unwrap().unwrap();
    pushes.lay(&mut report);
    let rows = &report.rows[0];
    let lanes: Vec<(Source, RowKind)> = rows.iter().map(|r| (r.source, r.kind)).collect();
    assert_eq!(
        lanes,
        [
            (Source::Server, RowKind::Event),
            (Source::Server, RowKind::Event),
            (Source::Webhook, RowKind::Push),
            (Source::Server, RowKind::Event),
            (Source::Webhook, RowKind::Push),
            (Source::Webhook, RowKind::Push),
        ]
    );
    assert!(rows.iter().enumerate().all(|(i, r)| r.index == i));
    assert_eq!(
        rows[2].event,
        "POST TASK_STATE_WORKING to the webhook → 200"
    );
    assert_eq!(rows[4].disposition, Disposition::Delivered);
    // The artifact mirrors no event of the stream: last, after the end.
    assert_eq!(rows[5].disposition, Disposition::AfterTerminal);
    let push = rows[5].push.as_ref().unwrap();
    assert_eq!(push.headers, ["Content-Type", "X-A2A-Notification-Token"]);
    assert_eq!(report.tasks[0].findings, 1);
}
