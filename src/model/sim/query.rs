//! A URL query as `key=value` pairs: split, percent-decoded, with the page's
//! own view keys (`step`, `embed`) told apart from the scenario keys.

use super::keys::{err, ScenarioError};

/// The longest query or inputs object the codec reads, so that hostile input
/// is refused before any work.
pub const MAX_QUERY_BYTES: usize = 4096;

/// Splits a query into `key=value` pairs, percent-decoded, refusing what is
/// too long or malformed.
pub fn parse_pairs(query: &str) -> Result<Pairs, ScenarioError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(err(
            "query",
            format!("is longer than {MAX_QUERY_BYTES} bytes"),
        ));
    }
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut out = Vec::new();
    for item in query.split('&').filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| err(&shorten(item), "has no `=value`"))?;
        let k =
            percent_decode(k).ok_or_else(|| err(&shorten(k), "is not valid percent-encoding"))?;
        if k.is_empty() {
            return Err(err(
                "query",
                format!("`{}` has no key before `=`", shorten(item)),
            ));
        }
        let v = percent_decode(v).ok_or_else(|| err(&k, "value is not valid percent-encoding"))?;
        out.push((k, v));
    }
    Ok(out)
}

/// The page's own keys, which ride in the URL beside the scenario.
pub const VIEW_KEYS: &[&str] = &["step", "embed", "live"];

/// Decoded `key=value` pairs of a query, in order.
pub type Pairs = Vec<(String, String)>;

/// Separates the page's view keys from the scenario keys of a query:
/// (scenario pairs, view pairs).
pub fn split_view_keys(query: &str) -> Result<(Pairs, Pairs), ScenarioError> {
    let pairs = parse_pairs(query)?;
    Ok(pairs
        .into_iter()
        .partition(|(k, _)| !VIEW_KEYS.contains(&k.as_str())))
}

fn shorten(s: &str) -> String {
    s.chars().take(40).collect()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let text = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(text, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}
