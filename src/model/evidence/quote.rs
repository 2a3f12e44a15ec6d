//! What came back, quoted for a person: the start of a body with every
//! byte that does not print shown escaped (`\x1e`), never dropped, so that
//! a stray byte before an event is there to see (SPEC §13).

/// How much of a body a message quotes.
const QUOTED_CHARS: usize = 80;

/// The start of `bytes` in backquotes, control characters escaped
/// (`\x1e`, `\n`), an ellipsis where it was cut.
pub fn quoted(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::from("`");
    for (n, c) in text.chars().enumerate() {
        if n == QUOTED_CHARS {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x100 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('`');
    out
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn a_byte_that_does_not_print_is_shown_escaped() {
        assert_eq!(quoted(b"\x1e{\"a\":1}"), "`\\x1e{\"a\":1}`");
        assert_eq!(quoted(b"a\r\nb"), "`a\\r\\nb`");
        assert_eq!(quoted(&[b'x'; 100]).chars().count(), 83);
    }
}
