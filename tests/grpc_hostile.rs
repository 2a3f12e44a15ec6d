//! `a2a-lab probe` over gRPC against stand-ins that answer what no SDK
//! does (SPEC §16): a message that cannot be read, a wrong status code, a
//! stream reset mid-way. Each is an HTTP/2 server of a few lines here
//! (h2, on 127.0.0.1), scripted as hostile.py scripts its JSON-RPC ones;
//! its card is served over HTTP/1.1 beside it and lists only its GRPC
//! interface, which the probe then picks.
//!
//! Each finding is read against the same stand-in answering cleanly, so
//! the test says what each hostile answer adds, and nothing else.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use a2a_lab::model::evidence::probe::report::ProbeReport;
use bytes::Bytes;
use cli_support::binary;
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage};
use serde_json::{json, Value};

mod cli_support;

/// What the stand-in breaks.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Nothing: the lifecycle of the SDK agents.
    Clean,
    /// A stream's second message is bytes that are no `StreamResponse`.
    Unreadable,
    /// CancelTask and SubscribeToTask on a finished task answer INTERNAL
    /// with no ErrorInfo, where A2A 1.0 §5.4 wants FAILED_PRECONDITION.
    WrongStatus,
    /// The stream is reset (RST_STREAM) after its first artifact.
    Reset,
}

const SERVICE: &str = "/lf.a2a.v1.A2AService/";

fn pool() -> DescriptorPool {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("proto/a2a.binpb");
    DescriptorPool::decode(std::fs::read(path).unwrap().as_slice()).unwrap()
}

/// `json` as the protobuf of message `name`, framed as gRPC sends it.
fn framed(pool: &DescriptorPool, name: &str, json: &Value) -> Bytes {
    let descriptor = pool.get_message_by_name(name).unwrap();
    let bytes = DynamicMessage::deserialize(descriptor, json)
        .unwrap()
        .encode_to_vec();
    frame(&bytes)
}

fn frame(bytes: &[u8]) -> Bytes {
    let mut out = vec![0u8];
    out.extend(u32::try_from(bytes.len()).unwrap().to_be_bytes());
    out.extend(bytes);
    Bytes::from(out)
}

fn task(id: &str, state: &str, parts: usize) -> Value {
    let parts: Vec<Value> = (1..=parts)
        .map(|n| json!({"text": format!("step {n}")}))
        .collect();
    let mut task = json!({"id": id, "contextId": "ctx", "status": {"state": state}});
    if !parts.is_empty() {
        task["artifacts"] = json!([{"artifactId": "tracking", "parts": parts}]);
    }
    task
}

/// `google.rpc.Status` with one `google.rpc.ErrorInfo`, as
/// `grpc-status-details-bin` carries it.
#[derive(Clone, PartialEq, Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<Any>,
}

