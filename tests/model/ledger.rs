//! The replay-safe task ledger of SPEC §2: the seed's worked cases by name.

use a2a_lab::model::evidence::seed_form::{reduce, SeedEvent};
use a2a_lab::model::ledger::artifacts::{ArtifactCursor, Part};
use a2a_lab::model::ledger::{
    authorization_receipt_for, Body, Decision, LedgerEvent, LossClass, Outcome, Reason, TaskLedger,
};
use a2a_lab::model::sim::presets::{script, T42_CREDENTIAL};
use a2a_lab::model::sim::scenario::Preset;
use a2a_lab::model::state::TaskState;

fn seed(id: &str, status: &str, receipt: Option<&str>) -> SeedEvent {
    SeedEvent {
        id: id.into(),
        status: status.into(),
        authorization_receipt: receipt.map(String::from),
    }
}

fn status(id: &str, to: &str, t: u64) -> LedgerEvent {
    LedgerEvent {
        task_id: "T".into(),
        event_id: id.into(),
        producer: "executor".into(),
        source_seq: None,
        digest: format!("d:{id}:{to}"),
        observed_ms: t,
        body: Body::Status {
            status: to.into(),
            authorization_receipt: None,
            manifest: None,
        },
    }
}

fn with_manifest(mut e: LedgerEvent, id: &str) -> LedgerEvent {
    if let Body::Status { manifest, .. } = &mut e.body {
        *manifest = Some(id.into());
    }
    e
}

fn part(id: &str, artifact: &str, n: u32, text: &str, last: bool) -> LedgerEvent {
    LedgerEvent {
        task_id: "T".into(),
        event_id: id.into(),
        producer: "executor".into(),
        source_seq: None,
        digest: format!("p:{text}"),
        observed_ms: 0,
        body: Body::Part(Part::text(artifact, n, text, last)),
    }
}

#[test]
fn eight_states_with_terminal_and_interrupted_classification() {
    let kebab: Vec<&str> = TaskState::ALL.iter().map(|s| s.kebab()).collect();
    assert_eq!(
        kebab,
        [
            "submitted",
            "working",
            "input-required",
            "auth-required",
            "completed",
            "failed",
            "canceled",
            "rejected"
        ]
    );
    let terminal: Vec<_> = TaskState::ALL
        .into_iter()
        .filter(|s| s.is_terminal())
        .collect();
    assert_eq!(
        terminal,
        [
            TaskState::Completed,
            TaskState::Failed,
            TaskState::Canceled,
            TaskState::Rejected
        ]
    );
    let interrupted: Vec<_> = TaskState::ALL
        .into_iter()
        .filter(|s| s.is_interrupted())
        .collect();
    assert_eq!(
        interrupted,
        [TaskState::InputRequired, TaskState::AuthRequired]
    );
    for s in TaskState::ALL {
        assert_eq!(TaskState::from_wire(s.wire()), Some(s));
        assert_eq!(TaskState::from_kebab(s.kebab()), Some(s));
        assert!(s.wire().starts_with("TASK_STATE_"));
    }
    assert_eq!(TaskState::InputRequired.wire(), "TASK_STATE_INPUT_REQUIRED");
}

#[test]
fn allowlist_is_the_seeds_exhaustive_table() {
    use TaskState::*;
    let from_seed: &[(TaskState, &[TaskState])] = &[
        (
            Submitted,
            &[
                Working,
                InputRequired,
                AuthRequired,
                Completed,
                Failed,
                Canceled,
                Rejected,
            ],
        ),
        (
            Working,
            &[
                InputRequired,
                AuthRequired,
                Completed,
                Failed,
                Canceled,
                Rejected,
            ],
        ),
        (
            InputRequired,
            &[Working, AuthRequired, Completed, Failed, Canceled, Rejected],
        ),
        (
            AuthRequired,
            &[
                Working,
                InputRequired,
                Completed,
                Failed,
                Canceled,
                Rejected,
            ],
        ),
    ];
    let mut expected = Vec::new();
    for (from, tos) in from_seed {
        for to in *tos {
            expected.push((*from, *to));
        }
    }
    let mut edges = TaskState::allowlist_edges();
    edges.sort();
    expected.sort();
    assert_eq!(edges, expected);
    assert_eq!(edges.len(), 25);
}

