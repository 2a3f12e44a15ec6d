//! The probe's judge on recorded answers (SPEC §10), with no agent
//! running: what the real a2a-sdk and @a2a-js/sdk agents answered every
//! probe, healthy and with each defect, on both wires
//! (`tests/fixtures/probe/records/`, recorded by
//! `tests/agents/record-probe.sh`), judged exactly as the live probe judges
//! them; and answers no SDK gives, made from those records, for the rules
//! the real agents never break.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;
use crate::probe_expect;

use a2a_lab::model::evidence::probe::judge::{Judged, ProbeJudge};
use a2a_lab::model::evidence::probe::plan::replay;
use a2a_lab::model::evidence::probe::read::refusal;
use a2a_lab::model::evidence::probe::records::{AnswerEnd, AnswerStatus, CallRecord, ProbeRecords};
use a2a_lab::model::evidence::probe::report::Probe;
use a2a_lab::model::evidence::probe::unreadable::{Unreadable, Which};
use a2a_lab::model::wire::answer::read_answer;
use a2a_lab::model::wire::read_error::ReadKind;
use a2a_lab::model::wire::rest::Binding;
use a2a_lab::model::wire::Wire;
use model_support::probe::{found, records};
use probe_expect::{
    defects, expect, ENDLESS_PING, HOSTILE, OTHER_STACKS, PUSH_AGENTS, RUST_PUSH_AGENTS,
};

fn judge(records: &ProbeRecords) -> Vec<(Probe, Judged)> {
    replay(records).unwrap()
}

fn call_mut<'a>(records: &'a mut ProbeRecords, probe: &str, n: usize) -> &'a mut CallRecord {
    let probe = Probe::parse(probe).unwrap();
    &mut records
        .probes
        .iter_mut()
        .find(|p| p.probe == probe)
        .unwrap()
        .calls[n]
}

/// Where an SDK's records are under `tests/fixtures/probe/records/`: the
/// a2a-rs agent's in `rust/` (tests/agents/record-probe.sh).
fn folder(sdk: &str) -> &'static str {
    match sdk {
        "rust" => "rust/",
        _ => "",
    }
}

