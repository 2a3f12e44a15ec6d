//! The whole scenario space: random valid scenarios drawn from every key
//! and value, combined freely, each held to the invariants a trace must
//! keep whatever the keys. `cargo test` runs a few hundred cases; the soak
//! is `PROPTEST_CASES=100000 cargo test --release --test model scenario_space::`.
#![cfg(not(target_arch = "wasm32"))]

use crate::drawn::drawn;
use crate::model_support;

use a2a_lab::model::evidence::export::export_json;
use a2a_lab::model::evidence::import::check_bytes;
use a2a_lab::model::sim::scenario::{Interrupt, Scenario};
use a2a_lab::model::sim::simulate;
use a2a_lab::model::state::{SentState, TaskState};
use a2a_lab::model::trace::{Disposition, Row, RowKind, StreamEnd};
use a2a_lab::model::wire::answer::{read_value, EventKind};
use a2a_lab::model::wire::schema::{shape_faults, Shape};
use a2a_lab::model::wire::Wire;
use model_support::wire_json;
use proptest::prelude::*;
use serde_json::Value;

fn count(rows: &[Row], events_only: bool, ds: &[Disposition]) -> u32 {
    rows.iter()
        .filter(|r| !events_only || r.kind == RowKind::Event)
        .filter(|r| ds.contains(&r.disposition))
        .count() as u32
}

/// A wire event the way A2A 1.0 writes it (SPEC §1).
fn assert_valid_a2a(wire: &Value, what: &str) {
    if wire.get("kind").is_some() {
        // The 0.3 wire, held to the lab's reading of its JSON schema.
        let bytes = wire.to_string();
        let faults = shape_faults(bytes.as_bytes(), Wire::V0_3, Shape::Event);
        assert!(faults.is_empty(), "{what}: {faults:?}");
        return;
    }
    let map = wire
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object"));
    assert_eq!(map.len(), 1, "{what}: exactly one key: {wire}");
    let (kind, inner) = map.iter().next().unwrap();
    assert!(
        ["task", "statusUpdate", "artifactUpdate", "message"].contains(&kind.as_str()),
        "{what}: unknown event {kind}"
    );
    let text = wire.to_string();
    assert!(
        !text.contains("\"kind\""),
        "{what}: 1.0 has no kind: {text}"
    );
    assert!(
        !text.contains("\"final\""),
        "{what}: 1.0 has no final: {text}"
    );
    if let Some(state) = inner.pointer("/status/state") {
        let state = state.as_str().unwrap_or_default();
        assert!(
            TaskState::from_wire(state).is_some(),
            "{what}: state {state}"
        );
    }
    if kind == "artifactUpdate" {
        for flag in ["append", "lastChunk"] {
            if let Some(v) = inner.get(flag) {
                assert_eq!(
                    v,
                    &Value::Bool(true),
                    "{what}: {flag} is omitted when false"
                );
            }
        }
        assert!(
            inner.pointer("/artifact/artifactId").is_some(),
            "{what}: no artifactId"
        );
    }
    if kind != "message" {
        let task_id = inner.get("taskId").or_else(|| inner.get("id"));
        assert!(task_id.is_some_and(Value::is_string), "{what}: no task id");
    }
}

/// The parts of an artifact update with its texts left out, for comparing
/// a conflicting resend (other bytes at the same coordinate) with the
/// original.
fn without_texts(wire: &Value) -> Value {
    let mut wire = wire.clone();
    // 1.0 wraps the update; 0.3 holds its fields at the top.
    for at in ["/artifactUpdate/artifact/parts", "/artifact/parts"] {
        if let Some(parts) = wire.pointer_mut(at) {
            *parts = Value::Null;
        }
    }
    wire
}

