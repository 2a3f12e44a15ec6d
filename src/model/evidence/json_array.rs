//! Splits a JSON array arriving on a stream into its elements' bytes
//! without parsing them, so that each element can be parsed from a slice
//! (several times faster than parsing from a reader) while memory holds one
//! buffer of the input, never the whole array.
//!
//! The splitter only finds where elements start and end (it tracks strings,
//! escapes and nesting); the caller parses each element, which is where a
//! malformed element is refused. Between elements it accepts exactly what
//! JSON does: whitespace, one comma, and the closing bracket.
//!
//! [`Splitter`] takes the input in chunks of any size, as they arrive (the
//! page reads a file a slice at a time); [`split`] drives it from a reader.

use std::io::Read;

use crate::model::wire::read_error::{ArrayFault, Place, ReadError, ReadKind};

/// How much input is read at a time.
const CHUNK: usize = 1 << 20;

/// One element of the array, as a range of the bytes handed to the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// First byte in the bytes handed over.
    pub start: usize,
    /// One past the last byte (trailing whitespace may be included).
    pub end: usize,
    /// Position in the array, from 0.
    pub index: u64,
    /// Line of the first byte in the input, from 1.
    pub line: u64,
    /// Byte column of the first byte in the input, from 1.
    pub column: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Expect {
    /// `[`, after optional whitespace.
    #[default]
    Open,
    /// The first element or `]`.
    FirstOrClose,
    /// An element (after a comma).
    Element,
    /// Only whitespace until the end.
    Trailing,
}

/// An element being scanned, possibly across chunks.
#[derive(Debug, Clone, Copy)]
struct Scan {
    /// Where it starts in the current chunk; `None` once its first bytes
    /// have been moved to the splitter's carry.
    start: Option<usize>,
    line: u64,
    column: u64,
    depth: u64,
    in_string: bool,
    escaped: bool,
}

/// Where the splitter is in the input.
#[derive(Debug, Clone, Copy)]
struct Position {
    /// Input offset of the current chunk's first byte.
    base: u64,
    line: u64,
    /// Input offset where the current line starts.
    line_start: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position {
            base: 0,
            line: 1,
            line_start: 0,
        }
    }
}

impl Position {
    fn column(&self, i: usize) -> u64 {
        (self.base + i as u64).saturating_sub(self.line_start) + 1
    }

    fn newline_at(&mut self, i: usize) {
        self.line += 1;
        self.line_start = self.base + i as u64 + 1;
    }

    /// `fault`, found at byte `i` of the current chunk.
    fn fault(&self, fault: ArrayFault, i: usize) -> ReadError {
        array(fault).within(Place::Position {
            line: self.line,
            column: self.column(i),
        })
    }
}

/// A JSON array split as it arrives: [`Splitter::feed`] it the input in
/// chunks of any size, then [`Splitter::finish`]. Memory holds the one
/// element that straddles two chunks, never the array.
#[derive(Debug, Default)]
pub struct Splitter {
    expect: Expect,
    scan: Option<Scan>,
    pos: Position,
    count: u64,
    /// The first bytes of an element that began in an earlier chunk.
    carry: Vec<u8>,
    batch: Vec<Element>,
}

impl Splitter {
    /// A splitter before the array's `[`.
    pub fn new() -> Splitter {
        Splitter::default()
    }

    /// A splitter for input of which whitespace was already read: `read`
    /// bytes, in which line `line` (from 1) starts at offset `line_start`.
    pub fn after_whitespace(read: u64, line: u64, line_start: u64) -> Splitter {
        Splitter {
            pos: Position {
                base: read,
                line,
                line_start,
            },
            ..Splitter::default()
        }
    }

    /// Bytes of an unfinished element held from earlier chunks (a caller
    /// that bounds an element's size reads it here).
    pub fn pending(&self) -> usize {
        self.carry.len()
    }