#[test]
fn seeds_runnable_proof_gives_sequence_6_and_rejects_late() {
    let events = [
        seed("w", "working", None),
        seed("a", "auth-required", None),
        seed("a", "auth-required", None),
        seed("resume", "working", Some("authz:7")),
        seed("i", "input-required", None),
        seed("back", "working", None),
        seed("done", "completed", None),
        seed("late", "working", None),
    ];
    let out = reduce(&events);
    assert_eq!(out.status, "completed");
    assert_eq!(out.sequence, 6);
    assert_eq!(out.accepted, ["w", "a", "resume", "i", "back", "done"]);
    let last = out.rejected.last().expect("late is rejected");
    assert_eq!(
        (last.id.as_str(), last.reason.as_str()),
        ("late", "illegal-transition")
    );
    assert_eq!(out.rejected.len(), 1);
}

#[test]
fn declined_task_cannot_be_revived() {
    let out = reduce(&[
        seed("no", "rejected", None),
        seed("revive", "working", None),
    ]);
    assert_eq!(out.status, "rejected");
    assert_eq!(out.accepted, ["no"]);
    assert_eq!(out.rejected[0].id, "revive");
}

#[test]
fn every_terminal_state_freezes() {
    for terminal in ["completed", "failed", "canceled", "rejected"] {
        let out = reduce(&[
            seed(&format!("terminal:{terminal}"), terminal, None),
            seed(&format!("revive:{terminal}"), "working", None),
            seed("again", terminal, None),
        ]);
        assert_eq!(out.status, terminal);
        assert_eq!(out.sequence, 1);
        assert_eq!(out.rejected.len(), 2, "{terminal}");
        assert!(out
            .rejected
            .iter()
            .all(|r| r.reason == "illegal-transition"));
    }
}

#[test]
fn resume_without_receipt_stays_auth_required() {
    let out = reduce(&[
        seed("auth", "auth-required", None),
        seed("resume", "working", None),
    ]);
    assert_eq!(out.status, "auth-required");
    assert_eq!(out.rejected[0].reason, "authorization-receipt-required");
    // An empty receipt is no receipt (the seed tests truthiness).
    let out = reduce(&[
        seed("auth", "auth-required", None),
        seed("resume", "working", Some("")),
    ]);
    assert_eq!(out.rejected[0].reason, "authorization-receipt-required");
}

#[test]
fn unknown_status_is_an_illegal_transition() {
    let out = reduce(&[
        seed("x", "paused", None),
        seed("y", "TASK_STATE_WORKING", None),
    ]);
    assert_eq!(out.status, "submitted");
    assert_eq!(out.rejected.len(), 2);
    assert!(out
        .rejected
        .iter()
        .all(|r| r.reason == "illegal-transition"));
}

#[test]
fn duplicate_is_a_lookup_hit_returning_the_earlier_receipt() {
    let mut ledger = TaskLedger::new("T");
    let first = ledger.apply(&status("E1", "working", 10));
    assert_eq!(
        first,
        Decision::New(Outcome::Accepted {
            sequence: 1,
            state: TaskState::Working
        })
    );
    let again = ledger.apply(&status("E1", "working", 99));
    match again {
        Decision::Duplicate(receipt) => {
            assert_eq!(&*receipt.event_id, "E1");
            assert_eq!(
                receipt.observed_ms, 10,
                "the earlier receipt, not a new one"
            );
        }
        other => panic!("expected a lookup hit, got {other:?}"),
    }
    assert_eq!(ledger.sequence(), 1);
    assert_eq!(ledger.receipts().len(), 1);
}