fn hold_invariants(query: &str) {
    let scenario = Scenario::from_query(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    let export = export_json(&scenario);
    // The same bytes twice.
    assert_eq!(export, export_json(&scenario), "{query}: not deterministic");
    // The export's inputs, traced again, give the same bytes.
    let value: Value = serde_json::from_str(&export).unwrap();
    let again = Scenario::from_inputs(&value["inputs"]).unwrap();
    assert_eq!(
        export_json(&again),
        export,
        "{query}: inputs re-traced differ"
    );
    // `check` of its own export is clean.
    let report = check_bytes(export.as_bytes()).unwrap();
    assert!(
        report.findings.is_empty(),
        "{query}: check: {:?}",
        report.findings
    );

    let run = simulate(&scenario);
    let rows = &run.trace.rows;
    let m = &run.trace.metrics;
    // Every metric agrees with the rows it counts.
    use Disposition::*;
    assert_eq!(
        m.events_delivered,
        count(rows, true, &[Delivered, AfterTerminal]),
        "{query}"
    );
    assert_eq!(
        m.events_after_terminal,
        count(rows, true, &[AfterTerminal]),
        "{query}"
    );
    assert_eq!(
        m.dropped_by_guard,
        count(rows, true, &[DroppedByGuard]),
        "{query}"
    );
    assert_eq!(m.duplicates, count(rows, false, &[Duplicate]), "{query}");
    assert_eq!(m.rejected, count(rows, false, &[Rejected]), "{query}");
    assert_eq!(m.incidents, count(rows, false, &[Incident]), "{query}");
    if scenario.preset.is_none() {
        assert_eq!(m.orphaned_steps, count(rows, false, &[Orphaned]), "{query}");
        let hung = run
            .streams
            .iter()
            .filter(|s| s.end == StreamEnd::Hung)
            .count() as u32;
        assert_eq!(m.hung_streams, hung, "{query}");
        let mut client_1 = run.streams.iter().filter(|s| s.client == 1);
        if scenario.interrupt == Interrupt::None {
            let first_hung = client_1
                .next_back()
                .is_some_and(|s| s.end == StreamEnd::Hung);
            assert_eq!(m.stream == Some(StreamEnd::Hung), first_hung, "{query}");
        } else if m.stream == Some(StreamEnd::Hung) {
            // A subscription may stay open beside the resumed call.
            assert!(client_1.any(|s| s.end == StreamEnd::Hung), "{query}");
        }
        // The stored state at the end is the last row's.
        let last = rows.last().and_then(|r| r.state_after);
        assert_eq!(
            m.final_state, last,
            "{query}: final_state is not the last stored state"
        );
        assert_eq!(m.task_lost, m.final_state.is_none(), "{query}");
    }
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.index, i, "{query}: row index");
        if i > 0 {
            assert!(
                row.t_ms >= rows[i - 1].t_ms,
                "{query}: time runs backwards at row {i}"
            );
        }
        if let Some(wire) = &wire_json(row) {
            assert_valid_a2a(wire, &format!("{query} row {i}"));
        }
    }
    // With the guard on, a terminal state never changes (a restart may
    // still lose the task with the server's memory).
    if scenario.guard && scenario.preset.is_none() {
        let mut terminal: Option<TaskState> = None;
        for row in rows {
            let state = row.state_after;
            if let (Some(t), Some(s)) = (terminal, state) {
                assert_eq!(
                    s, t,
                    "{query}: terminal {t:?} changed to {s:?} at row {}",
                    row.index
                );
            }
            if state.is_some_and(TaskState::is_terminal) {
                terminal = state;
            }
        }
    }
    // A resend repeats an event the same client received: one delivered
    // to that client before it (up to the deliberately other bytes of
    // conflict=on).
    for (i, row) in rows.iter().enumerate() {
        if !row.event.contains("(resent after reconnect)") {
            continue;
        }
        let Some(wire) = &wire_json(row) else {
            continue;
        };
        let received_before = rows[..i]
            .iter()
            .filter(|r| {
                r.client == row.client && matches!(r.disposition, Delivered | AfterTerminal)
            })
            .filter_map(wire_json)
            .any(|w| w == *wire || (scenario.conflict && without_texts(&w) == without_texts(wire)));
        assert!(
            received_before,
            "{query}: row {i} resends what was never received: {wire}"
        );
    }
}

