//! A proptest-based fuzz harness for the three parsers that take hostile
//! input: the scenario query (URL, CLI), an imported export, and a raw A2A
//! event log (JSON array or SSE). None may panic; bad input must come back
//! as an error with a message.
//!
//! CI runs a few thousand cases per parser; a local soak runs more:
//! `FUZZ_CASES=1000000 cargo test --release --test fuzz_parsers`.
//! Inputs that once broke a parser live in `tests/fuzz_corpus/` and are
//! replayed on every run.
#![cfg(not(target_arch = "wasm32"))]

use a2a_lab::model::check::import_bytes;
use a2a_lab::model::export::export_json;
use a2a_lab::model::scenario::Scenario;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

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

fn stitched(parts: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(parts), 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn query_parser_never_panics(q in prop_oneof![stitched(QUERY_PARTS), any::<String>()]) {
        match Scenario::from_query(&q) {
            Ok(s) => prop_assert_eq!(Scenario::from_query(&s.to_query()).unwrap(), s),
            Err(e) => prop_assert!(!e.key.is_empty() && !e.message.is_empty()),
        }
    }

    #[test]
    fn import_never_panics(text in prop_oneof![stitched(JSON_PARTS), any::<String>()]) {
        if let Err(e) = import_bytes(text.as_bytes()) {
            prop_assert!(!e.is_empty());
        }
    }

    #[test]
    fn import_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = import_bytes(&bytes);
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
    let e = import_bytes(&big).unwrap_err();
    assert!(e.contains("at most"), "{e}");
}
