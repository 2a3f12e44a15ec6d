//! What a probe run received, as records: each call's body and how it
//! ended, and what the webhook was POSTed. `probe --out` keeps them as
//! `records.json`; the judge ([`super::judge`]) reads only these, so
//! a recorded run is judged again with no agent running.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::report::Probe;
use super::unreadable::{Unreadable, Which};
use crate::model::evidence::capture::{CaptureReader, CaptureReport};
use crate::model::evidence::quote::quoted;
use crate::model::wire::answer::{read_answer, Answer};
use crate::model::wire::grpc::GrpcStatus;
use crate::model::wire::read_error::ReadError;
use crate::model::wire::rest::{read_rest_error, Binding};
use crate::model::wire::signs::SseHeaders;
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
    /// For a call made while another call's stream was open (the cancel
    /// probe's CancelTask), how many of that stream's answers had been
    /// read when it was made: what the stream said after its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_event: Option<usize>,
    /// For an SSE answer, the headers that show the SDK whose handler
    /// sent it (absent in records kept before they were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse_headers: Option<SseHeaders>,
    /// How the binding said the call ended, when not as it ends well:
    /// kept under its own key (`status`, `http` or `grpc`), as records
    /// kept before it was one field hold it.
    #[serde(flatten)]
    pub status: Option<AnswerStatus>,
}

/// How a call's binding said it ended, when it did not end as it ends
/// well (HTTP 200, gRPC OK): the one status a record keeps, whichever
/// binding carried the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AnswerStatus {
    /// On REST, the HTTP status when it was not 200: an error's, whose
    /// body says why (errors are HTTP statuses there).
    #[serde(rename = "status")]
    Rest(u16),
    /// On JSON-RPC, the HTTP status when it was not 200: said when the
    /// answer cannot be read (an HTTP 500 with a page of text); the body
    /// says everything else.
    #[serde(rename = "http")]
    Http(u16),
    /// On gRPC, the status the call ended with when it was not OK (or
    /// the stream's reset). Its messages are in the record's body as
    /// HTTP+JSON carries them: one JSON answer, or each streamed message
    /// as an SSE event's data, so that one reader reads all three
    /// bindings.
    #[serde(rename = "grpc")]
    Grpc(GrpcStatus),
}

impl AnswerStatus {
    /// The status of an HTTP answer on `binding`: `None` for 200, and on
    /// gRPC (whose status is in its trailers, not HTTP's).
    pub fn of_http(binding: Binding, status: u16) -> Option<AnswerStatus> {
        match binding {
            _ if status == 200 => None,
            Binding::Rest => Some(AnswerStatus::Rest(status)),
            Binding::JsonRpc => Some(AnswerStatus::Http(status)),
            Binding::Grpc => None,
        }
    }
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
        if let Some(AnswerStatus::Rest(status @ 400..)) = self.status {
            return Ok(vec![Ok(read_rest_error(status, self.body.as_bytes()))]);
        }
        let http = match self.status {
            Some(AnswerStatus::Http(status)) => Some(status),
            _ => None,
        };
        let payloads = self.payloads()?;
        let several = payloads.len() > 1;
        let read = |(n, data): (usize, &Vec<u8>)| {
            read_answer(data, Some(wire)).map_err(|error| Unreadable::Answer {
                which: match several || self.sse {
                    true => Which::Event(n),
                    false => Which::Answer { http },
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
            let body = self.status_read();
            if body.trim().is_empty() {
                return Ok(Vec::new());
            }
            return Ok(vec![body.as_bytes().to_vec()]);
        }
        let body = self.read_body();
        let mut payloads = Vec::new();
        let mut decoder = SseDecoder::new();
        let mut keep = |data: &[u8]| {
            payloads.push(data.to_vec());
            Ok(())
        };
        decoder.feed(body.as_bytes(), &mut keep)?;
        // A stream cut short (dropped, timed out) leaves its last event
        // unfinished: only a closed stream's last event counts.
        if self.end == AnswerEnd::Closed {
            decoder.finish(&mut keep)?;
        }
        Ok(payloads)
    }
}

impl CallRecord {
    /// The body as the readers take it: [`stream_errors_read`] of it,
    /// with a gRPC call's status (see [`Self::status_read`]).
    pub fn read_body(&self) -> Cow<'_, str> {
        match self.status_read() {
            Cow::Borrowed(body) => stream_errors_read(body),
            Cow::Owned(body) => Cow::Owned(stream_errors_read(&body).into_owned()),
        }
    }

    /// The body with the status a gRPC call ended with written as the
    /// error it stands for (`{"error": {"code", "message"}}`, which the
    /// one event reader reads): after a stream's events as one more event,
    /// as an error event ends a JSON-RPC stream; or as a unary call's
    /// answer. A reset adds nothing (the stream just ended); any other
    /// body as it came.
    pub fn status_read(&self) -> Cow<'_, str> {
        let Some(AnswerStatus::Grpc(status)) = &self.status else {
            return Cow::Borrowed(&self.body);
        };
        let Some(Answer::Error { code, message }) = status.answer() else {
            return Cow::Borrowed(&self.body);
        };
        let error = serde_json::json!({"error": {"code": code, "message": message}});
        match self.sse {
            true => Cow::Owned(format!("{}data: {error}\n\n", self.body)),
            false => Cow::Owned(error.to_string()),
        }
    }
}

