//! The page's Import read a slice at a time (`Importer`): whatever the
//! slices, it reads what the whole files read, an export is told from a
//! capture by its first line, and a bad file says which it is.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use a2a_lab::model::evidence::export::export_json;
use a2a_lab::model::evidence::import::Importer;
use a2a_lab::model::evidence::import::{import_bytes, Imported};
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::wire::read_error::{Place, ReadError, ReadKind};
use model_support::{fuzz_cases, sse};
use proptest::prelude::*;
use serde_json::Value;

/// Feeds `files` to an importer `step` bytes at a time.
fn sliced(files: &[&[u8]], step: usize) -> Result<Imported, ReadError> {
    let mut importer = Importer::new(files.len());
    for file in files {
        for chunk in file.chunks(step.max(1)) {
            importer.feed(chunk)?;
        }
        importer.end_file()?;
    }
    importer.finish()
}

#[test]
fn an_export_in_slices_restores_its_scenario_as_the_whole_file_does() {
    let export = export_json(&Scenario::from_query("late=0&cancel=1").unwrap());
    let whole = import_bytes(export.as_bytes()).unwrap();
    assert!(matches!(whole, Imported::Export { .. }));
    for step in [1, 7, 4096, 1 << 20] {
        assert_eq!(sliced(&[export.as_bytes()], step).unwrap(), whole, "{step}");
    }
    // On one line, too.
    let line = serde_json::to_string(&serde_json::from_str::<Value>(&export).unwrap()).unwrap();
    assert_eq!(sliced(&[line.as_bytes()], 100).unwrap(), whole);
}

#[test]
fn a_capture_in_slices_is_judged_as_the_whole_file_is() {
    let capture = sse("late=0");
    let whole = import_bytes(capture.as_bytes()).unwrap();
    let Imported::Capture(report) = &whole else {
        panic!("a capture")
    };
    assert_eq!(report.findings.len(), 1, "{:?}", report.findings);
    for step in [1, 3, 64, 4095, 4096, 1 << 20] {
        assert_eq!(
            sliced(&[capture.as_bytes()], step).unwrap(),
            whole,
            "{step}"
        );
    }
}

#[test]
fn bad_files_are_refused_with_the_file_named_when_there_are_several() {
    assert_eq!(
        sliced(&[b"  \n "], 1).unwrap_err().to_string(),
        "no A2A events in file 1"
    );
    assert_eq!(
        sliced(&[&vec![b' '; 10_000]], 512).unwrap_err().to_string(),
        "no A2A events in file 1"
    );
    let good = sse("");
    let e = sliced(&[good.as_bytes(), b"data: {\"kind\":\n\n"], 5)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("file 2: SSE event ending at line 2"), "{e}");
    let e = sliced(&[b"not a capture\n", good.as_bytes()], 5)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("file 1: line 1 is neither JSON"), "{e}");
    let e = sliced(&[b"{\"format\": "], 3).unwrap_err().to_string();
    assert!(e.contains("malformed JSON"), "{e}");
}

#[test]
fn where_a_bad_file_went_wrong_is_data_and_a_file_without_events_is_a_kind() {
    let good = sse("");
    let e = sliced(&[good.as_bytes(), b"data: {\"kind\":\n\n"], 5).unwrap_err();
    assert_eq!(
        e.at(),
        [Place::File("file 2".into()), Place::SseEvent { ends_at: 2 }]
    );
    assert_eq!((e.file(), e.line()), (Some("file 2"), Some(2)));
    let e = sliced(&[b"not a capture\n", good.as_bytes()], 5).unwrap_err();
    assert_eq!(e.kind(), &ReadKind::NotACapture);
    assert_eq!(e.line(), Some(1));
    // However the reader learnt that nothing was in it (blanks kept whole,
    // an empty array streamed), Import names the one file it was given.
    for empty in [&b" \n"[..], b"[]"] {
        let mut importer = Importer::named(vec!["capture.sse".into()]);
        importer.feed(empty).unwrap();
        importer.end_file().unwrap();
        let e = importer.finish().unwrap_err();
        assert_eq!(
            e.kind(),
            &ReadKind::NoEvents {
                files: vec!["capture.sse".into()]
            }
        );
    }
    let e = import_bytes(b"\n").unwrap_err();
    assert!(matches!(e.kind(), ReadKind::NoEvents { .. }), "{e}");
}

