//! Plain-language readings of a trace: the outcome in one sentence and the
//! seed's "what carries over" advice that applies to this scenario, both
//! computed from the trace, naming the SDK whose behaviour they describe.

use crate::model::sim::profile::{Profile, TASK_NOT_FOUND};
use crate::model::sim::scenario::{
    CancelImpl, Client, Ending, Interrupt, Push, PushFollowup, ReceiptMode, ResultShape, Scenario,
    Sdk, Store, Work,
};
use crate::model::state::TaskState;
use crate::model::trace::PUSH_RACED;
use crate::model::trace::{
    CallEnd, CancelResult, Disposition, Metrics, Row, Run, StreamEnd, StreamRecord, StreamRole,
};
use crate::model::wire::RowWire;

/// One piece of advice that carries over to production.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    /// A short imperative.
    pub title: &'static str,
    /// Why it matters here.
    pub why: String,
}

fn state_label(m: &Metrics) -> String {
    m.final_state.map_or("lost", |s| s.short()).to_string()
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What every reading of a run starts from.
struct Reading<'a> {
    sc: &'a Scenario,
    run: &'a Run,
    m: &'a Metrics,
    /// The SDK whose behaviour the run follows.
    sdk: &'static str,
    /// "N event(s)" delivered.
    events: String,
    /// The final state's short name, or "lost".
    state: String,
}

impl<'a> Reading<'a> {
    fn of(sc: &'a Scenario, run: &'a Run) -> Reading<'a> {
        let m = &run.trace.metrics;
        Reading {
            sc,
            run,
            m,
            sdk: Profile::of(sc.sdk).name,
            events: plural(m.events_delivered, "event", "events"),
            state: state_label(m),
        }
    }
}

/// One sentence that may tell a run's outcome.
type Sentence = fn(&Reading) -> Option<String>;

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
    let r = Reading::of(scenario, run);
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

fn preset_outcome(r: &Reading) -> Option<String> {
    let preset = r.sc.preset?;
    let (m, state) = (r.m, &r.state);
    Some(format!(
        "The seed's {preset:?} ledger ends {state} at accepted sequence {}: {}, {} — every decision taken from the event's identity, none from the connection.",
        r.run.ledgers[0].sequence(),
        plural(m.duplicates, "duplicate was a lookup hit", "duplicates were lookup hits"),
        plural(m.rejected, "event was rejected with a reason", "events were rejected with a reason"),
    ))
}

fn restart_outcome(r: &Reading) -> Option<String> {
    let k = r.sc.restart?;
    let (sdk, state) = (r.sdk, &r.state);
    Some(match r.sc.store {
        Store::Memory => format!("The server restarted after chunk {k} and the in-memory store lost the task: GetTask finds nothing ({sdk})."),
        Store::Database => format!("The server restarted after chunk {k}; the database still holds the task {state}, and nothing resumes it ({sdk})."),
    })
}

fn hung_outcome(r: &Reading) -> Option<String> {
    let (sdk, state, events) = (r.sdk, &r.state, &r.events);
    if r.m.hung_streams > 0 {
        return Some(format!("execute() never returns, so the stream hangs after {events}: 1 hung stream, the task stays {state} ({sdk})."));
    }
    (r.m.hung_calls > 0).then(|| format!("execute() never returns, so the blocking call never answers: 1 hung call, the task stays {state} ({sdk})."))
}

fn timed_out_outcome(r: &Reading) -> Option<String> {
    let timed_out =
        r.m.stream == Some(StreamEnd::TimedOut) || r.run.call_end == Some(CallEnd::TimedOut);
    timed_out.then(|| {
        format!(
            "The client's own timeout ended the wait after {}; on the server the task stays {}.",
            r.events, r.state
        )
    })
}

fn result_last_outcome(r: &Reading) -> Option<String> {
    let late = r.sc.result == ResultShape::Last
        && r.sc.cancel.is_some_and(|k| k > 0)
        && r.m.cancel_result == Some(CancelResult::NotCancelable);
    late.then(|| format!("With result=last the only artifact is the whole result, sent right before the end: a cancel timed from the first artifact landed after the task was already {}, and CancelTask got TaskNotCancelableError (-32002) ({}).", r.state, r.sdk))
}