/// A stream's body with each event that is a bare error object
/// (`data: {"code": -32603, "message": "…", …}`, no JSON-RPC envelope and
/// no A2A event) written as the error it is (`data: {"error": {"code",
/// "message"}}`), which the one event reader reads as an error answer; any
/// other body as it came, borrowed.
///
/// A2A 1.0 does not say how an HTTP+JSON (REST) stream reports an error
/// once it has begun (§11.7 defines its events as `StreamResponse`s only;
/// a2aproject/A2A#1262 leaves errors during execution open), and servers
/// write what they have: a2a-rs (`a2a-server-lf` 0.5.3) writes the
/// JSON-RPC error object itself as the event's data (`src/sse.rs:34-37`,
/// tests/agents/ANSWERS.md, "a2a-rs"). The agent said why the stream
/// ended, and a client can read it, so the probe judges the stream by what
/// it then lacks (a terminal status, SPEC §8), as on JSON-RPC (SPEC §11:
/// the same findings on both bindings), rather than calling a legible
/// error unreadable. The message says it came as an error event.
pub fn stream_errors_read(body: &str) -> Cow<'_, str> {
    if !body.contains("\"code\"") {
        return Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    let mut changed = false;
    for line in body.split_inclusive('\n') {
        let text = line.trim_end_matches(['\r', '\n']);
        let data = text
            .strip_prefix("data:")
            .map(|d| d.strip_prefix(' ').unwrap_or(d));
        match data.and_then(bare_error) {
            Some(error) => {
                out.push_str("data: ");
                out.push_str(&error);
                out.push_str(&line[text.len()..]);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    match changed {
        true => Cow::Owned(out),
        false => Cow::Borrowed(body),
    }
}

/// `data` as `{"error": {"code", "message"}}` when it is a bare error
/// object: an integer `code`, a string `message`, and none of a JSON-RPC
/// response's or an A2A event's own fields.
fn bare_error(data: &str) -> Option<String> {
    let Value::Object(map) = serde_json::from_str::<Value>(data).ok()? else {
        return None;
    };
    const NOT_BARE: [&str; 7] = [
        "jsonrpc",
        "result",
        "error",
        "kind",
        "task",
        "statusUpdate",
        "artifactUpdate",
    ];
    if NOT_BARE.iter().any(|k| map.contains_key(*k)) {
        return None;
    }
    let code = map.get("code")?.as_i64()?;
    let message = map.get("message")?.as_str()?;
    let error = serde_json::json!({
        "error": {"code": code, "message": format!("an error event {code}: {message}")}
    });
    Some(error.to_string())
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
    /// The POSTs the webhook refused, none of them among `posts` (absent
    /// when none was, and in records kept before they were counted).
    #[serde(default, skip_serializing_if = "RefusedPosts::none")]
    pub refused: RefusedPosts,
}

/// The POSTs to the probe's webhook it refused and did not keep, by why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedPosts {
    /// A body over the webhook's limit (answered 413).
    pub too_long: u64,
    /// Past the most POSTs the webhook keeps (answered 503).
    pub too_many: u64,
    /// A body cut short, unreadable or silent past the webhook's wait
    /// (answered 400 or 408).
    pub unread: u64,
}

impl RefusedPosts {
    /// None refused.
    pub fn none(&self) -> bool {
        *self == RefusedPosts::default()
    }

    /// How many, and why, for the report: `None` when none was refused.
    pub fn sentence(&self) -> Option<String> {
        let why: Vec<String> = [
            (self.too_long, "over the body limit"),
            (self.too_many, "past the most it keeps"),
            (self.unread, "cut short or unreadable"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect();
        let total = self.too_long + self.too_many + self.unread;
        (total > 0).then(|| {
            format!(
                "the webhook refused {total} POST(s), none of them judged: {}",
                why.join(", ")
            )
        })
    }
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

/// Judges what a probe received, one body per call, read in order as one
/// capture (SPEC §8: a dropped stream and its resubscription are one
/// session), keeping each task's rows for the views and explaining each
/// task with a finding by a scenario. `wire` is the wire
/// the agent was spoken to in.
pub fn capture_of_calls(calls: &[&str], wire: Option<Wire>) -> Result<CaptureReport, ReadError> {
    let mut reader = CaptureReader::new(wire).keeping_rows().keeping_events();
    for body in calls {
        reader.read_bytes(stream_errors_read(body).as_bytes())?;
    }
    Ok(reader.finish().explained())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(body: &str) -> CallRecord {
        CallRecord {
            sse: true,
            body: body.to_string(),
            end: AnswerEnd::Closed,
            request_id: None,
            ms: None,
            at_event: None,
            sse_headers: None,
            status: None,
        }
    }

    /// Each binding's status is kept under the key records had before it
    /// was one field, and read back from it: the records kept then are
    /// judged as they were.
    #[test]
    fn a_status_keeps_its_binding_s_key() {
        let grpc = GrpcStatus {
            code: 9,
            message: "m".into(),
            reason: None,
            reset: false,
        };
        for (status, key) in [
            (AnswerStatus::Rest(404), r#""status":404"#),
            (AnswerStatus::Http(500), r#""http":500"#),
            (
                AnswerStatus::Grpc(grpc),
                r#""grpc":{"code":9,"message":"m"}"#,
            ),
        ] {
            let record = CallRecord {
                status: Some(status),
                ..stream("")
            };
            let text = serde_json::to_string(&record).unwrap();
            assert!(text.ends_with(&format!("{key}}}")), "{text}");
            let back: CallRecord = serde_json::from_str(&text).unwrap();
            assert_eq!(back, record);
        }
        let none = serde_json::to_string(&stream("")).unwrap();
        assert_eq!(none, r#"{"sse":true,"body":"","end":"closed"}"#);
        let back: CallRecord = serde_json::from_str(&none).unwrap();
        assert_eq!(back.status, None);
        assert_eq!(AnswerStatus::of_http(Binding::Rest, 200), None);
        assert_eq!(
            AnswerStatus::of_http(Binding::JsonRpc, 502),
            Some(AnswerStatus::Http(502))
        );
    }

    /// A2A 1.0 names no form for an error once an HTTP+JSON stream has
    /// begun; a2a-rs writes the JSON-RPC error object as the event. It is
    /// read as the error it says, the events before it as they came.
    #[test]
    fn a_bare_error_event_on_a_stream_is_read_as_the_error_it_says() {
        let body = "id: 1\ndata: {\"statusUpdate\":{\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_WORKING\"},\"taskId\":\"t\"}}\n\nid: 2\ndata: {\"code\":-32603,\"message\":\"cancel is not supported\",\"data\":[{\"reason\":\"INTERNAL_ERROR\"}]}\n\n";
        let answers = stream(body).answers(Wire::V1_0).unwrap();
        assert_eq!(answers.len(), 2);
        assert!(answers[0].event().is_some());
        assert_eq!(
            answers[1].error(),
            Some((-32603, "an error event -32603: cancel is not supported"))
        );
    }

    /// Anything else is read as it came, and not copied: JSON-RPC
    /// responses (an error among them), A2A events, a `code` inside an
    /// event, a `message` that is an A2A message.
    #[test]
    fn other_bodies_are_read_as_they_came() {
        for body in [
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"m\"}}\n\n",
            "data: {\"error\":{\"code\":500,\"message\":\"m\"}}\n\n",
            "data: {\"task\":{\"id\":\"t\",\"code\":1,\"message\":\"m\"}}\n\n",
            "data: {\"code\":1,\"message\":{\"messageId\":\"m\"}}\n\n",
            "data: {\"code\":\"x\",\"message\":\"m\"}\n\n",
            "{\"code\":-32603,\"message\":\"a JSON body, not a stream\"}",
        ] {
            assert!(matches!(stream_errors_read(body), Cow::Borrowed(_)), "{body}");
        }
    }
}