#[test]
fn input_that_holds_no_a2a_event_is_refused_by_name_not_read_as_clean() {
    let good = sse("");
    // A JSON-RPC error alone is an answer, listed under `errors` (SPEC §8):
    // not among these.
    let empties: [&[u8]; 4] = [b"", b"\n\n  \r\n", b": ping\n\n: ping\n", b"[]"];
    for empty in empties {
        let one = |step| {
            let mut importer = Importer::named(vec!["capture.sse".into()]);
            for chunk in empty.chunks(step) {
                importer.feed(chunk)?;
            }
            importer.end_file()?;
            importer.finish()
        };
        for step in [1, 3, 4096] {
            assert_eq!(
                one(step).unwrap_err().to_string(),
                "no A2A events in capture.sse",
                "{:?} in slices of {step}",
                String::from_utf8_lossy(empty)
            );
        }
        assert_eq!(
            import_bytes(empty).unwrap_err().to_string(),
            "no A2A events in the file"
        );
        // Beside a file with events, the empty one is named.
        let mut importer = Importer::named(vec!["stream.sse".into(), "resubscribed.sse".into()]);
        importer.feed(good.as_bytes()).unwrap();
        importer.end_file().unwrap();
        importer.feed(empty).unwrap();
        importer.end_file().unwrap();
        assert_eq!(
            importer.finish().unwrap_err().to_string(),
            "no A2A events in resubscribed.sse"
        );
    }
    // Events beside lines that are not events are read as before.
    let mut with_comments = String::from(": ping\n\n");
    with_comments.push_str(&good);
    let Imported::Capture(report) = import_bytes(with_comments.as_bytes()).unwrap() else {
        panic!("a capture")
    };
    assert!(report.findings.is_empty());
}

#[test]
fn more_than_the_page_reads_is_refused_as_it_arrives() {
    let mut importer = Importer::new(2);
    let slice = vec![b'\n'; 1 << 20];
    let mut fed = Ok(());
    for _ in 0..60 {
        fed = importer.feed(&slice);
        if fed.is_err() {
            break;
        }
    }
    let e = fed.unwrap_err().to_string();
    assert!(e.contains("the page reads at most"), "{e}");
}

/// Cases per property in CI; a soak sets `FUZZ_CASES` as for `fuzz_parsers`.
const CASES: u32 = 2000;

/// Fragments of exports and captures.
const PARTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    "\n",
    " ",
    "\u{feff}",
    "\"format\"",
    ": \"a2a-lifecycle-lab/trace\"",
    "\"version\": 1",
    "data: ",
    ": ping\n",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":",
    "{\"kind\":\"task\",\"id\":\"t\",\"status\":{\"state\":\"submitted\"}}",
    "{\"kind\":\"status-update\",\"taskId\":\"t\",\"status\":{\"state\":\"completed\"},\"final\":true}",
    "{\"statusUpdate\":{\"taskId\":\"t\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(CASES), failure_persistence: None, ..ProptestConfig::default() })]

    /// Any slicing reads what the whole files read.
    #[test]
    fn any_slices_read_as_the_whole_files(
        files in prop::collection::vec(
            prop::collection::vec(prop::sample::select(PARTS), 0..24).prop_map(|v| v.concat()),
            1..4,
        ),
        step in 1usize..40,
    ) {
        let slices: Vec<&[u8]> = files.iter().map(|f| f.as_bytes()).collect();
        prop_assert_eq!(sliced(&slices, step), sliced(&slices, usize::MAX));
    }
}