#[test]
fn same_event_id_with_other_bytes_is_refused_not_replayed() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&status("E1", "working", 10));
    let mut forged = status("E1", "completed", 11);
    forged.digest = "other".into();
    assert_eq!(
        ledger.apply(&forged).outcome(),
        &Outcome::Rejected {
            reason: Reason::ConflictingEvent
        }
    );
    assert_eq!(ledger.state(), TaskState::Working);
}

/// T-42: the seed's worked ledger, as the lab's preset scripts it.
fn t42_events() -> Vec<LedgerEvent> {
    script(Preset::T42)
        .iter()
        .filter_map(|step| step.event(Preset::T42))
        .collect()
}

fn t42() -> (TaskLedger, Vec<Decision>) {
    let mut ledger = TaskLedger::new("T-42");
    let decisions = t42_events().iter().map(|e| ledger.apply(e)).collect();
    (ledger, decisions)
}

#[test]
fn t42_worked_ledger() {
    let (ledger, decisions) = t42();
    assert_eq!(ledger.state(), TaskState::Completed);
    assert_eq!(ledger.accepted(), ["E1", "E2", "E3", "E4", "E5", "E6"]);
    assert_eq!(ledger.sequence(), 6);
    assert!(matches!(decisions[7], Decision::Duplicate(ref r) if &*r.event_id == "E2"));
    assert_eq!(ledger.rejected(), [("E7", Reason::IllegalTransition)]);
    let manifest = ledger
        .artifacts()
        .manifest
        .as_ref()
        .expect("M9 closes the result set");
    assert_eq!(manifest.id, "M9");
    assert_eq!(manifest.artifacts[0].parts, 3);
    let panel = ledger.panel(1_000);
    assert_eq!(panel.last_accepted_sequence, 6);
    assert_eq!(panel.rejected_count, 1);
    assert_eq!(panel.age_in_state_ms, 400, "E6 accepted at 600");
    assert!(panel.artifacts[0].complete);
    let terminal = panel.terminal_receipt.expect("completed has a receipt");
    assert_eq!((terminal.event_id.as_str(), terminal.sequence), ("E6", 6));
    assert_eq!(terminal.digest.len(), 64);
}

#[test]
fn t42_stores_only_the_receipt_reference_never_the_credential() {
    let (ledger, _) = t42();
    let json = serde_json::to_string(&ledger).unwrap();
    assert!(
        !json.contains(T42_CREDENTIAL),
        "credential leaked into the ledger"
    );
    assert!(
        !json.contains("t42-user-session"),
        "credential leaked into the ledger"
    );
    assert!(json.contains(&authorization_receipt_for(T42_CREDENTIAL)));
}

#[test]
fn a_ledger_read_back_from_json_holds_the_same_receipts_and_refuses_a_repeated_id() {
    let (ledger, _) = t42();
    let json = serde_json::to_string(&ledger).unwrap();
    let back: TaskLedger = serde_json::from_str(&json).unwrap();
    assert_eq!(back, ledger);
    assert_eq!(back.receipt("E3"), ledger.receipt("E3"));
    assert_eq!(
        back.receipt("E3").unwrap().authorization_receipt.as_deref(),
        Some(authorization_receipt_for(T42_CREDENTIAL).as_str())
    );
    let mut record: serde_json::Value = serde_json::from_str(&json).unwrap();
    let receipts = record["receipts"].as_array_mut().unwrap();
    let first = receipts[0].clone();
    receipts.push(first);
    let err = serde_json::from_value::<TaskLedger>(record).unwrap_err();
    assert!(
        err.to_string().contains("two receipts for event id"),
        "{err}"
    );
}

#[test]
fn t43_rejected_straight_from_submitted_cannot_be_revived() {
    let mut ledger = TaskLedger::new("T-43");
    ledger.apply(&status("R1", "rejected", 10));
    ledger.apply(&status("R2", "working", 20));
    assert_eq!(ledger.state(), TaskState::Rejected);
    assert_eq!(ledger.accepted(), ["R1"]);
    assert_eq!(ledger.rejected(), [("R2", Reason::IllegalTransition)]);
    assert!(ledger.terminal_receipt().is_some());
}

