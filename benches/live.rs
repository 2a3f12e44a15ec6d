//! A live session (issue 59): one stream of N events taken frame by frame
//! as the page takes them from the relay, each judged as it comes (the
//! cost per event must not grow with the events before it), and the
//! report the page shows, taken at N events (it copies the rows kept, so
//! the page takes it at most once per painted frame), with what the
//! page's timeline and state diagram make of it, at 1,000 and 10,000
//! events.
#![allow(clippy::unwrap_used)]

use a2a_lab::model::evidence::live::frame::Frame;
use a2a_lab::model::evidence::live::session::Session;
use a2a_lab::model::pictures::diagram::path_taken;
use a2a_lab::model::pictures::shown::Shown;
use a2a_lab::model::pictures::timeline::{Timeline, MAX_MARKS};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::json;

#[path = "../tests/model_support/long_stream.rs"]
mod long_stream;
use long_stream::long_stream_values;

/// The frames of one streamed task of `events` events, as the relay sends
/// them: the request, then each event in a JSON-RPC response.
fn frames(events: usize) -> Vec<Frame> {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {}});
    let mut frames = vec![Frame::Sent(request)];
    frames.extend(
        long_stream_values(events - 3, "completed")
            .into_iter()
            .map(|e| Frame::Answer(json!({"jsonrpc": "2.0", "id": 1, "result": e}).to_string())),
    );
    frames
}

fn taken(frames: &[Frame]) -> Session {
    let mut session = Session::new();
    let call = session.begin();
    for frame in frames {
        session.on_frame(call, frame.clone());
    }
    session
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("live");
    group.sample_size(10);
    for events in [1_000usize, 10_000] {
        let frames = frames(events);
        group.throughput(Throughput::Elements(events as u64));
        group.bench_function(format!("take/{events}"), |b| b.iter(|| taken(&frames)));
        let session = taken(&frames);
        let report = session.report().unwrap().unwrap();
        assert_eq!(report.tasks[0].events as usize, events);
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("report/{events}"), |b| b.iter(|| session.report()));
        let shown = Shown::capture(report.clone());
        let run = shown.run().unwrap();
        let rows = &run.trace.rows;
        group.bench_function(format!("timeline/{events}"), |b| {
            b.iter(|| Timeline::new(rows).marks(None, MAX_MARKS))
        });
        group.bench_function(format!("diagram/{events}"), |b| b.iter(|| path_taken(rows)));
        group.bench_function(format!("shown/{events}"), |b| {
            b.iter_batched(|| report.clone(), Shown::capture, BatchSize::LargeInput)
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