#[derive(Clone, PartialEq, Message)]
struct Any {
    #[prost(string, tag = "1")]
    type_url: String,
    #[prost(bytes = "vec", tag = "2")]
    value: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
struct ErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
    #[prost(string, tag = "2")]
    domain: String,
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ABC[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The trailers of a status: code, message and, with a reason, its
/// ErrorInfo.
fn status(code: i32, message: &str, reason: Option<&str>) -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    headers.insert("grpc-status", code.to_string().parse().unwrap());
    headers.insert("grpc-message", message.replace(' ', "%20").parse().unwrap());
    if let Some(reason) = reason {
        let info = ErrorInfo {
            reason: reason.into(),
            domain: "a2a-protocol.org".into(),
        };
        let details = RpcStatus {
            code,
            message: message.into(),
            details: vec![Any {
                type_url: "type.googleapis.com/google.rpc.ErrorInfo".into(),
                value: info.encode_to_vec(),
            }],
        };
        headers.insert(
            "grpc-status-details-bin",
            base64(&details.encode_to_vec()).parse().unwrap(),
        );
    }
    headers
}

/// The request message's `id` field (GetTask, CancelTask,
/// SubscribeToTask), read from its protobuf.
fn requested_id(pool: &DescriptorPool, method: &str, body: &[u8]) -> String {
    let name = format!("lf.a2a.v1.{method}Request");
    let Some(descriptor) = pool.get_message_by_name(&name) else {
        return String::new();
    };
    let message = DynamicMessage::decode(descriptor, body.get(5..).unwrap_or_default()).unwrap();
    message
        .get_field_by_name("id")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

async fn answer(
    kind: Kind,
    pool: Arc<DescriptorPool>,
    tasks: Arc<AtomicU64>,
    request: http::Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<Bytes>,
) {
    let method = request
        .uri()
        .path()
        .strip_prefix(SERVICE)
        .unwrap_or_default()
        .to_string();
    let mut body = request.into_body();
    let mut received = Vec::new();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.unwrap();
        let _ = body.flow_control().release_capacity(chunk.len());
        received.extend_from_slice(&chunk);
    }
    let ok = http::Response::builder()
        .status(200)
        .header("content-type", "application/grpc")
        .body(())
        .unwrap();
    let refuse = |respond: &mut h2::server::SendResponse<Bytes>, trailers: http::HeaderMap| {
        let mut only = http::Response::builder()
            .status(200)
            .header("content-type", "application/grpc")
            .body(())
            .unwrap();
        only.headers_mut().extend(trailers);
        respond.send_response(only, true).unwrap();
    };
    let finished = |respond: &mut h2::server::SendResponse<Bytes>, what: &str| match kind {
        Kind::WrongStatus => refuse(respond, status(13, "internal error", None)),
        _ => refuse(respond, status(9, what, Some(what))),
    };
    match method.as_str() {
        "SendStreamingMessage" => {
            let id = format!("task-{}", tasks.fetch_add(1, Ordering::SeqCst));
            let mut send = respond.send_response(ok, false).unwrap();
            let event = |json: Value| framed(&pool, "lf.a2a.v1.StreamResponse", &json);
            send.send_data(
                event(json!({"task": task(&id, "TASK_STATE_SUBMITTED", 0)})),
                false,
            )
            .unwrap();
            let status_of = |state: &str| json!({"statusUpdate": {"taskId": id, "contextId": "ctx", "status": {"state": state}}});
            send.send_data(event(status_of("TASK_STATE_WORKING")), false)
                .unwrap();
            if kind == Kind::Unreadable {
                send.send_data(frame(&[0xff, 0xff, 0xff, 0xff]), false)
                    .unwrap();
            }
            for n in 1..=3 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let update = json!({"artifactUpdate": {"taskId": id, "contextId": "ctx",
                    "artifact": {"artifactId": "tracking", "parts": [{"text": format!("step {n}")}]},
                    "append": n > 1, "lastChunk": n == 3}});
                if send.send_data(event(update), false).is_err() {
                    return;
                }
                if kind == Kind::Reset {
                    // Time for the artifact to reach the client first: a
                    // reset drops what the client has not read.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    send.send_reset(h2::Reason::INTERNAL_ERROR);
                    return;
                }
            }
            let _ = send.send_data(event(status_of("TASK_STATE_COMPLETED")), false);
            let _ = send.send_trailers(status(0, "", None));
        }
        "GetTask" => {
            let id = requested_id(&pool, "GetTask", &received);
            let (state, parts) = match kind {
                Kind::Reset => ("TASK_STATE_WORKING", 1),
                _ => ("TASK_STATE_COMPLETED", 3),
            };
            let mut send = respond.send_response(ok, false).unwrap();
            send.send_data(
                framed(&pool, "lf.a2a.v1.Task", &task(&id, state, parts)),
                false,
            )
            .unwrap();
            let _ = send.send_trailers(status(0, "", None));
        }
        "CancelTask" => finished(&mut respond, "TASK_NOT_CANCELABLE"),
        "SubscribeToTask" => finished(&mut respond, "UNSUPPORTED_OPERATION"),
        _ => refuse(&mut respond, status(12, "unimplemented", None)),
    }
}

/// Starts the stand-in; returns the URL its card is under.
fn start(kind: Kind) -> String {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let grpc = listener.local_addr().unwrap();
    let pool = Arc::new(pool());
    let tasks = Arc::new(AtomicU64::new(1));
    std::thread::spawn(move || {
        runtime.block_on(async move {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                let (pool, tasks) = (pool.clone(), tasks.clone());
                tokio::spawn(async move {
                    let Ok(mut connection) = h2::server::handshake(socket).await else {
                        return;
                    };
                    while let Some(Ok((request, respond))) = connection.accept().await {
                        let (pool, tasks) = (pool.clone(), tasks.clone());
                        tokio::spawn(answer(kind, pool, tasks, request, respond));
                    }
                });
            }
        });
    });
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let url = format!("http://{}", server.server_addr().to_ip().unwrap());
    let card = json!({
        "name": "hostile gRPC stand-in",
        "description": "answers what no SDK does",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": grpc.to_string(), "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}]
    })
    .to_string();
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let header = tiny_http::Header::from_bytes("content-type", "application/json").unwrap();
            let answer = tiny_http::Response::from_string(card.clone()).with_header(header);
            let _ = request.respond(answer);
        }
    });
    url
}