#[test]
fn every_recorded_agent_is_judged_as_the_live_probe_judged_it() {
    let mut failures = Vec::new();
    let mut judged_runs = 0;
    // The same agents on both wires over JSON-RPC, and on 1.0 over REST
    // (`rest=only`): one judge, the same findings.
    let runs = [
        ("1.0", "jsonrpc", ""),
        ("0.3", "jsonrpc", ""),
        ("1.0", "rest", "rest-"),
        ("1.0", "grpc", "grpc-"),
    ];
    // a2a-rs has no 0.3 wire: 1.0 over every binding; @a2a-js/sdk serves
    // no gRPC.
    let every = [
        ("python", &runs[..]),
        ("js", &runs[..3]),
        ("rust", &[runs[0], runs[2], runs[3]][..]),
    ];
    for (sdk, runs) in every {
        for &(wire, binding, prefix) in runs {
            for &defect in defects(sdk) {
                let records = records(&format!("{}{prefix}{sdk}-{wire}-{defect}", folder(sdk)));
                assert_eq!(
                    (records.wire.name(), records.binding.name()),
                    (wire, binding)
                );
                let judged = judge(&records);
                assert_eq!(
                    judged.len(),
                    7,
                    "{sdk} {wire} {defect}: the card and six probes"
                );
                let got = found(&judged);
                // The same findings over every binding (tests/agents/ANSWERS.md,
                // "gRPC": where the SDKs' gRPC servers differ, it is in form).
                let want = expect(sdk, defect);
                if got != want {
                    failures.push(format!(
                        "{sdk} {wire} {binding} {defect}: found {got:?}, want {want:?}"
                    ));
                }
                // A healthy agent runs every probe: none skipped.
                if defect == "none" {
                    assert!(judged.iter().all(|(_, j)| !j.skipped), "{sdk} {wire}");
                }
                judged_runs += 1;
            }
        }
    }
    // python 3 × 5, js 3 × 5, rust 3 × 7 (its load defects too), and
    // 0.3 for the first two.
    assert_eq!(judged_runs, 30 + 14 + 5 + 7);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An execute() that raises after its last chunk (`ending=raise`): over
/// JSON-RPC a2a-sdk ends the stream with a -32603 error event, over gRPC
/// with status UNKNOWN (tests/agents/ANSWERS.md, "gRPC", difference 2).
/// Read as the same error, both runs are judged alike.
#[test]
fn an_execute_that_raises_is_judged_alike_over_json_rpc_and_grpc() {
    let jsonrpc = found(&judge(&records("python-1.0-raise")));
    let grpc_records = records("grpc-python-1.0-raise");
    assert_eq!(grpc_records.binding.name(), "grpc");
    let Some(AnswerStatus::Grpc(status)) = &grpc_records.probes[0].calls[0].status else {
        panic!("the stream ends with its gRPC status")
    };
    assert_eq!((status.code, status.reason.as_deref()), (2, None));
    assert_eq!(found(&judge(&grpc_records)), jsonrpc);
    assert!(!jsonrpc.is_empty());
}

#[test]
fn an_endless_stream_of_pings_is_hung_with_how_long_it_waited() {
    let judged = judge(&records("endless-ping"));
    assert_eq!(found(&judged), ENDLESS_PING);
    let (_, stream) = &judged[1];
    assert!(
        stream.found[0].1.contains("still open after 15"),
        "{:?}",
        stream.found
    );
    // With no finished task, the probes that need one say why they did
    // not run.
    let (name, cancel_terminal) = &judged[4];
    assert_eq!(*name, Probe::CancelTerminal);
    assert!(cancel_terminal.skipped, "{cancel_terminal:?}");
    assert!(cancel_terminal.summary.contains("did not finish"));
}

#[test]
fn a_get_task_that_disagrees_with_the_stream_is_a_mismatch() {
    for wire in ["1.0", "0.3"] {
        let mut r = records(&format!("python-{wire}-none"));
        let (done, working) = match wire {
            "1.0" => ("TASK_STATE_COMPLETED", "TASK_STATE_WORKING"),
            _ => ("\"completed\"", "\"working\""),
        };
        let get = call_mut(&mut r, "get", 0);
        assert!(get.body.contains(done), "{}", get.body);
        get.body = get.body.replacen(done, working, 1);
        let got = found(&judge(&r));
        assert_eq!(got, ["get:get-task-mismatch"], "{wire}");

        // A part the stream delivered that the store does not hold.
        let mut r = records(&format!("python-{wire}-none"));
        let get = call_mut(&mut r, "get", 0);
        get.body = get.body.replacen("courier step 1/3", "courier step 9/9", 1);
        assert_eq!(found(&judge(&r)), ["get:get-task-mismatch"], "{wire}");
    }
}

#[test]
fn cancel_and_subscribe_on_a_finished_task_must_be_refused_with_their_codes() {
    let mut r = records("python-1.0-none");
    // An agent that answers CancelTask on a finished task with the task.
    // (Its envelope echoes GetTask's id: the cancel's own id is put back.)
    let get = r.probes[1].calls[0].clone();
    let cancel = call_mut(&mut r, "cancel-terminal", 0);
    let id = cancel.request_id.expect("recorded with its request id");
    cancel.body = get.body.replacen(
        &format!("\"id\":{}", get.request_id.expect("an id")),
        &format!("\"id\":{id}"),
        1,
    );
    // And SubscribeToTask with another error than -32004.
    let sub = call_mut(&mut r, "subscribe-terminal", 0);
    sub.body = sub.body.replacen("-32004", "-32603", 1);
    assert_eq!(
        found(&judge(&r)),
        [
            "cancel-terminal:cancel-terminal-accepted",
            "subscribe-terminal:subscribe-terminal-accepted"
        ]
    );
    // A SubscribeToTask on a finished task that streams and stays open.
    let mut r = records("python-1.0-none");
    let stream = r.probes[0].calls[0].body.clone();
    *call_mut(&mut r, "subscribe-terminal", 0) = CallRecord {
        sse: true,
        body: stream,
        end: AnswerEnd::TimedOut(2500),
        request_id: None,
        ms: None,
        at_event: None,
        sse_headers: None,
        status: None,
    };
    let judged = judge(&r);
    assert_eq!(
        found(&judged),
        ["subscribe-terminal:subscribe-terminal-accepted"]
    );
    assert!(judged[6].1.found[0].1.contains("stayed open for 2500 ms"));
}

#[test]
fn a_cancel_that_does_not_end_the_task_canceled_is_found_whatever_cancel_answered() {
    // The healthy agent's cancel stream, with its CANCELED status turned
    // into COMPLETED: CancelTask said yes, the task did not stop.
    let mut r = records("js-1.0-none");
    let stream = call_mut(&mut r, "cancel", 0);
    assert!(stream.body.contains("TASK_STATE_CANCELED"));
    stream.body = stream
        .body
        .replace("TASK_STATE_CANCELED", "TASK_STATE_COMPLETED");
    // CancelTask answered CANCELED, and the stream then said another
    // state: after-terminal (SPEC §13).
    let judged = judge(&r);
    assert_eq!(found(&judged), ["cancel:after-terminal"]);
    assert!(judged[3].1.found[0]
        .1
        .starts_with("CancelTask answered the task TASK_STATE_CANCELED, then the stream said TASK_STATE_COMPLETED"));
    // Answered with the task still WORKING, and it never ended CANCELED.
    let answer = call_mut(&mut r, "cancel", 1);
    assert!(answer.body.contains("TASK_STATE_CANCELED"));
    answer.body = answer
        .body
        .replace("TASK_STATE_CANCELED", "TASK_STATE_WORKING");
    let judged = judge(&r);
    assert_eq!(found(&judged), ["cancel:cancel-not-canceled"]);
    assert!(judged[3].1.found[0]
        .1
        .starts_with("CancelTask was accepted, but"));
}

#[test]
fn a_task_starting_call_refused_alone_means_nothing_can_be_probed() {
    let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#;
    let answer = read_answer(error, Some(Wire::V1_0)).unwrap();
    let why = refusal(
        "SendStreamingMessage",
        Binding::JsonRpc,
        std::slice::from_ref(&answer),
    )
    .unwrap();
    assert_eq!(
        why,
        "SendStreamingMessage was refused: JSON-RPC error -32601 Method not found"
    );
    // An error after events is the stream's, not a refusal.
    let r = records("python-1.0-none");
    let mut answers = r.probes[0].calls[0].answers(Wire::V1_0).unwrap();
    answers.push(answer);
    assert_eq!(
        refusal("SendStreamingMessage", Binding::JsonRpc, &answers),
        None
    );
}

#[test]
fn records_are_read_by_the_one_reader_of_the_wire_and_refuse_the_other_wire() {
    let r = records("python-1.0-none");
    let stream = &r.probes[0].calls[0];
    assert_eq!(stream.answers(Wire::V1_0).unwrap().len(), 6);
    assert!(
        stream.answers(Wire::V0_3).is_err(),
        "a 1.0 stream is not 0.3"
    );
    let r = records("python-0.3-none");
    assert!(r.probes[0].calls[0].answers(Wire::V1_0).is_err());
}

#[test]
fn an_answer_that_cannot_be_read_is_named_by_its_place_and_settles_as_the_probes_finding() {
    let stream = CallRecord {
        sse: true,
        body: "data: {\"kind\":\"task\",\"id\":\"t\",\"status\":{\"state\":\"working\"}}\n\ndata: {oops\n\n"
            .into(),
        end: AnswerEnd::Closed,
        request_id: None,
        ms: None,
        at_event: None,
        sse_headers: None,
        status: None,
    };
    let why = stream.answers(Wire::V0_3).unwrap_err();
    let Unreadable::Answer { which, error, .. } = &why else {
        panic!("{why:?}")
    };
    assert_eq!(*which, Which::Event(1));
    assert!(
        matches!(error.kind(), ReadKind::Malformed { .. }),
        "{error}"
    );
    let judge = ProbeJudge::new(Wire::V0_3);
    let judged = judge.settle(judge.stream(std::slice::from_ref(&stream)).map(|(_, j)| j));
    assert_eq!(judged.found[0].1, why.to_string());
    assert!(
        judged.found[0]
            .1
            .starts_with("event 1 cannot be read (malformed JSON: "),
        "{}",
        judged.found[0].1
    );
}

#[test]
fn every_recorded_push_agent_is_judged_as_the_live_probe_judged_it() {
    let mut failures = Vec::new();
    for agent in PUSH_AGENTS.iter().chain(&RUST_PUSH_AGENTS) {
        let r = records(&format!("{}push-{}", folder(agent.args[0]), agent.name));
        let judged = judge(&r);
        assert_eq!(judged.len(), 8, "{}", agent.name);
        let (probe, push) = &judged[7];
        assert_eq!(*probe, Probe::Push);
        assert_eq!(
            push.skipped,
            !agent.args.contains(&"push=on"),
            "{}",
            agent.name
        );
        let got = found(&judged);
        if got != agent.expect {
            failures.push(format!(
                "{}: found {got:?}, want {:?}",
                agent.name, agent.expect
            ));
        }
        // Header names only, never values.
        for post in &r.push.as_ref().unwrap().posts {
            assert!(
                post.headers.iter().all(|h| !h.contains(' ')),
                "{:?}",
                post.headers
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn push_rules_on_recorded_posts_changed_by_hand() {
    // @a2a-js/sdk's second CANCELED taken out: nothing after the terminal
    // POST, nothing twice.
    let mut r = records("push-js-1.0-none");
    let push = r.push.as_mut().unwrap();
    let canceled: Vec<usize> = push
        .posts
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.slow && p.body.contains("TASK_STATE_CANCELED"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(canceled.len(), 2, "CANCELED pushed twice");
    push.posts.remove(canceled[1]);
    assert_eq!(found(&judge(&r)), Vec::<String>::new());
    // And the first one too: the webhook never hears the task ended.
    let push = r.push.as_mut().unwrap();
    push.posts.remove(canceled[0]);
    let judged = judge(&r);
    assert_eq!(found(&judged), ["push:push-missing-terminal"]);
    assert!(judged[7].1.found[0].1.contains("never TASK_STATE_CANCELED"));

    // a2a-sdk's slow stream as fast as the prompt one: no stall.
    let mut r = records("push-python-1.0-none");
    let push = r.push.as_mut().unwrap();
    assert!(push.stall_ms.unwrap() >= push.stream_ms.unwrap() + push.delay_ms);
    push.stall_ms = push.stream_ms;
    push.stall.as_mut().unwrap().end = AnswerEnd::Closed;
    assert_eq!(found(&judge(&r)), Vec::<String>::new());
}

#[test]
fn an_event_of_another_task_in_a_tasks_stream_is_foreign() {
    // The healthy agent's stream, its events after the first naming
    // another task, each a whole lifecycle of its own: as a capture it
    // reads as two clean tasks; as one task's stream it is a mix-up.
    let mut r = records("python-1.0-none");
    let stream = call_mut(&mut r, "stream", 0);
    let own = stream.answers(Wire::V1_0).unwrap()[0]
        .event()
        .unwrap()
        .task_id
        .clone();
    let first_line_end = ["\r\n\r\n", "\n\n"]
        .iter()
        .find_map(|blank| stream.body.find(blank).map(|at| at + blank.len()))
        .unwrap();
    let rest = stream.body[first_line_end..].replace(&own, "someone-elses-task");
    stream.body = format!("{}{rest}", &stream.body[..first_line_end]);
    let judged = judge(&r);
    let stream_codes: Vec<String> = judged[1]
        .1
        .found
        .iter()
        .map(|(code, _)| code.to_string())
        .collect();
    // One finding for the other task, counting its events; the task's own
    // stream never got its terminal.
    assert_eq!(
        stream_codes,
        ["missing-terminal", "foreign-task"],
        "{stream_codes:?}"
    );
    assert!(judged[1].1.found[1]
        .1
        .starts_with("5 events from event 1 name task someone-elses-task"));
    // The recorded agents never mix tasks.
    for sdk in ["python", "js"] {
        for wire in ["1.0", "0.3"] {
            let found = found(&judge(&records(&format!("{sdk}-{wire}-none"))));
            assert!(
                !found.iter().any(|f| f.ends_with("foreign-task")),
                "{sdk} {wire}"
            );
        }
    }
}

/// The contract checks (SPEC §11) on what the stand-ins that break them
/// answered (tests/agents/hostile.py), and the messages that say where.
#[test]
fn recorded_stand_ins_are_found_breaking_each_contract() {
    for agent in HOSTILE.iter().chain(&OTHER_STACKS) {
        let name = match agent.start {
            [] => format!("hostile-{}", agent.name),
            _ => agent.name.to_string(),
        };
        let records = records(&name);
        // Recorded in the wire and binding the agent is probed in.
        assert_eq!(records.wire.name(), agent.wire, "{name}");
        let rest = agent.more.windows(2).any(|w| w == ["--binding", "rest"]);
        assert_eq!(records.binding == Binding::Rest, rest, "{name}");
        let judged = judge(&records);
        assert_eq!(found(&judged), agent.expect, "{name}");
    }
    let card = judge(&records("hostile-thin-card"));
    let messages: Vec<&str> = card[0].1.found.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(
        messages,
        [
            "`description` is missing; an A2A 1.0 card needs it",
            "`defaultOutputModes` is missing; an A2A 1.0 card needs it",
            "`skills` is an empty list; an A2A 1.0 card needs at least one entry"
        ]
    );
    let envelope = judge(&records("hostile-envelope"));
    let stream = &envelope[1].1.found[0].1;
    assert!(
        stream.starts_with("every event of the stream: `id` is 1001, not the request's 1"),
        "{stream}"
    );
    // A real agent's card with fields left out (start.sh … card=thin).
    for sdk in ["python", "js"] {
        let judged = judge(&records(&format!("thin-card-{sdk}-1.0")));
        assert_eq!(found(&judged), ["card:card-field"; 3], "{sdk}");
    }
    // Every real agent's card is complete and every envelope well formed.
    for sdk in ["python", "js"] {
        for wire in ["1.0", "0.3"] {
            let judged = judge(&records(&format!("{sdk}-{wire}-none")));
            assert_eq!(judged[0].0, Probe::Card);
            assert!(
                !judged[0].1.skipped && judged[0].1.found.is_empty(),
                "{sdk} {wire}"
            );
        }
    }
}

/// `--tasks 8` as recorded (tests/agents/start.sh … shared-state): each
/// stream judged on its own, the load counted, what each SDK's client saw
/// named.
#[test]
fn recorded_streams_at_once_are_judged_each_on_its_own() {
    for (name, clean) in [
        ("python-1.0-none", 8),
        ("js-1.0-none", 8),
        ("python-1.0-shared-state", 1),
        ("python-0.3-shared-state", 1),
        ("js-1.0-shared-state", 1),
        ("js-0.3-shared-state", 1),
        ("rust-1.0-none", 8),
        ("rust-1.0-shared-state", 1),
        // Every task's events in the last-started stream: none clean.
        ("rust-1.0-shared-queue", 0),
    ] {
        let sdk = name.split('-').next().unwrap_or("");
        let judged = judge(&records(&format!("{}load-{name}", folder(sdk))));
        let (probe, stream) = &judged[1];
        assert_eq!(*probe, Probe::Stream);
        let load = stream.load.expect("eight streams");
        assert_eq!((load.tasks, load.clean), (8, clean), "{name}");
        assert!(stream
            .summary
            .starts_with(&format!("8 streams at once: {clean} clean, the slowest")));
        let broken: std::collections::BTreeSet<&str> = stream
            .found
            .iter()
            .map(|(_, m)| m.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(broken.len(), 8 - clean, "{name}: {:?}", stream.found);
        if name.starts_with("js-") && clean == 1 {
            assert!(stream.found.iter().any(|(c, _)| c.code() == "foreign-task"));
        }
        if name.starts_with("python-") && clean == 1 {
            assert!(stream
                .found
                .iter()
                .all(|(c, m)| c.code() == "missing-terminal" && m.contains("-32602")));
        }
    }
}

/// On REST, what cancel-terminal and subscribe-terminal expect is the REST
/// form of -32002 and -32004 (HTTP 400 with the reason), as both SDKs
/// answer it; another reason, or a success, is found.
#[test]
fn rest_errors_are_judged_by_the_json_rpc_error_they_stand_for() {
    let mut r = records("rest-python-1.0-none");
    assert!(found(&judge(&r)).is_empty());
    let cancel = call_mut(&mut r, "cancel-terminal", 0);
    assert_eq!(cancel.status, Some(AnswerStatus::Rest(400)));
    cancel.body = cancel.body.replace("TASK_NOT_CANCELABLE", "INTERNAL_ERROR");
    cancel.status = Some(AnswerStatus::Rest(500));
    let sub = call_mut(&mut r, "subscribe-terminal", 0);
    sub.body = sub.body.replace("UNSUPPORTED_OPERATION", "TASK_NOT_FOUND");
    let judged = judge(&r);
    assert_eq!(
        found(&judged),
        [
            "cancel-terminal:cancel-terminal-accepted",
            "subscribe-terminal:subscribe-terminal-accepted"
        ]
    );
    // Said as the agent said it: the HTTP status and reason.
    assert_eq!(
        judged[4].1.found[0].1,
        "CancelTask on a finished task failed with HTTP 500 INTERNAL_ERROR: Task cannot be \
         canceled, not HTTP 400 TASK_NOT_CANCELABLE (the REST form of -32002)"
    );
    assert!(judged[6].1.found[0]
        .1
        .contains("failed with HTTP 400 TASK_NOT_FOUND: "));
}

/// GetTask naming another context than the task's stream did is a
/// `context-mismatch` of the get probe.
#[test]
fn get_task_in_another_context_is_a_context_mismatch() {
    let mut r = records("python-1.0-none");
    let get = call_mut(&mut r, "get", 0);
    let value: serde_json::Value = serde_json::from_str(&get.body).unwrap();
    let context = value["result"]["contextId"].as_str().unwrap().to_string();
    get.body = get.body.replacen(&context, "ctx-elsewhere", 1);
    let judged = judge(&r);
    assert_eq!(found(&judged), ["get:context-mismatch"]);
    assert!(judged[2].1.found[0]
        .1
        .contains("event 0 names context ctx-elsewhere"));
}

/// Under `--tasks`, a later stream refused outright, or one whose
/// envelopes are wrong, is a broken stream of the load, named by its
/// number; the others stay clean.
#[test]
fn a_refused_or_misenveloped_stream_under_load_is_counted_broken() {
    let mut r = records("load-python-1.0-none");
    let error = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"busy"}}"#;
    call_mut(&mut r, "stream", 2).body = format!("data: {error}\n\n");
    let second = call_mut(&mut r, "stream", 1);
    let id = second.request_id.unwrap();
    second.body = second
        .body
        .replace(&format!("\"id\": {id}"), &format!("\"id\": {}", id + 100));
    let judged = judge(&r);
    let (_, stream) = &judged[1];
    assert_eq!(stream.load.map(|l| (l.tasks, l.clean)), Some((8, 6)));
    let messages: Vec<String> = stream
        .found
        .iter()
        .map(|(code, m)| format!("{code} {m}"))
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].starts_with("rpc-envelope stream 2: every event of the stream: `id` is"));
    assert_eq!(
        messages[1],
        "missing-terminal stream 3: the stream was refused: JSON-RPC error -32603 busy"
    );
}

/// The calls of one probe, as recorded.
fn calls(records: &ProbeRecords, probe: &str) -> Vec<CallRecord> {
    let probe = Probe::parse(probe).unwrap();
    records
        .probes
        .iter()
        .find(|p| p.probe == probe)
        .unwrap()
        .calls
        .clone()
}

#[test]
fn an_answer_that_cannot_be_read_is_a_finding_of_its_probe_and_the_others_still_run() {
    let mut r = records("python-1.0-none");
    let get = call_mut(&mut r, "get", 0);
    get.body = "Internal Server Error".into();
    get.status = Some(AnswerStatus::Http(500));
    let judged = judge(&r);
    assert_eq!(judged.len(), 7, "every probe judged");
    assert_eq!(found(&judged), ["get:unreadable-answer"]);
    let message = &judged[2].1.found[0].1;
    assert!(
        message.contains("HTTP 500") && message.contains("`Internal Server Error`"),
        "{message}"
    );
}

#[test]
fn a_stray_byte_before_each_event_is_unreadable_and_shown_escaped() {
    let mut r = records("python-1.0-none");
    let stream = call_mut(&mut r, "stream", 0);
    stream.body = stream.body.replace("data: {", "data: \u{1e}{");
    let judged = judge(&r);
    let stream = &judged[1].1;
    assert_eq!(stream.found[0].0.code(), "unreadable-answer");
    assert!(
        stream.found[0].1.contains("`\\x1e{"),
        "the byte is shown: {}",
        stream.found[0].1
    );
    // No task was read, so the probes that need it say why they did not run.
    assert!(judged[2].1.skipped, "{:?}", judged[2].1);
}

#[test]
fn a_cancel_refused_because_the_task_had_ended_is_no_finding() {
    let r = records("python-1.0-none");
    let judge_of = ProbeJudge::of(&r);
    let stream = &calls(&r, "stream")[0];
    let refused = &calls(&r, "cancel-terminal")[0];
    let get = &calls(&r, "get")[0];
    let judged = judge_of.cancel(stream, Some(refused), Some(get)).unwrap();
    assert!(judged.found.is_empty(), "{:?}", judged.found);
    assert!(judged.skipped);
    assert!(
        judged.summary.starts_with(
            "could not act on a running task: the task had ended (TASK_STATE_COMPLETED)"
        ),
        "{}",
        judged.summary
    );
    // A task that never showed it was running gave no moment to cancel.
    let judged = judge_of.cancel(stream, None, None).unwrap();
    assert!(judged.skipped && judged.found.is_empty());
}

#[test]
fn a_cancel_answered_canceled_and_then_completed_is_after_terminal() {
    let r = records("python-1.0-none");
    let judge_of = ProbeJudge::of(&r);
    let completed = &calls(&r, "stream")[0];
    let canceled = &calls(&r, "cancel")[1];
    assert!(
        canceled.body.contains("TASK_STATE_CANCELED"),
        "{}",
        canceled.body
    );
    let get = &calls(&r, "get")[0];
    let judged = judge_of
        .cancel(completed, Some(canceled), Some(get))
        .unwrap();
    let codes: Vec<&str> = judged.found.iter().map(|(c, _)| c.code()).collect();
    assert_eq!(
        codes,
        ["after-terminal", "after-terminal"],
        "{:?}",
        judged.found
    );
    assert!(judged.found[0]
        .1
        .contains("then the stream said TASK_STATE_COMPLETED"));
    assert!(judged.found[1]
        .1
        .contains("then GetTask said TASK_STATE_COMPLETED"));
}

/// The plan acts on a running task right after the first answer that
/// shows it running (SPEC §13), not after its first artifact: driven by
/// hand with the recorded answers of an SDK agent that reports progress
/// and sends its only artifact last.
#[test]
fn the_plan_cancels_and_drops_right_after_the_first_working_answer() {
    use a2a_lab::model::evidence::probe::plan::{Ask, PlanOptions, ProbePlan, Steer};
    use a2a_lab::model::evidence::probe::report::{ProbeReport, ProbedAgent};
    use a2a_lab::model::wire::card::Endpoint;

    let r = records("progress-python-1.0");
    let endpoint = Endpoint {
        name: "agent".into(),
        url: "http://127.0.0.1:1/".into(),
        wire: Wire::V1_0,
        binding: Binding::JsonRpc,
        push: false,
        offered: true,
    };
    let options = PlanOptions {
        message: "Where is my order BBS-1042?".into(),
        tasks: 1,
        push: None,
        webhook: false,
        keep_files: false,
    };
    let agent = ProbedAgent {
        name: "agent".into(),
        url: endpoint.url.clone(),
        wire: a2a_lab::model::wire::Wire::V1_0,
        binding: Binding::JsonRpc,
        offered: true,
        headers: Vec::new(),
    };
    let mut plan = ProbePlan::new(
        ProbeJudge::of(&r),
        &endpoint,
        r.card.clone(),
        options,
        ProbeReport::new(agent),
        "t".into(),
    );
    let mut asked = Vec::new();
    loop {
        let made = match plan.poll() {
            Ask::Done => break,
            Ask::Push { .. } => unreachable!("no webhook"),
            Ask::Calls(made) => made,
        };
        for call in made {
            asked.push(call.name.clone());
            // The recorded call of that name: a probe's first call, then
            // its follow-ups in the order made.
            let nth = match call.name.as_str() {
                "cancel-get" => 2,
                "resubscribe-subscribed" => 1,
                _ => 0,
            };
            let record = calls(&r, call.probe.name())[nth].clone();
            for (n, answer) in record.readable_answers(Wire::V1_0).iter().enumerate() {
                match plan.on_answer(answer) {
                    Steer::Read => {}
                    Steer::Drop => {
                        assert_eq!((call.name.as_str(), n), ("resubscribe-dropped", 1));
                        break;
                    }
                    Steer::Call(cancel) => {
                        assert_eq!((call.name.as_str(), n), ("cancel", 1), "after WORKING");
                        assert_eq!(cancel.request.name(), "CancelTask");
                        asked.push(cancel.name.clone());
                        plan.on_end(cancel.id, calls(&r, "cancel").get(1).cloned());
                    }
                }
            }
            plan.on_end(call.id, Some(record));
        }
    }
    assert_eq!(
        asked,
        [
            "stream",
            "get",
            "cancel",
            "cancel-call",
            "cancel-get",
            "cancel-terminal",
            "resubscribe-dropped",
            "resubscribe-subscribed",
            "subscribe-terminal"
        ]
    );
}
