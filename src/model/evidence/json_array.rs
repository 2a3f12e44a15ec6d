//! Splits a JSON array arriving on a stream into its elements' bytes
//! without parsing them, so that each element can be parsed from a slice
//! (several times faster than parsing from a reader) while memory holds one
//! buffer of the input, never the whole array.
//!
//! The splitter only finds where elements start and end (it tracks strings,
//! escapes and nesting); the caller parses each element, which is where a
//! malformed element is refused. Between elements it accepts exactly what
//! JSON does: whitespace, one comma, and the closing bracket.

use std::io::Read;

/// How much input is read at a time.
const CHUNK: usize = 1 << 20;

/// One element of the array, as a range of the buffer handed to the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// First byte in the buffer.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// `[`, after optional whitespace.
    Open,
    /// The first element or `]`.
    FirstOrClose,
    /// An element (after a comma).
    Element,
    /// Only whitespace until the end.
    Trailing,
}

/// An element being scanned, possibly across buffer refills.
#[derive(Debug, Clone, Copy)]
struct Scan {
    start: usize,
    line: u64,
    column: u64,
    depth: u64,
    in_string: bool,
    escaped: bool,
}

/// Where the splitter is in the input.
#[derive(Debug, Clone, Copy)]
struct Position {
    /// Input offset of the buffer's first byte.
    base: u64,
    line: u64,
    /// Input offset where the current line starts.
    line_start: u64,
}

impl Position {
    fn column(&self, i: usize) -> u64 {
        (self.base + i as u64).saturating_sub(self.line_start) + 1
    }

    fn newline_at(&mut self, i: usize) {
        self.line += 1;
        self.line_start = self.base + i as u64 + 1;
    }

    fn at(&self, i: usize) -> String {
        format!("line {} column {}", self.line, self.column(i))
    }
}

/// Reads a JSON array from `reader` and calls `each` with the buffer and
/// the elements completed in it, in order, as they become available.
/// Returns how many elements there were. An error names the line and
/// column; an error from `each` stops the split and is returned as is.
pub fn split(
    mut reader: impl Read,
    mut each: impl FnMut(&[u8], &[Element]) -> Result<(), String>,
) -> Result<u64, String> {
    let mut buf = vec![0u8; CHUNK];
    let mut len = 0;
    let mut i = 0;
    let mut pos = Position {
        base: 0,
        line: 1,
        line_start: 0,
    };
    let mut expect = Expect::Open;
    let mut scan: Option<Scan> = None;
    let mut batch: Vec<Element> = Vec::new();
    let mut count = 0u64;
    loop {
        if i == len {
            if !batch.is_empty() {
                each(buf.get(..len).unwrap_or_default(), &batch)?;
                batch.clear();
            }
            // Keep only the element in progress; read more after it.
            let keep = scan.map_or(i, |s| s.start);
            buf.copy_within(keep..len, 0);
            pos.base += keep as u64;
            len -= keep;
            i -= keep;
            if let Some(s) = scan.as_mut() {
                s.start = 0;
            }
            if len == buf.len() {
                buf.resize(buf.len() * 2, 0);
            }
            let n = read_some(&mut reader, buf.get_mut(len..).unwrap_or_default())?;
            if n == 0 {
                return match (expect, scan) {
                    (Expect::Trailing, _) => Ok(count),
                    (Expect::Open, _) => Err("empty input: expected `[`".to_string()),
                    _ => Err(format!(
                        "the input ends inside the array (at {}): expected `]`",
                        pos.at(i)
                    )),
                };
            }
            len += n;
            continue;
        }
        if let Some(s) = scan.as_mut() {
            let Some(end) = scan_element(s, buf.get(..len).unwrap_or_default(), &mut i, &mut pos)
            else {
                continue;
            };
            let element = Element {
                start: s.start,
                end,
                index: count,
                line: s.line,
                column: s.column,
            };
            if buf
                .get(element.start..element.end)
                .unwrap_or_default()
                .iter()
                .all(u8::is_ascii_whitespace)
            {
                let err = format!("expected an element at line {} column {}", s.line, s.column);
                return fail(&mut each, &buf[..len], &batch, err);
            }
            batch.push(element);
            count += 1;
            scan = None;
            // scan_element stopped on the `,` or `]` that ended the element.
            expect = if buf.get(end) == Some(&b']') {
                Expect::Trailing
            } else {
                Expect::Element
            };
            i = end + 1;
            continue;
        }
        let b = buf.get(i).copied().unwrap_or(0);
        if b == b'\n' {
            pos.newline_at(i);
            i += 1;
            continue;
        }
        if matches!(b, b' ' | b'\t' | b'\r') {
            i += 1;
            continue;
        }
        match (expect, b) {
            (Expect::Open, b'[') => {
                expect = Expect::FirstOrClose;
                i += 1;
            }
            (Expect::FirstOrClose, b']') => {
                expect = Expect::Trailing;
                i += 1;
            }
            (Expect::FirstOrClose | Expect::Element, _) => {
                scan = Some(Scan {
                    start: i,
                    line: pos.line,
                    column: pos.column(i),
                    depth: 0,
                    in_string: false,
                    escaped: false,
                });
            }
            (Expect::Open, _) => {
                return Err(format!("expected `[` at {}", pos.at(i)));
            }
            (Expect::Trailing, _) => {
                let err = format!("unexpected characters after the array at {}", pos.at(i));
                return fail(&mut each, &buf[..len], &batch, err);
            }
        }
    }
}

/// Hands over the elements before a structural error first, so that the
/// first problem in the input is the one reported.
fn fail(
    each: &mut impl FnMut(&[u8], &[Element]) -> Result<(), String>,
    buf: &[u8],
    batch: &[Element],
    err: String,
) -> Result<u64, String> {
    if !batch.is_empty() {
        each(buf, batch)?;
    }
    Err(err)
}

/// Advances through an element; returns the index of the `,` or `]` that
/// ends it, or `None` when the buffer ran out first.
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

fn read_some(reader: &mut impl Read, into: &mut [u8]) -> Result<usize, String> {
    loop {
        match reader.read(into) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("reading the input: {e}")),
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

    fn elements(input: &str, step: usize) -> Result<Vec<(String, u64, u64)>, String> {
        let mut out = Vec::new();
        split(Trickle(input.as_bytes(), step), |buf, els| {
            for e in els {
                let text = String::from_utf8_lossy(&buf[e.start..e.end]);
                out.push((text.trim().to_string(), e.line, e.column));
            }
            Ok(())
        })?;
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
            assert!(err.contains(says), "{input:?}: {err}");
        }
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
