//! Live's pure half (`model::evidence::live`): an ask is a call, never a
//! target; the requests it makes are the probe's builder's, a reply
//! carrying the task's `taskId` and `contextId`; the relay's frames read
//! back; the session keeps what `check` reads and follows the task; the
//! doctor's steps say what failed and the fix; the page URL's token; a
//! ListTasks (1.0 only) kept and judged with no listed task taken for a
//! stream of the session's.

use a2a_lab::model::evidence::live::ask::LiveAsk;
use a2a_lab::model::evidence::live::doctor::{
    connected, security_schemes, steps, CardTry, Connect, Diagnosis, Reached, Spoken, StepVerdict,
};
use a2a_lab::model::evidence::live::frame::{sent, CallEnded, Frame};
use a2a_lab::model::evidence::live::session::Session;
use a2a_lab::model::evidence::live::{launch_token, MAX_TOKEN};
use a2a_lab::model::evidence::probe::records::AnswerEnd;
use a2a_lab::model::evidence::probe::request::Requests;
use a2a_lab::model::pictures::page::PageUrl;
use a2a_lab::model::wire::card::AgentCard;
use a2a_lab::model::wire::rest::Binding;
use a2a_lab::model::wire::Wire;
use serde_json::{json, Value};

fn requests(binding: &str, version: &str) -> Requests {
    let card = json!({"name": "A", "supportedInterfaces": [
        {"url": "http://127.0.0.1:9/a", "protocolBinding": binding, "protocolVersion": version}]});
    let card = AgentCard::parse(card.to_string().as_bytes()).unwrap();
    let binding = Binding::parse(match binding {
        "JSONRPC" => "jsonrpc",
        "HTTP+JSON" => "rest",
        _ => "grpc",
    });
    Requests::new(
        &card.endpoint(None, binding, "http://127.0.0.1:9").unwrap(),
        "s".into(),
    )
}

