//! What an event's bytes show of the program that wrote them, beside what
//! they mean: how its JSON-RPC envelope opens (the first key, and whether
//! a space follows the colon, as Python's `json.dumps` writes it), whether
//! a 0.3 event's keys open with `kind` (in the order written, not sorted),
//! how many fraction digits its status timestamps carry, whether a 1.0
//! event's keys come sorted, and how an SSE body ends its lines; where a
//! probe received them, the headers its SSE answers came with. The SDK
//! profiles (`sim::profile`) say which SDK writes which; this only reads.

use super::Wire;

/// How a JSON-RPC envelope opens: its first key, and whether a space
/// follows that key's colon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeHead {
    /// The wire the event was read on.
    pub wire: Wire,
    /// The envelope's first key (`jsonrpc`, `result`, `id`, …).
    pub first_key: String,
    /// Whether `": "` follows it rather than `":"`.
    pub spaced: bool,
}

/// How an SSE event came framed, beside its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseFraming {
    /// Its lines ended with `\r\n`.
    pub crlf: bool,
    /// It had an `id` line.
    pub id: bool,
}

/// What an SSE answer's HTTP headers show of the SDK whose handler set
/// them: its `Cache-Control` and whether it asked proxies not to buffer
/// the stream (`X-Accel-Buffering: no`). Only the probe has them: a
/// capture file keeps bodies.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SseHeaders {
    /// The `Cache-Control` value, lower case, where one was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<String>,
    /// Whether `X-Accel-Buffering: no` was sent.
    #[serde(default)]
    pub no_buffering: bool,
}

impl SseHeaders {
    /// Reads them off an answer's headers (`(name, value)`, any case).
    pub fn of<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>) -> SseHeaders {
        let mut read = SseHeaders {
            cache_control: None,
            no_buffering: false,
        };
        for (name, value) in headers {
            if name.eq_ignore_ascii_case("cache-control") {
                read.cache_control = Some(value.trim().to_ascii_lowercase());
            } else if name.eq_ignore_ascii_case("x-accel-buffering") {
                read.no_buffering = value.trim().eq_ignore_ascii_case("no");
            }
        }
        read
    }
}

/// The signs seen over one task's events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WireSigns {
    /// Status timestamps seen, each value once (a snapshot repeats the
    /// status it holds), counted by their fraction digits (0 to 9; more
    /// are counted as 9).
    pub fraction_digits: [u32; 10],
    /// The timestamps counted.
    seen: std::collections::HashSet<String, super::FoldBuild>,
    /// Each envelope opening seen, once.
    pub envelopes: Vec<EnvelopeHead>,
    /// 0.3 events whose keys open with `kind`, and those that do not
    /// (`[no, yes]`).
    pub kind_first: [u32; 2],
    /// SSE events whose lines end with `\n`, and with `\r\n` (`[lf,
    /// crlf]`).
    pub line_ends: [u32; 2],
    /// SSE events without an `id` line, and with one (`[none, id]`).
    pub sse_ids: [u32; 2],
    /// 1.0 events (a Task, a status or an artifact update) whose keys open
    /// with the task's id, in the order the proto declares them, and those
    /// whose keys come sorted (`append`, `artifact` or `contextId` first)
    /// (`[declared, sorted]`).
    pub key_order_1_0: [u32; 2],
    /// The headers of each SSE answer the events came in, each kind once
    /// (a probe's; none in a capture).
    pub sse_headers: Vec<SseHeaders>,
}

impl WireSigns {
    /// Whether no sign was seen (bare events without timestamps).
    pub fn is_empty(&self) -> bool {
        self.envelopes.is_empty()
            && self.fraction_digits.iter().all(|&n| n == 0)
            && self.kind_first == [0, 0]
            && self.line_ends == [0, 0]
            && self.sse_ids == [0, 0]
            && self.key_order_1_0 == [0, 0]
    }