#[test]
fn reconnect_from_e4_and_draft_0_receives_exactly_the_absent_suffixes() {
    let (ledger, _) = t42();
    let cursor = ArtifactCursor::parse("draft/0").unwrap();
    let suffix = ledger.reconnect(Some("E4"), &cursor);
    let ids: Vec<&str> = suffix.statuses.iter().map(|r| &*r.event_id).collect();
    assert_eq!(ids, ["E5", "E6"]);
    let coords: Vec<String> = suffix
        .parts
        .iter()
        .map(|p| p.coordinate().to_string())
        .collect();
    assert_eq!(coords, ["draft/1", "draft/2"]);
    let fresh = ledger.reconnect(None, &ArtifactCursor::default());
    assert_eq!(fresh.statuses.len(), 6);
    assert_eq!(fresh.parts.len(), 3);
}

#[test]
fn replay_from_every_event_boundary_through_json_converges() {
    let (whole, _) = t42();
    let events = t42_events();
    for cut in 0..=events.len() {
        let mut ledger = TaskLedger::new("T-42");
        for e in &events[..cut] {
            ledger.apply(e);
        }
        let json = serde_json::to_string(&ledger).unwrap();
        let mut resumed: TaskLedger = serde_json::from_str(&json).unwrap();
        // A reconnecting producer resends everything; the ledger must absorb it.
        for e in &events {
            resumed.apply(e);
        }
        assert_eq!(resumed.state(), whole.state(), "cut at {cut}");
        assert_eq!(
            resumed.artifacts().artifact_hashes(),
            whole.artifacts().artifact_hashes()
        );
        assert_eq!(resumed.terminal_receipt(), whole.terminal_receipt());
    }
}

#[test]
fn concurrent_producers_race_one_compare_and_set_and_exactly_one_wins() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&status("E1", "working", 1));
    let version = ledger.sequence();
    let mut progress = status("A", "input-required", 2);
    progress.producer = "worker-a".into();
    let mut expiry = status("B", "failed", 2);
    expiry.producer = "worker-b".into();
    assert!(ledger.compare_and_set(version, &progress).is_ok());
    let loss = ledger.compare_and_set(version, &expiry).unwrap_err();
    assert_eq!(loss.current_version, version + 1);
    assert_eq!(
        loss.class,
        LossClass::LegalNext,
        "failed is still legal from input-required"
    );
    // After reloading, it goes through at the current version.
    assert!(ledger
        .compare_and_set(loss.current_version, &expiry)
        .is_ok());
    assert_eq!(ledger.state(), TaskState::Failed);
    // A loser that the winner already wrote is a duplicate; one overtaken by
    // a terminal state is stale.
    let loss = ledger.compare_and_set(version, &progress).unwrap_err();
    assert_eq!(loss.class, LossClass::Duplicate);
    let loss = ledger
        .compare_and_set(version, &status("C", "working", 3))
        .unwrap_err();
    assert_eq!(loss.class, LossClass::Stale);
}

#[test]
fn stale_source_sequence_loses_deterministically() {
    let mut ledger = TaskLedger::new("T");
    let mut e2 = status("E2", "input-required", 2);
    e2.source_seq = Some(2);
    let mut e1 = status("E1", "working", 1);
    e1.source_seq = Some(1);
    ledger.apply(&e2);
    assert_eq!(
        ledger.apply(&e1).outcome(),
        &Outcome::Rejected {
            reason: Reason::Stale
        }
    );
    assert_eq!(ledger.state(), TaskState::InputRequired);
}

