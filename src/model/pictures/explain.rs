//! Plain-language readings of a trace: the outcome in one sentence and the
//! seed's "what carries over" advice that applies to this scenario, both
//! computed from the trace, naming the SDK whose behaviour they describe.

use crate::model::sim::profile::{Profile, TASK_NOT_FOUND};
use crate::model::sim::scenario::{CancelImpl, Client, Ending, ReceiptMode, Scenario, Store, Work};
use crate::model::state::TaskState;
use crate::model::trace::Metric;
use crate::model::trace::{
    CallEnd, CancelResult, Disposition, Metrics, Run, StreamEnd, StreamOutcome, StreamRole,
};

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

/// The outcome in one sentence.
pub fn outcome(scenario: &Scenario, run: &Run) -> String {
    let m = &run.trace.metrics;
    let sdk = Profile::of(scenario.sdk).name;
    let events = plural(m.events_delivered, "event", "events");
    let state = state_label(m);
    if let Some(preset) = scenario.preset {
        let ledger = &run.ledgers[0];
        return format!(
            "The seed's {preset:?} ledger ends {state} at accepted sequence {}: {}, {} — every decision taken from the event's identity, none from the connection.",
            ledger.sequence(),
            plural(m.duplicates, "duplicate was a lookup hit", "duplicates were lookup hits"),
            plural(m.rejected, "event was rejected with a reason", "events were rejected with a reason"),
        );
    }
    if let Some(sentence) = push_outcome(scenario, run) {
        return sentence;
    }
    if let Some(sentence) = subscriber_outcome(scenario, run) {
        return sentence;
    }
    if let Some(k) = scenario.restart {
        return match scenario.store {
            Store::Memory => format!("The server restarted after chunk {k} and the in-memory store lost the task: GetTask finds nothing ({sdk})."),
            Store::Database => format!("The server restarted after chunk {k}; the database still holds the task {state}, and nothing resumes it ({sdk})."),
        };
    }
    if m.hung_streams > 0 {
        return format!("execute() never returns, so the stream hangs after {events}: 1 hung stream, the task stays {state} ({sdk}).");
    }
    if m.hung_calls > 0 {
        return format!("execute() never returns, so the blocking call never answers: 1 hung call, the task stays {state} ({sdk}).");
    }
    if m.stream == Some(StreamEnd::TimedOut) || run.call_end == Some(CallEnd::TimedOut) {
        return format!("The client's own timeout ended the wait after {events}; on the server the task stays {state}.");
    }
    match (m.cancel_result, scenario.cancel_impl) {
        (Some(CancelResult::NotCancelable), _) => {
            return format!("The cancel arrived after the task was already {state}: it lost the race, and CancelTask got TaskNotCancelableError (-32002) ({sdk}).")
        }
        (Some(_), CancelImpl::Raise) if m.final_state == Some(TaskState::Failed) => {
            return format!("cancel() raised NotImplementedError, so the task ended FAILED after {events} ({sdk}).")
        }
        (Some(CancelResult::Canceled), CancelImpl::Noop) => {
            return format!("cancel() wrote nothing: {sdk} stored CANCELED itself but never streamed it, so the stream closed after {events} without a final status.")
        }
        (Some(CancelResult::Canceled), _) => {
            let orphans = match (m.orphaned_steps, scenario.work) {
                (0, _) => "no step ran on after it".to_string(),
                (n, Work::ToThread) => format!("{} kept running in asyncio.to_thread, output going nowhere", plural(n, "orphaned step", "orphaned steps")),
                (n, _) => format!("{} finished after it", plural(n, "orphaned step", "orphaned steps")),
            };
            return format!("The cancel wrote CANCELED after {events}; {orphans} ({sdk}).");
        }
        _ => {}
    }
    if m.dropped_by_guard > 0 {
        return format!(
            "Your terminal-state guard dropped {} after {state}: the client got {events}.",
            plural(m.dropped_by_guard, "event", "events")
        );
    }
    if m.events_after_terminal > 0 {
        let stored = match (m.blocking_result_artifacts, m.get_task_artifacts) {
            (Some(b), Some(g)) if b != g => {
                format!("; the blocking result lists {b} artifact(s) while GetTask lists {g}")
            }
            (_, Some(g)) => format!(" and stored (GetTask lists {g} artifacts)"),
            _ => String::new(),
        };
        return format!(
            "{} arrived after the task was already {state} and {} still delivered{stored} ({sdk}).",
            plural(m.events_after_terminal, "event", "events"),
            if m.events_after_terminal == 1 {
                "was"
            } else {
                "were"
            }
        );
    }
    if m.executions > 1 && scenario.retry {
        return format!("The retried submission executed again as a second task: {} ({sdk} does nothing with the repeated message id).", plural(m.executions, "execution", "executions"));
    }
    if scenario.retry && scenario.guard {
        return "The ledger answered the retried submission from its idempotency key: the existing task was returned and the work ran once.".into();
    }
    if m.incidents > 0 {
        return "The resent part carried other bytes at the same artifact coordinate: the ledger recorded a protocol incident and kept the stored part.".into();
    }
    if scenario.conflict && scenario.dup.is_some() {
        return format!("The resent part carried other bytes at the same coordinate and {sdk} silently replaced the stored part.");
    }
    if m.duplicates > 0 {
        return format!("The resent event was a duplicate: a lookup hit in the ledger, not delivered twice; the client got {events}.");
    }
    if scenario.dup.is_some() {
        return format!("The stream broke and the server resent an event: the client received it twice ({events} in all).");
    }
    if m.rejected > 0 && scenario.receipt == ReceiptMode::Missing {
        return "The resume carried no authorization receipt, so the ledger rejected it (authorization-receipt-required) and the task stays AUTH_REQUIRED.".into();
    }
    if scenario.receipt == ReceiptMode::Missing
        && scenario.interrupt != crate::model::sim::scenario::Interrupt::None
    {
        return format!("The resume carried no authorization receipt and {sdk} resumed anyway: it never checks one. The task ended {state}.");
    }
    if scenario.ending == Ending::Return {
        return format!("execute() returned without a final status, so the stream closed and the task stays {state}: 1 task left non-terminal, no hang.");
    }
    let client = match scenario.client {
        Client::Stream => format!("streamed {events}"),
        Client::Block => format!("answered the blocking call with the task {state}"),
    };
    format!("The executor {client} and the task ended {state}, as {sdk} does with these inputs.")
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
                == Some(StreamOutcome::Broken) =>
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
        StreamOutcome::Error(TASK_NOT_FOUND) => {
            "got TaskNotFoundError (-32001): the restart had lost the task".to_string()
        }
        StreamOutcome::Error(code) => format!("got UnsupportedOperationError ({code}): the task was already {state}, so only GetTask can tell how it ended"),
        end => {
            let first = &rows[stream.rows[0]];
            let parts = first.wire.as_ref().map_or(0, |w| {
                w["task"]["artifacts"]
                    .as_array()
                    .map_or(0, |a| a.iter().map(|x| x["parts"].as_array().map_or(0, Vec::len)).sum())
            });
            let late = stream
                .rows
                .iter()
                .filter(|&&i| rows[i].disposition == Disposition::AfterTerminal)
                .count();
            let late = if late > 0 { format!(" ({late} after the terminal status)") } else { String::new() };
            let ended = match (end, m.final_state) {
                (StreamOutcome::Closed, Some(s)) if s.is_terminal() => format!("the stream closed at {state}"),
                (StreamOutcome::Closed, Some(s)) if s.is_interrupted() => format!("the stream closed at {state}, where the task waits for the client"),
                (StreamOutcome::Closed, _) => format!("the stream closed although the task is {state} and nothing resumes it"),
                (StreamOutcome::Hung, _) => format!("the subscription stays open at {state} with nothing to come: {}", plural(m.hung_streams, "hung stream", "hung streams")),
                (StreamOutcome::TimedOut, _) => "the client's own timeout gave up on it".to_string(),
                _ => "a restart broke it".to_string(),
            };
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
    Some(format!("{who} called SubscribeToTask and {got} ({sdk})."))
}

/// The "what carries over" advice that applies to this scenario.
pub fn advice(scenario: &Scenario, run: &Run) -> Vec<Advice> {
    let m = &run.trace.metrics;
    let mut out = Vec::new();
    let mut add = |title, why: String| out.push(Advice { title, why });
    if scenario.preset.is_some() {
        add("Operate from receipts instead of connection logs", "The accepted sequence, the rejected events and the terminal receipt answer which status owns the task; no connection log is needed.".into());
        add("Keep the reducer and its release trace versioned", "Re-run this trace on every interoperability upgrade; accept an upgrade only when it stays equivalent.".into());
        return out;
    }
    if matches!(scenario.ending, Ending::Return | Ending::Never) || m.tasks_non_terminal > 0 {
        add("End every path with exactly one terminal or interrupted status", "Enqueue the Task first and finish with complete(), failed(), or an input/auth request, so no task is left WORKING.".into());
    }
    if m.hung_streams > 0 || m.hung_calls > 0 || scenario.timeout_ms.is_some() {
        add(
            "Put a timeout on every client call",
            "A stream or call with nothing to end it waits forever; only the client can bound it."
                .into(),
        );
    }
    if scenario.late.is_some() || m.events_after_terminal > 0 || m.dropped_by_guard > 0 {
        add("Never emit after the end", "The SDK delivers and stores what comes after a terminal status; a guard in front of delivery drops it.".into());
    }
    if scenario.cancel.is_some() && scenario.sdk == crate::model::sim::scenario::Sdk::Js {
        add("Make awaiting work honour an abort signal (@a2a-js/sdk)", "In @a2a-js/sdk a cancel never interrupts execute(): awaiting code runs on, its output dropped, unless it checks a flag or an abort signal.".into());
    }
    if scenario.cancel.is_some() {
        let why = match (scenario.cancel_impl, scenario.work) {
            (CancelImpl::Raise, _) => "A cancel() that raises turns the task FAILED instead of CANCELED.",
            (CancelImpl::Noop, _) => "A cancel() that writes nothing leaves the stream without a final status.",
            (_, Work::ToThread) => "A cancel stops awaiting code, not a blocking call in a thread: check a cancel flag between steps.",
            _ => "cancel() should write CANCELED, and blocking work should check a cancel flag.",
        };
        add(
            "Make cancel() write CANCELED and blocking work check a cancel flag",
            why.into(),
        );
    }
    if scenario.restart.is_some() {
        add("Use a persistent task store plus recovery code", "An in-memory store loses the task on restart; a database keeps it, but something must resume it.".into());
    }
    if scenario.retry {
        add("Reuse the idempotency key and return the existing task", "A retry is not permission to execute again: decide it from the durable key, not the connection.".into());
    }
    if run.streams.iter().any(|s| s.role != StreamRole::Send) {
        add("Replace your view with the snapshot after SubscribeToTask", "A subscription starts with the task as stored (never SUBMITTED), with every part so far, then sends only later events: take its artifacts as your state; adding them to what you hold doubles the parts.".into());
        let refused = run
            .streams
            .iter()
            .any(|s| matches!(s.end, StreamOutcome::Error(_)));
        if refused {
            add("Call GetTask when SubscribeToTask is refused", "A finished task answers -32004, a lost one -32001: a missed terminal status is only in GetTask.".into());
        }
        let closed_open_task = run
            .streams
            .iter()
            .any(|s| s.role != StreamRole::Send && s.end == StreamOutcome::Closed)
            && m.final_state.is_some_and(|s| !s.is_terminal());
        if closed_open_task || m.hung_streams > 0 {
            add("Judge the end by the last status, not by the stream", "A subscription may close on a WORKING task or stay open at an interruption, by SDK: read the task's state first.".into());
        }
    }
    if let Some(p) = &m.push {
        if p.push_last_state != m.final_state {
            add("Read GetTask when the pushes stop", "A push is a hint, not the record: the webhook's last state here is not the task's.".into());
        }
        if scenario.webhook_delay_ms.is_some() && Profile::of(scenario.sdk).push.holds_stream {
            add(
                "Answer the webhook at once (202) and work later",
                "A slow webhook holds this SDK's stream: every event waits for its POST's answer."
                    .into(),
            );
        }
        if p.pushes_answered < p.pushes {
            add("Expect lost pushes: neither SDK retries", "A POST answered 500, refused or timed out is gone; poll GetTask for what it carried.".into());
        }
        if p.push_duplicates > 0 || p.push_after_terminal > 0 {
            add("Make the webhook idempotent", "The same body may come twice, and more may come after the terminal one: keep the first terminal state.".into());
        }
    }
    if scenario.dup.is_some() {
        add("Reconnect by cursor, not by replay", "Ask for the absent suffix after the status and artifact cursors; an event id already decided is a lookup hit.".into());
    }
    if scenario.conflict {
        add(
            "Treat other bytes at one coordinate as an incident",
            "Never overwrite a stored part; record the conflict where an operator will look."
                .into(),
        );
    }
    if scenario.interrupt != crate::model::sim::scenario::Interrupt::None {
        add(
            "Validate a fresh authorization receipt before resuming",
            "auth-required only says progress is blocked; it is never proof of authorization."
                .into(),
        );
    }
    add(
        "Re-run your own tests on upgrade",
        "These behaviours were measured on a2a-sdk 1.3.0 and can change between releases.".into(),
    );
    out
}

/// Why a metric differs between the two SDK profiles for the same scenario,
/// in plain words (for compare mode's "Python vs JS").
pub fn sdk_difference(metric: Metric, scenario: &Scenario) -> &'static str {
    use Metric as M;
    let subscribers = scenario.resubscribe.is_some() || scenario.second_client.is_some();
    match metric {
        M::EventsDelivered | M::EventsAfterTerminal | M::GetTaskArtifacts if scenario.late.is_some() => {
            "@a2a-js/sdk ends the stream at the first terminal status and silently drops what the executor publishes afterwards; a2a-sdk delivers and stores it until execute() returns."
        }
        M::OrphanedSteps => {
            "@a2a-js/sdk never interrupts execute() on a cancel: awaiting code keeps running and its output is dropped; a2a-sdk cancels it at its next await."
        }
        M::FinalState | M::EventsDelivered | M::CancelResult if scenario.cancel_impl == CancelImpl::Raise => {
            "A throwing cancelTask in @a2a-js/sdk only gives the caller -32603 and the task runs on to COMPLETED; in a2a-sdk a raising cancel() turns the task FAILED."
        }
        M::FinalState | M::EventsDelivered | M::CancelResult if scenario.cancel_impl == CancelImpl::Noop => {
            "With a cancel() that writes nothing, a2a-sdk stores CANCELED itself; @a2a-js/sdk waits for the executor, which completes, and answers -32002."
        }
        M::Stream | M::HungStreams if subscribers && scenario.restart.is_some() => {
            "After a restart (database store) both SDKs send the stored WORKING task; a2a-sdk then keeps the subscription open, @a2a-js/sdk closes it."
        }
        M::Stream | M::HungStreams if subscribers && matches!(scenario.ending, Ending::Input | Ending::Return) => {
            "a2a-sdk ends a subscription only at a terminal status; @a2a-js/sdk where it ends the message stream (at INPUT_REQUIRED, or when execute() returns)."
        }
        M::Stream | M::HungStreams if subscribers && scenario.ending == Ending::Auth => {
            "At AUTH_REQUIRED @a2a-js/sdk leaves every stream open; a2a-sdk closes the message stream but not a subscription (only a terminal status ends one)."
        }
        M::EventsDelivered | M::EventsAfterTerminal | M::GetTaskArtifacts if subscribers && scenario.late.is_some() => {
            "a2a-sdk delivers and stores the late artifact, subscribers included; @a2a-js/sdk drops it for everyone."
        }
        M::Stream | M::HungStreams if scenario.ending == Ending::Auth => {
            "@a2a-js/sdk keeps an auth-required task's channel open, so the stream hangs; a2a-sdk closes it when execute() returns."
        }
        M::Stream | M::HungStreams | M::EventsDelivered if scenario.timeout_ms.is_some() => {
            "a2a-sdk's client timeout restarts with every event (an inactivity timeout); @a2a-js/sdk's abort signal is a deadline for the whole call."
        }
        M::EventsDelivered if scenario.interrupt != crate::model::sim::scenario::Interrupt::None => {
            "@a2a-js/sdk makes every execute(), a resume included, publish the task first: one more task event per resume."
        }
        M::Pushes | M::PushDuplicates | M::PushAfterTerminal if scenario.cancel.is_some() => {
            "@a2a-js/sdk's CancelTask runs its own event loop beside the stream's, and both push the CANCELED: the webhook gets it twice; a2a-sdk pushes it once."
        }
        M::PushLastState | M::Pushes if scenario.ending == Ending::Raise => {
            "When execute() raises, @a2a-js/sdk publishes FAILED (streamed and pushed); a2a-sdk stores FAILED itself, pushes nothing and ends the stream with -32603."
        }
        M::ClientDoneMs if scenario.webhook_delay_ms.is_some() => {
            "a2a-sdk awaits each POST before the stream gets the event, so a slow webhook holds the stream; @a2a-js/sdk pushes fire-and-forget."
        }
        _ => "The two SDKs' request handlers differ here; see docs/fidelity.md for the measured runs.",
    }
}
