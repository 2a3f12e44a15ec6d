//! The scenario reader and the simulator are inverses (SPEC §15): a
//! scenario drawn from the key table, simulated, and what client 1
//! received read back by `scenario_of`, gives a scenario whose simulation
//! streams the same events. Checked both ways at once: the reader's
//! keys must make the simulator say what the drawn keys made it say.
//!
//! Where the reader does not read a combination of two keys yet, the settings
//! are listed in [`NOT_YET_READ`] with a run that shows it, and
//! `every_combination_not_yet_read_still_is_not` fails once the reader learns
//! it, so the list only shrinks.
#![cfg(not(target_arch = "wasm32"))]

use crate::drawn::{drawn_with, received_by_client_1};
use a2a_lab::model::evidence::scenario_of::{scenario_of, ScenarioOf};
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::wire::answer::OwnedEvent;
use proptest::prelude::*;

/// Settings whose traffic, together, the reader does not explain yet,
/// each with the smallest scenario that shows it. A setting is `key` (set
/// to anything but its default) or `key=value`.
const NOT_YET_READ: &[(&[&str], &str)] = &[
    // A retried submission's second Task snapshot, read beside another
    // break in the stream.
    (&["retry=on", "cancel"], "cancel=2&retry=on"),
    (&["retry=on", "dup"], "dup=3&retry=on"),
    (&["retry=on", "interrupt"], "interrupt=input&retry=on"),
    (&["retry=on", "ending=raise"], "ending=raise&retry=on"),
    (&["retry=on", "resubscribe"], "retry=on&resubscribe=6"),
    // A resubscription's streams, read one after another, beside what
    // else breaks or interrupts them.
    (
        &["resubscribe", "interrupt"],
        "interrupt=input&resubscribe=1",
    ),
    (&["resubscribe", "dup"], "dup=3&resubscribe=1"),
    (&["resubscribe", "progress"], "resubscribe=1&progress=1"),
    (&["resubscribe", "timeout_ms"], "timeout_ms=1&resubscribe=1"),
    (&["resubscribe", "chunks=0"], "chunks=0&resubscribe=1"),
    // A stream the client's own timeout cut, among progress updates.
    (&["timeout_ms", "progress"], "timeout_ms=1&progress=3"),
    // A restart's re-sent events read as a cancel's.
    (&["restart", "interrupt"], "restart=2&interrupt=input"),
    (&["restart", "progress"], "restart=2&progress=1"),
    // A cancel that raises, beside an interruption or progress updates.
    (
        &["cancel", "cancel_impl=raise", "interrupt"],
        "cancel=1&cancel_impl=raise&interrupt=both",
    ),
    (
        &["cancel", "cancel_impl=raise", "progress"],
        "cancel=0&cancel_impl=raise&progress=2",
    ),
    (
        &["cancel", "cancel_impl=noop", "progress"],
        "cancel=1&cancel_impl=noop&progress=8",
    ),
    (
        &["cancel", "interrupt", "dup"],
        "cancel=0&interrupt=both&dup=5",
    ),
    (&["cancel", "dup", "progress"], "cancel=0&dup=6&progress=3"),
    (
        &["cancel", "cancel_impl=noop", "interrupt"],
        "cancel=2&cancel_impl=noop&interrupt=input",
    ),
    // A stream cut by its client's timeout, beside an interruption or a
    // push config.
    (
        &["timeout_ms", "interrupt", "dup"],
        "timeout_ms=1&interrupt=both&dup=4",
    ),
    (
        &["timeout_ms", "interrupt", "sdk=rust"],
        "step_ms=4&timeout_ms=6&interrupt=both&sdk=rust",
    ),
    (
        &["timeout_ms", "push", "webhook_delay_ms"],
        "timeout_ms=3&push=after:1&webhook_delay_ms=9",
    ),
    (
        &["timeout_ms", "retry=on", "sdk=js"],
        "step_ms=2&timeout_ms=8&retry=on&sdk=js",
    ),
    // A retried submission on a stream cut by its client's timeout, or
    // after a restart.
    (
        &["timeout_ms", "retry=on", "ending=never"],
        "step_ms=5&ending=never&timeout_ms=6&retry=on",
    ),
    (
        &["restart", "retry=on", "result=last"],
        "restart=3&retry=on&result=last",
    ),
    // A resubscription beside a push config whose webhook is slow.
    (
        &["resubscribe", "push", "webhook_delay_ms"],
        "resubscribe=1&push=inline&webhook_delay_ms=4",
    ),
    // a2a-rs's retried submission on a stream its client's timeout cut.
    (
        &["timeout_ms", "retry=on", "sdk=rust"],
        "step_ms=2&timeout_ms=3&retry=on&sdk=rust",
    ),
    (
        &["restart", "resubscribe", "ending=auth"],
        "ending=auth&restart=3&resubscribe=4",
    ),
    // A late artifact on a resubscribed stream of an interrupted task.
    (
        &["late", "resubscribe", "ending=input"],
        "ending=input&late=0&resubscribe=5",
    ),
    // A late artifact after `execute()` returned without an ending.
    (&["late", "ending=return"], "ending=return&late=3"),
];

/// Whether `scenario` has `setting` (`key` off its default, or
/// `key=value`).
fn has(scenario: &Scenario, setting: &str) -> bool {
    match setting.split_once('=') {
        Some((key, value)) => scenario.get(key).as_deref() == Some(value),
        None => scenario.get(setting) != Scenario::default().get(setting),
    }
}

/// The settings of [`NOT_YET_READ`] that `scenario` holds, if any.
fn not_yet_read(scenario: &Scenario) -> Option<&'static str> {
    NOT_YET_READ
        .iter()
        .find(|(settings, _)| settings.iter().all(|s| has(scenario, s)))
        .map(|(_, shown_by)| *shown_by)
}

/// What client 1 received in the run of `scenario`, as a capture reads
/// it, and what `scenario_of` reads back from it.
fn read_back(scenario: &Scenario) -> (Vec<OwnedEvent>, ScenarioOf) {
    let (events, end) = received_by_client_1(scenario);
    let found = scenario_of(&events, end);
    (events, found)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// A few keys at a time, so that a failure names the few settings
    /// it is about; the dense draws of `keys_drawn` hold each scenario to the
    /// simulator alone.
    #[test]
    fn the_reader_reads_back_what_the_simulator_streamed(scenario in drawn_with(0.12)) {
        prop_assume!(not_yet_read(&scenario).is_none());
        let (events, found) = read_back(&scenario);
        // A client that received nothing (a blocking call cut by its
        // timeout or a restart, a preset of the seed's ledgers) leaves
        // nothing to read back.
        prop_assume!(!events.is_empty());
        prop_assert!(
            found.reproduces,
            "?{} streamed {} events; read back as ?{}: {:?}",
            scenario.to_query(),
            events.len(),
            found.query,
            found.first_difference
        );
        let again = Scenario::from_query(&found.query);
        prop_assert!(again.is_ok(), "?{} read back as ?{}, which does not parse", scenario.to_query(), found.query);
    }
}

#[test]
fn every_combination_not_yet_read_still_is_not() {
    for (settings, shown_by) in NOT_YET_READ {
        let scenario = Scenario::from_query(shown_by).unwrap();
        assert!(
            settings.iter().all(|s| has(&scenario, s)),
            "{shown_by} does not hold {settings:?}"
        );
        let (events, found) = read_back(&scenario);
        assert!(!events.is_empty(), "{shown_by}: nothing received");
        assert!(
            !found.reproduces,
            "?{shown_by} is read back now (as ?{}): take {settings:?} off NOT_YET_READ",
            found.query
        );
    }
}