#[test]
fn a_reply_carries_the_task_and_its_context_on_both_wires() {
    let ask = LiveAsk::parse(
        br#"{"op":"send","text":"yes","data":{"n":1},"taskId":"t-1","contextId":"c-1"}"#,
    )
    .unwrap();
    let v1 = ask.request(&mut requests("JSONRPC", "1.0")).unwrap();
    let message = &v1.body.as_ref().unwrap()["params"]["message"];
    assert_eq!(v1.body.as_ref().unwrap()["method"], "SendStreamingMessage");
    assert_eq!(message["taskId"], "t-1");
    assert_eq!(message["contextId"], "c-1");
    assert_eq!(
        message["parts"],
        json!([{"text": "yes"}, {"data": {"n": 1}}])
    );
    let v03 = ask.request(&mut requests("JSONRPC", "0.3")).unwrap();
    let message = &v03.body.as_ref().unwrap()["params"]["message"];
    assert_eq!(v03.body.as_ref().unwrap()["method"], "message/stream");
    assert_eq!(
        message["parts"],
        json!([{"kind": "text", "text": "yes"}, {"kind": "data", "data": {"n": 1}}])
    );
    assert_eq!(
        (message["taskId"].as_str(), message["contextId"].as_str()),
        (Some("t-1"), Some("c-1"))
    );
    // A new task names none.
    let new = LiveAsk::parse(br#"{"op":"send","text":"hi"}"#)
        .unwrap()
        .request(&mut requests("JSONRPC", "1.0"))
        .unwrap();
    let message = &new.body.as_ref().unwrap()["params"]["message"];
    assert!(message.get("taskId").is_none() && message.get("contextId").is_none());
}

#[test]
fn an_ask_is_a_call_on_the_agent_never_a_place() {
    for (bad, why) in [
        (
            r#"{"op":"get","taskId":"t","url":"http://x/"}"#,
            "unknown field",
        ),
        (
            r#"{"op":"send","text":"hi","headers":{"a":"b"}}"#,
            "unknown field",
        ),
        (r#"{"op":"post"}"#, "unknown variant"),
        (r#"{"op":"send"}"#, "a text or a data part"),
        (r#"{"op":"send","text":"x","data":"y"}"#, "a JSON object"),
        (r#"{"op":"send","text":"x","taskId":" "}"#, "names its task"),
        (r#"{"op":"subscribe","taskId":""}"#, "taskId is empty"),
    ] {
        let e = LiveAsk::parse(bad.as_bytes()).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    let long = format!(r#"{{"op":"send","text":"{}"}}"#, "a".repeat(40 << 10));
    assert!(LiveAsk::parse(long.as_bytes()).unwrap_err().contains("KiB"));
    // Every call goes to the card's interface, whatever the task id says.
    let get = LiveAsk::parse(br#"{"op":"get","taskId":"../../admin"}"#).unwrap();
    let rest = get.request(&mut requests("HTTP+JSON", "1.0")).unwrap();
    assert!(
        rest.url.starts_with("http://127.0.0.1:9/a/"),
        "{}",
        rest.url
    );
}

#[test]
fn a_request_kept_in_a_session_has_a_method_and_no_host() {
    let ask = LiveAsk::parse(br#"{"op":"cancel","taskId":"t-9"}"#).unwrap();
    let rest = sent(&ask.request(&mut requests("HTTP+JSON", "1.0")).unwrap());
    assert_eq!(rest["method"], "CancelTask");
    assert_eq!(rest["binding"], "HTTP+JSON");
    assert_eq!(rest["path"], "/a/tasks/t-9:cancel");
    assert!(!rest.to_string().contains("127.0.0.1"), "{rest}");
    let rpc = sent(&ask.request(&mut requests("JSONRPC", "1.0")).unwrap());
    assert_eq!(
        (rpc["method"].as_str(), rpc["jsonrpc"].as_str()),
        (Some("CancelTask"), Some("2.0"))
    );
    assert_eq!(rpc["params"]["id"], "t-9");
}

#[test]
fn frames_read_back_as_written() {
    let frames = [
        Frame::Sent(json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask"})),
        Frame::Answer("{\"a\":\n 1}".into()),
        Frame::End(CallEnded {
            how: AnswerEnd::TimedOut(5),
            status: None,
            ms: 5,
            error: None,
        }),
    ];
    for frame in frames {
        let line = frame.line();
        assert!(
            line.ends_with('\n') && line.matches('\n').count() == 1,
            "{line:?}"
        );
        assert_eq!(Frame::parse(&line).unwrap(), frame);
    }
    assert!(Frame::parse("{\"answer\": 1}").is_err());
}

/// The relay's stream read back frame by frame whatever its chunks: one
/// byte at a time, or all at once (a page that fell behind), each frame
/// parsed only when taken; a broken or endless frame is an error.
#[test]
fn frames_are_taken_one_at_a_time_whatever_the_chunks() {
    use a2a_lab::model::evidence::live::frame_lines::{FrameLines, LineTooLong, MAX_FRAME};
    let frames: Vec<Frame> = (0..50)
        .map(|i| Frame::Answer(format!("{{\"n\": {i}, \"text\": \"é\\n\"}}")))
        .collect();
    let stream: String = frames
        .iter()
        .map(Frame::line)
        .collect::<Vec<_>>()
        .join("\n");
    for size in [1, 7, stream.len()] {
        let mut lines = FrameLines::default();
        let mut read = Vec::new();
        for chunk in stream.as_bytes().chunks(size) {
            lines.push(chunk);
            while let Some(frame) = lines.next_frame() {
                read.push(frame.unwrap());
            }
        }
        assert_eq!(read, frames, "chunks of {size}");
    }
    // All at once, taken a few at a time: the rest waits, unparsed.
    let mut lines = FrameLines::default();
    lines.push(stream.as_bytes());
    assert_eq!(lines.next_frame().unwrap().unwrap(), frames[0]);
    lines.push(b"not a frame\n");
    assert_eq!(std::iter::from_fn(|| lines.next_frame()).count(), 50);
    let mut bad = FrameLines::default();
    bad.push(b"{\"answer\": 1}\n\xff\n");
    assert!(bad.next_frame().unwrap().is_err());
    assert!(bad.next_frame().unwrap().is_err());
    let mut endless = FrameLines::default();
    endless.push(&vec![b'x'; MAX_FRAME + 1]);
    assert!(endless.next_frame().unwrap().is_err());
    // Lines as bytes, for a reader of its own (the webhook's POSTs), blank
    // ones included, an unended one held until its end.
    let mut raw = FrameLines::default();
    raw.push(b"a\n\nb");
    assert_eq!(raw.next_line(), Some(Ok(&b"a"[..])));
    assert_eq!(raw.next_line(), Some(Ok(&b""[..])));
    assert_eq!(raw.next_line(), None);
    raw.push(b"\xff\n");
    assert_eq!(raw.next_line(), Some(Ok(&b"b\xff"[..])));
    let mut long = FrameLines::default();
    long.push(&vec![b'x'; MAX_FRAME + 1]);
    assert_eq!(long.next_line(), Some(Err(LineTooLong)));
}

/// The frames of one streamed task: the request, then `events` as they
/// came, then the end.
pub(crate) fn stream(session: &mut Session, request: Value, events: &[Value]) {
    let call = session.begin();
    session.on_frame(call, Frame::Sent(request));
    for e in events {
        session.on_frame(call, Frame::Answer(e.to_string()));
    }
    session.on_frame(call, closed());
}

/// The last frame of a call the agent closed.
fn closed() -> Frame {
    Frame::End(CallEnded {
        how: AnswerEnd::Closed,
        status: None,
        ms: 1,
        error: None,
    })
}

pub(crate) fn rpc(result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": result})
}

#[test]
fn a_session_follows_the_task_and_keeps_what_check_reads() {
    let mut session = Session::new();
    assert!(session.report().is_none());
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}});
    stream(
        &mut session,
        send,
        &[
            rpc(
                json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
            ),
            rpc(
                json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}}),
            ),
        ],
    );
    let task = session.task().unwrap();
    assert_eq!(
        (task.id.as_str(), task.context_id.as_deref()),
        ("t-1", Some("c-1"))
    );
    assert!(task.waits_on_user() && !task.ended(), "{task:?}");
    assert_eq!(task.state, "TASK_STATE_INPUT_REQUIRED");
    // Each request, then its answers, a line each, in the order they came.
    let lines: Vec<Value> = session
        .capture()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["method"], "SendStreamingMessage");
    // An answer written over several lines is kept on one; one that is not
    // JSON is listed, not kept.
    let call = session.begin();
    session.on_frame(
        call,
        Frame::Answer(
            serde_json::to_string_pretty(&rpc(json!({"statusUpdate": {
        "taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}})))
            .unwrap(),
        ),
    );
    session.on_frame(call, Frame::Answer("<html>502 Bad Gateway</html>".into()));
    assert_eq!(session.capture().lines().count(), 4);
    assert_eq!(session.unreadable(), 1);
    assert!(session.task().unwrap().ended());
    assert_eq!(session.calls()[1].answers.len(), 2);
    // A call the page dropped ends so.
    session.cut(call, "dropped by the page");
    assert_eq!(
        session.calls()[1].end.as_ref().unwrap().how,
        AnswerEnd::Dropped
    );
    // Frames of a call never begun are ignored.
    session.on_frame(99, Frame::Answer("{}".into()));
    assert_eq!(session.capture().lines().count(), 4);
}

#[test]
fn list_is_a_call_on_1_0_and_refused_on_0_3() {
    let ask = LiveAsk::parse(br#"{"op":"list"}"#).unwrap();
    assert_eq!(ask, LiveAsk::List {});
    for bad in [
        r#"{"op":"list","taskId":"t"}"#,
        r#"{"op":"list","pageSize":5}"#,
    ] {
        let e = LiveAsk::parse(bad.as_bytes()).unwrap_err();
        assert!(e.contains("unknown field"), "{bad}: {e}");
    }
    let rpc = ask.request(&mut requests("JSONRPC", "1.0")).unwrap();
    let body = rpc.body.as_ref().unwrap();
    assert_eq!(
        (body["method"].as_str(), &body["params"]),
        (Some("ListTasks"), &json!({}))
    );
    let rest = ask.request(&mut requests("HTTP+JSON", "1.0")).unwrap();
    assert_eq!(
        (rest.url.as_str(), rest.body.is_none()),
        ("http://127.0.0.1:9/a/tasks", true)
    );
    let kept = sent(&rest);
    assert_eq!(
        (kept["method"].as_str(), kept["path"].as_str()),
        (Some("ListTasks"), Some("/a/tasks"))
    );
    let grpc = ask.request(&mut requests("GRPC", "1.0")).unwrap();
    assert_eq!(
        (grpc.name(), grpc.body.as_ref()),
        ("ListTasks", Some(&json!({})))
    );
    // 0.3 has none: refused with the version named.
    let e = ask.request(&mut requests("JSONRPC", "0.3")).unwrap_err();
    assert!(e.contains("0.3 has no ListTasks"), "{e}");
    // The relay says so to the page with the doctor's steps.
    let spoken = |wire| Spoken {
        wire,
        ..jsonrpc(true)
    };
    let card = json!({"name": "A", "supportedInterfaces": [
        {"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]});
    let on = |wire| Diagnosis::of(found(Some(card.clone()), Some(spoken(wire)), None)).no_list;
    assert!(on(Wire::V0_3).unwrap().contains("0.3"));
    assert_eq!(on(Wire::V1_0), None);
}

/// A task as a ListTasks answer lists it.
fn listed(id: &str, state: &str) -> Value {
    json!({"id": id, "contextId": "c-other", "status": {"state": state}})
}

#[test]
fn a_list_is_kept_and_judged_without_a_listed_task_becoming_the_sessions() {
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}});
    let done = [
        rpc(
            json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}}),
        ),
        rpc(
            json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}}),
        ),
    ];
    let tasks = json!([
        listed("t-1", "TASK_STATE_COMPLETED"),
        listed("t-else", "TASK_STATE_WORKING")
    ]);
    let page = json!({"tasks": tasks, "nextPageToken": "", "pageSize": 50, "totalSize": 2});
    let list = LiveAsk::List {};
    // Each binding's answer as the relay hands it on: JSON-RPC's envelope,
    // REST's bare body, gRPC's ProtoJSON (an empty list left out whole).
    for (binding, answer) in [
        ("JSONRPC", rpc(page.clone())),
        ("HTTP+JSON", page.clone()),
        ("GRPC", json!({"tasks": tasks})),
        ("GRPC", json!({})),
    ] {
        let mut session = Session::new();
        stream(&mut session, send.clone(), &done);
        let request = list.request(&mut requests(binding, "1.0")).unwrap();
        stream(&mut session, sent(&request), std::slice::from_ref(&answer));
        // The task followed is still the session's own, ended.
        let task = session.task().unwrap();
        assert_eq!((task.id.as_str(), task.ended()), ("t-1", true), "{binding}");
        // Kept as any call is: the request, then its answer.
        let lines: Vec<Value> = session
            .capture()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 5, "{binding}");
        assert_eq!(lines[3]["method"], "ListTasks");
        assert_eq!(lines[4], answer);
        // A task listed WORKING is no stream of this session's: no
        // missing-terminal, and no task of the report.
        let report = session.report().unwrap().unwrap();
        assert!(
            report.findings.is_empty(),
            "{binding}: {:?}",
            report.findings
        );
        assert_eq!(
            report
                .tasks
                .iter()
                .map(|t| t.id.as_str())
                .collect::<Vec<_>>(),
            ["t-1"],
            "{binding}"
        );
        assert!(report.errors.is_empty(), "{binding}");
    }
    // An agent without ListTasks answers an error: kept as one, no finding.
    let mut session = Session::new();
    stream(&mut session, send.clone(), &done);
    let request = list.request(&mut requests("JSONRPC", "1.0")).unwrap();
    let refused = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}});
    stream(&mut session, sent(&request), &[refused]);
    let report = session.report().unwrap().unwrap();
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(report.errors.len(), 1);
    // Without a ListTasks request kept before it, the same answer is not
    // taken for a list: it is no event the reader knows.
    let mut session = Session::new();
    stream(&mut session, send, &done);
    let call = session.begin();
    session.on_frame(call, Frame::Answer(rpc(page).to_string()));
    assert!(
        session.report().unwrap().is_err()
            || !session.report().unwrap().unwrap().findings.is_empty()
    );
}

fn found(card: Option<Value>, interface: Option<Spoken>, reached: Option<Reached>) -> Connect {
    Connect {
        agent: "http://127.0.0.1:9".into(),
        tried: vec![CardTry {
            url: "http://127.0.0.1:9/.well-known/agent-card.json".into(),
            status: Some(if card.is_some() { 200 } else { 404 }),
            error: None,
        }],
        card: card.map(|c| c.to_string()),
        binding: None,
        interface,
        problem: None,
        reached,
    }
}

fn jsonrpc(offered: bool) -> Spoken {
    Spoken {
        url: "http://127.0.0.1:9/".into(),
        wire: Wire::V1_0,
        binding: Binding::JsonRpc,
        offered,
        push: false,
    }
}

#[test]
fn the_doctor_says_what_failed_and_the_fix() {
    let card = json!({"name": "A", "supportedInterfaces": [
        {"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}});
    let ok = Reached {
        status: Some(200),
        error: None,
        credentials: false,
    };
    let all = steps(&found(
        Some(card.clone()),
        Some(jsonrpc(true)),
        Some(ok.clone()),
    ));
    assert_eq!(
        all.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["Card", "Version", "Binding", "Credentials"]
    );
    assert!(all.iter().all(|s| s.verdict == StepVerdict::Ok), "{all:?}");
    assert!(connected(&all));
    // A 401: the card's scheme named, the fix is --header.
    let refused = Reached {
        status: Some(401),
        error: None,
        credentials: false,
    };
    let all = steps(&found(
        Some(card.clone()),
        Some(jsonrpc(true)),
        Some(refused),
    ));
    assert_eq!(all[3].verdict, StepVerdict::Fail);
    assert!(
        all[3].said.contains("bearer (httpAuthSecurityScheme)"),
        "{:?}",
        all[3]
    );
    assert!(all[3].fix.as_deref().unwrap().contains("--header"));
    assert!(!connected(&all));
    // A 403 with credentials given: check them.
    let wrong = Reached {
        status: Some(403),
        error: None,
        credentials: true,
    };
    let all = steps(&found(Some(card.clone()), Some(jsonrpc(true)), Some(wrong)));
    assert!(
        all[3].fix.as_deref().unwrap().contains("check the value"),
        "{:?}",
        all[3]
    );
    // No card: the rest is skipped, the fix names the well-known path and --card.
    let all = steps(&found(None, None, None));
    assert_eq!(all[0].verdict, StepVerdict::Fail);
    assert!(all[0]
        .fix
        .as_deref()
        .unwrap()
        .contains("/.well-known/agent-card.json"));
    assert!(all[1..].iter().all(|s| s.verdict == StepVerdict::Skipped));
    // A binding the card does not list, a version it does not declare.
    let bare = json!({"name": "A", "url": "http://127.0.0.1:9/"});
    let all = steps(&found(Some(bare), Some(jsonrpc(false)), Some(ok)));
    assert_eq!(
        (all[1].verdict, all[2].verdict),
        (StepVerdict::Warn, StepVerdict::Warn),
        "{all:?}"
    );
    assert!(connected(&all));
    // 0.3's scheme spelling.
    assert_eq!(
        security_schemes(r#"{"securitySchemes":{"k":{"type":"apiKey"}}}"#),
        ["k (apiKey)"]
    );
    assert!(security_schemes("<script>").is_empty());
}

#[test]
fn the_page_url_carries_the_launch_token() {
    let url = PageUrl::read("live=0123abcd-_Z");
    assert_eq!(
        (url.live.as_deref(), url.problem),
        (Some("0123abcd-_Z"), None)
    );
    assert_eq!(launch_token("0123abcd-_Z"), Ok("0123abcd-_Z"));
    // The Live view says what is wrong with a token that is none.
    for bad in ["", "<script>", "a b", &"a".repeat(MAX_TOKEN + 1)] {
        let e = launch_token(bad).unwrap_err();
        assert!(e.contains("serve --agent"), "{bad}: {e}");
    }
    assert_eq!(
        PageUrl::read("live=%3Cscript%3E").live.as_deref(),
        Some("<script>")
    );
    // The scenario beside it reads as before, and the token is no key of it.
    let url = PageUrl::read("chunks=5&live=ab");
    assert_eq!(
        (url.scenario.to_query().as_str(), url.problem),
        ("chunks=5", None)
    );
    assert_eq!(PageUrl::write(&url.scenario, None, 0, false), "chunks=5");
}

/// The report after every frame is the capture so far read whole, as
/// `check` reads it; a task whose stream is still open is not yet missing
/// its terminal state.
#[test]
fn a_session_is_judged_as_it_arrives_as_check_judges_it_whole() {
    use a2a_lab::model::evidence::capture::{CaptureReader, CaptureReport};
    let whole = |capture: &str| {
        let mut reader = CaptureReader::new(None).keeping_rows().keeping_events();
        reader.read_bytes(capture.as_bytes()).unwrap();
        reader.finish()
    };
    let mut session = Session::new();
    let call = session.begin();
    session.on_frame(
        call,
        Frame::Sent(
            json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {}}),
        ),
    );
    let events = [
        json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
        json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}}),
        json!({"artifactUpdate": {"taskId": "t-1", "contextId": "c-1", "append": true,
            "artifact": {"artifactId": "a", "parts": [{"text": "no start"}]}}}),
        json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}}),
        json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}}),
    ];
    for (n, event) in events.iter().enumerate() {
        session.on_frame(call, Frame::Answer(rpc(event.clone()).to_string()));
        let so_far = session.report().unwrap().unwrap();
        let read = whole(session.capture());
        assert_eq!(so_far.tasks[0].events, read.tasks[0].events, "after {n}");
        assert_eq!(so_far.rows, read.rows, "after {n}");
        let codes =
            |r: &CaptureReport| r.findings.iter().map(|f| f.code.code()).collect::<Vec<_>>();
        // While the stream runs, WORKING is no missing terminal yet.
        let open: Vec<_> = codes(&read)
            .into_iter()
            .filter(|&c| c != "missing-terminal")
            .collect();
        assert_eq!(codes(&so_far), open, "after {n}");
    }
    assert_eq!(
        codes_of(&session),
        ["artifact-gap", "after-terminal"],
        "found as they came"
    );
    // Once the call ends, the report is `check`'s, finding for finding.
    session.on_frame(call, closed());
    assert_eq!(session.report().unwrap().unwrap(), whole(session.capture()));
}

fn codes_of(session: &Session) -> Vec<&'static str> {
    session
        .report()
        .unwrap()
        .unwrap()
        .findings
        .iter()
        .map(|f| f.code.code())
        .collect()
}