/// What SPEC §9's streams must keep: each stream's rows are its client's
/// and carry wire JSON; a subscription starts with the task as stored (or
/// is refused by an error without events), never SUBMITTED (but where a restart killed the consumer awaiting
/// the Task's POST, or a slow webhook still holds it); and no artifact part
/// reaches a client twice as an event, but for the one `dup` resends.
fn hold_stream_invariants(query: &str) {
    hold_invariants(query);
    let scenario = Scenario::from_query(query).unwrap();
    // A preset plays one of the seed's worked ledgers: no client streams it.
    if scenario.get("preset").is_some() {
        return;
    }
    let wire = scenario.wire;
    let run = simulate(&scenario);
    let rows = &run.trace.rows;
    let mut carried = vec![false; rows.len()];
    for s in &run.streams {
        for &i in &s.rows {
            assert!(!carried[i], "{query}: row {i} on two streams");
            carried[i] = true;
            assert_eq!(rows[i].client, s.client, "{query}: row {i}");
            assert!(rows[i].wire.is_some(), "{query}: row {i} has no wire");
        }
        if s.role.is_subscription() {
            match s.end {
                // Refused: an error and no event. An error event may
                // also end one that started with the task.
                StreamEnd::Error(_) if s.rows.is_empty() => {}
                _ => {
                    // Read as a client reads it, on the run's wire (0.3
                    // writes the task without 1.0's wrapper).
                    let first = s
                        .rows
                        .first()
                        .map(|&i| read_value(&wire_json(&rows[i]).unwrap(), Some(wire)).unwrap());
                    let state = first
                        .as_ref()
                        .filter(|e| e.kind == EventKind::Task)
                        .and_then(|e| e.state.clone());
                    assert!(
                        state.is_some(),
                        "{query}: a subscription starts with the task"
                    );
                    // A consumer awaiting the Task's POST never stored
                    // WORKING when a restart kills it, nor yet when a
                    // slow webhook holds it as a subscription comes in.
                    let held = query.contains("push=")
                        && (query.contains("restart=") || query.contains("webhook_delay_ms="));
                    if !held {
                        assert_ne!(
                            state,
                            Some(SentState::Known(TaskState::Submitted)),
                            "{query}"
                        );
                    }
                }
            }
        }
    }
    for (i, row) in rows.iter().enumerate() {
        if row.wire.is_some() && row.kind == RowKind::Event {
            assert!(carried[i], "{query}: row {i} was received on no stream");
        }
    }
    // Client 1's subscription and its resumed call both get the next
    // turn's events (measured); each of its streams is then held apart.
    let apart = !query.contains("interrupt=none");
    for client in [1u8, 2] {
        let mut seen = Vec::new();
        for s in run.streams.iter().filter(|s| s.client == client) {
            if apart {
                seen.clear();
            }
            for &i in &s.rows {
                let Some(a) = wire_json(&rows[i])
                    .and_then(|mut w| w.get_mut("artifactUpdate").map(Value::take))
                else {
                    continue;
                };
                if rows[i].event.contains("(resent after reconnect)") {
                    continue;
                }
                // A retry's second task streams the same texts again.
                let text = (
                    a.get("taskId").cloned(),
                    a.pointer("/artifact/parts/0/text").cloned(),
                );
                assert!(
                    !seen.contains(&text),
                    "{query}: client {client} got {text:?} twice"
                );
                seen.push(text);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases.max(300), ..ProptestConfig::default() })]

    /// Scenarios drawn from the key table itself (`drawn`): every key and
    /// value, combined freely, subscribers and resends among them.
    #[test]
    fn every_drawn_scenario_keeps_the_trace_and_stream_invariants(scenario in drawn()) {
        hold_stream_invariants(&scenario.to_query());
    }
}

#[test]
fn a_resend_repeats_what_the_same_client_received() {
    for query in [
        "chunks=3&ending=input&client=stream&cancel=3&work=await&cancel_impl=noop&timeout_ms=5000&dup=3&conflict=on&retry=on&guard=off&sdk=python&wire=0.3",
        "chunks=3&ending=fail&client=stream&late=0&dup=4&conflict=on&guard=off&sdk=python&second_client=4&wire=0.3",
    ] {
        hold_invariants(query);
    }
}

#[test]
fn a_resend_after_an_interruption_repeats_the_interruption_not_an_unsent_chunk() {
    hold_invariants("chunks=1&interrupt=auth&dup=3");
    let run = simulate(&Scenario::from_query("chunks=1&interrupt=auth&dup=3").unwrap());
    let resent = run
        .trace
        .rows
        .iter()
        .find(|r| r.event.contains("resent"))
        .expect("event 3 is resent");
    assert!(resent.event.contains("AUTH-REQUIRED"), "{}", resent.event);
}