fn cancel_outcome(r: &Reading) -> Option<String> {
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

fn guard_outcome(r: &Reading) -> Option<String> {
    (r.m.dropped_by_guard > 0).then(|| {
        format!(
            "Your terminal-state guard dropped {} after {}: the client got {}.",
            plural(r.m.dropped_by_guard, "event", "events"),
            r.state,
            r.events
        )
    })
}

fn after_terminal_outcome(r: &Reading) -> Option<String> {
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

fn retry_outcome(r: &Reading) -> Option<String> {
    if !r.sc.retry {
        return None;
    }
    if r.m.executions > 1 {
        return Some(format!("The retried submission executed again as a second task: {} ({} does nothing with the repeated message id).", plural(r.m.executions, "execution", "executions"), r.sdk));
    }
    r.sc.guard.then(|| "The ledger answered the retried submission from its idempotency key: the existing task was returned and the work ran once.".into())
}

fn resend_outcome(r: &Reading) -> Option<String> {
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
fn resend_reach_outcome(r: &Reading) -> Option<String> {
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

fn receipt_outcome(r: &Reading) -> Option<String> {
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
fn open_stream_outcome(r: &Reading) -> Option<String> {
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

/// The outcome of a scenario with push notifications (SPEC §12), told as
/// what the webhook's owner believes and why.
fn push_outcome(scenario: &Scenario, run: &Run) -> Option<String> {
    let m = &run.trace.metrics;
    let p = m.push.as_ref()?;
    let profile = Profile::of(scenario.sdk);
    let sdk = profile.name;
    let state = state_label(m);
    let told = p.push_last_state.map_or("nothing", |s| s.short());
    let done = p
        .client_done_ms
        .map_or("never".to_string(), |t| format!("at {t} ms"));
    let last_post = run
        .trace
        .rows
        .iter()
        .rev()
        .find(|r| r.push.is_some())
        .map_or(0, |r| r.t_ms);
    // SPEC §14: a restart under a push config, measured as a race.
    if scenario.restart.is_some() && m.final_state.is_none_or(|s| !s.is_terminal()) {
        return Some(format!(
            "The restart killed the process with its push sender: your webhook last heard {told} and will hear nothing more, while GetTask says {state}. How many events reached the webhook and the stream before the kill is a race (runs differed on both SDKs); here {} went out ({sdk}).",
            plural(p.pushes, "POST", "POSTs"),
        ));
    }
    let races = run
        .trace
        .rows
        .iter()
        .filter(|r| r.push.as_ref().is_some_and(|p| p.answer == PUSH_RACED))
        .count() as u32;
    if races > 0 {
        return Some(format!(
            "Your webhook answered {} within {} ms of the sender's {} ms timeout: a race, answered in one run and abandoned in the next (measured: a different number lost in each run), so pushes_answered counts only the {} answered for sure. Answer webhooks at once and do the work after ({sdk}).",
            plural(races, "POST", "POSTs"),
            profile.push.timeout_race_ms,
            profile.push.timeout_ms,
            p.pushes_answered,
        ));
    }
    if p.pushes_answered < p.pushes {
        return Some(format!(
            "{} of {} went unanswered and {sdk} never retries: your webhook believes {told} while GetTask says {state}.",
            p.pushes - p.pushes_answered,
            plural(p.pushes, "POST", "POSTs"),
        ));
    }
    if p.push_last_state != m.final_state {
        return Some(format!(
            "Your webhook was never told {state}: its last push said {told} ({sdk}); read GetTask when the pushes stop."
        ));
    }
    if scenario.webhook_delay_ms.is_some() && p.pushes > 0 {
        return Some(if profile.push.holds_stream {
            format!("A slow webhook holds this SDK's stream: each event reached the client only after its POST was answered, so the client finished {done} ({sdk}).")
        } else {
            format!("The client finished {done} while the POSTs went out one after another, the last at {last_post} ms: the webhook learned {told} long after the client ({sdk}).")
        });
    }
    // SPEC §14: a retried message with the same inline config makes a
    // second task, pushed as fully as the first.
    if scenario.retry && m.executions > 1 {
        return Some(format!(
            "Your webhook got {} for two tasks: the retried message carried the same config, so the second task it made was pushed as fully as the first ({sdk}). Tell them apart by task id, or the webhook counts the work twice.",
            plural(p.pushes, "POST", "POSTs"),
        ));
    }
    if p.push_duplicates > 0 || p.push_after_terminal > 0 {
        return Some(format!(
            "Your webhook got {}: {} repeating an earlier body byte for byte, {} after the terminal one ({sdk}).",
            plural(p.pushes, "POST", "POSTs"),
            p.push_duplicates,
            p.push_after_terminal,
        ));
    }
    Some(format!(
        "Your webhook got {}, one per event the SDK processed, and last heard {told}, as GetTask says ({sdk}).",
        plural(p.pushes, "POST", "POSTs"),
    ))
}

/// The outcome of a scenario with SPEC §9's subscribers, told from client
/// 1's last SubscribeToTask, else the second client's.
fn subscriber_outcome(scenario: &Scenario, run: &Run) -> Option<String> {
    let streams = &run.streams;
    let (stream, who) = match streams
        .iter()
        .rposition(|s| s.role == StreamRole::Resubscribe)
    {
        Some(i)
            if streams[..i].iter().rfind(|s| s.client == 1).map(|s| s.end)
                == Some(StreamEnd::Broken) =>
        {
            (
                &streams[i],
                "After a restart broke its stream, the client".to_string(),
            )
        }
        Some(i) => (
            &streams[i],
            format!(
                "The connection dropped after event {} and the client",
                scenario.resubscribe.unwrap_or_default()
            ),
        ),
        None => (
            streams
                .iter()
                .find(|s| s.role == StreamRole::SecondClient)?,
            format!(
                "A second client, after event {},",
                scenario.second_client.unwrap_or_default()
            ),
        ),
    };
    let sdk = Profile::of(scenario.sdk).name;
    let m = &run.trace.metrics;
    let state = state_label(m);
    let rows = &run.trace.rows;
    let got = match stream.end {
        StreamEnd::Error(TASK_NOT_FOUND) => {
            "got TaskNotFoundError (-32001): the restart had lost the task".to_string()
        }
        StreamEnd::Error(code) => format!("got UnsupportedOperationError ({code}): the task was already {state}, so only GetTask can tell how it ended"),
        _ => {
            let first = &rows[stream.rows[0]];
            let parts = first.wire.as_ref().map_or(0, RowWire::task_parts);
            let late = stream
                .rows
                .iter()
                .filter(|&&i| rows[i].disposition == Disposition::AfterTerminal)
                .count();
            let late = if late > 0 { format!(" ({late} after the terminal status)") } else { String::new() };
            let ended = subscription_ended(scenario, m, stream, rows);
            format!(
                "got a task snapshot in {} holding {}, then only the {} after it{late}; {ended}",
                first.state_after.map_or("?", TaskState::short),
                match parts {
                    0 => "no artifact part yet".to_string(),
                    n => plural(n as u32, "part stored so far", "parts stored so far"),
                },
                plural(stream.rows.len() as u32 - 1, "event", "events"),
            )
        }
    };
    Some(format!(
        "{who} called SubscribeToTask and {got} ({sdk}).{}",
        retried_tail(scenario, m)
    ))
}

/// How a subscription's stream ended, told at the state it ended at.
fn subscription_ended(
    scenario: &Scenario,
    m: &Metrics,
    stream: &StreamRecord,
    rows: &[Row],
) -> String {
    let state = state_label(m);
    // Across the turns of an interrupted task a subscription may close
    // before the task ends: told at the state it closed at.
    let closed_at = stream.rows.last().and_then(|&i| rows[i].state_after);
    match (stream.end, m.final_state) {
        (StreamEnd::Closed, Some(s))
            if scenario.interrupt != Interrupt::None
                && closed_at.is_some_and(TaskState::is_interrupted)
                && s != closed_at.unwrap_or(s) =>
        {
            format!(
                "the stream closed at {}, and the task went on to {state} without it",
                closed_at.map_or("?", TaskState::short)
            )
        }
        (StreamEnd::Closed, Some(s)) if s.is_terminal() => format!("the stream closed at {state}"),
        (StreamEnd::Closed, Some(s)) if s.is_interrupted() => {
            format!("the stream closed at {state}, where the task waits for the client")
        }
        (StreamEnd::Closed, _) => {
            format!("the stream closed although the task is {state} and nothing resumes it")
        }
        (StreamEnd::Hung, _) => format!(
            "the subscription stays open at {state} with nothing to come: {}",
            plural(m.hung_streams, "hung stream", "hung streams")
        ),
        (StreamEnd::TimedOut, _) => "the client's own timeout gave up on it".to_string(),
        _ => "a restart broke it".to_string(),
    }
}

/// SPEC §14: a retry that made a second task leaves two to follow.
fn retried_tail(scenario: &Scenario, m: &Metrics) -> &'static str {
    if scenario.retry && m.executions > 1 {
        " Meanwhile the retried message made a second task and executed again: the subscription follows the task it named, client 1 the second one."
    } else {
        ""
    }
}

/// One piece of advice, given where it applies.
type Counsel = fn(&Reading) -> Option<Advice>;

/// The advice, where `applies`.
fn when(applies: bool, title: &'static str, why: &str) -> Option<Advice> {
    applies.then(|| Advice {
        title,
        why: why.to_string(),
    })
}

/// What a worked ledger of the seed teaches, in place of the scenario
/// advice.
const PRESET_ADVICE: &[(&str, &str)] = &[
    ("Operate from receipts instead of connection logs", "The accepted sequence, the rejected events and the terminal receipt answer which status owns the task; no connection log is needed."),
    ("Keep the reducer and its release trace versioned", "Re-run this trace on every interoperability upgrade; accept an upgrade only when it stays equivalent."),
];

/// The advice, each piece given where it applies, in the order shown.
const ADVICE: &[Counsel] = &[
    |r| {
        when(matches!(r.sc.ending, Ending::Return | Ending::Never) || r.m.tasks_non_terminal > 0, "End every path with exactly one terminal or interrupted status", "Enqueue the Task first and finish with complete(), failed(), or an input/auth request, so no task is left WORKING.")
    },
    |r| {
        when(
            r.m.hung_streams > 0 || r.m.hung_calls > 0 || r.sc.timeout_ms.is_some(),
            "Put a timeout on every client call",
            "A stream or call with nothing to end it waits forever; only the client can bound it.",
        )
    },
    |r| {
        // @a2a-js/sdk and a2a-rs drop a late artifact themselves: the
        // advice still holds, for the SDK that does not.
        let why = if r.m.events_after_terminal > 0 || r.m.dropped_by_guard > 0 {
            "The SDK delivers and stores what comes after a terminal status; a guard in front of delivery drops it."
        } else {
            "This SDK drops what comes after a terminal status, but a2a-sdk delivers and stores it: emit nothing after the end, and keep a guard in front of delivery."
        };
        when(
            r.sc.late.is_some() || r.m.events_after_terminal > 0 || r.m.dropped_by_guard > 0,
            "Never emit after the end",
            why,
        )
    },
    |r| {
        when(r.sc.cancel.is_some() && r.sc.sdk == Sdk::Js, "Make awaiting work honour an abort signal (@a2a-js/sdk)", "In @a2a-js/sdk a cancel never interrupts execute(): awaiting code runs on, its output dropped, unless it checks a flag or an abort signal.")
    },
    cancel_advice,
    |r| {
        when(r.sc.restart.is_some(), "Use a persistent task store plus recovery code", "An in-memory store loses the task on restart; a database keeps it, but something must resume it.")
    },
    |r| {
        when(r.sc.retry, "Reuse the idempotency key and return the existing task", "A retry is not permission to execute again: decide it from the durable key, not the connection.")
    },
    |r| {
        when(subscribed(r), "Replace your view with the snapshot after SubscribeToTask", "A subscription starts with the task as stored (never SUBMITTED), with every part so far, then sends only later events: take its artifacts as your state; adding them to what you hold doubles the parts.")
    },
    |r| {
        when(subscribed(r) && r.run.streams.iter().any(|s| s.role.is_subscription() && matches!(s.end, StreamEnd::Error(_))), "Call GetTask when SubscribeToTask is refused", "A finished task answers -32004, a lost one -32001: a missed terminal status is only in GetTask.")
    },
    |r| {
        when(subscribed(r) && (closed_open_task(r) || r.m.hung_streams > 0), "Judge the end by the last status, not by the stream", "A subscription may close on a WORKING task or stay open at an interruption, by SDK: read the task's state first.")
    },
    |r| {
        when(
            r.m.push
                .as_ref()
                .is_some_and(|p| p.push_last_state != r.m.final_state),
            "Read GetTask when the pushes stop",
            "A push is a hint, not the record: the webhook's last state here is not the task's.",
        )
    },
    |r| {
        when(
            r.m.push.as_ref().is_some_and(|_| {
                r.sc.webhook_delay_ms.is_some() && Profile::of(r.sc.sdk).push.holds_stream
            }),
            "Answer the webhook at once (202) and work later",
            "A slow webhook holds this SDK's stream: every event waits for its POST's answer.",
        )
    },
    |r| {
        when(
            r.m.push
                .as_ref()
                .is_some_and(|p| p.pushes_answered < p.pushes),
            "Expect lost pushes: neither SDK retries",
            "A POST answered 500, refused or timed out is gone; poll GetTask for what it carried.",
        )
    },
    |r| {
        when(r.m.push.as_ref().is_some_and(|p| p.push_duplicates > 0 || p.push_after_terminal > 0), "Make the webhook idempotent", "The same body may come twice, and more may come after the terminal one: keep the first terminal state.")
    },
    |r| {
        when(r.sc.push_followup == PushFollowup::Repeat && r.m.push.as_ref().is_some_and(|p| p.push_duplicates > 0), "Set the push config once per task, not with every turn", "@a2a-js/sdk stores a repeated inline config as one more config: every later event is POSTed once per copy.")
    },
    |r| {
        when(r.sc.retry && r.m.push.is_some() && r.m.executions > 1, "Key webhook records by task id", "A retried message with the same config makes a second task, pushed in full: a webhook that keys by message or context counts the work twice.")
    },
    |r| {
        when(r.sc.restart.is_some() && r.m.push.is_some(), "After a restart, re-register push configs and poll GetTask", "The push sender dies with the process and nothing resumes the task: the webhook hears no more, whatever the task becomes.")
    },
    |r| {
        when(subscribed(r) && r.sc.interrupt != Interrupt::None, "Keep a subscription open across an interruption", "Both SDKs send a subscriber the next turn's events; @a2a-js/sdk re-sends the task first and closes the subscription at the next input-required.")
    },
    |r| {
        when(r.sc.progress > 0, "Treat a repeated state as progress, not a transition", "Agents report progress by sending WORKING again with a message (A2A 1.0 §3.7): accept it and show the message; judge only changes of state.")
    },
    |r| {
        when(r.sc.result == ResultShape::Last && (r.sc.cancel.is_some() || r.sc.resubscribe.is_some() || r.sc.second_client.is_some()), "Time a cancel or a reconnect by the task's state, not by its first artifact", "An agent that sends its whole result at the end has no artifact before it: act once the task shows WORKING.")
    },
    |r| {
        when(r.sc.dup.is_some(), "Reconnect by cursor, not by replay", "Ask for the absent suffix after the status and artifact cursors; an event id already decided is a lookup hit.")
    },
    |r| {
        when(
            r.sc.conflict,
            "Treat other bytes at one coordinate as an incident",
            "Never overwrite a stored part; record the conflict where an operator will look.",
        )
    },
    |r| {
        when(
            r.sc.interrupt != Interrupt::None,
            "Validate a fresh authorization receipt before resuming",
            "auth-required only says progress is blocked; it is never proof of authorization.",
        )
    },
    |r| {
        when(
            true,
            "Re-run your own tests on upgrade",
            &format!(
                "These behaviours were measured on {} and can change between releases.",
                Profile::of(r.sc.sdk).name
            ),
        )
    },
];

/// The "what carries over" advice that applies to this scenario.
pub fn advice(scenario: &Scenario, run: &Run) -> Vec<Advice> {
    if scenario.preset.is_some() {
        return PRESET_ADVICE
            .iter()
            .filter_map(|(title, why)| when(true, title, why))
            .collect();
    }
    let r = Reading::of(scenario, run);
    ADVICE.iter().filter_map(|counsel| counsel(&r)).collect()
}

fn cancel_advice(r: &Reading) -> Option<Advice> {
    r.sc.cancel?;
    let why = match (r.sc.cancel_impl, r.sc.work) {
        (CancelImpl::Raise, _) => "A cancel() that raises turns the task FAILED instead of CANCELED.",
        (CancelImpl::Noop, _) => "A cancel() that writes nothing leaves the stream without a final status.",
        (_, Work::ToThread) => "A cancel stops awaiting code, not a blocking call in a thread: check a cancel flag between steps.",
        _ => "cancel() should write CANCELED, and blocking work should check a cancel flag.",
    };
    when(
        true,
        "Make cancel() write CANCELED and blocking work check a cancel flag",
        why,
    )
}

/// Whether a client called SubscribeToTask.
fn subscribed(r: &Reading) -> bool {
    r.run.streams.iter().any(|s| s.role.is_subscription())
}

/// Whether a subscription closed on a task that had not ended.
fn closed_open_task(r: &Reading) -> bool {
    r.run
        .streams
        .iter()
        .any(|s| s.role.is_subscription() && s.end == StreamEnd::Closed)
        && r.m.final_state.is_some_and(|s| !s.is_terminal())
}