    /// Reads one event's bytes (a JSON-RPC response or a bare event) as
    /// read on `wire`.
    pub fn read(&mut self, bytes: &[u8], wire: Wire) {
        // Read bytes are almost always UTF-8: checked the fast way first.
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        let text = text.trim_start();
        if let Some(head) = envelope_head(text, wire) {
            if !self.envelopes.contains(&head) {
                self.envelopes.push(head);
            }
        }
        for (value, digits) in timestamp_digits(text) {
            // Most timestamps are new: the text is copied only then.
            if !self.seen.contains(value) {
                self.seen.insert(value.to_string());
                self.fraction_digits[digits.min(9)] += 1;
            }
        }
        match wire {
            Wire::V0_3 => self.kind_first[usize::from(event_opens_with_kind(text))] += 1,
            Wire::V1_0 => {
                if let Some(sorted) = event_keys_sorted(text) {
                    self.key_order_1_0[usize::from(sorted)] += 1;
                }
            }
        }
    }

    /// Notes the headers an SSE answer came with.
    pub fn read_headers(&mut self, headers: &SseHeaders) {
        if !self.sse_headers.contains(headers) {
            self.sse_headers.push(headers.clone());
        }
    }

    /// Counts an SSE event by how it was framed.
    pub fn read_sse(&mut self, framing: SseFraming) {
        self.line_ends[usize::from(framing.crlf)] += 1;
        self.sse_ids[usize::from(framing.id)] += 1;
    }

    /// Adds what `other` saw (another call's answers of the same agent),
    /// each timestamp still counted once.
    pub fn absorb(&mut self, other: &WireSigns) {
        for value in &other.seen {
            if self.seen.insert(value.clone()) {
                self.fraction_digits[fraction_digits(value).min(9)] += 1;
            }
        }
        for head in &other.envelopes {
            if !self.envelopes.contains(head) {
                self.envelopes.push(head.clone());
            }
        }
        self.kind_first[0] += other.kind_first[0];
        self.kind_first[1] += other.kind_first[1];
        self.line_ends[0] += other.line_ends[0];
        self.line_ends[1] += other.line_ends[1];
        self.sse_ids[0] += other.sse_ids[0];
        self.sse_ids[1] += other.sse_ids[1];
        self.key_order_1_0[0] += other.key_order_1_0[0];
        self.key_order_1_0[1] += other.key_order_1_0[1];
        for headers in &other.sse_headers {
            self.read_headers(headers);
        }
    }
}

/// The envelope's opening, where the event is a JSON-RPC response (its
/// first key is one of the envelope's own).
fn envelope_head(text: &str, wire: Wire) -> Option<EnvelopeHead> {
    let rest = text.strip_prefix("{\"")?;
    let (key, after) = rest.split_once('"')?;
    if !["jsonrpc", "id", "result", "error"].contains(&key) {
        return None;
    }
    let after = after.strip_prefix(':')?;
    Some(EnvelopeHead {
        wire,
        first_key: key.to_string(),
        spaced: after.starts_with(' '),
    })
}

/// The event object: the envelope's `result`, or the text itself where
/// it is a bare event.
fn event_object(text: &str) -> &str {
    match text.find("\"result\"") {
        Some(at) => text[at + "\"result\"".len()..]
            .trim_start()
            .strip_prefix(':')
            .unwrap_or_default(),
        None => text,
    }
}

/// The first key of the object `text` opens, and what follows its colon.
fn first_key(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let (key, after) = rest.split_once('"')?;
    Some((key, after.trim_start().strip_prefix(':')?))
}

/// Whether a 1.0 Task, status or artifact update lists its keys sorted
/// (`Some(true)`: a2a-rs builds its ProtoJSON through `serde_json::Value`)
/// or opens with the task's id as the proto declares (`Some(false)`:
/// a2a-sdk, @a2a-js/sdk); `None` for anything else.
fn event_keys_sorted(text: &str) -> Option<bool> {
    let (wrapper, inner) = first_key(event_object(text))?;
    if !["task", "statusUpdate", "artifactUpdate"].contains(&wrapper) {
        return None;
    }
    match first_key(inner)?.0 {
        "id" | "taskId" => Some(false),
        "append" | "artifact" | "artifacts" | "contextId" => Some(true),
        _ => None,
    }
}

/// Whether the event object opens with the key `kind`.
fn event_opens_with_kind(text: &str) -> bool {
    event_object(text)
        .trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with("\"kind\""))
}

