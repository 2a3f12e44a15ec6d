//! Scenarios drawn from the key table itself, not spelled by hand, so
//! that a key or a value added to `KEYS` is drawn without anyone writing it
//! here: each key set or left out, its value one of its spellings or a
//! number of its range, and a combination the parser refuses mended by
//! leaving out the key it names. Shared by the tests that hold drawn
//! scenarios to a property (`keys_drawn`, `round_trip`, `scenario_space`),
//! and what client 1 received in one's run, as a capture reads it.
#![cfg(not(target_arch = "wasm32"))]

use a2a_lab::model::sim::keys::{Key, KeySpec, Values, KEYS};
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::sim::simulate;
use proptest::prelude::*;

/// The most a drawn count goes past its key's least value: enough for
/// every place a cancel, a restart or a resend may fall in a short run.
const SPAN: u32 = 8;

/// One value of a key, as its row in the table spells it.
fn value(spec: &KeySpec) -> BoxedStrategy<String> {
    match spec.kind {
        Values::Number { lo, hi } => (lo..=hi.min(lo + SPAN)).prop_map(|n| n.to_string()).boxed(),
        Values::WordOrNumber { word, lo, hi } => prop_oneof![
            Just(word.to_string()),
            (lo..=hi.min(lo + SPAN)).prop_map(|n| n.to_string()),
        ]
        .boxed(),
        Values::Choice(names) => prop::sample::select(names).prop_map(String::from).boxed(),
        // `push`: its words, and `after:k` at any k a short run reaches.
        Values::Own(names) => {
            let words: Vec<&str> = names.iter().copied().filter(|n| !n.contains(':')).collect();
            prop_oneof![
                prop::sample::select(words).prop_map(String::from),
                (1..=SPAN).prop_map(|k| format!("after:{k}")),
            ]
            .boxed()
        }
    }
}

/// Each key of the table set (or, a time in three, left at its default;
/// `preset` rarely, as it replaces every other key), then mended: while
/// the parser refuses the pairs, the key it names is left out.
pub fn drawn() -> impl Strategy<Value = Scenario> {
    drawn_with(1.0 / 1.5)
}

/// As [`drawn`], each key set with probability `p` (`preset` twenty
/// times less often): a small `p` draws scenarios of a few keys each.
pub fn drawn_with(p: f64) -> impl Strategy<Value = Scenario> {
    let keys: Vec<BoxedStrategy<Option<(&'static str, String)>>> = KEYS
        .iter()
        .map(|spec| {
            let name = spec.name;
            let weight = if spec.key == Key::Preset { 20 } else { 1 };
            prop::option::weighted(p / weight as f64, value(spec))
                .prop_map(move |v| v.map(|v| (name, v)))
                .boxed()
        })
        .collect();
    keys.prop_map(|pairs| {
        let mut pairs: Vec<(&str, String)> = pairs.into_iter().flatten().collect();
        loop {
            match Scenario::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))) {
                Ok(s) => return s,
                Err(e) => {
                    let at = pairs.iter().position(|(k, _)| *k == e.key);
                    pairs.remove(at.unwrap_or(pairs.len() - 1));
                }
            }
        }
    })
}

/// What client 1 received in a run, read as a capture reads it, and how
/// its last stream ended.
pub fn received_by_client_1(
    scenario: &Scenario,
) -> (
    Vec<a2a_lab::model::wire::answer::OwnedEvent>,
    Option<a2a_lab::model::trace::StreamEnd>,
) {
    use a2a_lab::model::evidence::scenario_of::received;
    use a2a_lab::model::wire::answer::read_value;
    let run = simulate(scenario);
    let events = received(&run)
        .iter()
        .filter_map(|r| read_value(&r.wire.as_ref()?.json(), Some(scenario.wire)).ok())
        .collect();
    let end = run
        .streams
        .iter()
        .rev()
        .find(|s| s.client == 1 && !s.rows.is_empty())
        .map(|s| s.end);
    (events, end)
}
