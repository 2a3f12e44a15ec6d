//! The one Server-Sent Events decoder of the lab: what a stream's bytes
//! mean as events. LF or CRLF line ends; a comment (`: ping`) and the
//! `event`, `id` and `retry` fields are read past; an event's `data` lines
//! are joined with a newline; a blank line, or the end of the stream, ends
//! the event. A bare `data` line (no colon) is an empty data line, as the
//! SSE standard reads any field name without a value.
//!
//! It never reads a socket or a file: the capture reader feeds it lines
//! (its files mix SSE with JSON Lines), the probe feeds it the bytes it
//! receives ([`SseDecoder::feed`]), and both get the same events.

use memchr::memchr;

use super::read_error::{ReadError, ReadKind, Unit};

/// The longest event (or line) taken; a longer one is refused rather
/// than held in memory.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// What one line of a stream was.
#[derive(Debug, PartialEq, Eq)]
pub enum SseLine<'a> {
    /// Part of an event still open (a `data` line), or nothing (a comment,
    /// another field, a blank line with no event open).
    Read,
    /// A blank line ended an event: its data, and whether it had an `id`
    /// line (only a2a-rs numbers its events: a sign of the SDK).
    Event {
        /// Its `data` lines, joined.
        data: &'a [u8],
        /// It had an `id` line.
        id: bool,
    },
    /// Not a line of an SSE stream (no field name the standard knows).
    NotSse,
}

/// An SSE stream being decoded.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The `data` lines of the open event, joined.
    data: Vec<u8>,
    /// Whether a `data` line was read since the last event (an event of
    /// empty data is still an event).
    open: bool,
    /// The start of a line begun in an earlier chunk ([`Self::feed`]).
    carry: Vec<u8>,
    /// The data of the event last returned, kept until the next call.
    done: Vec<u8>,
    /// Whether the open event has an `id` line.
    id: bool,
    /// Whether the event last returned had one.
    done_id: bool,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// One line, with or without its line end. An event's data is
    /// returned when the blank line that ends it arrives.
    pub fn line(&mut self, line: &[u8]) -> Result<SseLine<'_>, ReadError> {
        let line = trim_eol(line);
        if line.is_empty() {
            return Ok(match self.take() {
                true => SseLine::Event {
                    data: &self.done,
                    id: self.done_id,
                },
                false => SseLine::Read,
            });
        }
        if line.first() == Some(&b':') {
            return Ok(SseLine::Read);
        }
        let (field, value) = match memchr(b':', line) {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.open {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.open = true;
                if self.data.len() > MAX_EVENT_BYTES {
                    return Err(too_long(Unit::SseEvent));
                }
                Ok(SseLine::Read)
            }
            b"id" => {
                self.id = true;
                Ok(SseLine::Read)
            }
            b"event" | b"retry" => Ok(SseLine::Read),
            _ => Ok(SseLine::NotSse),
        }
    }

    /// The stream ended: the event it leaves open, if any (a server may
    /// close without the last blank line).
    pub fn end(&mut self) -> Option<&[u8]> {
        self.take().then_some(&self.done[..])
    }

    /// Bytes of the stream as they arrive, cut anywhere: `on_event` gets
    /// each event they complete, in order. A line that is not SSE is an
    /// error. [`Self::finish`] ends the stream.
    pub fn feed(
        &mut self,
        mut chunk: &[u8],
        on_event: &mut dyn FnMut(&[u8]) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        while let Some(end) = memchr(b'\n', chunk) {
            let (line, rest) = chunk.split_at(end + 1);
            chunk = rest;
            if self.carry.is_empty() {
                self.feed_line(line, on_event)?;
            } else {
                let mut joined = std::mem::take(&mut self.carry);
                joined.extend_from_slice(line);
                let fed = self.feed_line(&joined, on_event);
                joined.clear();
                self.carry = joined;
                fed?;
            }
        }
        self.carry.extend_from_slice(chunk);
        if self.carry.len() > MAX_EVENT_BYTES {
            return Err(too_long(Unit::SseLine));
        }
        Ok(())
    }

    /// The stream ended after [`Self::feed`]: its last line, then the
    /// event left open.
    pub fn finish(
        &mut self,
        on_event: &mut dyn FnMut(&[u8]) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.feed_line(&line, on_event)?;
        }
        match self.end() {
            Some(data) => on_event(data),
            None => Ok(()),
        }
    }

    fn feed_line(
        &mut self,
        line: &[u8],
        on_event: &mut dyn FnMut(&[u8]) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        match self.line(line)? {
            SseLine::Read => Ok(()),
            SseLine::Event { data, .. } => on_event(data),
            SseLine::NotSse => Err(ReadError::new(ReadKind::NotSse {
                line: String::from_utf8_lossy(trim_eol(line))
                    .chars()
                    .take(60)
                    .collect(),
            })),
        }
    }

    /// Moves the open event's data to `done`; whether there was one.
    fn take(&mut self) -> bool {
        if !self.open {
            return false;
        }
        self.open = false;
        self.done_id = std::mem::take(&mut self.id);
        std::mem::swap(&mut self.data, &mut self.done);
        self.data.clear();
        true
    }
}

