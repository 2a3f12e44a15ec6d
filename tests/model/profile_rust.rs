//! The a2a-rs profile (SPEC §7, §16): `sdk=rust`, each difference from
//! a2a-sdk measured in `tests/fidelity/fixtures/rust/` by name, the keys it
//! has no counterpart of, and the bytes that name it.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use a2a_lab::model::evidence::capture::CaptureReader;
use a2a_lab::model::sim::keys::Sdk;
use a2a_lab::model::sim::profile::sdk_named;
use a2a_lab::model::sim::scenario::{Key, Scenario};
use a2a_lab::model::state::TaskState;
use a2a_lab::model::trace::CancelResult;
use model_support::fidelity::{every, fixture_dir};
use model_support::metrics;
use model_support::recorded::RecordedRun;

#[test]
fn keys_without_a_counterpart_in_a2a_rs_are_refused_and_their_control_says_why() {
    for (query, key, why) in [
        ("sdk=rust&wire=0.3", "wire", "no A2A 0.3 wire"),
        ("sdk=rust&store=database", "store", "only InMemoryTaskStore"),
        (
            "sdk=rust&restart=2&store=database",
            "store",
            "only InMemoryTaskStore",
        ),
    ] {
        let e = Scenario::from_query(query).unwrap_err();
        assert_eq!(e.key, key, "{query}");
        assert!(
            e.message.contains("does not apply with sdk=rust") && e.message.contains(why),
            "{query}: {}",
            e.message
        );
    }
    let rust = Scenario::from_query("sdk=rust&restart=2").unwrap();
    assert!(rust.applies(Key::Wire).unwrap_err().contains("-32009"));
    assert!(rust.applies(Key::Store).is_err());
    let python = Scenario::from_query("restart=2").unwrap();
    assert!(python.applies(Key::Wire).is_ok() && python.applies(Key::Store).is_ok());
    // Switching an SDK that serves 0.3 to one that does not is refused too.
    let on_03 = Scenario::from_query("wire=0.3").unwrap();
    assert_eq!(on_03.with("sdk", "rust").unwrap_err().key, "wire");
}

#[test]
fn a2a_rs_drops_the_executor_at_the_terminal_status_so_a_late_artifact_never_comes() {
    let rs = metrics("late=0&sdk=rust");
    assert_eq!(
        (
            rs.events_delivered,
            rs.events_after_terminal,
            rs.get_task_artifacts
        ),
        (6, 0, Some(1))
    );
    let block = metrics("late=0&client=block&sdk=rust");
    assert_eq!(
        (block.blocking_result_artifacts, block.get_task_artifacts),
        (Some(1), Some(1))
    );
}

#[test]
fn a2a_rs_cancel_lets_the_awaiting_step_in_progress_finish() {
    assert_eq!(metrics("cancel=1").orphaned_steps, 0);
    for (query, orphans) in [
        ("cancel=1&sdk=rust", 1),
        ("cancel=0&sdk=rust", 1),
        ("cancel=1&work=to_thread&sdk=rust", 2),
        ("cancel=1&work=flag&sdk=rust", 1),
    ] {
        let m = metrics(query);
        assert_eq!(m.orphaned_steps, orphans, "{query}");
        assert_eq!(m.cancel_result, Some(CancelResult::Canceled), "{query}");
    }
}

#[test]
fn a2a_rs_stores_canceled_before_cancel_runs_so_a_failing_cancel_still_cancels() {
    let raise = metrics("cancel=1&cancel_impl=raise&sdk=rust");
    assert_eq!(raise.cancel_result, Some(CancelResult::Error));
    assert_eq!(raise.final_state, Some(TaskState::Canceled));
    assert_eq!((raise.events_delivered, raise.orphaned_steps), (3, 1));
    let noop = metrics("cancel=1&cancel_impl=noop&sdk=rust");
    assert_eq!(noop.cancel_result, Some(CancelResult::Canceled));
    assert_eq!(noop.final_state, Some(TaskState::Canceled));
    assert_eq!((noop.events_delivered, noop.orphaned_steps), (3, 1));
}

#[test]
fn a2a_rs_leaves_a_raising_executors_task_working() {
    let rs = metrics("ending=raise&sdk=rust");
    assert_eq!(rs.final_state, Some(TaskState::Working));
    assert_eq!(rs.tasks_non_terminal, 1);
    assert_eq!(metrics("ending=raise").final_state, Some(TaskState::Failed));
}

#[test]
fn a2a_rs_refuses_a_subscription_once_the_execution_ended() {
    // INPUT_REQUIRED: a2a-sdk sends the snapshot and keeps the stream
    // open; a2a-rs finds no execution (-32001).
    let py = metrics("ending=input&resubscribe=6");
    let rs = metrics("ending=input&resubscribe=6&sdk=rust");
    assert_eq!((py.hung_streams, rs.hung_streams), (1, 0));
}

/// The raw SSE bodies of a recorded run: its `sse_raw`, or each stream's
/// `raw`.
fn raws(run: &RecordedRun) -> Vec<&str> {
    let raws: Vec<&str> = match &run.streams {
        Some(streams) => streams.iter().filter_map(|s| s.raw.as_deref()).collect(),
        None => run.sse_raw.as_deref().into_iter().collect(),
    };
    raws.into_iter().filter(|r| !r.is_empty()).collect()
}

/// The SDK each recorded stream's bytes name, read as `check` reads a
/// capture of them, with how many streams of a folder were read.
fn named_in(folder: &str) -> (Vec<(String, Option<Sdk>)>, usize) {
    let mut named = Vec::new();
    let mut read = 0;
    let root = fixture_dir(folder);
    for dir in [root.clone(), root.join("subscribe")] {
        for fixture in every(&dir) {
            for run in &fixture.recording.runs {
                for raw in raws(run) {
                    let mut reader = CaptureReader::new(None).keeping_events();
                    reader.read_bytes(raw.as_bytes()).unwrap();
                    let report = reader.finish();
                    let Some(signs) = report.signs.first() else {
                        continue;
                    };
                    read += 1;
                    named.push((fixture.stem(), sdk_named(signs)));
                }
            }
        }
    }
    (named, read)
}

/// Nanosecond timestamps and sorted keys name a2a-rs in every stream it
/// was recorded sending; no stream of the other SDKs is named a2a-rs.
#[test]
fn every_recorded_a2a_rs_stream_is_named_by_its_bytes_and_no_other_sdks_is() {
    let (rust, read) = named_in("rust");
    assert!(read >= 100, "only {read} a2a-rs streams read");
    let missed: Vec<_> = rust.iter().filter(|(_, s)| *s != Some(Sdk::Rust)).collect();
    assert!(missed.is_empty(), "{missed:?}");
    for other in ["python", "js"] {
        let (named, read) = named_in(other);
        assert!(read >= 100, "only {read} {other} streams read");
        let wrong: Vec<_> = named
            .iter()
            .filter(|(_, s)| *s == Some(Sdk::Rust))
            .collect();
        assert!(wrong.is_empty(), "{other}: {wrong:?}");
    }
}
