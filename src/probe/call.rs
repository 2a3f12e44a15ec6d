//! One call of a probe (JSON-RPC or REST) and everything it received: the
//! raw bytes (kept as the capture and handed to the plan as a record) and
//! how it ended; each stream answer, read by the wire's reader, steers the
//! call as it arrives.

use std::time::{Duration, Instant};

use super::http::{CallError, HttpAnswer, HttpClient};
use super::sse::{Next, SseStream};
use crate::model::evidence::probe::records::{AnswerEnd, AnswerStatus, CallRecord};
use crate::model::evidence::probe::request::Request;
use crate::model::wire::answer::{read_answer, Answer};
use crate::model::wire::signs::SseHeaders;

/// What one call received.
pub struct Received {
    /// The raw body, as the capture file keeps it.
    pub raw: Vec<u8>,
    /// Whether it was an SSE stream (else one JSON answer).
    pub sse: bool,
    /// How it ended.
    pub end: AnswerEnd,
    /// How long the call took, from the request to its end, in ms.
    pub ms: u64,
    /// The JSON-RPC request's id, which its answers must echo.
    pub request_id: Option<u64>,
    /// How the binding said it ended, when not as it ends well.
    pub status: Option<AnswerStatus>,
    /// An SSE answer's headers that show its SDK.
    pub sse_headers: Option<SseHeaders>,
}

impl Received {
    /// Nothing received yet, as a stream (`sse`) or one answer: every
    /// caller starts from here and adds what came.
    pub(super) fn new(sse: bool) -> Received {
        Received {
            raw: Vec::new(),
            sse,
            end: AnswerEnd::Closed,
            ms: 0,
            request_id: None,
            status: None,
            sse_headers: None,
        }
    }

    /// The wait ran out after `waited`, which the call took.
    pub(super) fn timed_out(mut self, waited: Duration) -> Received {
        self.ms = millis(waited);
        self.end = AnswerEnd::TimedOut(self.ms);
        self
    }

    /// The call ended: it took the time since `started`.
    pub(super) fn took(mut self, started: Instant) -> Received {
        self.ms = millis(started.elapsed());
        self
    }

    /// The body as text: what the capture reader reads and `probe.json`
    /// keeps.
    pub fn body(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// What the judge reads of it.
    pub fn record(&self) -> CallRecord {
        CallRecord {
            sse: self.sse,
            body: self.body(),
            end: self.end,
            request_id: self.request_id,
            ms: Some(self.ms),
            at_event: None,
            sse_headers: self.sse_headers.clone(),
            status: self.status.clone(),
        }
    }
}

/// `waited` in whole milliseconds.
pub(super) fn millis(waited: Duration) -> u64 {
    u64::try_from(waited.as_millis()).unwrap_or(u64::MAX)
}

/// What makes a probe's calls: the HTTP caller (JSON-RPC, REST) or the
/// gRPC one. Only a call that gets no answer at all is an error (the
/// agent cannot be probed); what came back is the judge's to read.
pub trait Caller: Sync {
    /// Sends `request` and reads the answer, handing each stream answer to
    /// `on_answer` as it arrives: its raw data, and what the wire's reader
    /// made of it (`None` when it cannot be read).
    fn call(
        &self,
        request: &Request,
        timeout: Duration,
        on_answer: &mut dyn FnMut(&str, Option<&Answer>) -> Flow,
    ) -> Result<Received, String>;
}

impl Caller for HttpClient {
    fn call(
        &self,
        request: &Request,
        timeout: Duration,
        on_answer: &mut dyn FnMut(&str, Option<&Answer>) -> Flow,
    ) -> Result<Received, String> {
        call(self, request, timeout, on_answer)
    }
}

/// What a probe does with an answer as it arrives.
pub enum Flow {
    /// Read on.
    Read,
    /// Close the stream now.
    Drop,
}

/// Sends `request` and reads the answer, JSON or a stream, handing each
/// stream answer that can be read to `on_answer` as it arrives. Only a
/// call that gets no answer at all is an error (the agent cannot be
/// probed); what came back is the judge's to read.
pub fn call(
    client: &HttpClient,
    request: &Request,
    timeout: Duration,
    mut on_answer: impl FnMut(&str, Option<&Answer>) -> Flow,
) -> Result<Received, String> {
    let started = Instant::now();
    let mut received = send(client, request, timeout, &mut on_answer)?;
    received.request_id = request.id;
    Ok(received.took(started))
}

fn send(
    client: &HttpClient,
    request: &Request,
    timeout: Duration,
    on_answer: &mut impl FnMut(&str, Option<&Answer>) -> Flow,
) -> Result<Received, String> {
    let accept = "text/event-stream, application/json";
    let answer = match &request.body {
        Some(body) => client.post(&request.url, body, accept, timeout),
        None => client.get(&request.url, timeout),
    };
    let answer = match answer {
        Ok(answer) => answer,
        Err(CallError::TimedOut(waited)) => return Ok(Received::new(false).timed_out(waited)),
        Err(CallError::Tls(why) | CallError::Failed(why)) => return Err(why),
    };
    if answer.content_type == "text/event-stream" && answer.status < 300 {
        read_stream(answer, request, on_answer)
    } else {
        read_json(answer, request)
    }
}

fn read_json(answer: HttpAnswer, request: &Request) -> Result<Received, String> {
    let status = answer.status;
    let method = request.name();
    let raw = match answer.bytes() {
        Ok(raw) => raw,
        Err(CallError::TimedOut(waited)) => return Ok(Received::new(false).timed_out(waited)),
        Err(CallError::Tls(why) | CallError::Failed(why)) => {
            return Err(format!("{method}: {why}"))
        }
    };
    // Read by the judge from the record, live and recorded alike: an
    // answer that cannot be read is kept as it came.
    // On REST the status is part of the answer (an error's); on
    // JSON-RPC the body says everything, unless it cannot be read.
    Ok(Received {
        raw,
        status: AnswerStatus::of_http(request.binding, status),
        ..Received::new(false)
    })
}

fn read_stream(
    answer: HttpAnswer,
    request: &Request,
    on_answer: &mut impl FnMut(&str, Option<&Answer>) -> Flow,
) -> Result<Received, String> {
    let (method, wire) = (request.name(), request.wire);
    let sse_headers = Some(answer.sse_headers);
    let mut stream = SseStream::new(answer.body, answer.started);
    let end = loop {
        match stream.next() {
            Ok(Next::Closed) => break AnswerEnd::Closed,
            Ok(Next::Event(data)) => {
                // An event that cannot be read is kept in the raw body for
                // the judge, and steers nothing.
                let read = read_answer(data.as_bytes(), Some(wire)).ok();
                if let Flow::Drop = on_answer(&data, read.as_ref()) {
                    break AnswerEnd::Dropped;
                }
            }
            Err(CallError::TimedOut(waited)) => break AnswerEnd::TimedOut(millis(waited)),
            Err(CallError::Tls(why) | CallError::Failed(why)) => {
                return Err(format!("{method}: {why}"))
            }
        }
    };
    Ok(Received {
        raw: stream.raw,
        end,
        sse_headers,
        ..Received::new(true)
    })
}
