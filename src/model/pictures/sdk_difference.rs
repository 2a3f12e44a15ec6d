//! Why a metric differs between two SDKs for the same scenario, in plain
//! words, for compare mode's SDK pairs: each SDK's side read off its
//! profile row (`sim::profile`), so any two of the table's SDKs are
//! compared, and one added later is described by its row.

use crate::model::sim::profile::{
    IdleSubscription, Profile, RaisingCancel, StreamCloses, SubscriptionEnd, TASK_NOT_CANCELABLE,
    TASK_NOT_FOUND,
};
use crate::model::sim::scenario::{
    CancelImpl, Client, Ending, Interrupt, PushFollowup, Scenario, Sdk,
};
use crate::model::trace::Metric;

/// What the SDKs' handlers may part on, as a metric and a scenario show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Topic {
    LateArtifact,
    CancelStopsWork,
    RaisingCancel,
    NoopCancel,
    IdleSubscription,
    SubscriptionEnd,
    AuthRequired,
    ClientTimeout,
    ResumePublishesTask,
    CancelPushes,
    RepeatedConfig,
    AuthLoopPushes,
    ExecuteRaises,
    SlowWebhook,
}

/// The short name a reader knows an SDK by.
pub fn package(sdk: Sdk) -> &'static str {
    match sdk {
        Sdk::Python => "a2a-sdk",
        Sdk::Js => "@a2a-js/sdk",
        Sdk::Rust => "a2a-rs",
    }
}

/// The page's subtitle, naming every SDK of the profile table.
pub fn subtitle() -> String {
    let names: Vec<&str> = Sdk::ALL.iter().map(|&s| package(s)).collect();
    let listed = match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "How an A2A task's lifecycle really behaves under the official SDKs, {listed}: change one thing at a time."
    )
}

/// The language an SDK is written for, as a compare button names it.
pub fn language(sdk: Sdk) -> &'static str {
    match sdk {
        Sdk::Python => "Python",
        Sdk::Js => "JS",
        Sdk::Rust => "Rust",
    }
}

/// Why `metric` differs between `a` and `b` (the same scenario under two
/// SDKs): what each SDK does there, `a`'s first; a general line where
/// their profiles do not part on what the metric and scenario point to.
pub fn sdk_difference(metric: Metric, a: &Scenario, b: &Scenario) -> String {
    let (pa, pb) = (Profile::of(a.sdk), Profile::of(b.sdk));
    // The first topic the metric points to on which the two rows part.
    let sides = topics(metric, b)
        .into_iter()
        .map(|t| (side(t, pa), side(t, pb)))
        .find(|(of_a, of_b)| of_a != of_b);
    match sides {
        Some((of_a, of_b)) => format!("{} {of_a}; {} {of_b}.", package(a.sdk), package(b.sdk)),
        None => format!(
            "{} and {} handle this differently; see docs/fidelity.md for the measured runs.",
            package(a.sdk),
            package(b.sdk)
        ),
    }
}

/// What `metric` differing under `scenario` may point to, the likeliest
/// first.
fn topics(metric: Metric, scenario: &Scenario) -> Vec<Topic> {
    use Metric as M;
    let subscribers = scenario.resubscribe.is_some() || scenario.second_client.is_some();
    let delivery = matches!(
        metric,
        M::EventsDelivered | M::EventsAfterTerminal | M::GetTaskArtifacts
    );
    let streams = matches!(metric, M::Stream | M::HungStreams);
    let cancel = matches!(metric, M::FinalState | M::EventsDelivered | M::CancelResult);
    let pushes = matches!(metric, M::Pushes | M::PushDuplicates);
    [
        (delivery && scenario.late.is_some(), Topic::LateArtifact),
        (metric == M::OrphanedSteps, Topic::CancelStopsWork),
        (
            cancel && scenario.cancel_impl == CancelImpl::Raise,
            Topic::RaisingCancel,
        ),
        (
            cancel && scenario.cancel_impl == CancelImpl::Noop,
            Topic::NoopCancel,
        ),
        (
            streams && subscribers && matches!(scenario.ending, Ending::Input | Ending::Return),
            Topic::SubscriptionEnd,
        ),
        (
            (streams || delivery) && subscribers,
            Topic::IdleSubscription,
        ),
        (
            streams && scenario.ending == Ending::Auth,
            Topic::AuthRequired,
        ),
        (
            (streams || metric == M::EventsDelivered) && scenario.timeout_ms.is_some(),
            Topic::ClientTimeout,
        ),
        (
            metric == M::EventsDelivered && scenario.interrupt != Interrupt::None,
            Topic::ResumePublishesTask,
        ),
        (pushes && scenario.cancel.is_some(), Topic::CancelPushes),
        (
            pushes && scenario.push_followup == PushFollowup::Repeat,
            Topic::RepeatedConfig,
        ),
        (
            pushes && scenario.interrupt != Interrupt::None && scenario.client == Client::Block,
            Topic::AuthLoopPushes,
        ),
        // What follows a raise shows in every metric after it.
        (scenario.ending == Ending::Raise, Topic::ExecuteRaises),
        (
            metric == M::ClientDoneMs && scenario.webhook_delay_ms.is_some(),
            Topic::SlowWebhook,
        ),
    ]
    .into_iter()
    .filter_map(|(applies, topic)| applies.then_some(topic))
    .collect()
}

