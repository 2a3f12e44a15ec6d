//! Explaining a task by the scenario that reproduces it (issue 40): one
//! stream of N appended chunks that ends in a state no SDK sends, so that
//! no scenario reproduces it and the search runs to its budget, at 100,
//! 1,000 and 10,000 chunks (the cost must grow at most linearly, and stay
//! under 1 s at 10,000), and at 30,000, past the lab's largest scenario,
//! where no candidate is one the lab can simulate and each is charged what
//! reading it costs (issue 58); and the same stream ended as a2a-sdk ends
//! it, which the first candidate reproduces, up to 10,000 chunks.
#![allow(clippy::unwrap_used)]

use a2a_lab::model::evidence::scenario_of::scenario_of;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[path = "../tests/model_support/long_stream.rs"]
mod long_stream;
use long_stream::long_stream as stream;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("explain");
    group.sample_size(10);
    for chunks in [100usize, 1_000, 10_000, 30_000] {
        group.throughput(Throughput::Elements(chunks as u64 + 3));
        let unexplained = stream(chunks, "submitted");
        let found = scenario_of(&unexplained, None);
        assert!(!found.reproduces, "{found:?}");
        group.bench_function(format!("unreproduced/{chunks}"), |b| {
            b.iter(|| scenario_of(&unexplained, None))
        });
        if chunks > 10_000 {
            continue;
        }
        let reproduced = stream(chunks, "completed");
        assert!(scenario_of(&reproduced, None).reproduces);
        group.bench_function(format!("reproduced/{chunks}"), |b| {
            b.iter(|| scenario_of(&reproduced, None))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