    /// Splits the next chunk of input and calls `each` with bytes and the
    /// elements completed in them, in order: the chunk and its whole
    /// elements, or the carried bytes of one element that began earlier.
    /// An error names the line and column; an error from `each` stops the
    /// split and is returned as is.
    pub fn feed<E: From<ReadError>>(
        &mut self,
        chunk: &[u8],
        each: &mut impl FnMut(&[u8], &[Element]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.batch.clear();
        let mut i = 0;
        while i < chunk.len() {
            if let Some(s) = self.scan.as_mut() {
                let Some(end) = scan_element(s, chunk, &mut i, &mut self.pos) else {
                    break;
                };
                let s = *s;
                self.scan = None;
                i = end + 1;
                self.ended(chunk, s, end, each)?;
                continue;
            }
            i = match self.between(chunk, i) {
                Ok(next) => next,
                Err(err) => return self.fail(chunk, each, err),
            };
        }
        if !self.batch.is_empty() {
            each(chunk, &self.batch)?;
            self.batch.clear();
        }
        // Keep what the next chunk continues.
        if let Some(s) = self.scan.as_mut() {
            if let Some(start) = s.start.take() {
                self.carry.extend_from_slice(&chunk[start..]);
            } else {
                self.carry.extend_from_slice(chunk);
            }
        }
        self.pos.base += chunk.len() as u64;
        Ok(())
    }

    /// An element scanned `s` to the `,` or `]` at `end` of the chunk: one
    /// that began in the chunk is batched; one that began in an earlier
    /// chunk is handed over at once, with the bytes carried.
    fn ended<E: From<ReadError>>(
        &mut self,
        chunk: &[u8],
        s: Scan,
        end: usize,
        each: &mut impl FnMut(&[u8], &[Element]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.expect = if chunk.get(end) == Some(&b']') {
            Expect::Trailing
        } else {
            Expect::Element
        };
        let blank = |text: &[u8]| {
            text.iter().all(u8::is_ascii_whitespace).then(|| {
                array(ArrayFault::ExpectedElement).within(Place::Position {
                    line: s.line,
                    column: s.column,
                })
            })
        };
        let index = self.count;
        self.count += 1;
        let Some(start) = s.start else {
            // It began in an earlier chunk, so it is the first element
            // completed in this one: nothing is batched.
            let mut carry = std::mem::take(&mut self.carry);
            carry.extend_from_slice(&chunk[..end]);
            let element = Element {
                start: 0,
                end: carry.len(),
                index,
                line: s.line,
                column: s.column,
            };
            let result = match blank(&carry) {
                Some(err) => Err(err.into()),
                None => each(&carry, &[element]),
            };
            carry.clear();
            self.carry = carry;
            return result;
        };
        if let Some(err) = blank(&chunk[start..end]) {
            return self.fail(chunk, each, err);
        }
        self.batch.push(Element {
            start,
            end,
            index,
            line: s.line,
            column: s.column,
        });
        Ok(())
    }

    /// The byte at `i`, between elements: whitespace, a bracket, or the
    /// first byte of an element (whose scan starts there). Where to read
    /// on, or what is wrong.
    fn between(&mut self, chunk: &[u8], i: usize) -> Result<usize, ReadError> {
        let b = chunk.get(i).copied().unwrap_or(0);
        if b == b'\n' {
            self.pos.newline_at(i);
            return Ok(i + 1);
        }
        if matches!(b, b' ' | b'\t' | b'\r') {
            return Ok(i + 1);
        }
        match (self.expect, b) {
            (Expect::Open, b'[') => {
                self.expect = Expect::FirstOrClose;
                Ok(i + 1)
            }
            (Expect::FirstOrClose, b']') => {
                self.expect = Expect::Trailing;
                Ok(i + 1)
            }
            (Expect::FirstOrClose | Expect::Element, _) => {
                self.scan = Some(Scan {
                    start: Some(i),
                    line: self.pos.line,
                    column: self.pos.column(i),
                    depth: 0,
                    in_string: false,
                    escaped: false,
                });
                Ok(i)
            }
            // Nothing is batched before the `[`: no element to hand over.
            (Expect::Open, _) => Err(self.pos.fault(ArrayFault::ExpectedOpen, i)),
            (Expect::Trailing, _) => Err(self.pos.fault(ArrayFault::AfterArray, i)),
        }
    }

    /// The input ended: how many elements there were, or why the input is
    /// not one whole array.
    pub fn finish(&self) -> Result<u64, ReadError> {
        match self.expect {
            Expect::Trailing => Ok(self.count),
            Expect::Open => Err(array(ArrayFault::Empty)),
            _ => Err(self.pos.fault(ArrayFault::Unclosed, 0)),
        }
    }

    /// Hands over the elements before a structural error first, so that
    /// the first problem in the input is the one reported.
    fn fail<E: From<ReadError>>(
        &mut self,
        chunk: &[u8],
        each: &mut impl FnMut(&[u8], &[Element]) -> Result<(), E>,
        err: ReadError,
    ) -> Result<(), E> {
        if !self.batch.is_empty() {
            each(chunk, &self.batch)?;
            self.batch.clear();
        }
        Err(err.into())
    }
}

fn array(fault: ArrayFault) -> ReadError {
    ReadError::new(ReadKind::Array(fault))
}

/// Reads a JSON array from `reader` and calls `each` with bytes and the
/// elements completed in them, in order, as they become available (see
/// [`Splitter::feed`]). Returns how many elements there were. An error
/// names the line and column; an error from `each` stops the split and is
/// returned as is.
pub fn split<E: From<ReadError>>(
    mut reader: impl Read,
    mut each: impl FnMut(&[u8], &[Element]) -> Result<(), E>,
) -> Result<u64, E> {
    let mut splitter = Splitter::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = read_some(&mut reader, &mut buf)?;
        if n == 0 {
            return Ok(splitter.finish()?);
        }
        splitter.feed(&buf[..n], &mut each)?;
    }
}

/// Advances through an element; returns the index of the `,` or `]` that
/// ends it, or `None` when the chunk ran out first.
fn scan_element(s: &mut Scan, buf: &[u8], i: &mut usize, pos: &mut Position) -> Option<usize> {
    while let Some(&b) = buf.get(*i) {
        if s.in_string {
            if s.escaped {
                s.escaped = false;
            } else if b == b'\\' {
                s.escaped = true;
            } else if b == b'"' {
                s.in_string = false;
            }
        } else {
            match b {
                b'"' => s.in_string = true,
                b'{' | b'[' => s.depth += 1,
                b']' if s.depth == 0 => return Some(*i),
                b',' if s.depth == 0 => return Some(*i),
                b'}' | b']' => s.depth = s.depth.saturating_sub(1),
                b'\n' => pos.newline_at(*i),
                _ => {}
            }
        }
        *i += 1;
    }
    None
}

fn read_some(reader: &mut impl Read, into: &mut [u8]) -> Result<usize, ReadError> {
    loop {
        match reader.read(into) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::io(&e).within(Place::Input)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out a few bytes at a time, so elements straddle
    /// every possible refill boundary.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(self.0.len()).min(into.len());
            into[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn elements(input: &str, step: usize) -> Result<Vec<(String, u64, u64)>, ReadError> {
        let mut out = Vec::new();
        split(
            Trickle(input.as_bytes(), step),
            |buf, els| -> Result<(), ReadError> {
                for e in els {
                    let text = String::from_utf8_lossy(&buf[e.start..e.end]);
                    out.push((text.trim().to_string(), e.line, e.column));
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    #[test]
    fn elements_come_out_whole_whatever_the_read_size() {
        let input = "[ {\"id\":\"a,]\\\"}\",\"n\":[1,[2]]} ,\n  \"x\" , 3,{}]  \n";
        let want = vec![
            (r#"{"id":"a,]\"}","n":[1,[2]]}"#.to_string(), 1, 3),
            ("\"x\"".to_string(), 2, 3),
            ("3".to_string(), 2, 9),
            ("{}".to_string(), 2, 11),
        ];
        for step in [1, 2, 3, 7, 1 << 20] {
            assert_eq!(elements(input, step).unwrap(), want, "read size {step}");
        }
    }

    #[test]
    fn an_empty_array_has_no_elements() {
        assert_eq!(elements(" [ ] ", 1).unwrap(), vec![]);
    }

    #[test]
    fn anything_but_one_array_is_refused_with_a_position() {
        for (input, says) in [
            ("", "empty input"),
            ("{}", "expected `[` at line 1 column 1"),
            ("[1,]", "expected an element at line 1 column 4"),
            ("[,1]", "expected an element at line 1 column 2"),
            ("[1", "ends inside the array"),
            ("[\"a", "ends inside the array"),
            ("[1]\n x", "after the array at line 2 column 2"),
            ("[1][2]", "after the array at line 1 column 4"),
        ] {
            let err = elements(input, 2).unwrap_err();
            assert!(matches!(err.kind(), ReadKind::Array(_)), "{input:?}: {err}");
            assert!(err.to_string().contains(says), "{input:?}: {err}");
        }
        let err = elements("[1]\n x", 1).unwrap_err();
        assert_eq!(err.kind(), &ReadKind::Array(ArrayFault::AfterArray));
        assert_eq!(err.at(), [Place::Position { line: 2, column: 2 }]);
    }

    #[test]
    fn an_element_larger_than_the_buffer_grows_it() {
        let long = "x".repeat(3 * CHUNK);
        let input = format!("[\"{long}\",1]");
        let got = elements(&input, CHUNK).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), long.len() + 2);
    }

    #[test]
    fn an_error_from_the_caller_stops_the_split() {
        let err = split("[1,2]".as_bytes(), |_, _| Err("no".to_string())).unwrap_err();
        assert_eq!(err, "no");
    }
}