/// What the SDK of `p` does on `topic`, as its profile row says.
fn side(topic: Topic, p: &Profile) -> String {
    match topic {
        Topic::LateArtifact
        | Topic::CancelStopsWork
        | Topic::RaisingCancel
        | Topic::NoopCancel
        | Topic::ExecuteRaises => executor_side(topic, p),
        Topic::IdleSubscription
        | Topic::SubscriptionEnd
        | Topic::AuthRequired
        | Topic::ClientTimeout
        | Topic::ResumePublishesTask => stream_side(topic, p),
        Topic::CancelPushes
        | Topic::RepeatedConfig
        | Topic::AuthLoopPushes
        | Topic::SlowWebhook => push_side(topic, p),
    }
}

/// What the SDK does with the executor: after the end, on a cancel, on a
/// raise.
fn executor_side(topic: Topic, p: &Profile) -> String {
    let text = match topic {
        Topic::LateArtifact if p.terminal_drops_executor => {
            "stops reading execute() at the first terminal status and drops the executor at its next event, so a late artifact is neither delivered nor stored"
        }
        Topic::LateArtifact => match p.stream_end {
            StreamCloses::FirstFinalStatus => {
                "ends the stream at the first terminal status and silently drops what the executor publishes afterwards, for every subscriber"
            }
            StreamCloses::ExecuteReturns => {
                "delivers and stores what the executor publishes after the terminal status until execute() returns, subscribers included"
            }
        },
        Topic::CancelStopsWork if !p.cancel_interrupts_awaiting => {
            "never interrupts execute() on a cancel: awaiting code keeps running and its output is dropped"
        }
        Topic::CancelStopsWork if p.terminal_drops_executor => {
            "drops the executor at its next event after the cancel: the step in progress finishes and its chunk is dropped"
        }
        Topic::CancelStopsWork => "cancels execute() at its next await",
        Topic::RaisingCancel => {
            let code = p.raising_cancel_code;
            return match p.raising_cancel {
                RaisingCancel::FailsTask => {
                    format!("turns the task FAILED when cancel() raises (the caller gets {code})")
                }
                RaisingCancel::ErrorOnly => format!(
                    "only gives the CancelTask caller {code} when cancel() raises, and the task runs on to its end"
                ),
                RaisingCancel::EndsStream => format!(
                    "stores CANCELED before it calls cancel(); when cancel() raises the caller gets {code} and the message stream ends with it"
                ),
            };
        }
        Topic::NoopCancel => match (p.cancel_stored_first, p.noop_cancel_stores_canceled) {
            (Some(error), _) => {
                return format!(
                    "stores CANCELED before it calls cancel(), so the executor's next event ends the open stream with {}",
                    error.code
                )
            }
            (None, true) => "stores CANCELED itself when cancel() writes nothing",
            (None, false) => {
                return format!(
                    "waits for the executor when cancel() writes nothing, and answers {TASK_NOT_CANCELABLE} once it completes"
                )
            }
        },
        // Topic::ExecuteRaises, the last that `side` sends here.
        _ => match (p.push.raise_publishes_failed, p.raise_stores_failed) {
            (true, _) => "publishes FAILED when execute() raises: streamed and pushed",
            (false, true) => {
                "stores FAILED itself when execute() raises, pushes nothing and ends the stream with a JSON-RPC error"
            }
            (false, false) => {
                "pushes nothing when execute() raises, ends the stream with a JSON-RPC error and leaves the task as it was"
            }
        },
    };
    text.to_string()
}