fn probed(kind: Kind, name: &str) -> (ProbeReport, Vec<String>) {
    let url = start(kind);
    let out =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/tmp/grpc-hostile/{name}"));
    let _ = std::fs::remove_dir_all(&out);
    let output = binary([
        "probe",
        &url,
        "--timeout-ms",
        "2000",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.is_empty(), "{name}: {stderr}");
    let text = std::fs::read_to_string(out.join("probe.json")).unwrap();
    let report = ProbeReport::from_json(&text).unwrap();
    let found = report
        .findings
        .iter()
        .map(|f| format!("{}:{}", f.probe, f.code))
        .collect();
    (report, found)
}

/// What `hostile` finds that `clean` does not.
fn added(clean: &[String], hostile: &[String]) -> Vec<String> {
    let mut rest = clean.to_vec();
    hostile
        .iter()
        .filter(|f| match rest.iter().position(|c| c == *f) {
            Some(at) => {
                rest.remove(at);
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

#[test]
fn hostile_grpc_answers_are_each_found_where_they_show() {
    let (clean, clean_found) = probed(Kind::Clean, "clean");
    assert_eq!(
        clean.agent.binding.name(),
        "grpc",
        "the card's only interface"
    );
    assert!(
        clean_found.is_empty(),
        "the clean stand-in: {clean_found:?}"
    );

    let (report, found) = probed(Kind::Unreadable, "unreadable");
    assert_eq!(
        added(&clean_found, &found),
        // The resubscribe probe drops its stream at the first WORKING,
        // before the bytes come.
        ["stream:unreadable-answer", "cancel:unreadable-answer"],
        "{found:?}"
    );
    let said = &report.findings[0].message;
    assert!(
        said.contains("gRPC message of 4 bytes that is not a lf.a2a.v1.StreamResponse"),
        "{said}"
    );

    let (report, found) = probed(Kind::WrongStatus, "wrong-status");
    assert_eq!(
        added(&clean_found, &found),
        [
            "cancel:cancel-not-canceled",
            "cancel-terminal:cancel-terminal-accepted",
            "subscribe-terminal:subscribe-terminal-accepted"
        ],
        "{found:?}"
    );
    let cancel_terminal = report
        .findings
        .iter()
        .find(|f| f.probe.to_string() == "cancel-terminal")
        .unwrap();
    assert!(
        cancel_terminal.message.contains("gRPC INTERNAL")
            && cancel_terminal
                .message
                .contains("FAILED_PRECONDITION TASK_NOT_CANCELABLE"),
        "{}",
        cancel_terminal.message
    );

    // A reset stream ended without a final status, wherever one was read
    // to its end.
    let (report, found) = probed(Kind::Reset, "reset");
    assert_eq!(
        added(&clean_found, &found),
        [
            "stream:missing-terminal",
            "cancel:missing-terminal",
            "resubscribe:missing-terminal"
        ],
        "{found:?}"
    );
    let records = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp/grpc-hostile/reset/records.json"),
    )
    .unwrap();
    assert!(records.contains("\"reset\": true"), "the reset is kept");
    assert!(report.findings[0].message.contains("TASK_STATE_WORKING"));
}

/// A gRPC run is a run like the others for everything after the probe:
/// JUnit, SARIF, `--baseline`, and the page's Import of its `probe.json`.
#[test]
fn a_grpc_run_gates_and_imports_as_the_others() {
    let url = start(Kind::WrongStatus);
    let junit = binary(["probe", &url, "--timeout-ms", "2000", "--format", "junit"]);
    assert_eq!(junit.status.code(), Some(1));
    let xml = String::from_utf8(junit.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failed: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.children().any(|c| c.has_tag_name("failure")))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(failed.len(), 3, "{xml}");
    assert!(xml.contains("gRPC INTERNAL"), "{xml}");

    let sarif = binary(["probe", &url, "--timeout-ms", "2000", "--format", "sarif"]);
    let sarif: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"cancel-terminal-accepted"), "{rules:?}");

    // The clean stand-in as the baseline: the wrong status is new.
    let clean = start(Kind::Clean);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/tmp/grpc-hostile/baseline");
    let _ = std::fs::remove_dir_all(&dir);
    let kept = binary([
        "probe",
        &clean,
        "--timeout-ms",
        "2000",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(kept.status.code(), Some(0));
    let baseline = dir.join("probe.json");
    let baseline = baseline.to_str().unwrap();
    let same = binary([
        "probe",
        &clean,
        "--timeout-ms",
        "2000",
        "--baseline",
        baseline,
    ]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    let changed = binary([
        "probe",
        &url,
        "--timeout-ms",
        "2000",
        "--baseline",
        baseline,
    ]);
    assert_eq!(changed.status.code(), Some(1));

    // The page's Import reads it, and says which binding was spoken.
    let text = std::fs::read(dir.join("probe.json")).unwrap();
    let imported = a2a_lab::model::evidence::import::import_bytes(&text).unwrap();
    let said = a2a_lab::model::pictures::shown::import_summary(&imported);
    assert!(said.contains("on the A2A 1.0 wire over GRPC"), "{said}");
}
