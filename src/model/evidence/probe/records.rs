//! What a probe run received, as records: each call's body and how it
//! ended, and what the webhook was POSTed. `probe --out` keeps them as
//! `records.json`; the judge ([`super::judge`]) reads only these, so
//! a recorded run is judged again with no agent running.

use serde::{Deserialize, Serialize};

use super::report::Probe;
use super::unreadable::{Unreadable, Which};
use crate::model::evidence::quote::quoted;
use crate::model::wire::answer::{read_answer, Answer};
use crate::model::wire::read_error::ReadError;
use crate::model::wire::rest::{read_rest_error, Binding};
use crate::model::wire::sse::SseDecoder;
use crate::model::wire::Wire;

/// How a call's answer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerEnd {
    /// A JSON answer, or a stream the server closed.
    Closed,
    /// The probe closed the stream on purpose.
    Dropped,
    /// The wait ran out after this many milliseconds.
    TimedOut(u64),
}

/// One call of a probe, as recorded: its body as received and how it
/// ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Whether the body is an SSE stream (else one JSON-RPC response, or
    /// nothing when the call timed out).
    pub sse: bool,
    /// The body, as text.
    pub body: String,
    /// How it ended.
    pub end: AnswerEnd,
    /// The JSON-RPC request's `id`, which its answers must echo (absent
    /// in records kept before it was, and on REST).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<u64>,
    /// How long the call took, from the request to its end, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// On REST, the HTTP status when it was not 200: an error's, whose
    /// body says why. JSON-RPC calls keep none (their body says it all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// On JSON-RPC, the HTTP status when it was not 200: said when the
    /// answer cannot be read (an HTTP 500 with a page of text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<u16>,
    /// For a call made while another call's stream was open (the cancel
    /// probe's CancelTask), how many of that stream's answers had been
    /// read when it was made: what the stream said after its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_event: Option<usize>,
}

impl CallRecord {
    /// The answers in the body, in order, read on `wire`: on REST, an
    /// error status's body is the error it stands for.
    pub fn answers(&self, wire: Wire) -> Result<Vec<Answer>, Unreadable> {
        self.each_answer(wire)?.into_iter().collect()
    }

    /// The answers that can be read, in order, as a client steering by
    /// them met them: one that cannot be read steers nothing.
    pub fn readable_answers(&self, wire: Wire) -> Vec<Answer> {
        let each = self.each_answer(wire).unwrap_or_default();
        each.into_iter().flatten().collect()
    }

    /// Each answer read, or why it cannot be: the one reading behind
    /// [`Self::answers`] and [`Self::readable_answers`].
    fn each_answer(&self, wire: Wire) -> Result<Vec<Result<Answer, Unreadable>>, ReadError> {
        if let Some(status) = self.status.filter(|s| *s >= 400) {
            return Ok(vec![Ok(read_rest_error(status, self.body.as_bytes()))]);
        }
        let payloads = self.payloads()?;
        let several = payloads.len() > 1;
        let read = |(n, data): (usize, &Vec<u8>)| {
            read_answer(data, Some(wire)).map_err(|error| Unreadable::Answer {
                which: match several || self.sse {
                    true => Which::Event(n),
                    false => Which::Answer { http: self.http },
                },
                error,
                quoted: quoted(data),
            })
        };
        Ok(payloads.iter().enumerate().map(read).collect())
    }

    /// Each answer's bytes, in order: the JSON body, or each SSE event's
    /// data.
    pub fn payloads(&self) -> Result<Vec<Vec<u8>>, ReadError> {
        if !self.sse {
            if self.body.trim().is_empty() {
                return Ok(Vec::new());
            }
            return Ok(vec![self.body.as_bytes().to_vec()]);
        }
        let mut payloads = Vec::new();
        let mut decoder = SseDecoder::new();
        let mut keep = |data: &[u8]| {
            payloads.push(data.to_vec());
            Ok(())
        };
        decoder.feed(self.body.as_bytes(), &mut keep)?;
        // A stream cut short (dropped, timed out) leaves its last event
        // unfinished: only a closed stream's last event counts.
        if self.end == AnswerEnd::Closed {
            decoder.finish(&mut keep)?;
        }
        Ok(payloads)
    }
}