fn too_long(unit: Unit) -> ReadError {
    ReadError::new(ReadKind::TooLong {
        unit,
        limit: MAX_EVENT_BYTES,
    })
}

/// A line without its `\n` or `\r\n`.
pub fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(body: &[u8], step: usize) -> Result<Vec<String>, ReadError> {
        let mut out = Vec::new();
        let mut decoder = SseDecoder::new();
        let mut push = |data: &[u8]| {
            out.push(String::from_utf8_lossy(data).into_owned());
            Ok(())
        };
        for chunk in body.chunks(step.max(1)) {
            decoder.feed(chunk, &mut push)?;
        }
        decoder.finish(&mut push)?;
        Ok(out)
    }

    #[test]
    fn crlf_multiline_data_comments_fields_and_a_last_event_without_blank_line() {
        let body = b": ping\r\nevent: x\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 3\ndata:{}\n\nretry: 5\ndata: last";
        for step in [1, 2, 7, 1000] {
            assert_eq!(
                events(body, step).unwrap(),
                ["{\"a\":\n1}", "{}", "last"],
                "{step}"
            );
        }
    }

    #[test]
    fn a_bare_data_line_is_an_empty_data_line() {
        assert_eq!(events(b"data\n\n", 1).unwrap(), [""]);
        assert_eq!(
            events(b"data: a\ndata\ndata: b\n\n", 3).unwrap(),
            ["a\n\nb"]
        );
        // Blank lines with no event open are nothing.
        assert_eq!(events(b"\n\n: c\n\n", 1).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn a_line_that_is_no_sse_field_is_refused() {
        let e = events(b"data: a\n\nhello world\n", 4).unwrap_err();
        assert_eq!(
            e.kind(),
            &ReadKind::NotSse {
                line: "hello world".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "`hello world` is not a line of an SSE stream"
        );
        let mut d = SseDecoder::new();
        assert_eq!(d.line(b"{\"json\": 1}").unwrap(), SseLine::NotSse);
    }

    #[test]
    fn an_endless_event_is_refused_not_held() {
        let mut d = SseDecoder::new();
        let line = vec![b'x'; 1 << 20];
        let mut e = Ok(());
        for _ in 0..20 {
            e = d
                .feed(b"data: ", &mut |_| Ok(()))
                .and(d.feed(&line, &mut |_| Ok(())));
            if e.is_err() {
                break;
            }
        }
        let e = e.unwrap_err();
        assert!(matches!(
            e.kind(),
            ReadKind::TooLong {
                unit: Unit::SseEvent | Unit::SseLine,
                ..
            }
        ));
        assert!(e.to_string().contains("longer than"));
    }
}