#[test]
fn completion_winning_the_race_keeps_completed_plus_the_cancel_request() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&status("W", "working", 0));
    ledger.apply(&status("DONE", "completed", 600));
    let cancel = LedgerEvent {
        body: Body::CancelRequest,
        ..status("CX", "", 650)
    };
    assert_eq!(ledger.apply(&cancel).outcome(), &Outcome::CancelRequested);
    let canceled = ledger.apply(&status("CANCELED", "canceled", 651));
    assert_eq!(
        canceled.outcome(),
        &Outcome::Rejected {
            reason: Reason::IllegalTransition
        }
    );
    assert_eq!(ledger.state(), TaskState::Completed);
    assert_eq!(ledger.cancel_requests().len(), 1);
    assert_eq!(ledger.cancel_requests()[0].state_then, TaskState::Completed);
}

#[test]
fn cancellation_winning_quarantines_later_output() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&status("W", "working", 0));
    let cancel = LedgerEvent {
        body: Body::CancelRequest,
        ..status("CX", "", 250)
    };
    ledger.apply(&cancel);
    ledger.apply(&status("CANCELED", "canceled", 251));
    let late = ledger.apply(&part("P9", "late", 0, "after cancel", true));
    assert_eq!(
        late.outcome(),
        &Outcome::Rejected {
            reason: Reason::AfterTerminal
        }
    );
    ledger.apply(&status("DONE", "completed", 600));
    assert_eq!(ledger.state(), TaskState::Canceled);
    assert_eq!(ledger.quarantined().len(), 1);
    assert_eq!(ledger.artifacts().part_count(), 0);
}

#[test]
fn same_coordinate_same_checksum_is_a_harmless_replay() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&part("P0", "draft", 0, "hello", false));
    let replay = ledger.apply(&part("P0-again", "draft", 0, "hello", false));
    assert!(matches!(replay.outcome(), Outcome::Replayed { .. }));
    assert!(ledger.artifacts().incidents.is_empty());
}

#[test]
fn same_coordinate_different_bytes_is_a_recorded_incident_never_overwritten() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&part("P0", "draft", 0, "hello", false));
    let before = ledger.artifacts().artifact_hashes();
    let conflict = ledger.apply(&part("P0-forged", "draft", 0, "goodbye", false));
    assert!(matches!(conflict.outcome(), Outcome::Incident { .. }));
    assert_eq!(ledger.artifacts().incidents.len(), 1);
    assert_eq!(ledger.artifacts().artifact_hashes(), before);
    assert_eq!(
        ledger.artifacts().artifacts["draft"].parts[&0].text,
        "hello"
    );
}

#[test]
fn manifest_closes_the_result_set() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&status("W", "working", 0));
    ledger.apply(&part("P0", "draft", 0, "only", true));
    ledger.apply(&with_manifest(status("I", "input-required", 1), "M1"));
    let after = ledger.apply(&part("P1", "draft", 1, "more", true));
    assert_eq!(
        after.outcome(),
        &Outcome::Rejected {
            reason: Reason::ResultSetClosed
        }
    );
}

#[test]
fn partial_artifacts_are_visible_before_terminal_without_being_a_result() {
    let mut ledger = TaskLedger::new("T");
    ledger.apply(&status("W", "working", 0));
    ledger.apply(&part("P0", "draft", 0, "one", false));
    let panel = ledger.panel(10);
    assert_eq!(panel.artifacts[0].parts_stored, 1);
    assert!(!panel.artifacts[0].complete);
    assert!(panel.terminal_receipt.is_none());
}

#[test]
fn a_reset_ledger_is_a_new_one_and_decides_as_one() {
    let events = [
        status("s1", "working", 1),
        part("p0", "a", 0, "x", false),
        part("p0b", "a", 0, "y", false),
        status("s2", "completed", 2),
        status("s3", "working", 3),
    ];
    let mut used = TaskLedger::new("T");
    for e in &events {
        used.apply(e);
    }
    used.reset("U");
    assert_eq!(used, TaskLedger::new("U"));
    let mut fresh = TaskLedger::new("U");
    for e in &events {
        assert_eq!(used.apply(e), fresh.apply(e), "{}", e.event_id);
    }
    assert_eq!(used, fresh);
    assert_eq!(used.panel(9), fresh.panel(9));
}
