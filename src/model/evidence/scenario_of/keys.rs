//! The keys read off one stream of a task: its steps and how they ended,
//! the questions answered across follow-up turns, a blocking call's
//! answers, progress, the whole result at once, and the wire.

use std::borrow::Borrow;

use crate::model::sim::keys::{CancelImpl, Client, Ending, Interrupt, Key, ResultShape};
use crate::model::sim::profile::INTERNAL_ERROR;
use crate::model::state::TaskState;
use crate::model::trace::StreamEnd;
use crate::model::wire::answer::{EventKind, OwnedEvent};
use crate::model::wire::Wire;

use super::setting::{has, Reading, Setting};

pub(super) fn state_of(event: &OwnedEvent) -> Option<TaskState> {
    match event.kind {
        EventKind::Status | EventKind::Task => event.state.as_ref()?.known(),
        _ => None,
    }
}

/// The questions a task asked and was answered (a WORKING status came
/// after): each follow-up turn's interrupted state, in order, by index.
fn turns(events: &[&OwnedEvent]) -> Vec<(usize, TaskState)> {
    let working =
        |e: &&OwnedEvent| e.kind == EventKind::Status && state_of(e) == Some(TaskState::Working);
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EventKind::Status)
        .filter_map(|(i, e)| Some((i, state_of(e).filter(|s| s.is_interrupted())?)))
        .filter(|&(i, _)| events[i + 1..].iter().any(working))
        .collect()
}

/// `interrupt` for the questions answered, where the lab asks them so.
fn interrupt_key(turns: &[(usize, TaskState)]) -> Option<Setting> {
    let asked: Vec<TaskState> = turns.iter().map(|&(_, s)| s).collect();
    match asked[..] {
        [] => None,
        [TaskState::AuthRequired] => Some(Setting::Interrupt(Interrupt::Auth)),
        [TaskState::InputRequired] => Some(Setting::Interrupt(Interrupt::Input)),
        _ => Some(Setting::Interrupt(Interrupt::Both)),
    }
}

/// The keys every task ends with: its wire.
fn finish_keys(mut keys: Reading, events: &[&OwnedEvent]) -> Reading {
    if events.first().is_some_and(|e| e.wire == Wire::V0_3) {
        keys.push(Setting::Wire(Wire::V0_3));
    }
    keys
}

/// How the steps ended: all done and closed, or stopped mid-way.
#[derive(Clone, Copy)]
struct Steps {
    /// Steps whose chunk reached the wire (the whole result's parts).
    done: u32,
    /// Whether the tracking artifact was closed (its last chunk sent).
    closed: bool,
    /// Whether the one update was the whole result at once (never a step
    /// left open).
    whole: bool,
}

/// The keys for the steps and for how the task ended at `last` (`end`:
/// how its stream ended, where known): `chunks`, a cancel and where it
/// fell, `cancel_impl`, `ending`.
fn ending_keys(steps: Steps, last: Option<TaskState>, end: Option<StreamEnd>) -> Reading {
    let Steps {
        done,
        closed,
        whole,
    } = steps;
    // An artifact left open before FAILED or a stream's end: the work
    // stopped mid-way, as a cancel whose cancel() raises (FAILED, or the
    // stream ended by its error) or writes nothing does.
    let stopped = !closed && done > 0 && !whole;
    // JSON-RPC 2.0 §5.1: -32603 is the server's internal error, what an
    // exception that reaches the handler becomes.
    let raised = end == Some(StreamEnd::Error(INTERNAL_ERROR));
    let cancel_impl = match last {
        Some(TaskState::Failed) if stopped => Some(CancelImpl::Raise),
        None if stopped && raised => Some(CancelImpl::Raise),
        None if stopped => Some(CancelImpl::Noop),
        _ => None,
    };
    // A cancel after the artifact's last chunk lands only on an executor
    // that never returns; before it, the steps left never reach the wire
    // (one more is the fewest that leaves a step to cancel).
    let mut keys = match (last, cancel_impl) {
        (Some(TaskState::Canceled), _) if closed => {
            vec![
                Setting::Chunks(done as usize),
                Setting::Cancel(done as usize),
            ]
        }
        (Some(TaskState::Canceled), _) | (_, Some(_)) => {
            vec![
                Setting::Chunks(done as usize + 1),
                Setting::Cancel(done as usize),
            ]
        }
        _ => vec![Setting::Chunks(done as usize)],
    };
    if let Some(how) = cancel_impl {
        keys.push(Setting::CancelImpl(how));
        return keys;
    }
    let ending = match (last, end) {
        (Some(TaskState::Canceled), _) if closed => Some(Ending::Never),
        (Some(TaskState::Completed) | Some(TaskState::Canceled), _) => None,
        (Some(TaskState::Failed), _) => Some(Ending::Fail),
        (Some(TaskState::InputRequired), _) => Some(Ending::Input),
        (Some(TaskState::AuthRequired), _) => Some(Ending::Auth),
        // A stream that hung, or that the client's own timeout gave up on.
        (_, Some(StreamEnd::Hung | StreamEnd::TimedOut)) => Some(Ending::Never),
        // No final status, the stream ended by an exception's error.
        _ if raised => Some(Ending::Raise),
        _ => Some(Ending::Return),
    };
    keys.extend(ending.map(Setting::Ending));
    keys
}

