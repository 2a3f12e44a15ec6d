//! The relay's answer to an ask read back as frames, whatever its chunks:
//! the bytes are kept as they come and each frame is parsed only when
//! taken, so that a reader handed a megabyte at once (a page that fell
//! behind a fast stream) takes a few frames at a time and lets the
//! browser paint in between.

use memchr::memchr;

use super::frame::Frame;

/// The longest frame held while its end is awaited (the relay's answers
/// are events; a bigger one is refused, not held).
pub const MAX_FRAME: usize = 16 << 20;

/// A line longer than [`MAX_FRAME`] that has not ended: refused, not
/// held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineTooLong;

/// Frames from a stream of JSON lines.
#[derive(Debug, Default)]
pub struct FrameLines {
    /// Bytes kept: the frames not yet taken, then the start of the next.
    kept: Vec<u8>,
    /// Where the next frame starts in `kept`.
    start: usize,
    /// How far past `start` is known to hold no newline.
    scanned: usize,
}

impl FrameLines {
    /// Keeps the next bytes of the stream.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 && self.start == self.kept.len() {
            self.kept.clear();
            self.start = 0;
            self.scanned = 0;
        }
        self.kept.extend_from_slice(chunk);
    }

    /// The next whole frame, if one is kept; blank lines are skipped. A
    /// frame that is not UTF-8 or not a frame, or an unended one past
    /// [`MAX_FRAME`], is an error: the relay's stream is then broken.
    pub fn next_frame(&mut self) -> Option<Result<Frame, String>> {
        loop {
            let line = match self.next_line()? {
                Ok(line) => line,
                Err(LineTooLong) => {
                    return Some(Err(format!(
                        "the relay sent a frame over {} MiB",
                        MAX_FRAME >> 20
                    )))
                }
            };
            let Ok(text) = std::str::from_utf8(line) else {
                return Some(Err("the relay sent a frame that is not UTF-8".into()));
            };
            if !text.trim().is_empty() {
                return Some(Frame::parse(text));
            }
        }
    }

    /// The next whole line kept, without its newline, as bytes (the
    /// webhook's lines are read this way too, each as its reader takes
    /// it); an unended line past [`MAX_FRAME`] is [`LineTooLong`].
    pub fn next_line(&mut self) -> Option<Result<&[u8], LineTooLong>> {
        let from = self.start + self.scanned;
        let Some(at) = memchr(b'\n', &self.kept[from..]) else {
            self.scanned = self.kept.len() - self.start;
            self.compact();
            return (self.scanned > MAX_FRAME).then_some(Err(LineTooLong));
        };
        let line = self.start..from + at;
        self.start = from + at + 1;
        self.scanned = 0;
        Some(Ok(&self.kept[line]))
    }

    /// Drops the frames taken, so that what is kept is the unended frame.
    fn compact(&mut self) {
        if self.start > 0 {
            self.kept.drain(..self.start);
            self.start = 0;
        }
    }
}
