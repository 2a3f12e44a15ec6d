//! A proptest-based fuzz harness for the parsers that take hostile input:
//! the scenario query (URL, CLI), an imported export, a raw A2A event log
//! (JSON array or SSE), and the streaming array splitter under
//! `a2a-lab reduce`. None may panic; bad input must come back as an error
//! with a message.
//!
//! CI runs a few thousand cases per parser; a local soak runs more:
//! `FUZZ_CASES=1000000 cargo test --release --test model fuzz_parsers::`.
//! Inputs that once broke a parser live in `tests/fuzz_corpus/` and are
//! replayed on every run.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use a2a_lab::model::evidence::capture::{CaptureReader, Wire, MAX_LINE_BYTES};
use a2a_lab::model::evidence::export::export_json;
use a2a_lab::model::evidence::import::import_bytes;
use a2a_lab::model::evidence::json_array;
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::wire::schema::{shape_faults, Shape, ShapeRule};
use model_support::fuzz_cases;
use model_support::read_capture;
use proptest::prelude::*;

/// Cases per property in CI; `FUZZ_CASES` sets more for a soak.
const CASES: u32 = 3000;

/// Fragments that steer random input towards the parsers' interesting paths.
const QUERY_PARTS: &[&str] = &[
    "chunks=",
    "ending=",
    "client=",
    "cancel=",
    "restart=",
    "dup=",
    "conflict=on",
    "preset=t42",
    "sdk=js",
    "guard=on",
    "late=",
    "timeout_ms=",
    "&",
    "=",
    "%",
    "%2",
    "%ZZ",
    "+",
    "?",
    "10000",
    "10001",
    "0",
    "-1",
    "never",
    "none",
    "off",
    "\u{1F600}",
    "\0",
];

const JSON_PARTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\"format\"",
    "\"a2a-lifecycle-lab/trace\"",
    "\"version\"",
    "1",
    "\"inputs\"",
    "\"task\"",
    "\"statusUpdate\"",
    "\"artifactUpdate\"",
    "\"status\"",
    "\"state\"",
    "\"TASK_STATE_COMPLETED\"",
    "\"TASK_STATE_WORKING\"",
    "\"artifact\"",
    "\"artifactId\"",
    "\"append\"",
    "true",
    "null",
    "data: ",
    "\n",
    "\r\n\r\n",
    "\\",
    "\\u0000",
    "1e999",
    "-0",
    "<img src=x onerror=alert(1)>",
];

