//! Reading a live Server-Sent Events stream one event at a time (LF or
//! CRLF; an event's `data:` lines joined with a newline; comments and other
//! fields ignored), keeping the raw bytes as the capture.

use std::io::{BufRead, BufReader, Read};
use std::time::Instant;

use super::http::{read_error, CallError, MAX_STREAM_BYTES};

/// One stream being read.
pub struct SseStream {
    input: BufReader<Box<dyn Read + Send>>,
    started: Instant,
    /// Every byte received so far.
    pub raw: Vec<u8>,
}

/// What reading the next event gave.
pub enum Next {
    /// An event's data.
    Event(String),
    /// The server closed the stream.
    Closed,
}

impl SseStream {
    /// Reads events from `body`; `started` is when the call began.
    pub fn new(body: Box<dyn Read + Send>, started: Instant) -> SseStream {
        SseStream {
            input: BufReader::new(body),
            started,
            raw: Vec::new(),
        }
    }

    /// The next event, or the end of the stream.
    pub fn next(&mut self) -> Result<Next, CallError> {
        let mut data: Option<String> = None;
        let mut line = Vec::new();
        loop {
            line.clear();
            let room = (MAX_STREAM_BYTES + 1).saturating_sub(self.raw.len() as u64);
            let got = (&mut self.input)
                .take(room)
                .read_until(b'\n', &mut line)
                .map_err(|e| read_error(&e, self.started))?;
            self.raw.extend_from_slice(&line);
            if self.raw.len() as u64 > MAX_STREAM_BYTES {
                return Err(CallError::Failed(format!(
                    "the stream sent more than {MAX_STREAM_BYTES} bytes"
                )));
            }
            if got == 0 {
                return Ok(data.map_or(Next::Closed, Next::Event));
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                if let Some(data) = data.take() {
                    return Ok(Next::Event(data));
                }
                continue;
            }
            if let Some(value) = text.strip_prefix("data:") {
                let value = value.strip_prefix(' ').unwrap_or(value);
                match &mut data {
                    Some(joined) => {
                        joined.push('\n');
                        joined.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                }
            } else if text == "data" {
                data.get_or_insert_with(String::new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(body: &'static [u8]) -> Vec<String> {
        let mut stream = SseStream::new(Box::new(body), Instant::now());
        let mut out = Vec::new();
        while let Ok(Next::Event(data)) = stream.next() {
            out.push(data);
        }
        assert_eq!(stream.raw, body);
        out
    }

    #[test]
    fn crlf_multiline_data_comments_and_a_last_event_without_blank_line() {
        let got = events(
            b": ping\r\nevent: x\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 3\ndata:{}\n\ndata: last",
        );
        assert_eq!(got, ["{\"a\":\n1}", "{}", "last"]);
    }
}
