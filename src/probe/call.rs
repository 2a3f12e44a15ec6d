//! One JSON-RPC call of a probe and everything it received: the raw bytes
//! (kept as the capture and handed to the judge as a record), the answers
//! the model read from them as they came, and how it ended.

use std::time::Duration;

use serde_json::Value;

use super::http::{Answer as HttpAnswer, CallError, Client};
use super::sse::{Next, SseStream};
use crate::model::evidence::probe_records::{CallEnd, CallRecord};
use crate::model::wire::answer::{read_answer, read_response, Answer};
use crate::model::wire::Wire;

/// What one call received.
pub struct Received {
    /// The raw body, as the capture file keeps it.
    pub raw: Vec<u8>,
    /// Whether it was an SSE stream (else one JSON answer).
    pub sse: bool,
    /// Each answer read, in order.
    pub answers: Vec<Answer>,
    /// How it ended.
    pub end: CallEnd,
    /// How long the call took, from the request to its end, in ms.
    pub ms: u64,
    /// The JSON-RPC request's id, which its answers must echo.
    pub request_id: Option<u64>,
}

impl Received {
    /// The body as text: what the capture reader reads and `probe.json`
    /// keeps.
    pub fn body(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// The capture file's extension.
    pub fn ext(&self) -> &'static str {
        if self.sse {
            "sse"
        } else {
            "json"
        }
    }

    /// What the judge reads of it.
    pub fn record(&self) -> CallRecord {
        CallRecord {
            sse: self.sse,
            body: self.body(),
            end: self.end,
            request_id: self.request_id,
            ms: Some(self.ms),
        }
    }

    /// No answer within `waited`.
    fn nothing(waited: Duration) -> Received {
        Received {
            raw: Vec::new(),
            sse: false,
            answers: Vec::new(),
            end: CallEnd::TimedOut(millis(waited)),
            ms: millis(waited),
            request_id: None,
        }
    }
}

fn millis(waited: Duration) -> u64 {
    u64::try_from(waited.as_millis()).unwrap_or(u64::MAX)
}

/// What a probe does with an answer as it arrives.
pub enum Flow {
    /// Read on.
    Read,
    /// Close the stream now.
    Drop,
}

/// Posts `request` (the method `method` on `wire`) and reads the answer,
/// JSON or a stream, handing each answer to `on_answer` as it arrives. An
/// answer that is neither, or cannot be read, is an error: the agent
/// cannot be probed.
pub fn call(
    client: &Client,
    url: &str,
    (method, wire): (&str, Wire),
    request: &Value,
    timeout: Duration,
    mut on_answer: impl FnMut(&Answer) -> Flow,
) -> Result<Received, String> {
    let started = std::time::Instant::now();
    let mut received = post(
        client,
        url,
        (method, wire),
        request,
        timeout,
        &mut on_answer,
    )?;
    received.ms = millis(started.elapsed());
    received.request_id = request.get("id").and_then(Value::as_u64);
    Ok(received)
}

fn post(
    client: &Client,
    url: &str,
    (method, wire): (&str, Wire),
    request: &Value,
    timeout: Duration,
    on_answer: &mut impl FnMut(&Answer) -> Flow,
) -> Result<Received, String> {
    let answer = match client.post(url, request, "text/event-stream, application/json", timeout) {
        Ok(answer) => answer,
        Err(CallError::TimedOut(waited)) => return Ok(Received::nothing(waited)),
        Err(CallError::Failed(why)) => return Err(why),
    };
    if answer.content_type == "text/event-stream" {
        read_stream(answer, method, wire, on_answer)
    } else {
        read_json(answer, method, wire)
    }
}

fn read_json(answer: HttpAnswer, method: &str, wire: Wire) -> Result<Received, String> {
    let status = answer.status;
    let content_type = answer.content_type.clone();
    let raw = match answer.bytes() {
        Ok(raw) => raw,
        Err(CallError::TimedOut(waited)) => return Ok(Received::nothing(waited)),
        Err(CallError::Failed(why)) => return Err(format!("{method}: {why}")),
    };
    let read = read_response(&raw, wire).map_err(|e| {
        format!(
            "{method}: the agent answered HTTP {status} with {} that is not JSON-RPC ({e}): {}",
            if content_type.is_empty() {
                "a body"
            } else {
                content_type.as_str()
            },
            snippet(&raw)
        )
    })?;
    Ok(Received {
        raw,
        sse: false,
        answers: vec![read],
        end: CallEnd::Closed,
        ms: 0,
        request_id: None,
    })
}

fn read_stream(
    answer: HttpAnswer,
    method: &str,
    wire: Wire,
    on_answer: &mut impl FnMut(&Answer) -> Flow,
) -> Result<Received, String> {
    let mut stream = SseStream::new(answer.body, answer.started);
    let mut answers = Vec::new();
    let end = loop {
        match stream.next() {
            Ok(Next::Closed) => break CallEnd::Closed,
            Ok(Next::Event(data)) => {
                let read = read_answer(data.as_bytes(), Some(wire)).map_err(|e| {
                    format!(
                        "{method}: stream event {} cannot be read ({e}): {}",
                        answers.len(),
                        snippet(data.as_bytes())
                    )
                })?;
                let flow = on_answer(&read);
                answers.push(read);
                if let Flow::Drop = flow {
                    break CallEnd::Dropped;
                }
            }
            Err(CallError::TimedOut(waited)) => break CallEnd::TimedOut(millis(waited)),
            Err(CallError::Failed(why)) => return Err(format!("{method}: {why}")),
        }
    };
    Ok(Received {
        raw: stream.raw,
        sse: true,
        answers,
        end,
        ms: 0,
        request_id: None,
    })
}

/// The start of a body, for a message.
fn snippet(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(&raw[..raw.len().min(80)]);
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("`{}`", text.trim())
}
