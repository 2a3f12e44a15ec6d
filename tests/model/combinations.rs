//! SPEC §14: the lifecycle in combination. Drawn at random over every key,
//! a scenario is refused only where the combination cannot happen; and
//! the faults the lab injects (`dup`, `conflict`) have one defined meaning
//! beside subscribers and push: the resend is a fault of client 1's own
//! connection.

use crate::model_support;

use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::trace::{Disposition, Row, Run, StreamRole};
use model_support::run;

/// Refusals that name a combination that cannot happen, or a value out of
/// its range: a blocking call has no stream, `k` past the events a stream
/// carries, `conflict` without a resent chunk.
const CANNOT_HAPPEN: &[&str] = &[
    "a blocking call has no stream",
    "a blocking call has none",
    "needs client=stream",
    "is out of range",
    "needs dup to name an artifact chunk",
    "needs an artifact chunk to resend",
];

/// A small deterministic generator (xorshift64*): the same 600 draws on
/// every run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as u32 % n
    }

    fn maybe(&mut self) -> bool {
        self.below(10) < 3
    }

    fn pick<'a>(&mut self, values: &[&'a str]) -> &'a str {
        values[self.below(values.len() as u32) as usize]
    }
}

/// One combination over every key: each key away from its default about
/// a third of the time.
fn combination(d: &mut Draw) -> String {
    let chunks = d.below(6);
    let mut q = vec![format!("chunks={chunks}")];
    let choices: &[(&str, &[&str])] = &[
        (
            "ending",
            &["complete", "fail", "input", "auth", "return", "never"],
        ),
        ("client", &["block"]),
        ("interrupt", &["auth", "input", "both"]),
        ("retry", &["on"]),
        ("push", &["inline", "after:2"]),
        ("result", &["last"]),
        ("late", &["0", "300"]),
        ("wire", &["0.3"]),
        ("sdk", &["js"]),
        ("guard", &["on"]),
        ("conflict", &["on"]),
    ];
    for (key, values) in choices {
        if d.maybe() {
            q.push(format!("{key}={}", d.pick(values)));
        }
    }
    if d.maybe() {
        q.push(format!("cancel={}", d.below(chunks + 1)));
    }
    if d.maybe() {
        q.push(format!("restart={}", d.below(chunks + 1)));
        q.push(format!("store={}", d.pick(&["memory", "database"])));
    }
    for key in ["dup", "resubscribe", "second_client"] {
        if d.maybe() {
            q.push(format!("{key}={}", 1 + d.below(chunks + 4)));
        }
    }
    if d.maybe() {
        q.push(format!("progress={}", 1 + d.below(2)));
    }
    q.join("&")
}

#[test]
fn of_600_random_combinations_none_is_refused_for_lack_of_measurement() {
    let mut d = Draw(0x2a2a_1042);
    let mut taken = 0;
    for _ in 0..600 {
        let query = combination(&mut d);
        let Err(e) = Scenario::from_query(&query) else {
            taken += 1;
            continue;
        };
        let why = e.to_string();
        assert!(
            CANNOT_HAPPEN.iter().any(|c| why.contains(c)),
            "{query} refused for a reason other than that it cannot happen: {why}"
        );
    }
    // The rest are blocking calls with stream keys, values out of range
    // and conflicts without a resent chunk.
    assert!(taken > 250, "only {taken} of 600 taken");
}

fn on_stream(run: &Run, role: StreamRole) -> Vec<&Row> {
    run.streams
        .iter()
        .filter(|s| s.role == role)
        .flat_map(|s| s.rows.iter().map(|&i| &run.trace.rows[i]))
        .collect()
}

fn resent(row: &Row) -> bool {
    row.event.contains("(resent after reconnect)")
}

#[test]
fn a_resend_goes_to_client_1s_reconnected_stream_alone() {
    let r = run("chunks=3&dup=2&second_client=2");
    let first = on_stream(&r, StreamRole::Send);
    assert_eq!(first.iter().filter(|r| resent(r)).count(), 1);
    let second = on_stream(&r, StreamRole::SecondClient);
    assert!(!second.is_empty());
    assert!(second.iter().all(|r| !resent(r)), "{second:?}");
}

#[test]
fn a_resend_is_never_pushed_the_webhook_gets_each_event_once() {
    let with = run("chunks=3&dup=3&push=inline");
    let without = run("chunks=3&push=inline");
    let pushes = |r: &Run| r.trace.metrics.push.as_ref().map(|p| p.pushes);
    assert_eq!(pushes(&with), pushes(&without));
    assert_eq!(pushes(&with), Some(6));
    assert_eq!(with.trace.metrics.push.as_ref().unwrap().push_duplicates, 0);
    assert_eq!(with.trace.rows.iter().filter(|r| resent(r)).count(), 1);
}

#[test]
fn a_client_that_drops_the_stream_at_the_resent_event_gets_nothing_resent() {
    let r = run("chunks=3&dup=3&resubscribe=3");
    assert_eq!(r.trace.rows.iter().filter(|r| resent(r)).count(), 0);
    let said = r
        .trace
        .rows
        .iter()
        .find(|r| r.event.starts_with("dup=3"))
        .unwrap();
    assert_eq!(said.disposition, Disposition::NotDelivered);
    // Counted on the resubscription instead: event 6 of client 1's
    // streams is resent there.
    let r = run("chunks=3&dup=5&resubscribe=3");
    let sub = on_stream(&r, StreamRole::Resubscribe);
    assert_eq!(sub.iter().filter(|r| resent(r)).count(), 1);
}

#[test]
fn resubscribe_counts_the_resent_event_as_one_its_stream_carried() {
    // WORKING is resent as event 3, so the drop after event 4 comes right
    // after it and before the first chunk.
    let r = run("chunks=3&dup=2&resubscribe=4");
    let first = on_stream(&r, StreamRole::Send);
    assert_eq!(first.len(), 4);
    assert!(resent(first[3]) || resent(first[2]));
}

#[test]
fn where_a_retry_makes_a_second_task_each_row_says_whose_it_is() {
    let r = run("push=inline&retry=on");
    let second: Vec<&Row> = r
        .trace
        .rows
        .iter()
        .filter(|r| r.event.contains("(task 2)") || r.event.contains("of task 2"))
        .collect();
    // Its Task, WORKING, three chunks and COMPLETED, streamed and pushed.
    assert_eq!(second.len(), 12, "{second:?}");
    let pushes = second.iter().filter(|r| r.push.is_some()).count();
    assert_eq!(pushes, 6);
}