/// A reader that hands out `step` bytes at a time.
struct Trickle<'a>(&'a [u8], usize);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
        let n = self.1.min(self.0.len()).min(into.len());
        into[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// The array as `a2a-lab reduce` reads it: split from a stream, each
/// element parsed on its own.
fn split_and_parse(bytes: &[u8], step: usize) -> Result<Vec<serde_json::Value>, String> {
    let mut values = Vec::new();
    json_array::split(
        Trickle(bytes, step),
        |buf, elements| -> Result<(), String> {
            for e in elements {
                values
                    .push(serde_json::from_slice(&buf[e.start..e.end]).map_err(|e| e.to_string())?);
            }
            Ok(())
        },
    )?;
    Ok(values)
}

/// Any JSON value, with strings full of the characters a splitter must not
/// mistake for structure (quotes, backslashes, brackets, commas).
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let text = prop::collection::vec(
        prop::sample::select(vec![
            "\"", "\\", "[", "]", "{", "}", ",", "a", "\u{e9}", "\n",
        ]),
        0..8,
    )
    .prop_map(|v| v.concat());
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        text.clone().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((text.clone(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A query as a form decodes it (`+` a space, `%XX` a byte), which is how
/// the parser reads its keys.
fn form_decoded(q: &str) -> String {
    let bytes = q.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn stitched(parts: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(parts), 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn query_parser_never_panics(q in prop_oneof![stitched(QUERY_PARTS), any::<String>()]) {
        match Scenario::from_query(&q) {
            Ok(s) => prop_assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s),
            // The error names the key it refuses, which the query holds as
            // sent or form-decoded, or the query itself where none is read.
            Err(e) => prop_assert!(
                !e.message.is_empty() && (e.key == "query" || q.contains(e.key.as_str()) || form_decoded(&q).contains(e.key.as_str())),
                "{q:?}: {e}"
            ),
        }
    }

    #[test]
    fn import_never_panics(text in prop_oneof![stitched(JSON_PARTS), any::<String>()]) {
        if let Err(e) = import_bytes(text.as_bytes()) {
            // A message a person reads on the page: one line, short,
            // whatever the input quoted in it.
            let said = e.to_string();
            prop_assert!(!said.is_empty() && !said.contains('\n') && said.chars().count() <= 400, "{said}");
        }
    }

    #[test]
    fn import_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = import_bytes(&bytes);
    }

    /// Splitting then parsing each element accepts exactly the arrays
    /// serde_json accepts whole, with the same values, whatever the read
    /// size. (Inputs stay far below serde_json's nesting limit, where the
    /// two would count the outer array differently.)
    #[test]
    fn the_array_splitter_agrees_with_parsing_the_whole_array(
        text in prop_oneof![
            stitched(JSON_PARTS).prop_map(|t| format!("[{t}]")),
            stitched(JSON_PARTS),
            any::<String>(),
        ],
        step in 1usize..64,
    ) {
        let whole = serde_json::from_str::<Vec<serde_json::Value>>(&text);
        let split = split_and_parse(text.as_bytes(), step);
        match (&whole, &split) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(_), Err(e)) => prop_assert!(!e.is_empty()),
            _ => prop_assert!(false, "{text:?}: whole {whole:?}, split {split:?}"),
        }
    }

    #[test]
    fn the_array_splitter_returns_every_element_of_a_valid_array(
        values in prop::collection::vec(json_value(), 0..8),
        pretty in any::<bool>(),
        step in 1usize..64,
    ) {
        let text = if pretty {
            serde_json::to_string_pretty(&values).unwrap()
        } else {
            serde_json::to_string(&values).unwrap()
        };
        prop_assert_eq!(split_and_parse(text.as_bytes(), step).unwrap(), values);
    }

    #[test]
    fn the_array_splitter_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512), step in 1usize..64) {
        let whole = serde_json::from_slice::<Vec<serde_json::Value>>(&bytes);
        prop_assert_eq!(whole.is_ok(), split_and_parse(&bytes, step).is_ok());
    }

    #[test]
    fn mutated_exports_never_panic(pos in any::<prop::sample::Index>(), junk in stitched(JSON_PARTS)) {
        let export = export_json(&Scenario::from_query("late=0&cancel=1").unwrap());
        let at = pos.index(export.len());
        let at = (0..=at).rev().find(|i| export.is_char_boundary(*i)).unwrap_or(0);
        let mutated = format!("{}{}{}", &export[..at], junk, &export[at..]);
        let _ = import_bytes(mutated.as_bytes());
    }
}

#[test]
fn regression_corpus_is_refused_or_read_without_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
    let mut read = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let _ = import_bytes(&bytes);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let _ = Scenario::from_query(text.trim());
        }
        read += 1;
    }
    assert!(read >= 5, "the corpus has {read} files");
}

#[test]
fn a_file_over_50_mb_is_refused_before_it_is_parsed() {
    let big = vec![b' '; 50 * 1024 * 1024 + 1];
    let e = import_bytes(&big).unwrap_err().to_string();
    assert!(e.contains("at most"), "{e}");
}

