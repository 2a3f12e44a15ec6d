//! The ledger on 1,000,000 events: events per second (criterion reports
//! throughput in elements/s). The seed's reference reducer copies its
//! seen-set per event and is quadratic; this one must stay linear.
#![allow(clippy::unwrap_used)]

use a2a_lab::model::evidence::seed_form::SeedEvent;
use a2a_lab::model::ledger::{EventRef, TaskLedger};
use a2a_lab::model::state::SentState;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

/// A deterministic mix: mostly legal moves between working and the
/// interruptions, some duplicates, some illegal edges, a terminal state
/// near the end and late events after it.
pub fn events(n: usize) -> Vec<SeedEvent> {
    let cycle = [
        "working",
        "input-required",
        "working",
        "auth-required",
        "working",
    ];
    (0..n)
        .map(|i| {
            let status = if i + 100 == n {
                "completed"
            } else {
                cycle[i % cycle.len()]
            };
            let id = if i % 17 == 0 && i > 0 {
                format!("e{}", i - 1)
            } else {
                format!("e{i}")
            };
            SeedEvent {
                id,
                status: status.to_string(),
                authorization_receipt: (i % 5 == 4).then(|| "authz:7".to_string()),
            }
        })
        .collect()
}

/// The same events laid out as a parser leaves them: the text in one
/// buffer and each event a few offsets into it, so the benchmark reads its
/// input the way `a2a-lab reduce` does and measures the ledger rather than
/// a million separate allocations.
struct Packed {
    text: String,
    events: Vec<(usize, usize, &'static str, bool)>,
}

impl Packed {
    fn of(events: &[SeedEvent]) -> Packed {
        let mut text = String::new();
        let packed = events
            .iter()
            .map(|e| {
                let start = text.len();
                text.push_str(&e.id);
                let status = ["working", "input-required", "auth-required", "completed"]
                    .into_iter()
                    .find(|s| *s == e.status)
                    .unwrap_or("bogus");
                (start, text.len(), status, e.authorization_receipt.is_some())
            })
            .collect();
        Packed {
            text,
            events: packed,
        }
    }

    fn views(&self) -> impl Iterator<Item = EventRef<'_>> {
        self.events.iter().map(|&(start, end, status, auth)| {
            EventRef::seed(
                &self.text[start..end],
                SentState::read(status),
                auth.then_some("authz:7"),
            )
        })
    }
}

fn bench(c: &mut Criterion) {
    for n in [1_000usize, 100_000, 1_000_000] {
        let seed_events = events(n);
        let packed = Packed::of(&seed_events);
        let ledger_events: Vec<_> = seed_events
            .iter()
            .map(|e| e.to_ledger_event("bench"))
            .collect();
        let mut group = c.benchmark_group("ledger");
        group.throughput(Throughput::Elements(n as u64));
        group.sample_size(10);
        group.bench_function(format!("apply/{n}"), |b| {
            b.iter_batched(
                || TaskLedger::new("bench"),
                |mut ledger| {
                    for e in &ledger_events {
                        ledger.apply(e);
                    }
                    ledger
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("apply_all/{n}"), |b| {
            b.iter_batched(
                || TaskLedger::new("bench"),
                |mut ledger| {
                    ledger.apply_all(packed.views());
                    ledger
                },
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