/// The calls of one probe, as recorded, in the order made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeCalls {
    /// Which probe.
    pub probe: Probe,
    /// Its calls.
    pub calls: Vec<CallRecord>,
}

/// Everything a probe run received: what `probe --out` keeps as
/// `records.json`, and what the judge reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeRecords {
    /// The wire the agent was spoken to in.
    pub wire: Wire,
    /// The binding it was spoken to in (`jsonrpc` in records kept before
    /// REST was probed).
    #[serde(default = "jsonrpc")]
    pub binding: Binding,
    /// The agent card as served (absent in records kept before the card
    /// was judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    /// Each probe's calls, in the order run.
    pub probes: Vec<ProbeCalls>,
    /// What the webhook received, when the probe listened for pushes
    /// (`--webhook`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<PushRecords>,
}

fn jsonrpc() -> Binding {
    Binding::JsonRpc
}

/// One POST the probe's webhook received. Header values are never kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostRecord {
    /// When it arrived, in ms since the webhook started listening.
    pub ms: u64,
    /// When the webhook answered it, on the same clock.
    pub answered_ms: u64,
    /// Whether the webhook answered it slowly (the `push-stalls-stream`
    /// task's POSTs).
    pub slow: bool,
    /// The names of its headers, in the order sent.
    pub headers: Vec<String>,
    /// The body as received.
    pub body: String,
}

impl PostRecord {
    /// The POST as a webhook log's line (`{"headers": [names], "body":
    /// ...}`), as `check --webhook` reads it: the body as the JSON it is,
    /// byte for byte, or as text when it is not one line of JSON.
    pub fn log_line(&self) -> String {
        #[derive(Serialize)]
        struct Line<'a, B: Serialize> {
            headers: &'a [String],
            body: B,
        }
        let raw: Option<&serde_json::value::RawValue> = if self.body.contains(['\n', '\r']) {
            None
        } else {
            serde_json::from_str(&self.body).ok()
        };
        let line = match raw {
            Some(body) => serde_json::to_string(&Line {
                headers: &self.headers,
                body,
            }),
            None => serde_json::to_string(&Line {
                headers: &self.headers,
                body: &self.body,
            }),
        };
        line.unwrap_or_default()
    }
}

/// What the `push` probe received (SPEC §12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushRecords {
    /// The card declares `capabilities.pushNotifications` (else nothing
    /// was asked for).
    pub declared: bool,
    /// How long the webhook took to answer the slow task's POSTs.
    pub delay_ms: u64,
    /// How long the `stream` probe's stream took, the webhook answering
    /// at once.
    #[serde(default)]
    pub stream_ms: Option<u64>,
    /// The slow task's stream, the webhook answering after `delay_ms`.
    #[serde(default)]
    pub stall: Option<CallRecord>,
    /// How long it took.
    #[serde(default)]
    pub stall_ms: Option<u64>,
    /// Every POST received, in the order it arrived.
    pub posts: Vec<PostRecord>,
}

impl PushRecords {
    /// Every POST as a webhook log (JSON Lines): `push.jsonl`.
    pub fn log(&self) -> String {
        self.posts.iter().map(|p| p.log_line() + "\n").collect()
    }

    /// The bodies the webhook was POSTed, in order, as one capture (an SSE
    /// event each): what `probe.json` keeps as the push probe's calls, so
    /// that the page's Import shows the pushes task by task. A body that is
    /// not one line is left out (the capture reader could not frame it).
    pub fn capture(&self) -> String {
        self.posts
            .iter()
            .filter(|p| !p.body.contains(['\n', '\r']))
            .map(|p| format!("data: {}\n\n", p.body))
            .collect()
    }
}
