//! `a2a-lab reduce` as a whole process on a 1,000,000-event JSON file,
//! against the idiomatic JavaScript reducer (`scripts/perf/js-reducer.mjs`)
//! run by node on the same file: wall time per run, parsing included, since
//! parsing dominates. The file is written by `scripts/perf/gen-events.mjs`
//! (seed 42) when it is missing. Without node the benchmark says so and
//! measures nothing.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

const EVENTS: u64 = 1_000_000;

fn events_file(root: &Path) -> Option<PathBuf> {
    let file = std::env::temp_dir().join("a2a-lab-events-1m.json");
    if file.exists() {
        return Some(file);
    }
    let written = Command::new("node")
        .arg(root.join("scripts/perf/gen-events.mjs"))
        .args([&EVENTS.to_string(), "42"])
        .arg(&file)
        .status()
        .is_ok_and(|s| s.success());
    written.then_some(file)
}

fn output(program: &str, args: &[&Path]) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(out.status.success(), "{program} failed");
    out.stdout
}

fn run(program: &str, args: &[&Path]) {
    let status = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(status.success(), "{program} failed");
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(file) = events_file(root) else {
        eprintln!("reduce: node is needed to write the events file and to run the JavaScript reducer; skipped");
        return;
    };
    let lab = env!("CARGO_BIN_EXE_a2a-lab");
    let js = root.join("scripts/perf/js-reducer.mjs");
    let reduce = Path::new("reduce");
    // Both must give the same answer, or the comparison means nothing.
    assert_eq!(
        output(lab, &[reduce, &file]),
        output("node", &[&js, &file]),
        "a2a-lab reduce and the JavaScript reducer disagree on {}",
        file.display()
    );
    let mut group = c.benchmark_group("reduce-process");
    group.throughput(Throughput::Elements(EVENTS));
    // Each run takes a fraction of a second to seconds: ten runs of one
    // iteration each, not criterion's growing iteration counts.
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function(format!("a2a-lab/{EVENTS}"), |b| {
        b.iter(|| run(lab, &[reduce, &file]))
    });
    group.bench_function(format!("node/{EVENTS}"), |b| {
        b.iter(|| run("node", &[&js, &file]))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
