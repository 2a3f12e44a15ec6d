//! Simulate and serialize the export at 3, 1,000 and 10,000 chunks (cost
//! must grow linearly), and the query codec.
#![allow(clippy::unwrap_used)]

use a2a_lab::model::evidence::export::export_json;
use a2a_lab::model::sim::scenario::Scenario;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate+export");
    group.sample_size(10);
    for chunks in [3u32, 1_000, 10_000] {
        let scenario =
            Scenario::from_query(&format!("chunks={chunks}&late=0&cancel={}", chunks / 2)).unwrap();
        group.throughput(Throughput::Elements(u64::from(chunks)));
        group.bench_function(format!("chunks={chunks}"), |b| {
            b.iter(|| export_json(&scenario))
        });
    }
    group.finish();
    let query = "chunks=1000&step_ms=50&ending=never&client=stream&timeout_ms=5000&cancel=3&work=flag&guard=on";
    c.bench_function("codec/parse+format", |b| {
        b.iter(|| Scenario::from_query(query).map(|s| s.to_query()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
