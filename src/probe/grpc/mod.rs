//! The probe's gRPC caller (SPEC §16): the calls the plan asks for, made
//! over A2A 1.0's gRPC binding (`proto/a2a.proto`'s `A2AService`) and
//! handed back as the HTTP caller hands its own: each server-streamed
//! message as an event (its ProtoJSON, which HTTP+JSON would carry), a
//! unary answer as one JSON answer, and a status that is not OK as the
//! error it stands for ([`crate::model::wire::grpc`]). The plan and the
//! judge do not know which binding carried the bytes.
//!
//! tonic runs on a tokio runtime of its own; the pump stays blocking, one
//! message at a time, so that it steers a gRPC stream as it steers an SSE
//! one (the cancel made while the stream is open).

mod codec;
mod messages;
mod status;

use std::time::{Duration, Instant};

use bytes::Bytes;
use prost_reflect::MethodDescriptor;
use tokio::runtime::Runtime;
use tonic::metadata::{MetadataKey, MetadataValue};
use tonic::transport::{Channel, Endpoint};

use super::call::{millis, Caller, Flow, Received};
use crate::model::evidence::probe::records::AnswerEnd;
use crate::model::evidence::probe::request::Request;
use crate::model::wire::answer::{read_answer, Answer};
use crate::model::wire::Wire;
use codec::RawCodec;
use messages::{answer_json, request_bytes, Methods, SERVICE};

/// A gRPC connection to one agent interface.
pub struct GrpcClient {
    runtime: Runtime,
    channel: Channel,
    methods: Methods,
    /// Sent as metadata on every call (`--header`, and `a2a-version`).
    metadata: Vec<(
        MetadataKey<tonic::metadata::Ascii>,
        MetadataValue<tonic::metadata::Ascii>,
    )>,
}

impl GrpcClient {
    /// A client of the interface at `url` (`host:port`, or with an
    /// `http://`, `https://` or `grpc://` scheme), sending `headers` as
    /// metadata. It connects on the first call.
    pub fn new(url: &str, headers: &[(String, String)]) -> Result<GrpcClient, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| format!("gRPC: {e}"))?;
        let target = authority_url(url)?;
        let endpoint = Endpoint::from_shared(target.clone())
            .map_err(|e| format!("the gRPC interface {url} is not a URL: {e}"))?
            .connect_timeout(Duration::from_secs(10));
        let channel = {
            let _entered = runtime.enter();
            endpoint.connect_lazy()
        };
        let mut metadata = Vec::new();
        // A2A 1.0 §10.2: service parameters travel as metadata.
        let pairs = std::iter::once(("a2a-version".to_string(), "1.0".to_string()))
            .chain(headers.iter().cloned());
        for (name, value) in pairs {
            let key = MetadataKey::from_bytes(name.to_ascii_lowercase().as_bytes())
                .map_err(|_| format!("--header {name}: not a gRPC metadata name"))?;
            let value = value
                .parse()
                .map_err(|_| format!("--header {name}: its value cannot be gRPC metadata"))?;
            metadata.push((key, value));
        }
        Ok(GrpcClient {
            runtime,
            channel,
            methods: Methods::load()?,
            metadata,
        })
    }

    fn request(&self, bytes: Bytes) -> tonic::Request<Bytes> {
        let mut request = tonic::Request::new(bytes);
        for (key, value) in &self.metadata {
            request.metadata_mut().insert(key.clone(), value.clone());
        }
        request
    }
}

/// `url` as the URI tonic dials: a plain `host:port` gets `http://`
/// (cards write gRPC interfaces without a scheme); `grpc://` is plain
/// HTTP/2 too.
fn authority_url(url: &str) -> Result<String, String> {
    let url = url.trim().trim_end_matches('/');
    if url.is_empty() {
        return Err("the gRPC interface has no URL".into());
    }
    Ok(match url.split_once("://") {
        Some(("grpc", rest)) => format!("http://{rest}"),
        Some(("grpcs", rest)) => format!("https://{rest}"),
        Some(_) => url.to_string(),
        None => format!("http://{url}"),
    })
}

/// Whether the gRPC interface at `url` is on the host probed (`base`),
/// on any port: the gRPC server listens beside the HTTP one, and the
/// credentials `--header` gives go to the host probed and nowhere else.
pub fn same_host(base: &str, url: &str) -> Result<(), String> {
    let name = |url: &str| -> Option<String> {
        let authority = url.split_once("://").map_or(url, |(_, rest)| rest);
        let authority = authority.split(['/', '?', '#']).next()?;
        let host = match authority.strip_prefix('[') {
            Some(v6) => v6.split(']').next()?,
            None => authority
                .rsplit_once(':')
                .map_or(authority, |(host, _)| host),
        };
        (!host.is_empty() && !authority.contains('@')).then(|| host.to_ascii_lowercase())
    };
    match (name(base), name(url)) {
        (Some(probed), Some(host)) if probed == host => Ok(()),
        _ => Err(format!(
            "refusing to call the gRPC interface at {url}: it is not on the host probed ({base})"
        )),
    }
}

