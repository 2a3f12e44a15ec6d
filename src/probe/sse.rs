//! Reading a live Server-Sent Events stream one event at a time, keeping
//! the raw bytes as the capture. The lines are decoded by the model's one
//! SSE decoder ([`SseDecoder`]); this file only reads them off the socket.

use std::io::{BufRead, BufReader, Read};
use std::time::Instant;

use super::http::{read_error, stream_too_long, CallError, MAX_STREAM_BYTES};
use crate::model::wire::sse::{trim_eol, SseDecoder, SseLine};

/// One stream being read.
pub struct SseStream {
    input: BufReader<Box<dyn Read + Send>>,
    started: Instant,
    /// Every byte received so far.
    pub raw: Vec<u8>,
    decoder: SseDecoder,
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
            decoder: SseDecoder::new(),
        }
    }

    /// The next event, or the end of the stream. What a line means is
    /// the wire's SSE decoder's to say; this only reads the bytes.
    pub fn next(&mut self) -> Result<Next, CallError> {
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
                return Err(CallError::Failed(stream_too_long()));
            }
            if got == 0 {
                return Ok(self.decoder.end().map_or(Next::Closed, event));
            }
            match self
                .decoder
                .line(&line)
                .map_err(|e| CallError::Failed(e.to_string()))?
            {
                SseLine::Read => {}
                SseLine::Event { data, .. } => return Ok(event(data)),
                SseLine::NotSse => {
                    return Err(CallError::Failed(format!(
                        "the stream is not Server-Sent Events: `{}`",
                        String::from_utf8_lossy(trim_eol(&line))
                            .chars()
                            .take(60)
                            .collect::<String>()
                    )))
                }
            }
        }
    }
}

fn event(data: &[u8]) -> Next {
    Next::Event(String::from_utf8_lossy(data).into_owned())
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
