//! The probe's calls on one running agent, over its gRPC interface and then over its
//! JSON-RPC one, printed side by side (tests/agents/rust/grpc_answers.sh runs it on
//! every DEFECT and saves answers/grpc.txt).
//!
//!     grpc_answers URL [extras|stream]
//!
//! URL is the agent's base URL (what start.sh prints); the card there must list a GRPC
//! and a JSON-RPC interface (`grpc=on`). `extras` adds the request variants (unknown
//! task, no `a2a-version` metadata, `a2a-version: 0.3`, blocking SendMessage);
//! `stream` makes only the stream probe (to watch an idle stream with a long
//! A2A_ANSWERS_IDLE_MS).
//!
//! The gRPC side is a2a-pb's generated tonic client, not a2a-grpc's `GrpcTransport`:
//! that one turns every status into an `A2AError` (errors.rs status_to_a2a_error),
//! and what is measured here is the status itself. Each gRPC message is printed as
//! ProtoJSON: transcoded into a2a-pb's pbjson twin of the message, as a2a-server-lf
//! does for JSON-RPC (protojson_conv.rs to_value, timestamps in `Z`), keys sorted.
//! Each JSON-RPC SSE `data:` line and unary body is printed as received.
//!
//! A stream that sends no event for A2A_ANSWERS_IDLE_MS (default 2000; SSE keep-alive
//! comments do not count) is reported as open and dropped by the client.

use std::time::{Duration, Instant};

use a2a_pb::proto;
use a2a_pb::protojson as pj;
use a2a_pb::proto::a2a_service_client::A2aServiceClient;
use futures::StreamExt;
use prost::Message;
use serde_json::{Value, json};
use tonic::transport::Channel;
use tonic_types::{ErrorDetail, StatusExt};

