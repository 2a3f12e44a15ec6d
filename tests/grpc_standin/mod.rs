//! A gRPC stand-in for the probe's tests (SPEC §16): an HTTP/2 server of a
//! few lines (h2, on 127.0.0.1) that answers `A2AService` as scripted, in
//! the lifecycle hostile.py scripts for JSON-RPC, and breaks one thing on
//! demand; its card is served over HTTP/1.1 beside it. Shared by
//! tests/cli/grpc_hostile.rs and tests/probe_agents.rs.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage};
use serde_json::{json, Value};

/// What the stand-in breaks.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    /// Nothing: the lifecycle of the SDK agents.
    Clean,
    /// A stream's second message is bytes that are no `StreamResponse`.
    Unreadable,
    /// CancelTask and SubscribeToTask on a finished task answer INTERNAL
    /// with no ErrorInfo, where A2A 1.0 §5.4 wants FAILED_PRECONDITION.
    WrongStatus,
    /// The stream is reset (RST_STREAM) after its first artifact.
    Reset,
    /// Every call without the metadata `authorization: Bearer s3cret`
    /// is answered UNAUTHENTICATED; with it, as `Clean`.
    Bearer,
    /// A stream that never ends: after WORKING, messages of 1 MiB (no
    /// `StreamResponse`) as fast as the client reads them, up to
    /// [`FLOOD_BYTES`]; what the client let through is [`FLOODED`].
    Flood,
}

/// How much `Kind::Flood` would send, were it all read.
pub const FLOOD_BYTES: u64 = 64 << 20;
/// How much `Kind::Flood` sent, as the client's flow control let it.
pub static FLOODED: AtomicU64 = AtomicU64::new(0);

/// The token `Kind::Bearer` wants.
pub const TOKEN: &str = "s3cret";

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
    let authorized = request
        .headers()
        .get("authorization")
        .is_some_and(|v| v.as_bytes() == format!("Bearer {TOKEN}").as_bytes());
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
    if kind == Kind::Bearer && !authorized {
        refuse(&mut respond, status(16, "no credentials", None));
        return;
    }
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
            if kind == Kind::Flood {
                flood(&mut send).await;
                return;
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

/// Sends [`FLOOD_BYTES`] of 1 MiB messages, each only as the client's
/// window lets it (h2 would buffer them all otherwise), until the client
/// stops reading or goes.
async fn flood(send: &mut h2::SendStream<Bytes>) {
    let message = frame(&vec![0xff; 1 << 20]);
    let mut sent = 0u64;
    while sent < FLOOD_BYTES {
        let mut chunk = message.clone();
        while !chunk.is_empty() {
            send.reserve_capacity(chunk.len());
            let granted = match std::future::poll_fn(|cx| send.poll_capacity(cx)).await {
                Some(Ok(granted)) => granted.min(chunk.len()),
                _ => return,
            };
            if granted == 0 {
                continue;
            }
            if send.send_data(chunk.split_to(granted), false).is_err() {
                return;
            }
            sent += granted as u64;
            FLOODED.store(sent, Ordering::SeqCst);
        }
    }
}

/// Serves the gRPC stand-in alone (no card); returns its address.
pub fn serve(kind: Kind) -> std::net::SocketAddr {
    serve_on(kind, None)
}

/// Serves the gRPC stand-in over TLS (`config` says ALPN `h2`); returns
/// its address.
pub fn serve_tls(
    kind: Kind,
    config: Arc<tokio_rustls::rustls::ServerConfig>,
) -> std::net::SocketAddr {
    serve_on(kind, Some(tokio_rustls::TlsAcceptor::from(config)))
}

/// A runtime of one worker and a listener on 127.0.0.1, an ephemeral port,
/// for a stand-in server that runs until the test process ends.
pub fn runtime_and_listener() -> (tokio::runtime::Runtime, tokio::net::TcpListener) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    (runtime, listener)
}

fn serve_on(kind: Kind, tls: Option<tokio_rustls::TlsAcceptor>) -> std::net::SocketAddr {
    let (runtime, listener) = runtime_and_listener();
    let grpc = listener.local_addr().unwrap();
    let pool = Arc::new(pool());
    let tasks = Arc::new(AtomicU64::new(1));
    std::thread::spawn(move || {
        runtime.block_on(async move {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                let (pool, tasks, tls) = (pool.clone(), tasks.clone(), tls.clone());
                tokio::spawn(async move {
                    match tls {
                        // A handshake the client refuses ends here.
                        Some(tls) => {
                            if let Ok(socket) = tls.accept(socket).await {
                                connection(kind, pool, tasks, socket).await;
                            }
                        }
                        None => connection(kind, pool, tasks, socket).await,
                    }
                });
            }
        });
    });
    grpc
}

/// One HTTP/2 connection's calls, each answered as `kind` says.
async fn connection<S>(kind: Kind, pool: Arc<DescriptorPool>, tasks: Arc<AtomicU64>, socket: S)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let Ok(mut connection) = h2::server::handshake(socket).await else {
        return;
    };
    while let Some(Ok((request, respond))) = connection.accept().await {
        let (pool, tasks) = (pool.clone(), tasks.clone());
        tokio::spawn(answer(kind, pool, tasks, request, respond));
    }
}

/// Starts the stand-in with its card, which lists only its GRPC
/// interface; returns the URL the card is under.
pub fn start(kind: Kind) -> String {
    let grpc = serve(kind);
    serve_card(card(json!([
        {"url": grpc.to_string(), "protocolBinding": "GRPC", "protocolVersion": "1.0"}
    ])))
}

/// Serves `card` over HTTP/1.1 on 127.0.0.1, whatever is asked, for as
/// long as the test process runs; returns its URL.
pub fn serve_card(card: String) -> String {
    let bound = a2a_lab::serve::Bound::local(0, a2a_lab::serve::Limits::default()).unwrap();
    let url = format!("http://{}", bound.addr());
    // The card on every path.
    let cards = axum::Router::new().fallback(move || {
        let card = card.clone();
        async move { ([("content-type", "application/json")], card) }
    });
    std::mem::forget(bound.spawn(cards).unwrap());
    url
}

/// The stand-in's card, listing `interfaces` (`supportedInterfaces`).
pub fn card(interfaces: Value) -> String {
    json!({
        "name": "hostile gRPC stand-in",
        "description": "answers what no SDK does",
        "version": "1.0.0",
        "supportedInterfaces": interfaces,
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}]
    })
    .to_string()
}
