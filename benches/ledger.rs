//! The ledger on 1,000,000 events: events per second (criterion reports
//! throughput in elements/s). The seed's reference reducer copies its
//! seen-set per event and is quadratic; this one must stay linear.

use a2a_lab::model::ledger::TaskLedger;
use a2a_lab::model::seed_form::SeedEvent;
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

fn bench(c: &mut Criterion) {
    for n in [1_000usize, 100_000, 1_000_000] {
        let ledger_events: Vec<_> = events(n)
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
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