const TEXT: &str = "Where is my order BBS-1042?";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (url, mode) = match args.as_slice() {
        [url] => (url.clone(), ""),
        [url, x] if x == "extras" || x == "stream" => (url.clone(), x.as_str()),
        _ => {
            eprintln!("usage: grpc_answers URL [extras|stream]");
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    if let Err(e) = rt.block_on(run(&url, mode)) {
        eprintln!("grpc_answers: {e}");
        std::process::exit(1);
    }
}

fn idle() -> Duration {
    let ms = std::env::var("A2A_ANSWERS_IDLE_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    Duration::from_millis(ms)
}

async fn run(url: &str, mode: &str) -> Result<(), String> {
    let http = reqwest::Client::new();
    let card = http
        .get(format!("{}/.well-known/agent-card.json", url.trim_end_matches('/')))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let card = json_body(card).await?;
    println!("card supportedInterfaces: {}", card["supportedInterfaces"]);
    let iface = |binding: &str| {
        card["supportedInterfaces"]
            .as_array()
            .and_then(|l| l.iter().find(|i| i["protocolBinding"] == binding))
            .and_then(|i| i["url"].as_str())
            .map(str::to_string)
            .ok_or(format!("the card lists no {binding} interface"))
    };
    let grpc_url = iface("GRPC")?;
    let endpoint = if grpc_url.contains("://") { grpc_url.clone() } else { format!("http://{grpc_url}") };
    let channel = tonic::transport::Endpoint::from_shared(endpoint)
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| format!("connect {grpc_url}: {e}"))?;
    let grpc = Binding::Grpc(channel);
    let rpc = Binding::JsonRpc(http.clone(), iface("JSONRPC")?);

    for b in [&grpc, &rpc] {
        println!("\n## {}", b.name());
        if mode == "stream" {
            println!("\n### stream: SendStreamingMessage");
            show_stream(Instant::now(), b.stream("SendStreamingMessage", None, Some("1.0")).await).await;
        } else {
            probes(b).await;
        }
    }
    if mode == "extras" {
        println!("\n## gRPC request variants");
        let id = Some("no-such-task");
        section("GetTask unknown id", grpc.call("GetTask", id, Some("1.0")).await);
        println!("\n### SendStreamingMessage without a2a-version metadata");
        show_stream(Instant::now(), grpc.stream("SendStreamingMessage", None, None).await).await;
        println!("\n### SendStreamingMessage with a2a-version: 0.3");
        show_stream(Instant::now(), grpc.stream("SendStreamingMessage", None, Some("0.3")).await).await;
        section("SendMessage (blocking)", grpc.call("SendMessage", None, Some("1.0")).await);
        println!("\n## JSON-RPC request variants");
        section("GetTask unknown id", rpc.call("GetTask", id, Some("1.0")).await);
        println!("\n### SendStreamingMessage without A2A-Version");
        show_stream(Instant::now(), rpc.stream("SendStreamingMessage", None, None).await).await;
        section("SendMessage (blocking)", rpc.call("SendMessage", None, Some("1.0")).await);
    }
    Ok(())
}

/// The probes of SPEC §10 on one binding, in the probe's order.
async fn probes(b: &Binding) {
    println!("\n### stream: SendStreamingMessage");
    let seen = show_stream(Instant::now(), b.stream("SendStreamingMessage", None, Some("1.0")).await).await;
    let Some(id) = seen.task_id else {
        println!("(no task id: nothing more to ask)");
        return;
    };
    section("get: GetTask", b.call("GetTask", Some(&id), Some("1.0")).await);
    section("cancel-terminal: CancelTask on the finished task", b.call("CancelTask", Some(&id), Some("1.0")).await);
    println!("\n### subscribe-terminal: SubscribeToTask on the finished task");
    show_stream(Instant::now(), b.stream("SubscribeToTask", Some(&id), Some("1.0")).await).await;

    println!("\n### cancel: a new task, CancelTask right after its first artifact event (stream kept open)");
    let t0 = Instant::now();
    match b.stream("SendStreamingMessage", None, Some("1.0")).await {
        Err(e) => println!("{e}"),
        Ok(mut s) => {
            let mut cancel = None;
            let task = follow(t0, &mut s, |v, task| {
                if cancel.is_none()
                    && is_artifact(v)
                    && let Some(id) = task.map(str::to_string)
                {
                    let b2 = b.clone();
                    cancel = Some(tokio::spawn(async move {
                        let sent = t0.elapsed().as_millis();
                        let out = b2.call("CancelTask", Some(&id), Some("1.0")).await;
                        (sent, t0.elapsed().as_millis(), out)
                    }));
                }
                true
            })
            .await;
            drop(s);
            match cancel {
                None => println!("(no artifact event: CancelTask not sent)"),
                Some(h) => {
                    let (sent, got, out) = h.await.expect("cancel task");
                    println!("CancelTask sent at +{sent} ms, answered at +{got} ms: {out}");
                }
            }
            if let Some(id) = task {
                tokio::time::sleep(Duration::from_millis(500)).await;
                section("cancel-get: GetTask 0.5 s later", b.call("GetTask", Some(&id), Some("1.0")).await);
            }
        }
    }

    println!("\n### resubscribe: a new task, the stream dropped after its first artifact event, then SubscribeToTask");
    let t0 = Instant::now();
    match b.stream("SendStreamingMessage", None, Some("1.0")).await {
        Err(e) => println!("{e}"),
        Ok(mut s) => {
            let task = follow(t0, &mut s, |v, _| {
                let drop_it = is_artifact(v);
                if drop_it {
                    println!("  (dropped by the client)");
                }
                !drop_it
            })
            .await;
            drop(s);
            match task {
                None => println!("(no task id: no SubscribeToTask)"),
                Some(id) => {
                    println!("SubscribeToTask:");
                    show_stream(Instant::now(), b.stream("SubscribeToTask", Some(&id), Some("1.0")).await).await;
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    section("resubscribe-get: GetTask", b.call("GetTask", Some(&id), Some("1.0")).await);
                }
            }
        }
    }
}

fn section(title: &str, out: String) {
    println!("\n### {title}\n{out}");
}

struct Seen {
    task_id: Option<String>,
}

/// Prints a stream's events, timed from `t0` (taken before the call), and its end.
async fn show_stream(t0: Instant, s: Result<Stream, String>) -> Seen {
    match s {
        Ok(mut s) => Seen {
            task_id: follow(t0, &mut s, |_, _| true).await,
        },
        Err(e) => {
            println!("{e}");
            Seen { task_id: None }
        }
    }
}

/// Prints a stream's events and comments, timed from `t0`, until it ends
/// (printed too) or `on_event`, given each event and the task id seen so
/// far, says to stop reading; returns the task id the stream named.
async fn follow(t0: Instant, s: &mut Stream, mut on_event: impl FnMut(&Value, Option<&str>) -> bool) -> Option<String> {
    let mut task = None;
    let mut n = 0;
    loop {
        let next = s.next(idle()).await;
        let ms = t0.elapsed().as_millis();
        match next {
            Next::Event(v, text) => {
                n += 1;
                println!("  +{ms} ms event {n}: {text}");
                task = task.or_else(|| task_id(&v));
                if !on_event(&v, task.as_deref()) {
                    return task;
                }
            }
            Next::Comment(c) => println!("  +{ms} ms comment {c:?}"),
            end => {
                println!("  +{ms} ms {}", end.describe());
                return task;
            }
        }
    }
}

fn payload(v: &Value) -> &Value {
    v.get("result").unwrap_or(v)
}

fn task_id(v: &Value) -> Option<String> {
    let r = payload(v);
    r.pointer("/task/id")
        .or_else(|| r.pointer("/statusUpdate/taskId"))
        .or_else(|| r.pointer("/artifactUpdate/taskId"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn is_artifact(v: &Value) -> bool {
    payload(v).get("artifactUpdate").is_some()
}

#[derive(Clone)]
enum Binding {
    Grpc(Channel),
    JsonRpc(reqwest::Client, String),
}

struct Stream {
    kind: Kind,
    /// The idle limit counts from the last event: keep-alive comments do not reset it.
    last_event: Instant,
}

enum Kind {
    Grpc(tonic::Streaming<proto::StreamResponse>),
    Sse(futures::stream::BoxStream<'static, reqwest::Result<Vec<u8>>>, String),
}

enum Next {
    /// The event, and its text as printed: ProtoJSON (gRPC), the `data:` line (SSE).
    Event(Value, String),
    /// The server ended the stream: gRPC trailers with status OK, or the SSE body's end.
    Closed(&'static str),
    /// gRPC: the stream ended with a non-OK status.
    Status(String),
    Idle(Duration),
    /// An SSE comment frame (a keep-alive): printed, not an event.
    Comment(String),
    Broken(String),
}

impl Next {
    fn describe(&self) -> String {
        match self {
            Next::Event(..) | Next::Comment(_) => unreachable!(),
            Next::Closed(how) => format!("end: {how}"),
            Next::Status(s) => format!("end: the stream ends with status {s}"),
            Next::Idle(d) => format!("end: no event for {} ms, still open (dropped by the client)", d.as_millis()),
            Next::Broken(e) => format!("end: broken: {e}"),
        }
    }
}

impl Stream {
    fn new(kind: Kind) -> Self {
        Stream { kind, last_event: Instant::now() }
    }

    async fn next(&mut self, idle: Duration) -> Next {
        let next = self.next_frame(idle).await;
        if let Next::Event(..) = next {
            self.last_event = Instant::now();
        }
        next
    }

    async fn next_frame(&mut self, idle: Duration) -> Next {
        let deadline = tokio::time::Instant::from_std(self.last_event + idle);
        match &mut self.kind {
            Kind::Grpc(s) => match tokio::time::timeout_at(deadline, s.message()).await {
                Err(_) => Next::Idle(idle),
                Ok(Ok(Some(m))) => {
                    let v = protojson::<_, pj::StreamResponse>(&m);
                    let text = v.to_string();
                    Next::Event(v, text)
                }
                Ok(Ok(None)) => Next::Closed("status OK, the stream closed by the server"),
                Ok(Err(status)) => Next::Status(status_text(&status)),
            },
            Kind::Sse(body, buf) => loop {
                if let Some(at) = buf.find("\n\n") {
                    let frame: String = buf.drain(..at + 2).collect();
                    let data: Vec<&str> = frame
                        .lines()
                        .filter_map(|l| l.strip_prefix("data:"))
                        .map(|d| d.strip_prefix(' ').unwrap_or(d))
                        .collect();
                    if data.is_empty() {
                        return Next::Comment(frame.trim_end().to_string());
                    }
                    let text = data.join("\n");
                    return Next::Event(serde_json::from_str(&text).unwrap_or(Value::Null), text);
                }
                match tokio::time::timeout_at(deadline, body.next()).await {
                    Err(_) => return Next::Idle(idle),
                    Ok(None) => return Next::Closed("the body closed by the server"),
                    Ok(Some(Err(e))) => return Next::Broken(e.to_string()),
                    Ok(Some(Ok(chunk))) => buf.push_str(&String::from_utf8_lossy(&chunk)),
                }
            },
        }
    }
}

impl Binding {
    fn name(&self) -> &'static str {
        match self {
            Binding::Grpc(_) => "gRPC (a2a-grpc GrpcHandler, a2a-version: 1.0 metadata)",
            Binding::JsonRpc(..) => "JSON-RPC (a2a-server-lf jsonrpc_router, A2A-Version: 1.0)",
        }
    }

    fn send_request() -> Value {
        json!({"message": {"messageId": "msg-grpc-1", "role": "ROLE_USER", "parts": [{"text": TEXT}]}})
    }

    fn params(method: &str, id: Option<&str>) -> Value {
        match method {
            "SendStreamingMessage" | "SendMessage" => Self::send_request(),
            _ => json!({"id": id.unwrap_or_default()}),
        }
    }

    /// A unary call, its answer as one line.
    async fn call(&self, method: &str, id: Option<&str>, version: Option<&str>) -> String {
        let params = Self::params(method, id);
        match self {
            Binding::Grpc(ch) => {
                let mut c = A2aServiceClient::new(ch.clone());
                let r = match method {
                    "GetTask" => c
                        .get_task(request::<pj::GetTaskRequest, proto::GetTaskRequest>(&params, version))
                        .await
                        .map(|r| protojson::<_, pj::Task>(r.get_ref())),
                    "CancelTask" => c
                        .cancel_task(request::<pj::CancelTaskRequest, proto::CancelTaskRequest>(&params, version))
                        .await
                        .map(|r| protojson::<_, pj::Task>(r.get_ref())),
                    "SendMessage" => c
                        .send_message(request::<pj::SendMessageRequest, proto::SendMessageRequest>(&params, version))
                        .await
                        .map(|r| protojson::<_, pj::SendMessageResponse>(r.get_ref())),
                    _ => unreachable!("{method}"),
                };
                match r {
                    Ok(v) => format!("OK {v}"),
                    Err(status) => format!("error: status {}", status_text(&status)),
                }
            }
            Binding::JsonRpc(http, url) => match jsonrpc_post(http, url, method, params, version).await {
                Err(e) => e,
                Ok(r) => format!("{} {}", r.status().as_u16(), r.text().await.unwrap_or_else(|e| e.to_string())),
            },
        }
    }

    /// A streaming call: its stream, or its answer as one line when the call itself
    /// failed (gRPC: a status without messages; JSON-RPC: a JSON answer, not SSE).
    async fn stream(&self, method: &str, id: Option<&str>, version: Option<&str>) -> Result<Stream, String> {
        let params = Self::params(method, id);
        match self {
            Binding::Grpc(ch) => {
                let mut c = A2aServiceClient::new(ch.clone());
                let r = match method {
                    "SendStreamingMessage" => {
                        c.send_streaming_message(request::<pj::SendMessageRequest, proto::SendMessageRequest>(&params, version)).await
                    }
                    "SubscribeToTask" => {
                        c.subscribe_to_task(request::<pj::SubscribeToTaskRequest, proto::SubscribeToTaskRequest>(&params, version)).await
                    }
                    _ => unreachable!("{method}"),
                };
                r.map(|r| Stream::new(Kind::Grpc(r.into_inner())))
                    .map_err(|status| format!("error (no stream): status {}", status_text(&status)))
            }
            Binding::JsonRpc(http, url) => {
                let r = jsonrpc_post(http, url, method, params, version).await?;
                let sse = r
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("text/event-stream"));
                if sse {
                    Ok(Stream::new(Kind::Sse(r.bytes_stream().map(|c| c.map(|b| b.to_vec())).boxed(), String::new())))
                } else {
                    let status = r.status().as_u16();
                    Err(format!("no stream: {status} {}", r.text().await.unwrap_or_else(|e| e.to_string())))
                }
            }
        }
    }
}

async fn jsonrpc_post(
    http: &reqwest::Client,
    url: &str,
    method: &str,
    params: Value,
    version: Option<&str>,
) -> Result<reqwest::Response, String> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut req = http.post(url).header("Content-Type", "application/json").body(body.to_string());
    if let Some(v) = version {
        req = req.header("A2A-Version", v);
    }
    req.send().await.map_err(|e| format!("POST {url}: {e}"))
}

/// A request built from its ProtoJSON form `J`, so both bindings send the same message.
fn request<J, P>(params: &Value, version: Option<&str>) -> tonic::Request<P>
where
    J: Message + serde::de::DeserializeOwned,
    P: Message + Default,
{
    let j: J = serde_json::from_value(params.clone()).expect("ProtoJSON request");
    let mut r = tonic::Request::new(P::decode(j.encode_to_vec().as_slice()).expect("transcode"));
    if let Some(v) = version {
        r.metadata_mut().insert("a2a-version", v.parse().expect("ascii"));
    }
    r
}

/// A message as ProtoJSON: through its pbjson twin, timestamps with `Z`.
fn protojson<P: Message, J: Message + Default + serde::Serialize>(m: &P) -> Value {
    let j = J::decode(m.encode_to_vec().as_slice()).expect("transcode");
    let mut v = serde_json::to_value(j).expect("ProtoJSON");
    zulu(&mut v);
    v
}

fn zulu(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "timestamp"
                    && let Value::String(s) = x
                    && let Some(p) = s.strip_suffix("+00:00")
                {
                    *s = format!("{p}Z");
                }
                zulu(x);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(zulu),
        _ => {}
    }
}

const CODES: [&str; 17] = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// `CODE (n) message="…" details=[…]`: the status as the client receives it.
fn status_text(s: &tonic::Status) -> String {
    let n = s.code() as i32;
    let name = CODES.get(n as usize).copied().unwrap_or("?");
    let details: Vec<String> = s
        .get_error_details_vec()
        .into_iter()
        .map(|d| match d {
            ErrorDetail::ErrorInfo(i) => {
                let mut meta: Vec<_> = i.metadata.iter().collect();
                meta.sort();
                format!("ErrorInfo{{reason={}, domain={}, metadata={meta:?}}}", i.reason, i.domain)
            }
            other => format!("{other:?}"),
        })
        .collect();
    format!("{name} ({n}) message={:?} details=[{}]", s.message(), details.join(", "))
}

async fn json_body(r: reqwest::Response) -> Result<Value, String> {
    let b = r.bytes().await.map_err(|e| e.to_string())?;
    serde_json::from_slice(&b).map_err(|e| e.to_string())
}