impl Caller for GrpcClient {
    fn call(
        &self,
        request: &Request,
        timeout: Duration,
        on_answer: &mut dyn FnMut(&Answer) -> Flow,
    ) -> Result<Received, String> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + timeout;
        let name = request.name();
        let method = self.methods.method(name)?;
        let body = request.body.clone().unwrap_or_default();
        let sent = self.request(request_bytes(&method, &body)?);
        let path = format!("/{SERVICE}/{name}")
            .parse()
            .map_err(|e| format!("{name}: {e}"))?;
        let mut grpc = tonic::client::Grpc::new(self.channel.clone());
        let streams = method.is_server_streaming();
        let mut received = Received::grpc(streams);
        let opened = self.runtime.block_on(async {
            tokio::time::timeout_at(deadline, async {
                grpc.ready()
                    .await
                    .map_err(|e| format!("cannot reach the agent over gRPC: {e}"))?;
                Ok::<_, String>(match streams {
                    true => grpc
                        .server_streaming(sent, path, RawCodec)
                        .await
                        .map(|r| Opened::Stream(r.into_inner())),
                    false => grpc
                        .unary(sent, path, RawCodec)
                        .await
                        .map(|r| Opened::One(r.into_inner())),
                })
            })
            .await
        });
        let opened = match opened {
            Err(_) => return Ok(received.timed_out(started)),
            Ok(Err(unreachable)) => return Err(unreachable),
            Ok(Ok(Err(status))) => {
                refused_credentials(name, &status)?;
                received.grpc = status::record(&status);
                return Ok(received.ended(started));
            }
            Ok(Ok(Ok(opened))) => opened,
        };
        let mut stream = match opened {
            Opened::One(bytes) => {
                received.raw = answer_json(&method, &bytes).into_bytes();
                return Ok(received.ended(started));
            }
            Opened::Stream(stream) => stream,
        };
        let wire = request.wire;
        let read = self.read_stream(
            &mut stream,
            deadline,
            &method,
            wire,
            &mut received,
            on_answer,
        );
        Ok(match read {
            Read::TimedOut => received.timed_out(started),
            Read::Ended => received.ended(started),
        })
    }
}

impl GrpcClient {
    /// A stream's messages into `received` until it ends, the deadline
    /// passes or the caller drops it, each written as an SSE event of its
    /// ProtoJSON (as the HTTP bindings' records hold them) and handed to
    /// `on_answer`.
    fn read_stream(
        &self,
        stream: &mut tonic::Streaming<Bytes>,
        deadline: tokio::time::Instant,
        method: &MethodDescriptor,
        wire: Wire,
        received: &mut Received,
        on_answer: &mut dyn FnMut(&Answer) -> Flow,
    ) -> Read {
        loop {
            // The timer is made inside the runtime, which it needs.
            let next = self
                .runtime
                .block_on(async { tokio::time::timeout_at(deadline, stream.message()).await });
            let bytes = match next {
                Err(_) => return Read::TimedOut,
                Ok(Ok(Some(bytes))) => bytes,
                Ok(Ok(None)) => break,
                Ok(Err(status)) => {
                    received.grpc = status::record(&status);
                    break;
                }
            };
            let json = answer_json(method, &bytes);
            received
                .raw
                .extend(format!("data: {json}\n\n").into_bytes());
            // An answer that cannot be read is kept for the judge and
            // steers nothing, as on HTTP.
            let Ok(read) = read_answer(json.as_bytes(), Some(wire)) else {
                continue;
            };
            if let Flow::Drop = on_answer(&read) {
                received.end = AnswerEnd::Dropped;
                break;
            }
        }
        Read::Ended
    }
}

/// How reading a stream stopped.
enum Read {
    /// The deadline passed.
    TimedOut,
    /// It ended, with or without a status, or the caller dropped it.
    Ended,
}

/// As over HTTP (401, 403): a call refused for its credentials means the
/// agent cannot be probed without them, which is said at once.
fn refused_credentials(name: &str, status: &tonic::Status) -> Result<(), String> {
    match status.code() {
        tonic::Code::Unauthenticated | tonic::Code::PermissionDenied => Err(format!(
            "{name} answered gRPC {}: the agent wants credentials; give them with --header \
             'NAME: VALUE' (for example --header 'Authorization: Bearer …'), sent as metadata",
            crate::model::wire::grpc::code_name(status.code() as i32)
        )),
        _ => Ok(()),
    }
}

/// A call the agent answered, before its messages are read.
enum Opened {
    Stream(tonic::Streaming<Bytes>),
    One(Bytes),
}

impl Received {
    /// Nothing received yet, on gRPC.
    fn grpc(streams: bool) -> Received {
        Received {
            raw: Vec::new(),
            sse: streams,
            end: AnswerEnd::Closed,
            ms: 0,
            request_id: None,
            status: None,
            http: None,
            sse_headers: None,
            grpc: None,
        }
    }

    fn ended(mut self, started: Instant) -> Received {
        self.ms = millis(started.elapsed());
        self
    }

    fn timed_out(mut self, started: Instant) -> Received {
        self.ms = millis(started.elapsed());
        self.end = AnswerEnd::TimedOut(self.ms);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_url_is_dialled_as_plain_http_2_unless_it_says_tls() {
        assert_eq!(
            authority_url("127.0.0.1:50051").unwrap(),
            "http://127.0.0.1:50051"
        );
        assert_eq!(authority_url("grpc://h:1/").unwrap(), "http://h:1");
        assert_eq!(authority_url("https://h:1").unwrap(), "https://h:1");
        assert_eq!(authority_url("http://h:1").unwrap(), "http://h:1");
        assert!(authority_url(" ").is_err());
    }

    #[test]
    fn only_the_host_probed_is_called_on_any_port() {
        assert!(same_host("http://127.0.0.1:8000", "127.0.0.1:50051").is_ok());
        assert!(same_host("https://Agent.example/a2a", "grpc://agent.example:443").is_ok());
        assert!(same_host("http://[::1]:8000", "http://[::1]:9").is_ok());
        let e = same_host("http://127.0.0.1:8000", "evil.example:50051").unwrap_err();
        assert!(e.contains("not on the host probed"), "{e}");
        assert!(same_host("http://h:1", "user@h:2").is_err());
    }
}
