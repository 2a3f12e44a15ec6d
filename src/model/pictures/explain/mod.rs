//! Plain-language readings of a trace: the outcome in one sentence
//! (`outcome.rs`, with the push and subscriber sentences in `streams.rs`)
//! and the seed's "what carries over" advice that applies to this scenario
//! (`advice.rs`), both computed from the trace, naming the SDK whose
//! behaviour they describe.

mod advice;
mod outcome;
mod streams;

pub use advice::{advice, Advice};
pub use outcome::outcome;

use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::Scenario;
use crate::model::trace::{Metrics, Run};

/// The final state's short name, or "lost".
fn state_label(m: &Metrics) -> String {
    m.final_state.map_or("lost", |s| s.short()).to_string()
}

/// "1 event", "2 events".
fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The facts of a run every sentence of its explanation starts from.
struct RunFacts<'a> {
    sc: &'a Scenario,
    run: &'a Run,
    m: &'a Metrics,
    /// The SDK whose behaviour the run follows.
    sdk: &'static str,
    /// "N event(s)" delivered.
    events: String,
    /// The final state's short name, or "lost".
    state: String,
}

impl<'a> RunFacts<'a> {
    fn of(sc: &'a Scenario, run: &'a Run) -> RunFacts<'a> {
        let m = &run.trace.metrics;
        RunFacts {
            sc,
            run,
            m,
            sdk: Profile::of(sc.sdk).name,
            events: plural(m.events_delivered, "event", "events"),
            state: state_label(m),
        }
    }
}
