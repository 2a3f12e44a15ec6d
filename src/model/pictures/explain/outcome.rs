//! The outcome in one sentence: the first of the sentences, tried in
//! order, that speaks for the run.

use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::{
    CancelImpl, Client, Ending, Interrupt, Push, ReceiptMode, ResultShape, Scenario, Store, Work,
};
use crate::model::state::TaskState;
use crate::model::trace::{CallEnd, CancelResult, Run, StreamEnd, StreamRole};

use super::streams::{push_outcome, subscriber_outcome};
use super::{plural, RunFacts};

/// One sentence that may tell a run's outcome.
type Sentence = fn(&RunFacts) -> Option<String>;

/// The outcome's sentences, tried in order: the first that speaks tells
/// the outcome, so a row above wins over the rows below it.
const OUTCOMES: &[Sentence] = &[
    preset_outcome,
    resend_reach_outcome,
    |r| push_outcome(r.sc, r.run),
    |r| subscriber_outcome(r.sc, r.run),
    restart_outcome,
    hung_outcome,
    timed_out_outcome,
    result_last_outcome,
    cancel_outcome,
    guard_outcome,
    after_terminal_outcome,
    retry_outcome,
    resend_outcome,
    receipt_outcome,
    open_stream_outcome,
    |r| {
        (r.sc.ending == Ending::Return).then(|| format!("execute() returned without a final status, so the stream closed and the task stays {}: 1 task left non-terminal, no hang.", r.state))
    },
];

/// The outcome in one sentence.
pub fn outcome(scenario: &Scenario, run: &Run) -> String {
    let r = RunFacts::of(scenario, run);
    if let Some(sentence) = OUTCOMES.iter().find_map(|sentence| sentence(&r)) {
        return sentence;
    }
    let client = match scenario.client {
        Client::Stream => format!("streamed {}", r.events),
        Client::Block => format!("answered the blocking call with the task {}", r.state),
    };
    format!(
        "The executor {client} and the task ended {}, as {} does with these inputs.",
        r.state, r.sdk
    )
}

fn preset_outcome(r: &RunFacts) -> Option<String> {
    let preset = r.sc.preset?;
    let (m, state) = (r.m, &r.state);
    Some(format!(
        "The seed's {preset:?} ledger ends {state} at accepted sequence {}: {}, {} — every decision taken from the event's identity, none from the connection.",
        r.run.ledgers[0].sequence(),
        plural(m.duplicates, "duplicate was a lookup hit", "duplicates were lookup hits"),
        plural(m.rejected, "event was rejected with a reason", "events were rejected with a reason"),
    ))
}

fn restart_outcome(r: &RunFacts) -> Option<String> {
    let k = r.sc.restart?;
    let (sdk, state) = (r.sdk, &r.state);
    Some(match r.sc.store {
        Store::Memory => format!("The server restarted after chunk {k} and the in-memory store lost the task: GetTask finds nothing ({sdk})."),
        Store::Database => format!("The server restarted after chunk {k}; the database still holds the task {state}, and nothing resumes it ({sdk})."),
    })
}

fn hung_outcome(r: &RunFacts) -> Option<String> {
    let (sdk, state, events) = (r.sdk, &r.state, &r.events);
    if r.m.hung_streams > 0 {
        return Some(format!("execute() never returns, so the stream hangs after {events}: 1 hung stream, the task stays {state} ({sdk})."));
    }
    (r.m.hung_calls > 0).then(|| format!("execute() never returns, so the blocking call never answers: 1 hung call, the task stays {state} ({sdk})."))
}

fn timed_out_outcome(r: &RunFacts) -> Option<String> {
    let timed_out =
        r.m.stream == Some(StreamEnd::TimedOut) || r.run.call_end == Some(CallEnd::TimedOut);
    timed_out.then(|| {
        format!(
            "The client's own timeout ended the wait after {}; on the server the task stays {}.",
            r.events, r.state
        )
    })
}

fn result_last_outcome(r: &RunFacts) -> Option<String> {
    let late = r.sc.result == ResultShape::Last
        && r.sc.cancel.is_some_and(|k| k > 0)
        && r.m.cancel_result == Some(CancelResult::NotCancelable);
    late.then(|| format!("With result=last the only artifact is the whole result, sent right before the end: a cancel timed from the first artifact landed after the task was already {}, and CancelTask got TaskNotCancelableError (-32002) ({}).", r.state, r.sdk))
}

fn cancel_outcome(r: &RunFacts) -> Option<String> {
    let (m, sdk, state, events) = (r.m, r.sdk, &r.state, &r.events);
    Some(match (m.cancel_result?, r.sc.cancel_impl) {
        (CancelResult::NotCancelable, _) => format!("The cancel arrived after the task was already {state}: it lost the race, and CancelTask got TaskNotCancelableError (-32002) ({sdk})."),
        (_, CancelImpl::Raise) if m.final_state == Some(TaskState::Failed) => format!("cancel() raised NotImplementedError, so the task ended FAILED after {events} ({sdk})."),
        (CancelResult::Canceled, CancelImpl::Noop) => format!("cancel() wrote nothing: {sdk} stored CANCELED itself but never streamed it, so the stream closed after {events} without a final status."),
        (CancelResult::Canceled, _) => {
            let orphans = match (m.orphaned_steps, r.sc.work) {
                (0, _) => "no step ran on after it".to_string(),
                (n, Work::ToThread) => format!("{} kept running in asyncio.to_thread, output going nowhere", plural(n, "orphaned step", "orphaned steps")),
                (n, _) => format!("{} finished after it", plural(n, "orphaned step", "orphaned steps")),
            };
            format!("The cancel wrote CANCELED after {events}; {orphans} ({sdk}).")
        }
        _ => return None,
    })
}

