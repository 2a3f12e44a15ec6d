//! JSON read within the lab's limits: nesting deeper than [`MAX_DEPTH`]
//! refused before parsing or told apart from serde_json's own refusal, in
//! the lab's words ([`ReadKind::TooDeep`], [`ReadKind::Malformed`]). Every
//! reader of the wire parses through [`parse`].

use serde::Deserialize;

use crate::model::wire::read_error::{ReadError, ReadKind};

/// The deepest JSON nesting the lab reads; deeper input is refused. It is
/// serde_json's own recursion limit, so a check before parsing and a
/// refusal while parsing say the same.
pub const MAX_DEPTH: usize = 128;

/// Refuses nesting deeper than [`MAX_DEPTH`] before parsing, so hostile
/// input cannot exhaust the stack.
pub fn check_depth(text: &[u8]) -> Result<(), ReadError> {
    let mut depth = 0usize;
    for b in structure(text) {
        match b {
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep());
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The bytes of JSON text outside its strings (each string's opening quote
/// included): what the scanners that look at its nesting without parsing
/// it read.
fn structure(text: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let (mut in_string, mut escaped) = (false, false);
    text.iter().copied().filter(move |&b| {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            return false;
        }
        in_string = b == b'"';
        true
    })
}

fn too_deep() -> ReadError {
    ReadError::new(ReadKind::TooDeep { limit: MAX_DEPTH })
}

/// Parses JSON into `T`; serde_json's own recursion limit refuses hostile
/// nesting, and says so in the lab's words.
pub fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, ReadError> {
    // From text, as the rest of the page parses JSON, so that the bundle
    // carries one instance of serde_json's reader, not two.
    let text = std::str::from_utf8(bytes).map_err(|e| {
        ReadError::new(ReadKind::NotUtf8 {
            byte: Some(e.valid_up_to()),
        })
    })?;
    serde_json::from_str(text).map_err(|e| json_error(text, &e))
}

/// serde_json's error on `text` as the lab's: [`ReadKind::TooDeep`] when
/// it is serde_json's recursion limit, else [`ReadKind::Malformed`].
/// serde_json names no kind for its limit, so it is told by where the
/// parse stopped: a syntax error at a bracket where a value may start,
/// with `MAX_DEPTH - 1` levels open (the one place such a bracket is
/// wrong is the level it would open).
pub fn json_error(text: &str, e: &serde_json::Error) -> ReadError {
    let category = e.classify();
    if category == serde_json::error::Category::Syntax && opens_too_deep(text, e.line(), e.column())
    {
        return too_deep();
    }
    ReadError::new(ReadKind::Malformed {
        category,
        message: e.to_string(),
    })
}

/// Whether the byte at `line` and `column` (from 1) is a bracket, in a
/// place a value may start, that would open level [`MAX_DEPTH`].
fn opens_too_deep(text: &str, line: usize, column: usize) -> bool {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let at = start + column.saturating_sub(1);
    let bytes = text.as_bytes();
    if !matches!(bytes.get(at), Some(b'[' | b'{')) {
        return false;
    }
    // The containers open before it, and the last byte outside strings.
    let mut open: Vec<u8> = Vec::new();
    let mut last = 0u8;
    for b in structure(&bytes[..at]) {
        match b {
            b'[' | b'{' => open.push(b),
            b']' | b'}' => {
                open.pop();
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
    }
    let value_here = match last {
        0 => open.is_empty(),
        b':' | b'[' => true,
        b',' => open.last() == Some(&b'['),
        _ => false,
    };
    value_here && open.len() + 1 >= MAX_DEPTH
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::wire::event::RawEvent;

    fn nested(open: &str, levels: usize, close: &str) -> String {
        format!("{}{}", open.repeat(levels), close.repeat(levels))
    }

    #[test]
    fn serde_jsons_recursion_limit_is_the_too_deep_kind() {
        assert!(parse::<serde_json::Value>(nested("[", MAX_DEPTH - 1, "]").as_bytes()).is_ok());
        for text in [
            nested("[", MAX_DEPTH, "]"),
            nested("[", 10_000, "]"),
            format!(" \n {{\"a\":{}}}", nested("[", MAX_DEPTH - 1, "]")),
            format!(
                "[1,{}]",
                nested("{\"k\":", MAX_DEPTH - 1, "}").replace("{\"k\":}", "{}")
            ),
        ] {
            let e = parse::<serde_json::Value>(text.as_bytes()).unwrap_err();
            assert_eq!(e.kind(), &ReadKind::TooDeep { limit: MAX_DEPTH }, "{text}");
            assert_eq!(e.to_string(), "JSON nested deeper than 128 levels");
        }
        // The event reader's own structs count as serde_json's levels too.
        let results = format!(
            "{}{{}}{}",
            "{\"result\":".repeat(MAX_DEPTH - 1),
            "}".repeat(MAX_DEPTH - 1)
        );
        let e = parse::<RawEvent>(results.as_bytes()).err();
        assert_eq!(
            e.map(|e| e.kind().clone()),
            Some(ReadKind::TooDeep { limit: MAX_DEPTH })
        );
    }

    #[test]
    fn a_bracket_where_no_value_may_start_is_malformed_however_deep() {
        // 127 levels open, then a bracket where a colon or a key is due.
        for wrong in ["{\"a\"[", "{[", "[1 ["] {
            let text = format!("{}{wrong}", "[".repeat(MAX_DEPTH - 2));
            let e = parse::<serde_json::Value>(text.as_bytes()).unwrap_err();
            assert!(
                matches!(e.kind(), ReadKind::Malformed { .. }),
                "{wrong}: {e}"
            );
            assert!(e.to_string().starts_with("malformed JSON: "), "{e}");
        }
        // Nesting in a field the reader skips is no recursion at all.
        let skipped = format!(
            "{{\"kind\":\"task\",\"id\":\"t\",\"metadata\":{}}}",
            nested("[", 2 * MAX_DEPTH, "]")
        );
        assert!(parse::<RawEvent>(skipped.as_bytes()).is_ok());
    }
}
