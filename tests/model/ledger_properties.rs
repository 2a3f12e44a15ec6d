//! Property tests over random sequences with duplicates, reordering and
//! concurrent producers: terminal never reopens, duplicates never change
//! state, replay through JSON converges.
#![cfg(not(target_arch = "wasm32"))]

use a2a_lab::model::ledger::artifacts::Part;
use a2a_lab::model::ledger::{Body, Decision, LedgerEvent, TaskLedger};
use a2a_lab::model::state::TaskState;
use proptest::prelude::*;

fn event_strategy() -> impl Strategy<Value = LedgerEvent> {
    let status = prop_oneof![
        Just("working"),
        Just("input-required"),
        Just("auth-required"),
        Just("completed"),
        Just("failed"),
        Just("canceled"),
        Just("rejected"),
        Just("submitted"),
        Just("bogus"),
    ];
    let body = prop_oneof![
        (status, any::<bool>()).prop_map(|(s, receipt)| Body::Status {
            status: s.into(),
            authorization_receipt: receipt.then(|| "authz:1".to_string()),
            manifest: None,
        }),
        (0u32..3, 0u32..3, any::<bool>()).prop_map(|(a, n, last)| Body::Part(Part::text(
            &format!("a{a}"),
            n,
            &format!("bytes {a}/{n}"),
            last
        ))),
        Just(Body::CancelRequest),
    ];
    (0u8..12, 0u8..3, body).prop_map(|(id, producer, body)| LedgerEvent {
        task_id: "T".into(),
        event_id: format!("e{id}"),
        producer: format!("p{producer}"),
        source_seq: None,
        digest: format!("{body:?}"),
        observed_ms: u64::from(id),
        body,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn terminal_never_reopens(events in prop::collection::vec(event_strategy(), 0..40)) {
        let mut ledger = TaskLedger::new("T");
        let mut settled: Option<TaskState> = None;
        for e in &events {
            ledger.apply(e);
            if let Some(s) = settled {
                prop_assert_eq!(ledger.state(), s);
            } else if ledger.state().is_terminal() {
                settled = Some(ledger.state());
            }
        }
    }

    #[test]
    fn duplicates_never_change_state(events in prop::collection::vec(event_strategy(), 0..40)) {
        let mut ledger = TaskLedger::new("T");
        for e in &events {
            ledger.apply(e);
            let before = ledger.clone();
            let again = ledger.apply(e);
            // An exact repeat is a lookup hit; a repeat of an event whose id
            // was first decided with other bytes is refused again. Neither
            // moves the task or rewrites a receipt.
            let exact = before.receipt(&e.event_id).is_some_and(|r| *r.digest == *e.digest);
            prop_assert_eq!(exact, matches!(again, Decision::Duplicate(_)));
            prop_assert_eq!(ledger.state(), before.state());
            prop_assert_eq!(ledger.sequence(), before.sequence());
            prop_assert_eq!(ledger.receipts().collect::<Vec<_>>(), before.receipts().collect::<Vec<_>>());
            prop_assert_eq!(ledger.artifacts().artifact_hashes(), before.artifacts().artifact_hashes());
        }
    }

    #[test]
    fn replay_through_json_from_any_boundary_converges(
        events in prop::collection::vec(event_strategy(), 0..40),
        cut in 0usize..40,
    ) {
        let mut whole = TaskLedger::new("T");
        for e in &events {
            whole.apply(e);
        }
        let cut = cut.min(events.len());
        let mut first = TaskLedger::new("T");
        for e in &events[..cut] {
            first.apply(e);
        }
        let mut resumed: TaskLedger = serde_json::from_str(&serde_json::to_string(&first).unwrap()).unwrap();
        // A reconnecting producer resends everything from the start.
        for e in &events {
            resumed.apply(e);
        }
        prop_assert_eq!(resumed.state(), whole.state());
        prop_assert_eq!(resumed.sequence(), whole.sequence());
        prop_assert_eq!(resumed.artifacts().artifact_hashes(), whole.artifacts().artifact_hashes());
    }

    #[test]
    fn concurrent_compare_and_set_has_exactly_one_winner(
        events in prop::collection::vec(event_strategy(), 2..10),
    ) {
        let mut ledger = TaskLedger::new("T");
        let version = ledger.sequence();
        let mut winners = 0;
        for e in &events {
            let before = ledger.sequence();
            match ledger.compare_and_set(version, e) {
                Ok(_) if ledger.sequence() > before => winners += 1,
                Ok(_) => {}
                Err(loss) => prop_assert_eq!(loss.current_version, ledger.sequence()),
            }
        }
        prop_assert!(winners <= 1, "{} producers advanced the same version", winners);
    }

    #[test]
    fn parts_in_any_order_converge_on_the_same_artifacts(
        mut parts in prop::collection::vec((0u32..3, 0u32..4), 0..12),
        seed in any::<u64>(),
    ) {
        let make = |(a, n): (u32, u32)| LedgerEvent {
            task_id: "T".into(),
            event_id: format!("p{a}-{n}"),
            producer: "executor".into(),
            source_seq: None,
            digest: format!("{a}/{n}"),
            observed_ms: 0,
            body: Body::Part(Part::text(&format!("a{a}"), n, &format!("bytes {a}/{n}"), false)),
        };
        let mut forward = TaskLedger::new("T");
        for p in &parts {
            forward.apply(&make(*p));
        }
        // A deterministic shuffle from the seed.
        let mut s = seed | 1;
        for i in (1..parts.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            parts.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let mut shuffled = TaskLedger::new("T");
        for p in &parts {
            shuffled.apply(&make(*p));
        }
        prop_assert_eq!(forward.artifacts().artifact_hashes(), shuffled.artifacts().artifact_hashes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `apply_all` (which looks ahead to warm the index) leaves exactly the
    /// ledger that applying each event in turn leaves, on streams long
    /// enough to grow the index several times and full of repeats.
    #[test]
    fn apply_all_leaves_the_ledger_apply_leaves(
        events in prop::collection::vec(event_strategy(), 0..40),
        repeats in prop::collection::vec(0usize..40, 0..200),
    ) {
        let stream: Vec<LedgerEvent> = repeats
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                let mut e = events.get(r).cloned().unwrap_or_else(|| events.first().cloned().unwrap_or(LedgerEvent {
                    task_id: "T".into(),
                    event_id: String::new(),
                    producer: String::new(),
                    source_seq: None,
                    digest: String::new(),
                    observed_ms: 0,
                    body: Body::CancelRequest,
                }));
                if r % 3 == 0 {
                    e.event_id = format!("{}-{i}", e.event_id);
                }
                e
            })
            .chain(events.iter().cloned())
            .collect();
        let mut one_by_one = TaskLedger::new("T");
        for e in &stream {
            one_by_one.apply(e);
        }
        let mut all = TaskLedger::new("T");
        all.apply_all(stream.iter().map(LedgerEvent::view));
        prop_assert_eq!(all, one_by_one);
    }
}

/// The ledger as JSON without its receipt log: everything a decision can
/// change besides the receipt it records.
fn without_receipts(ledger: &TaskLedger) -> serde_json::Value {
    let mut value = serde_json::to_value(ledger).unwrap();
    value.as_object_mut().unwrap().remove("receipts");
    value
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Decide, then commit: judging reads only; committing a duplicate
    /// changes nothing at all, and committing a rejection adds its receipt
    /// and nothing else.
    #[test]
    fn judging_changes_nothing_and_a_refusal_only_records_its_receipt(
        events in prop::collection::vec(event_strategy(), 0..40)
    ) {
        use a2a_lab::model::ledger::Outcome;
        let mut ledger = TaskLedger::new("T");
        for e in &events {
            let before = ledger.clone();
            let verdict = ledger.judge(e.view());
            prop_assert_eq!(&ledger, &before);
            let decision = ledger.commit(verdict);
            match decision {
                Decision::Duplicate(_) => prop_assert_eq!(&ledger, &before),
                Decision::New(Outcome::Rejected { .. }) => {
                    prop_assert_eq!(without_receipts(&ledger), without_receipts(&before));
                    prop_assert!(ledger.receipt_count() <= before.receipt_count() + 1);
                }
                Decision::New(_) => {}
            }
        }
    }
}

#[test]
fn a_conflicting_replay_of_an_unstored_part_stores_nothing() {
    // The same event id with other bytes, now as a part at a coordinate
    // nothing holds yet: refused, and the part is not stored.
    let status = LedgerEvent {
        task_id: "T".into(),
        event_id: "e1".into(),
        producer: "p".into(),
        source_seq: None,
        digest: "status".into(),
        observed_ms: 0,
        body: Body::Status {
            status: "working".into(),
            authorization_receipt: None,
            manifest: None,
        },
    };
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&status);
    let part = LedgerEvent {
        digest: "part".into(),
        body: Body::Part(Part::text("a", 0, "bytes", false)),
        ..status
    };
    let decision = ledger.apply(&part);
    assert!(
        matches!(
            decision,
            Decision::New(a2a_lab::model::ledger::Outcome::Rejected { .. })
        ),
        "{decision:?}"
    );
    assert_eq!(ledger.artifacts().part_count(), 0);
}