fn guard_outcome(r: &RunFacts) -> Option<String> {
    (r.m.dropped_by_guard > 0).then(|| {
        format!(
            "Your terminal-state guard dropped {} after {}: the client got {}.",
            plural(r.m.dropped_by_guard, "event", "events"),
            r.state,
            r.events
        )
    })
}

fn after_terminal_outcome(r: &RunFacts) -> Option<String> {
    let m = r.m;
    if m.events_after_terminal == 0 {
        return None;
    }
    let stored = match (m.blocking_result_artifacts, m.get_task_artifacts) {
        (Some(b), Some(g)) if b != g => {
            format!("; the blocking result lists {b} artifact(s) while GetTask lists {g}")
        }
        (_, Some(g)) => format!(" and stored (GetTask lists {g} artifacts)"),
        _ => String::new(),
    };
    Some(format!(
        "{} arrived after the task was already {} and {} still delivered{stored} ({}).",
        plural(m.events_after_terminal, "event", "events"),
        r.state,
        if m.events_after_terminal == 1 {
            "was"
        } else {
            "were"
        },
        r.sdk
    ))
}

fn retry_outcome(r: &RunFacts) -> Option<String> {
    if !r.sc.retry {
        return None;
    }
    if r.m.executions > 1 {
        return Some(format!("The retried submission executed again as a second task: {} ({} does nothing with the repeated message id).", plural(r.m.executions, "execution", "executions"), r.sdk));
    }
    r.sc.guard.then(|| "The ledger answered the retried submission from its idempotency key: the existing task was returned and the work ran once.".into())
}

fn resend_outcome(r: &RunFacts) -> Option<String> {
    let (m, sc, sdk, events) = (r.m, r.sc, r.sdk, &r.events);
    if m.incidents > 0 {
        return Some("The resent part carried other bytes at the same artifact coordinate: the ledger recorded a protocol incident and kept the stored part.".into());
    }
    if sc.conflict && sc.dup.is_some() {
        return Some(format!("The resent part carried other bytes at the same coordinate and {sdk} silently replaced the stored part."));
    }
    if m.duplicates > 0 {
        return Some(format!("The resent event was a duplicate: a lookup hit in the ledger, not delivered twice; the client got {events}."));
    }
    sc.dup.is_some().then(|| format!("The stream broke and the server resent an event: the client received it twice ({events} in all)."))
}

/// `dup` beside a webhook or another stream (SPEC §14): the resend is a
/// fault of client 1's own connection, so who else got the event once.
fn resend_reach_outcome(r: &RunFacts) -> Option<String> {
    let (sc, k) = (r.sc, r.sc.dup?);
    let others = match (sc.push != Push::Off, sc.second_client.is_some()) {
        (true, true) => "the webhook and the second client",
        (true, false) => "the webhook",
        (false, true) => "the second client",
        (false, false) if sc.resubscribe.is_some() => "",
        (false, false) => return None,
    };
    let dropped = r
        .run
        .trace
        .rows
        .iter()
        .any(|row| row.event.starts_with("dup="));
    if dropped {
        return Some(format!("The client dropped its stream at event {k} itself (resubscribe), so the server resent nothing: the events reached it once, over its SubscribeToTask stream."));
    }
    let once = match others {
        "" => String::new(),
        who => format!(", while {who} got every event once"),
    };
    Some(format!("Client 1's stream broke after event {k} and the server resent it on the reconnected stream alone: client 1 received it twice{once} ({} in all).", r.events))
}

fn receipt_outcome(r: &RunFacts) -> Option<String> {
    if r.sc.receipt != ReceiptMode::Missing {
        return None;
    }
    if r.m.rejected > 0 {
        return Some("The resume carried no authorization receipt, so the ledger rejected it (authorization-receipt-required) and the task stays AUTH_REQUIRED.".into());
    }
    (r.sc.interrupt != Interrupt::None).then(|| format!("The resume carried no authorization receipt and {} resumed anyway: it never checks one. The task ended {}.", r.sdk, r.state))
}

/// SPEC §14: the message stream the SDK kept open at AUTH_REQUIRED, ended
/// by an error when the follow-up's `execute()` published the task again.
fn open_stream_outcome(r: &RunFacts) -> Option<String> {
    let error = Profile::of(r.sc.sdk).republish_ends_open_stream?;
    let rows = &r.run.trace.rows;
    let first = r.run.streams.iter().find(|s| {
        s.client == 1 && s.role == StreamRole::Send && s.end == StreamEnd::Error(error.code)
    })?;
    let left_at = first
        .rows
        .last()
        .and_then(|&i| rows[i].state_after)
        .map_or("?", TaskState::short);
    Some(format!(
        "The first turn's stream stayed open at {left_at} and ended with JSON-RPC {} (\"{}\") when the resumed execute() published the task again: the follow-up streamed on a connection of its own, and the task ended {} after {} ({}). A client that waits for the first stream to end gets an error, not the task's end.",
        error.code, error.message, r.state, r.events, r.sdk
    ))
}
