//! Issue 58, item 5: random scenarios drawn from the key table itself,
//! not spelled by hand, so that a key or a value added to `KEYS` is drawn
//! without anyone writing it here: each key set or left out, its value
//! one of its spellings or a number of its range, and a combination the
//! parser refuses mended by leaving out the key it names. Every value of
//! every key must turn up in a scenario that parses (`ending=raise`,
//! `webhook`, `webhook_delay_ms`, `push_auth` and `push=after:k`
//! included), and the simulator must take each.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use crate::drawn::{drawn, received_by_client_1};
use a2a_lab::model::sim::keys::{Key, ReadBack, Values, KEYS};
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::sim::simulate;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

#[test]
fn every_value_of_every_key_is_drawn_in_a_scenario_that_parses() {
    let mut runner = TestRunner::deterministic();
    let strategy = drawn();
    let mut seen: BTreeSet<(&str, String)> = BTreeSet::new();
    for _ in 0..4_000 {
        let scenario = strategy.new_tree(&mut runner).unwrap().current();
        for spec in KEYS {
            if let Some(v) = scenario.get(spec.name) {
                let v = if v.starts_with("after:") {
                    "after:k".into()
                } else {
                    v
                };
                seen.insert((spec.name, v));
            }
        }
    }
    for spec in KEYS {
        let want: Vec<String> = match spec.kind {
            Values::Choice(names) => names.iter().map(|n| n.to_string()).collect(),
            Values::Own(_) => vec!["off".into(), "inline".into(), "after:k".into()],
            Values::Number { lo, .. } => vec![lo.to_string(), (lo + 1).to_string()],
            Values::WordOrNumber { word, lo, .. } => {
                vec![word.to_string(), lo.to_string(), (lo + 1).to_string()]
            }
        };
        for v in want {
            assert!(
                seen.contains(&(spec.name, v.clone())),
                "`{}={v}` was never drawn in a scenario that parses",
                spec.name
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// A drawn scenario is one the lab writes and reads back as itself,
    /// and simulates.
    #[test]
    fn a_drawn_scenario_round_trips_its_query_and_simulates(scenario in drawn()) {
        let query = scenario.to_query();
        prop_assert_eq!(&Scenario::from_query(&query).unwrap(), &scenario, "{}", query);
        let run = simulate(&scenario);
        prop_assert!(!run.trace.rows.is_empty(), "{}", query);
    }
}

/// The key table's read-back column, checked both ways on drawn
/// scenarios' traffic: a key it says is off the wire is never read back
/// (the explanation leaves it at its default), and each key it says is
/// observed or searched is read back off some drawn scenario's events.
#[test]
fn the_read_back_column_says_which_keys_the_reader_sets() {
    use a2a_lab::model::evidence::scenario_of::scenario_of;
    let mut runner = TestRunner::deterministic();
    let strategy = drawn();
    let defaults = Scenario::default();
    let mut set: BTreeSet<&str> = BTreeSet::new();
    for _ in 0..300 {
        let drawn = strategy.new_tree(&mut runner).unwrap().current();
        let (events, end) = received_by_client_1(&drawn);
        let found = scenario_of(&events, end);
        // A reading past a key's limit has a query no scenario takes.
        let Ok(read) = Scenario::from_query(&found.query) else {
            continue;
        };
        for spec in KEYS {
            if read.get(spec.name) != defaults.get(spec.name) {
                set.insert(spec.name);
                assert!(
                    !matches!(spec.read_back, ReadBack::OffTheWire { .. }),
                    "`{}` is said to be off the wire, yet read back off {} as {}",
                    spec.name,
                    drawn.to_query(),
                    found.query
                );
            }
        }
    }
    for spec in KEYS {
        // The push keys are read off a webhook's log, not client 1's
        // events, and a second client's stream is not client 1's either.
        let elsewhere = matches!(
            spec.key,
            Key::Push
                | Key::Webhook
                | Key::WebhookDelayMs
                | Key::PushAuth
                | Key::PushFollowup
                | Key::SecondClient
        );
        if spec.read_back != ReadBack::Observed || elsewhere {
            continue;
        }
        assert!(
            set.contains(spec.name),
            "`{}` is said to be observed, yet never read back",
            spec.name
        );
    }
}