/// Each `"timestamp"` value in the text, with its fraction digits
/// (`2026-11-30T05:37:55.588230Z`: 6; none: 0).
fn timestamp_digits(text: &str) -> impl Iterator<Item = (&str, usize)> + '_ {
    text.match_indices("\"timestamp\"")
        .filter_map(move |(at, key)| {
            let value = text[at + key.len()..]
                .trim_start()
                .strip_prefix(':')?
                .trim_start()
                .strip_prefix('"')?;
            let value = &value[..value.find('"')?];
            value.contains('T').then(|| (value, fraction_digits(value)))
        })
}

/// A timestamp's fraction digits: those after the seconds' dot (a date has
/// none).
fn fraction_digits(value: &str) -> usize {
    let time = value.find('T').map_or("", |t| &value[t..]);
    time.split_once('.').map_or(0, |(_, fraction)| {
        fraction.bytes().take_while(u8::is_ascii_digit).count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a2a_sdk_and_a2a_js_write_their_envelopes_and_timestamps_apart() {
        let mut python = WireSigns::default();
        python.read(
            br#"{"result": {"statusUpdate": {"status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-11-30T05:37:55.588230Z"}}}, "id": "x", "jsonrpc": "2.0"}"#,
            Wire::V1_0,
        );
        assert_eq!(python.fraction_digits[6], 1);
        assert_eq!(
            python.envelopes,
            [EnvelopeHead {
                wire: Wire::V1_0,
                first_key: "result".into(),
                spaced: true
            }]
        );
        let mut js = WireSigns::default();
        js.read(
            br#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-30T06:13:45.554Z"}}}}"#,
            Wire::V1_0,
        );
        assert_eq!(js.fraction_digits[3], 1);
        assert!(!js.envelopes[0].spaced);
        assert_eq!(js.envelopes[0].first_key, "jsonrpc");
    }

    #[test]
    fn a2a_rs_writes_its_keys_sorted_and_nanoseconds() {
        let mut rust = WireSigns::default();
        rust.read(
            br#"{"jsonrpc":"2.0","id":"x","result":{"statusUpdate":{"contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-12-02T12:44:58.334764274Z"},"taskId":"t"}}}"#,
            Wire::V1_0,
        );
        rust.read(
            br#"{"artifactUpdate":{"append":true,"artifact":{"artifactId":"a","parts":[{"text":"x"}]},"contextId":"c","taskId":"t"}}"#,
            Wire::V1_0,
        );
        assert_eq!((rust.key_order_1_0, rust.fraction_digits[9]), ([0, 2], 1));
        let mut js = WireSigns::default();
        js.read(
            br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_SUBMITTED"}}}}"#,
            Wire::V1_0,
        );
        assert_eq!(js.key_order_1_0, [1, 0]);
        let mut message = WireSigns::default();
        message.read(
            br#"{"message":{"contextId":"c","messageId":"m"}}"#,
            Wire::V1_0,
        );
        assert!(message.is_empty(), "a message tells no key order");
    }

    #[test]
    fn two_calls_signs_together_count_each_timestamp_once() {
        let event = br#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-30T06:13:45.554Z"}}}}"#;
        let (mut first, mut second) = (WireSigns::default(), WireSigns::default());
        first.read(event, Wire::V1_0);
        second.read(event, Wire::V1_0);
        second.read(
            br#"{"jsonrpc":"2.0","id":2,"result":{"statusUpdate":{"status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-30T06:13:46.001Z"}}}}"#,
            Wire::V1_0,
        );
        first.absorb(&second);
        assert_eq!(first.fraction_digits[3], 2);
        assert_eq!(first.envelopes.len(), 1);
    }

    #[test]
    fn a_bare_event_without_a_timestamp_shows_nothing() {
        let mut signs = WireSigns::default();
        signs.read(
            br#"{"kind":"status-update","taskId":"t","status":{"state":"working"},"final":false}"#,
            Wire::V0_3,
        );
        assert_eq!(signs.kind_first, [0, 1]);
        let mut none = WireSigns::default();
        none.read(br#"{"taskId":"t"}"#, Wire::V1_0);
        assert!(none.is_empty());
        signs.read(
            br#"{"id":1,"jsonrpc":"2.0","result":{"contextId":"c","kind":"status-update","status":{"state":"working","timestamp": "2026-11-30T05:37:55Z"}}}"#,
            Wire::V0_3,
        );
        assert_eq!(signs.fraction_digits[0], 1);
        assert_eq!(signs.kind_first, [1, 1]);
    }
}
