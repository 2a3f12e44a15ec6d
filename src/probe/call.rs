//! One JSON-RPC call of a probe and everything it received: the raw bytes
//! (kept as the capture), the elements read from them, and how it ended.

use std::time::Duration;

use serde_json::Value;

use super::http::{Answer, CallError, Client};
use super::sse::{Next, SseStream};

/// How a call's answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// A JSON answer, or a stream the server closed.
    Closed,
    /// The probe closed the stream on purpose.
    Dropped,
    /// The wait ran out after this long.
    TimedOut(Duration),
}

/// What one call received.
pub struct Received {
    /// The raw body, as the capture file keeps it.
    pub raw: Vec<u8>,
    /// `sse` or `json`: the capture file's extension.
    pub ext: &'static str,
    /// Each JSON-RPC response (or bare event) received, in order.
    pub elements: Vec<Value>,
    /// How it ended.
    pub end: End,
}

impl Received {
    /// The body as text: what the capture reader reads and `probe.json`
    /// keeps.
    pub fn body(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// No answer within `waited`.
    fn nothing(waited: Duration) -> Received {
        Received {
            raw: Vec::new(),
            ext: "json",
            elements: Vec::new(),
            end: End::TimedOut(waited),
        }
    }
}

/// What a probe does with an element as it arrives.
pub enum Flow {
    /// Read on.
    Read,
    /// Close the stream now.
    Drop,
}

/// Posts `request` and reads the answer, JSON or a stream, handing each
/// element to `on_element` as it arrives. An answer that is neither, or
/// cannot be read, is an error: the agent cannot be probed.
pub fn call(
    client: &Client,
    url: &str,
    request: &Value,
    timeout: Duration,
    mut on_element: impl FnMut(&Value) -> Flow,
) -> Result<Received, String> {
    let answer = match client.post(url, request, "text/event-stream, application/json", timeout) {
        Ok(answer) => answer,
        Err(CallError::TimedOut(waited)) => return Ok(Received::nothing(waited)),
        Err(CallError::Failed(why)) => return Err(why),
    };
    let method = request.get("method").and_then(Value::as_str).unwrap_or("?");
    if answer.content_type == "text/event-stream" {
        read_stream(answer, method, &mut on_element)
    } else {
        read_json(answer, method)
    }
}

fn read_json(answer: Answer, method: &str) -> Result<Received, String> {
    let status = answer.status;
    let content_type = answer.content_type.clone();
    let raw = match answer.bytes() {
        Ok(raw) => raw,
        Err(CallError::TimedOut(waited)) => return Ok(Received::nothing(waited)),
        Err(CallError::Failed(why)) => return Err(format!("{method}: {why}")),
    };
    let element: Value = serde_json::from_slice(&raw).map_err(|_| {
        format!(
            "{method}: the agent answered HTTP {status} with {} that is not JSON-RPC: {}",
            if content_type.is_empty() {
                "a body"
            } else {
                content_type.as_str()
            },
            snippet(&raw)
        )
    })?;
    if element.get("result").is_none() && element.get("error").is_none() {
        return Err(format!(
            "{method}: the agent answered HTTP {status} with JSON that is not a JSON-RPC response: {}",
            snippet(&raw)
        ));
    }
    Ok(Received {
        raw,
        ext: "json",
        elements: vec![element],
        end: End::Closed,
    })
}

fn read_stream(
    answer: Answer,
    method: &str,
    on_element: &mut impl FnMut(&Value) -> Flow,
) -> Result<Received, String> {
    let mut stream = SseStream::new(answer.body, answer.started);
    let mut elements = Vec::new();
    let end = loop {
        match stream.next() {
            Ok(Next::Closed) => break End::Closed,
            Ok(Next::Event(data)) => {
                let element: Value = serde_json::from_str(&data).map_err(|e| {
                    format!(
                        "{method}: stream event {} is not JSON ({e}): {}",
                        elements.len(),
                        snippet(data.as_bytes())
                    )
                })?;
                let flow = on_element(&element);
                elements.push(element);
                if let Flow::Drop = flow {
                    break End::Dropped;
                }
            }
            Err(CallError::TimedOut(waited)) => break End::TimedOut(waited),
            Err(CallError::Failed(why)) => return Err(format!("{method}: {why}")),
        }
    };
    Ok(Received {
        raw: stream.raw,
        ext: "sse",
        elements,
        end,
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
