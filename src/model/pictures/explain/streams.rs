//! The outcome of a run with push notifications (SPEC §12) or with
//! subscribers (SPEC §9), told from what the webhook's owner or the
//! subscribing client saw.

use crate::model::sim::profile::{Profile, TASK_NOT_FOUND};
use crate::model::sim::scenario::{Interrupt, Scenario};
use crate::model::state::TaskState;
use crate::model::trace::PUSH_RACED;
use crate::model::trace::{Disposition, Metrics, Row, Run, StreamEnd, StreamRecord, StreamRole};
use crate::model::wire::RowWire;

use super::{plural, state_label};

/// The outcome of a scenario with push notifications (SPEC §12), told as
/// what the webhook's owner believes and why.
pub(super) fn push_outcome(scenario: &Scenario, run: &Run) -> Option<String> {
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
pub(super) fn subscriber_outcome(scenario: &Scenario, run: &Run) -> Option<String> {
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
