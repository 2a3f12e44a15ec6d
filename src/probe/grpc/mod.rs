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
//! one (the cancel made while the stream is open). A `grpcs://` or
//! `https://` interface speaks TLS, trusted as HTTP's is (`super::tls`),
//! and a stream is read up to HTTP's cap, [`MAX_STREAM_BYTES`].

mod codec;
mod messages;
mod status;

use std::time::{Duration, Instant};

use bytes::Bytes;
use prost_reflect::MethodDescriptor;
use tokio::runtime::Runtime;
use tonic::metadata::{MetadataKey, MetadataValue};
use tonic::transport::{Channel, Endpoint};

use super::call::{Caller, Flow, Received};
use super::http::{stream_too_long, MAX_STREAM_BYTES};
use super::tls::{refusal, Trust};
use crate::model::evidence::probe::records::{AnswerEnd, AnswerStatus};
use crate::model::evidence::probe::request::Request;
use crate::model::wire::answer::{read_answer, Answer};
use crate::model::wire::Wire;
use codec::RawCodec;
use messages::{answer_json, request_bytes, Methods, SERVICE};

/// A gRPC connection to one agent interface.
pub struct GrpcClient {
    /// The interface, as tonic dials it (for the messages).
    url: String,
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
    /// `http://`, `https://`, `grpc://` or `grpcs://` scheme), sending
    /// `headers` as metadata, and over TLS trusting `trust`. It connects
    /// on the first call.
    pub fn new(
        url: &str,
        headers: &[(String, String)],
        trust: &Trust,
    ) -> Result<GrpcClient, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| format!("gRPC: {e}"))?;
        let target = authority_url(url)?;
        let mut endpoint = Endpoint::from_shared(target.clone())
            .map_err(|e| format!("the gRPC interface {url} is not a URL: {e}"))?
            .connect_timeout(Duration::from_secs(10));
        if speaks_tls(url) {
            endpoint = endpoint
                .tls_config(trust.tonic())
                .map_err(|e| format!("the gRPC interface {url}: TLS: {e}"))?;
        }
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
            url: target,
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

/// Whether the gRPC interface at `url` speaks TLS (`grpcs://`,
/// `https://`); a card's bare `host:port` does not.
pub fn speaks_tls(url: &str) -> bool {
    authority_url(url).is_ok_and(|u| u.starts_with("https://"))
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
        on_answer: &mut dyn FnMut(&str, Option<&Answer>) -> Flow,
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
        let mut received = Received::new(streams);
        let opened = self.runtime.block_on(async {
            tokio::time::timeout_at(deadline, async {
                grpc.ready().await.map_err(|e| {
                    refusal(&self.url, &e)
                        .unwrap_or_else(|| format!("cannot reach the agent over gRPC: {e}"))
                })?;
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
            Err(_) => return Ok(received.timed_out(started.elapsed())),
            Ok(Err(unreachable)) => return Err(unreachable),
            Ok(Ok(Err(status))) => {
                refused_credentials(name, &status)?;
                self.refused_tls(&status)?;
                received.status = status::record(&status).map(AnswerStatus::Grpc);
                return Ok(received.took(started));
            }
            Ok(Ok(Ok(opened))) => opened,
        };
        let mut stream = match opened {
            Opened::One(bytes) => {
                received.raw = answer_json(&method, &bytes).into_bytes();
                return Ok(received.took(started));
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
        Ok(match read? {
            Read::TimedOut => received.timed_out(started.elapsed()),
            Read::Ended => received.took(started),
        })
    }
}

impl GrpcClient {
    /// A stream's messages into `received` until it ends, the deadline
    /// passes or the caller drops it, each written as an SSE event of its
    /// ProtoJSON (as the HTTP bindings' records hold them) and handed to
    /// `on_answer`. A stream that sends more than [`MAX_STREAM_BYTES`] is
    /// dropped and the call refused, as over HTTP.
    fn read_stream(
        &self,
        stream: &mut tonic::Streaming<Bytes>,
        deadline: tokio::time::Instant,
        method: &MethodDescriptor,
        wire: Wire,
        received: &mut Received,
        on_answer: &mut dyn FnMut(&str, Option<&Answer>) -> Flow,
    ) -> Result<Read, String> {
        let mut sent = 0u64;
        loop {
            // The timer is made inside the runtime, which it needs.
            let next = self
                .runtime
                .block_on(async { tokio::time::timeout_at(deadline, stream.message()).await });
            let bytes = match next {
                Err(_) => return Ok(Read::TimedOut),
                Ok(Ok(Some(bytes))) => bytes,
                Ok(Ok(None)) => break,
                Ok(Err(status)) => {
                    self.refused_tls(&status)?;
                    received.status = status::record(&status).map(AnswerStatus::Grpc);
                    break;
                }
            };
            // Each message's bytes and its five-byte frame, as they came.
            sent += bytes.len() as u64 + 5;
            if sent > MAX_STREAM_BYTES {
                // Dropping the stream (the caller's) resets it.
                return Err(format!("{}: {}", method.name(), stream_too_long()));
            }
            let json = answer_json(method, &bytes);
            received
                .raw
                .extend(format!("data: {json}\n\n").into_bytes());
            // An answer that cannot be read is kept for the judge and
            // steers nothing, as on HTTP.
            let read = read_answer(json.as_bytes(), Some(wire)).ok();
            if let Flow::Drop = on_answer(&json, read.as_ref()) {
                received.end = AnswerEnd::Dropped;
                break;
            }
        }
        Ok(Read::Ended)
    }

    /// A call that failed in its TLS handshake: the agent cannot be
    /// probed until it is trusted, which is said at once (not judged as
    /// a stream reset).
    fn refused_tls(&self, status: &tonic::Status) -> Result<(), String> {
        match refusal(&self.url, status) {
            Some(tls) => Err(tls),
            None => Ok(()),
        }
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
        assert!(speaks_tls("grpcs://h:1") && speaks_tls("https://h:1"));
        assert!(!speaks_tls("h:1") && !speaks_tls("grpc://h:1") && !speaks_tls("http://h:1"));
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
