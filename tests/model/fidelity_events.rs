//! The recorders' normalized events against the lab's one wire reader: in
//! every fixture that kept the raw wire beside them (both SDKs, the 1.0
//! runs, every subscriber stream, the 0.3 runs), each event the Python and
//! JS recorders wrote (`events`: kind, state, artifact, append, last chunk,
//! after-terminal, in A2A 1.0's words whatever the wire) is what
//! `model::wire` reads of the raw event at the same place, after-terminal
//! being any event after a terminal state. So the
//! recorders' normalizers, which `tests/fidelity/report.py` and the
//! fidelity tests compare with the model, cannot disagree with the reader
//! the capture reader, Import and the probe share.

use crate::model_support;

use std::path::Path;

use a2a_lab::model::state::SentState;
use a2a_lab::model::wire::answer::{read_value, EventKind};
use model_support::fidelity::fixtures_root;
use model_support::recorded::{read_recorded, FixtureIndex, RecordedEvent, RecordedRun, Recording};
use serde_json::Value;

/// An event as the recorders normalize it.
#[derive(Debug, PartialEq)]
struct Normalized {
    kind: String,
    state: Option<String>,
    artifact_id: Option<String>,
    append: bool,
    last_chunk: bool,
    after_terminal: bool,
}

/// What the recorders wrote.
fn recorded(e: &RecordedEvent) -> Normalized {
    Normalized {
        kind: e.kind.clone(),
        state: e.state.clone(),
        artifact_id: e.artifact_id.clone(),
        append: e.append,
        last_chunk: e.last_chunk,
        after_terminal: e.after_terminal,
    }
}

/// What the one reader reads of the raw events, in order.
fn read(wire: &[Value]) -> Vec<Normalized> {
    let mut ended = false;
    wire.iter()
        .map(|raw| {
            let event = read_value(raw, None).unwrap_or_else(|e| panic!("{e}: {raw}"));
            // The recorders name every event in A2A 1.0's words, whatever
            // wire it came on.
            let state = event.state.as_ref().map(|s| match s {
                SentState::Known(state) => state.wire().to_string(),
                SentState::Other(text) => text.to_string(),
            });
            let artifact = event
                .artifacts
                .first()
                .filter(|_| event.kind == EventKind::Artifact);
            let normalized = Normalized {
                kind: event.kind.wrapper().to_string(),
                state,
                artifact_id: artifact.map(|a| a.artifact_id.clone()),
                append: artifact.is_some_and(|a| a.append),
                last_chunk: artifact.is_some_and(|a| a.last),
                after_terminal: ended,
            };
            ended |= event
                .state
                .as_ref()
                .and_then(SentState::known)
                .is_some_and(|s| s.is_terminal());
            normalized
        })
        .collect()
}

/// Every (events, wire) pair of a fixture: a run's, or each of its
/// streams'.
fn pairs(run: &RecordedRun) -> Vec<(&[RecordedEvent], &[Value])> {
    match &run.streams {
        Some(streams) => streams
            .iter()
            .map(|s| (s.events.as_slice(), s.wire.as_slice()))
            .collect(),
        None => run
            .wire
            .iter()
            .map(|wire| (run.events.as_slice(), wire.as_slice()))
            .collect(),
    }
}

fn fixtures(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            fixtures(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn the_recorders_normalize_every_event_as_the_one_reader_reads_it() {
    let mut files = Vec::new();
    fixtures(&fixtures_root(), &mut files);
    files.sort();
    let (mut compared, mut events, mut failures) = (0, 0, Vec::new());
    for file in &files {
        // An index lists fixtures and holds no runs; it must read as one.
        if file.file_name().is_some_and(|n| n == "index.json") {
            let _: FixtureIndex = read_recorded(file);
            continue;
        }
        let fixture: Recording = read_recorded(file);
        for run in &fixture.runs {
            for (normalized, wire) in pairs(run) {
                compared += 1;
                events += wire.len();
                let want: Vec<Normalized> = normalized.iter().map(recorded).collect();
                let got = read(wire);
                if got != want {
                    failures.push(format!(
                        "{}: the recorder wrote {want:?}, the reader reads {got:?}",
                        file.display()
                    ));
                }
            }
        }
    }
    // Every 1.0, subscriber and 0.3 fixture keeps its raw wire (push
    // fixtures keep the webhook's POSTs instead, read by their own test).
    assert!(
        compared > 1000 && events > 4000,
        "{compared} runs, {events} events"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