/// A blocking call's answers, a task each (one per turn): the questions
/// answered, the steps the last holds and how it ended.
fn blocking_keys(answers: &[&OwnedEvent]) -> Reading {
    let Some(event) = answers.last() else {
        return Vec::new();
    };
    // A part the same as the one before it is one step applied twice (a
    // second event loop on the task appends it again: @a2a-js/sdk's call
    // that returned at AUTH_REQUIRED), not a step of its own.
    let parts: usize = event
        .artifacts
        .iter()
        .map(|a| a.parts.len() - a.parts.windows(2).filter(|w| w[0] == w[1]).count())
        .sum();
    let mut keys = vec![Setting::Client(Client::Block)];
    let asked: Vec<(usize, TaskState)> = answers[..answers.len() - 1]
        .iter()
        .enumerate()
        .filter_map(|(i, a)| Some((i, state_of(a).filter(|s| s.is_interrupted())?)))
        .collect();
    keys.extend(interrupt_key(&asked));
    // A task lists its artifact whole: the steps done, never one left open.
    let steps = Steps {
        done: parts as u32,
        closed: true,
        whole: false,
    };
    let last = state_of(event);
    let steps = match last {
        Some(TaskState::Canceled) => Steps {
            closed: false,
            ..steps
        },
        _ => steps,
    };
    keys.extend(ending_keys(steps, last, None));
    finish_keys(keys, answers)
}

/// Whether the events are a blocking call's answers: tasks alone, never
/// SUBMITTED.
pub(super) fn answers_only<E: Borrow<OwnedEvent>>(events: &[E]) -> bool {
    events.iter().all(|e| e.borrow().kind == EventKind::Task)
        && events
            .first()
            .is_some_and(|e| state_of(e.borrow()) != Some(TaskState::Submitted))
}

/// The steps a stream's events up to the end show, and how many WORKING
/// statuses came before the end.
fn steps_of(before: &[&OwnedEvent]) -> (Steps, u32) {
    let artifacts: Vec<&OwnedEvent> = before
        .iter()
        .copied()
        .filter(|e| e.kind == EventKind::Artifact)
        .collect();
    let workings = before
        .iter()
        .filter(|e| e.kind == EventKind::Status && state_of(e) == Some(TaskState::Working))
        .count() as u32;
    let first = |e: &&OwnedEvent| e.artifacts.first().map(|a| (a.parts.len(), a.last));
    let whole = match artifacts[..] {
        [one] => first(&one).is_some_and(|(parts, _)| parts > 1),
        _ => false,
    };
    let steps = Steps {
        done: match artifacts[..] {
            [one] if whole => first(&one).map_or(0, |(parts, _)| parts as u32),
            _ => artifacts.len() as u32,
        },
        closed: artifacts
            .last()
            .and_then(first)
            .is_some_and(|(_, last)| last),
        whole,
    };
    (steps, workings)
}

/// Whether a WORKING update came after the last step's chunk (the next
/// step's progress), with a step done before it.
fn progress_after_last_step(events: &[&OwnedEvent]) -> bool {
    let Some(last) = events.iter().rposition(|e| e.kind == EventKind::Artifact) else {
        return false;
    };
    events[last + 1..]
        .iter()
        .any(|e| e.kind == EventKind::Status && state_of(e) == Some(TaskState::Working))
}

/// The keys its events say (the SDK left out).
pub(super) fn keys_of(events: &[OwnedEvent], end: Option<StreamEnd>) -> Reading {
    keys_of_refs(&events.iter().collect::<Vec<_>>(), end)
}

/// [`keys_of`] for events lent one by one: a reading that leaves one out
/// (a resend's) reads the rest in place, never a copy of them.
pub(super) fn keys_of_refs(events: &[&OwnedEvent], end: Option<StreamEnd>) -> Reading {
    if answers_only(events) {
        return blocking_keys(events);
    }
    let turns = turns(events);
    // The end: the first final or interrupted status no turn answered.
    let ends_at = events.iter().enumerate().position(|(i, e)| {
        state_of(e).is_some_and(|s| s.is_terminal() || s.is_interrupted())
            && !turns.iter().any(|&(t, _)| t == i)
            && (e.kind == EventKind::Status || i == 0)
    });
    let (steps, workings) = steps_of(&events[..ends_at.unwrap_or(events.len())]);
    let last = ends_at.and_then(|i| state_of(events[i]));
    let mut keys = ending_keys(steps, last, end);
    if has(&keys, Key::CancelImpl) {
        return finish_keys(keys, events);
    }
    let after_end = ends_at.is_some_and(|i| {
        events[i + 1..]
            .iter()
            .any(|e| e.kind == EventKind::Artifact)
    });
    if after_end {
        keys.push(Setting::Late(0));
    }
    keys.extend(interrupt_key(&turns));
    // Progress: WORKING again before each step, beyond the first WORKING
    // and each follow-up turn's; a step whose progress came but whose
    // chunk did not (a cancel fell in it) counts too.
    let progress = workings.saturating_sub(1 + turns.len() as u32);
    let before = &events[..ends_at.unwrap_or(events.len())];
    let started = steps.done + u32::from(progress_after_last_step(before));
    let chunks = started.max(1);
    if progress > 0 && progress % chunks == 0 {
        keys.push(Setting::Progress((progress / chunks) as usize));
    }
    if steps.whole {
        keys.push(Setting::Result(ResultShape::Last));
    }
    finish_keys(keys, events)
}

/// The keys read off a task that stops short of its end, with its steps
/// and how it ended left out (neither is on the wire) and `chunks` steps
/// instead.
pub(super) fn cut_short(read: &[Setting], chunks: usize) -> Reading {
    let unseen = [Key::Chunks, Key::Cancel, Key::CancelImpl, Key::Ending];
    let kept = read.iter().filter(|s| !unseen.contains(&s.key())).copied();
    [Setting::Chunks(chunks)].into_iter().chain(kept).collect()
}
