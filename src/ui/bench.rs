//! Two functions the performance script calls from the page, so the ledger
//! can be measured in WebAssembly against a JavaScript reducer on the same
//! generated events: `benchPrepare(n, seed)` builds the events (untimed),
//! `benchRun()` reduces them and returns the accepted sequence.

use std::cell::RefCell;

use wasm_bindgen::prelude::wasm_bindgen;

use crate::model::evidence::seed_form::SeedEvent;
use crate::model::ledger::{EventRef, TaskLedger};
use crate::model::state::SentState;

/// The prepared events as a parser leaves them: the ids in one buffer and
/// each event a few fields pointing into it (`a2a-lab reduce` reads its
/// input the same way), so a run measures the ledger, not a million
/// separate allocations.
#[derive(Default)]
struct Prepared {
    ids: String,
    events: Vec<(u32, u32, &'static str, bool)>,
}

thread_local! {
    static EVENTS: RefCell<Prepared> = RefCell::new(Prepared::default());
}

const STATUSES: [&str; 8] = [
    "working",
    "input-required",
    "working",
    "auth-required",
    "working",
    "completed",
    "failed",
    "bogus",
];

/// The i-th generated event for `seed`; the script's JavaScript twin must
/// produce the same sequence.
pub fn generated(i: u32, seed: u32) -> SeedEvent {
    let mut x = i.wrapping_mul(2_654_435_761) ^ seed;
    x ^= x >> 13;
    x = x.wrapping_mul(0x5bd1_e995);
    x ^= x >> 15;
    // Rare terminal and bogus statuses keep most events legal moves.
    let status = if x % 1000 == 0 {
        STATUSES[5 + (x as usize / 1000) % 3]
    } else {
        STATUSES[(x % 5) as usize]
    };
    let id = if x % 17 == 0 && i > 0 { i - 1 } else { i };
    SeedEvent {
        id: format!("e{id}"),
        status: status.to_string(),
        authorization_receipt: (x % 3 == 0).then(|| "authz:7".to_string()),
    }
}

/// Builds `n` events for `seed` and keeps them for [`bench_run`].
#[wasm_bindgen(js_name = benchPrepare)]
pub fn bench_prepare(n: u32, seed: u32) {
    let mut prepared = Prepared::default();
    for i in 0..n {
        let event = generated(i, seed);
        let start = prepared.ids.len() as u32;
        prepared.ids.push_str(&event.id);
        let status = STATUSES
            .into_iter()
            .find(|s| *s == event.status)
            .unwrap_or("bogus");
        prepared.events.push((
            start,
            prepared.ids.len() as u32,
            status,
            event.authorization_receipt.is_some(),
        ));
    }
    EVENTS.with(|e| *e.borrow_mut() = prepared);
}

/// Reduces the prepared events through a fresh ledger; returns the
/// accepted sequence (so both sides can be checked to agree).
#[wasm_bindgen(js_name = benchRun)]
pub fn bench_run() -> u32 {
    EVENTS.with(|prepared| {
        let prepared = prepared.borrow();
        let mut ledger = TaskLedger::new("bench");
        ledger.apply_all(
            prepared
                .events
                .iter()
                .map(|&(start, end, status, receipt)| {
                    let id = prepared.ids.get(start as usize..end as usize);
                    EventRef::seed(
                        id.unwrap_or_default(),
                        SentState::read(status),
                        receipt.then_some("authz:7"),
                    )
                }),
        );
        ledger.sequence() as u32
    })
}
