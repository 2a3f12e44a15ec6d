//! The probe's contract checks beside the lifecycle (SPEC §11):
//! `card-field`, `rpc-envelope`, `foreign-task` and `context-mismatch`.
//! Each reads what a probe received, as recorded, and says what is wrong;
//! the judge ([`super::judge`]) files them under the probe whose
//! calls showed them.

use serde_json::Value;

use super::records::CallRecord;
use super::report::ProbeCode;
use crate::model::wire::answer::{Answer, EventKind};
use crate::model::wire::card::fields::{card_faults, card_shape};
use crate::model::wire::envelope::envelope_faults;
use crate::model::wire::Wire;

/// A finding: its code and its message.
pub type Found = (ProbeCode, String);

/// `card-field`: the card as served, judged by the shape it was served in
/// (`wire`, the wire it is spoken to in, when its fields tell neither).
/// Returns the summary and one finding per field.
pub fn card(body: &str, wire: Wire) -> (String, Vec<Found>) {
    let Ok(card) = serde_json::from_str::<Value>(body) else {
        return (
            "the card is not JSON".to_string(),
            vec![(ProbeCode::CardField, "the card is not JSON".to_string())],
        );
    };
    let shape = card_shape(&card, wire);
    let found: Vec<Found> = card_faults(&card, shape)
        .into_iter()
        .map(|(field, problem)| (ProbeCode::CardField, format!("`{field}` {problem}")))
        .collect();
    let summary = match found.len() {
        0 => format!("an A2A {} card with every required field", shape.name()),
        1 => format!("an A2A {} card; 1 required field is wanting", shape.name()),
        n => format!(
            "an A2A {} card; {n} required fields are wanting",
            shape.name()
        ),
    };
    (summary, found)
}

/// `rpc-envelope`: each fault of the calls' JSON-RPC answers, once per
/// call and fault, with how many of the call's answers had it.
pub fn envelopes(calls: &[&CallRecord]) -> Vec<Found> {
    let mut found = Vec::new();
    for (n, call) in calls.iter().enumerate() {
        // A body that cannot be framed is the reader's to refuse.
        let Ok(payloads) = call.payloads() else {
            continue;
        };
        let id = call.request_id.map(Value::from);
        let faults = tally(payloads.iter().enumerate().flat_map(|(index, payload)| {
            envelope_faults(payload, id.as_ref())
                .into_iter()
                .map(move |fault| (index, fault))
        }));
        let whose = match calls.len() {
            1 => "the".to_string(),
            _ => format!("call {}'s", n + 1),
        };
        for (fault, first, times) in faults {
            let place = match (call.sse, payloads.len()) {
                (false, _) => format!("{whose} answer"),
                (true, all) if times == all => format!("every event of {whose} stream"),
                (true, all) => {
                    format!("{times} of {all} events of {whose} stream, from event {first}")
                }
            };
            found.push((ProbeCode::RpcEnvelope, format!("{place}: {fault}")));
        }
    }
    found
}

/// `foreign-task`: events in the stream of task `own` that name another;
/// one finding per other task, with how many events named it.
pub fn foreign_tasks(answers: &[&Answer], own: &str) -> Vec<Found> {
    let named = answers.iter().enumerate().filter_map(|(index, answer)| {
        let event = answer
            .event()
            .filter(|e| e.kind != EventKind::Message && e.task_id != own)?;
        Some((index, event.task_id.as_str()))
    });
    tally(named)
        .into_iter()
        .map(|(other, first, times)| {
            (
                ProbeCode::ForeignTask,
                format!(
                    "{} task {other}, in the stream of task {own}",
                    naming(first, times)
                ),
            )
        })
        .collect()
}

/// `context-mismatch`: events of task `own` whose `contextId` differs
/// from the task's: `context` when known (what its stream said), else the
/// first the events name. One finding per context named, with how many
/// events named it.
pub fn context_mismatches(answers: &[&Answer], own: &str, context: Option<&str>) -> Vec<Found> {
    let contexts: Vec<(usize, &str)> = answers
        .iter()
        .enumerate()
        .filter_map(|(index, answer)| {
            let event = answer.event().filter(|e| e.task_id == own)?;
            Some((index, event.context_id.as_deref()?))
        })
        .collect();
    let Some(theirs) = context.or(contexts.first().map(|(_, c)| *c)) else {
        return Vec::new();
    };
    let others = contexts.into_iter().filter(|(_, c)| *c != theirs);
    tally(others)
        .into_iter()
        .map(|(named, first, times)| {
            (
                ProbeCode::ContextMismatch,
                format!(
                    "{} context {named} for task {own}, whose context is {theirs}",
                    naming(first, times)
                ),
            )
        })
        .collect()
}

/// Each distinct value of `(index, value)` pairs, in the order first
/// seen, with the index it was first seen at and how many times: one
/// finding a value, however many events repeat it.
fn tally<T: PartialEq>(items: impl Iterator<Item = (usize, T)>) -> Vec<(T, usize, usize)> {
    let mut seen: Vec<(T, usize, usize)> = Vec::new();
    for (index, value) in items {
        match seen.iter_mut().find(|(v, _, _)| *v == value) {
            Some((_, _, times)) => *times += 1,
            None => seen.push((value, index, 1)),
        }
    }
    seen
}

/// `event N names`, or `K events from event N name`.
fn naming(first: usize, times: usize) -> String {
    match times {
        1 => format!("event {first} names"),
        n => format!("{n} events from event {first} name"),
    }
}

/// The context the events of task `own` first name.
pub fn context_of(answers: &[Answer], own: &str) -> Option<String> {
    answers
        .iter()
        .filter_map(Answer::event)
        .filter(|e| e.task_id == own)
        .find_map(|e| e.context_id.clone())
}
