//! The seed's "what carries over" advice, each piece given where the
//! scenario and its run show it applies.

use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::{
    CancelImpl, Ending, Interrupt, PushFollowup, ResultShape, Scenario, Sdk, Work,
};
use crate::model::trace::{Run, StreamEnd};

use super::RunFacts;

/// One piece of advice that carries over to production.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    /// A short imperative.
    pub title: &'static str,
    /// Why it matters here.
    pub why: String,
}

/// One piece of advice, given where it applies.
type Counsel = fn(&RunFacts) -> Option<Advice>;

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
    let r = RunFacts::of(scenario, run);
    ADVICE.iter().filter_map(|counsel| counsel(&r)).collect()
}

fn cancel_advice(r: &RunFacts) -> Option<Advice> {
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
fn subscribed(r: &RunFacts) -> bool {
    r.run.streams.iter().any(|s| s.role.is_subscription())
}

/// Whether a subscription closed on a task that had not ended.
fn closed_open_task(r: &RunFacts) -> bool {
    r.run
        .streams
        .iter()
        .any(|s| s.role.is_subscription() && s.end == StreamEnd::Closed)
        && r.m.final_state.is_some_and(|s| !s.is_terminal())
}
