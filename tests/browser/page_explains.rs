//! The page explains a task as `check` does (issue 40): the same bytes,
//! read as the page imports them and explained when the task is opened,
//! give the same scenario as `check`'s reading, a task over several
//! streams included. Run natively by `cargo test` and in headless
//! Chromium by the browser tests, where the page's bundle is built.

use a2a_lab::model::evidence::import::{Imported, Importer};
use a2a_lab::model::pictures::shown::Shown;

use crate::recorded::Recording;

/// @a2a-js/sdk, recorded: the stream dropped after its 3rd event, then
/// SubscribeToTask, which ends where `execute()` returned (WORKING).
const FIXTURE: &str =
    include_str!("../fidelity/fixtures/js/subscribe/ending-return_resubscribe-3.json");

/// Each stream's bytes as received, one file each.
fn files() -> Vec<String> {
    let fixture: Recording = serde_json::from_str(FIXTURE).unwrap();
    fixture.runs[0]
        .streams
        .as_ref()
        .unwrap()
        .iter()
        .map(|s| s.raw.clone().unwrap())
        .collect()
}

fn import(explain_at_once: bool) -> Imported {
    let files = files();
    let names = (0..files.len())
        .map(|i| format!("stream-{i}.sse"))
        .collect();
    let mut importer = Importer::named(names);
    for file in &files {
        importer.feed(file.as_bytes()).unwrap();
        importer.end_file().unwrap();
    }
    if explain_at_once {
        importer.finish().unwrap()
    } else {
        importer.finish_unexplained().unwrap()
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_task_over_two_streams_is_explained_on_opening_it_as_check_explains_it() {
    assert_eq!(files().len(), 2, "the send stream and the resubscription");
    // `check`'s reading: every task with a finding explained at once.
    let Imported::Capture(checked) = import(true) else {
        panic!("a capture")
    };
    let by_check = checked.tasks[0].scenario.as_deref().unwrap().to_string();
    assert_eq!(
        by_check,
        "scenario: ?ending=return&sdk=js&resubscribe=3 (reproduces it)"
    );
    // The page's: nothing explained until the task is opened, then the
    // same scenario.
    let Imported::Capture(report) = import(false) else {
        panic!("a capture")
    };
    assert!(report.tasks[0].scenario.is_none());
    let shown = Shown::capture(report);
    assert!(shown.chosen_waits());
    assert!(shown.scenario_of_chosen().is_none());
    // The page's own search, run to its end now.
    let (view, job) = shown.begin_chosen().expect("the chosen task waits");
    let found = a2a_lab::model::evidence::scenario_of::at_once(job.run(None));
    view.ended(&job, found);
    assert!(!shown.chosen_waits());
    assert_eq!(shown.scenario_of_chosen().unwrap().to_string(), by_check);
}