/// Fragments of captures: SSE fields, JSON-RPC envelopes, both wires.
const CAPTURE_PARTS: &[&str] = &[
    "data: ",
    "data:",
    "event: message",
    ": ping",
    "id: 7",
    "\n",
    "\r\n",
    "\n\n",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":\"x\"}}",
    "{\"kind\":\"task\",\"id\":\"t\",\"status\":{\"state\":\"submitted\"}}",
    "{\"kind\":\"status-update\",\"taskId\":\"t\",\"status\":{\"state\":\"working\"},\"final\":false}",
    "{\"kind\":\"status-update\",\"taskId\":\"u\",\"status\":{\"state\":\"completed\"},\"final\":true}",
    "{\"kind\":\"artifact-update\",\"taskId\":\"t\",\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"kind\":\"text\",\"text\":\"x\"}]},\"append\":true}",
    "{\"task\":{\"id\":\"t\",\"status\":{\"state\":\"TASK_STATE_WORKING\"},\"artifacts\":[{\"artifactId\":\"a\",\"parts\":[{\"text\":\"x\"}]}]}}",
    "{\"statusUpdate\":{\"taskId\":\"t\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}",
    "{\"artifactUpdate\":{\"taskId\":\"t\",\"artifact\":{\"artifactId\":\"a\",\"parts\":[]},\"lastChunk\":true}}",
    "}",
    "]",
    "[",
    ",",
    "\"",
    "\u{FFFD}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    /// The wire's schema reader (`wire-shape`) never panics, on events
    /// stitched from real fragments or on any bytes, for either wire and
    /// either shape; every fault it names says what is wrong.
    #[test]
    fn the_schema_reader_never_panics(
        bytes in prop_oneof![
            stitched(CAPTURE_PARTS).prop_map(String::into_bytes),
            json_value().prop_map(|v| v.to_string().into_bytes()),
            prop::collection::vec(any::<u8>(), 0..256),
        ],
        wire in prop_oneof![Just(Wire::V1_0), Just(Wire::V0_3)],
        task in any::<bool>(),
    ) {
        let shape = if task { Shape::Task } else { Shape::Event };
        // Each fault says what its rule is about, in the rule's words.
        for fault in shape_faults(&bytes, wire, shape) {
            let says = match fault.rule {
                ShapeRule::Required => "has no `",
                ShapeRule::EmptyList => "has no parts",
                ShapeRule::StateSpelling => "has state `",
                ShapeRule::RoleSpelling => "has role `",
                ShapeRule::Timestamp => "has timestamp `",
                ShapeRule::Kind => "kind",
                ShapeRule::PartContent => "a part of",
            };
            prop_assert!(fault.detail.contains(says), "{:?}: {}", fault.rule, fault.detail);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    /// The capture reader, one file or several, never panics: it reads a
    /// capture or names what is wrong with it.
    #[test]
    fn capture_reader_never_panics(
        files in prop::collection::vec(prop_oneof![
            stitched(CAPTURE_PARTS).prop_map(String::into_bytes),
            prop::collection::vec(any::<u8>(), 0..256),
        ], 1..4),
        wire in prop::option::of(prop_oneof![Just(Wire::V1_0), Just(Wire::V0_3)]),
    ) {
        let slices: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
        match read_capture(&slices, wire) {
            Ok(report) => {
                let events: u32 = report.tasks.iter().map(|t| t.events).sum();
                prop_assert!(events as usize + report.errors.len() <= report.read);
                prop_assert!(report.findings.iter().all(|f| f.index < report.read.max(1)));
            }
            // Said on one line, short, whatever the input quoted in it.
            Err(e) => {
                let said = e.to_string();
                prop_assert!(!said.is_empty() && !said.contains('\n') && said.chars().count() <= 400, "{said}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    /// A capture fed in chunks of any size, as the page reads a file, is
    /// read exactly as the whole file is: the same report or the same error.
    #[test]
    fn capture_fed_in_chunks_reads_as_a_whole(
        files in prop::collection::vec(stitched(CAPTURE_PARTS).prop_map(String::into_bytes), 1..4),
        cuts in prop::collection::vec(1usize..64, 1..16),
    ) {
        let slices: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
        let whole = read_capture(&slices, None);
        let mut reader = CaptureReader::new(None);
        let mut sizes = cuts.iter().cycle();
        let chunked = slices
            .iter()
            .try_for_each(|file| {
                let mut rest = *file;
                while !rest.is_empty() {
                    let (chunk, after) = rest.split_at((*sizes.next().unwrap_or(&1)).min(rest.len()));
                    reader.feed(chunk)?;
                    rest = after;
                }
                reader.end_file()
            })
            .map(|()| reader.finish());
        prop_assert_eq!(chunked, whole);
    }
}

#[test]
fn hostile_captures_get_a_message_not_a_panic_nor_unbounded_memory() {
    // A line longer than any event: refused, not held.
    let long = format!("data: {}\n\n", "x".repeat(MAX_LINE_BYTES + 10));
    let e = read_capture(&[long.as_bytes()], None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("longer than"), "{e}");
    // Truncated SSE: the last event has no blank line and is cut mid-JSON.
    let truncated =
        b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"task\",\"id\":\"t\",\"sta";
    let e = read_capture(&[truncated], None).unwrap_err().to_string();
    assert!(e.contains("SSE event"), "{e}");
    // Invalid UTF-8 inside an event.
    let bad = b"{\"kind\":\"task\",\"id\":\"\xff\xfe\",\"status\":{\"state\":\"submitted\"}}\n";
    assert!(read_capture(&[bad], None).is_err());
    // Deep nesting.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(read_capture(&[deep.as_bytes()], None).is_err());
    // Many distinct task ids, each left working: one finding each.
    let many: String = (0..20_000)
        .map(|i| format!("{{\"kind\":\"status-update\",\"taskId\":\"t{i}\",\"contextId\":\"c\",\"status\":{{\"state\":\"working\"}},\"final\":false}}\n"))
        .collect();
    let report = read_capture(&[many.as_bytes()], None).unwrap();
    assert_eq!(report.tasks.len(), 20_000);
    assert_eq!(report.findings.len(), 20_000);
}