/// When the SDK ends a stream or a subscription, and what a stream holds.
fn stream_side(topic: Topic, p: &Profile) -> String {
    let text = match topic {
        Topic::IdleSubscription => match p.idle_subscription {
            IdleSubscription::Hangs => {
                "sends the stored task to a subscription opened when nothing runs for it, and keeps it open"
            }
            IdleSubscription::ClosesUnlessInterrupted => {
                "sends the stored task to a subscription opened when nothing runs for it, and closes it unless the task is interrupted"
            }
            IdleSubscription::NotFound => {
                return format!(
                    "answers a subscription opened when nothing runs for the task with TaskNotFoundError ({TASK_NOT_FOUND})"
                )
            }
        },
        Topic::SubscriptionEnd => match (p.subscription_end, p.stream_end) {
            (SubscriptionEnd::AtTerminal, _) => "ends a subscription only at a terminal status",
            (SubscriptionEnd::WithTheStream, StreamCloses::FirstFinalStatus) => {
                "ends a subscription where it ends the message stream (at INPUT_REQUIRED, or when execute() returns)"
            }
            (SubscriptionEnd::WithTheStream, StreamCloses::ExecuteReturns) => {
                "ends a subscription where it ends the message stream, when execute() returns"
            }
        },
        Topic::AuthRequired => match (p.stream_end, p.subscription_end) {
            (StreamCloses::FirstFinalStatus, _) => {
                "keeps an auth-required task's channel open, so every stream of it hangs"
            }
            (StreamCloses::ExecuteReturns, SubscriptionEnd::AtTerminal) => {
                "closes the message stream when execute() returns at AUTH_REQUIRED, but a subscription only at a terminal status"
            }
            (StreamCloses::ExecuteReturns, SubscriptionEnd::WithTheStream) => {
                "closes the message stream and its subscriptions when execute() returns at AUTH_REQUIRED"
            }
        },
        Topic::ClientTimeout if p.timeout_is_inactivity => {
            "times a client call out when no event came for that long (an inactivity timeout)"
        }
        Topic::ClientTimeout => "times a client call out at a deadline for the whole call (an abort signal)",
        // Topic::ResumePublishesTask, the last that `side` sends here.
        _ if p.resume_publishes_task => {
            "makes every execute(), a resume included, publish the task first: one more task event per resume"
        }
        _ => "publishes the task once, at the first execute()",
    };
    text.to_string()
}

/// How the SDK pushes to a webhook.
fn push_side(topic: Topic, p: &Profile) -> String {
    let text = match topic {
        Topic::CancelPushes if p.push.cancel_call_pushes_again => {
            "runs CancelTask's own event loop beside the stream's, and both push the CANCELED: the webhook gets it twice"
        }
        Topic::CancelPushes => "pushes the CANCELED once",
        Topic::RepeatedConfig if p.push.repeated_config_adds => {
            "adds a config when a follow-up repeats the inline one (a config without an id gets a new one), so every later event is POSTed once more"
        }
        Topic::RepeatedConfig => "replaces the task's config when a follow-up repeats the inline one",
        Topic::AuthLoopPushes if p.push.auth_call_loop_pushes => {
            "leaves a blocking call's event loop running after it returned at AUTH_REQUIRED, and that loop POSTs every later event too until a terminal or input-required status"
        }
        Topic::AuthLoopPushes => "pushes each event once",
        // Topic::SlowWebhook, the last that `side` sends here.
        _ if p.push.holds_stream => {
            return format!(
                "awaits each POST (giving up after {} s) before the stream gets the event, so a slow webhook holds the stream",
                p.push.timeout_ms / 1000
            )
        }
        _ => "pushes fire-and-forget, so a slow webhook never holds the stream",
    };
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scenario of `query`, and the same under a2a-rs.
    fn and_under_rust(query: &str) -> (Scenario, Scenario) {
        let a = Scenario::from_query(query).unwrap_or_default();
        let b = Scenario {
            sdk: Sdk::Rust,
            ..a.clone()
        };
        (a, b)
    }

    #[test]
    fn each_side_names_its_sdk_in_the_order_compared() {
        let (a, b) = and_under_rust("late=0");
        let why = sdk_difference(Metric::EventsAfterTerminal, &a, &b);
        assert!(why.starts_with("a2a-sdk delivers and stores"), "{why}");
        assert!(why.contains("; a2a-rs stops reading execute()"), "{why}");
        let back = sdk_difference(Metric::EventsAfterTerminal, &b, &a);
        assert!(back.starts_with("a2a-rs stops"), "{back}");
    }

    #[test]
    fn the_subtitle_names_every_sdk() {
        let text = subtitle();
        for sdk in Sdk::ALL {
            assert!(text.contains(package(*sdk)), "{text}");
        }
        assert!(text.contains("@a2a-js/sdk and a2a-rs:"), "{text}");
    }

    #[test]
    fn profiles_alike_on_the_topic_give_the_general_line() {
        // a2a-sdk and a2a-rs both publish the task once per task.
        let (a, b) = and_under_rust("interrupt=input");
        let why = sdk_difference(Metric::EventsDelivered, &a, &b);
        assert!(why.contains("handle this differently"), "{why}");
    }
}
