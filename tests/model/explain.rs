//! The outcome sentence and the advice are read off the trace.

use a2a_lab::model::pictures::explain::{advice, outcome};
use a2a_lab::model::sim::scenario::Scenario;
use a2a_lab::model::sim::simulate;
use a2a_lab::model::trace::Metric;

fn say(query: &str) -> String {
    let s = Scenario::from_query(query).unwrap();
    outcome(&s, &simulate(&s))
}

fn titles(query: &str) -> Vec<&'static str> {
    let s = Scenario::from_query(query).unwrap();
    advice(&s, &simulate(&s))
        .into_iter()
        .map(|a| a.title)
        .collect()
}

#[test]
fn each_seed_case_reads_as_one_sentence_with_the_models_numbers() {
    for (query, expected) in [
        ("", "streamed 6 events and the task ended COMPLETED"),
        (
            "ending=return",
            "returned without a final status, so the stream closed and the task stays WORKING",
        ),
        ("ending=never", "1 hung stream"),
        ("ending=never&client=block", "1 hung call"),
        (
            "cancel=1&cancel_impl=raise",
            "the task ended FAILED after 4 events",
        ),
        ("cancel=1&work=to_thread", "2 orphaned steps"),
        ("cancel=3", "TaskNotCancelableError (-32002)"),
        (
            "late=0",
            "1 event arrived after the task was already COMPLETED",
        ),
        (
            "late=0&client=block",
            "the blocking result lists 1 artifact(s) while GetTask lists 2",
        ),
        (
            "late=0&guard=on",
            "guard dropped 1 event after COMPLETED: the client got 6 events",
        ),
        ("restart=2", "the in-memory store lost the task"),
        ("restart=2&store=database", "still holds the task WORKING"),
        ("retry=on", "2 executions"),
        (
            "interrupt=auth&receipt=missing&guard=on",
            "authorization-receipt-required",
        ),
    ] {
        let sentence = say(query);
        assert!(sentence.contains(expected), "{query}: {sentence}");
    }
    assert!(say("").contains("a2a-sdk 1.3.0 (Python)"), "names the SDK");
}

#[test]
fn advice_follows_the_scenario() {
    assert!(titles("ending=never").contains(&"Put a timeout on every client call"));
    assert!(titles("late=0").contains(&"Never emit after the end"));
    assert!(!titles("").contains(&"Never emit after the end"));
    let late_why = |query: &str| {
        let s = Scenario::from_query(query).unwrap();
        let advice = advice(&s, &simulate(&s));
        let late = advice
            .iter()
            .find(|a| a.title == "Never emit after the end");
        late.map(|a| a.why.to_string()).unwrap_or_default()
    };
    assert!(late_why("late=0").starts_with("The SDK delivers and stores"));
    for query in ["late=0&sdk=js", "late=0&sdk=rust"] {
        assert!(late_why(query).starts_with("This SDK drops"), "{query}");
    }
    assert!(titles("restart=2").contains(&"Use a persistent task store plus recovery code"));
    assert!(titles("retry=on").contains(&"Reuse the idempotency key and return the existing task"));
}

#[test]
fn python_vs_js_differences_are_explained_in_plain_words() {
    use a2a_lab::model::evidence::compare::compare;
    use a2a_lab::model::pictures::sdk_difference::sdk_difference;
    let a = Scenario::from_query("late=0").unwrap();
    let b = Scenario::from_query("late=0&sdk=js").unwrap();
    let c = compare(&a, &b);
    assert!(!c.differences.is_empty());
    for d in &c.differences {
        assert!(
            sdk_difference(d.metric, &a, &b).contains("; @a2a-js/sdk ends the stream"),
            "{}",
            d.metric.name()
        );
    }
    let raise = Scenario::from_query("cancel=1&cancel_impl=raise").unwrap();
    let raise_js = raise.with("sdk", "js").unwrap();
    assert!(sdk_difference(Metric::FinalState, &raise, &raise_js).contains("-32603"));
    let js_cancel = Scenario::from_query("cancel=1&sdk=js").unwrap();
    let titles: Vec<&str> = advice(&js_cancel, &simulate(&js_cancel))
        .iter()
        .map(|a| a.title)
        .collect();
    assert!(
        titles.iter().any(|t| t.contains("abort signal")),
        "{titles:?}"
    );
    assert!(outcome(&js_cancel, &simulate(&js_cancel)).contains("@a2a-js/sdk 1.3.0"));
}

#[test]
fn a_subscription_reads_as_one_sentence_from_its_stream() {
    for (query, expected) in [
        (
            "resubscribe=3",
            "The connection dropped after event 3 and the client called SubscribeToTask and got a task snapshot in WORKING holding 1 part stored so far, then only the 3 events after it; the stream closed at COMPLETED",
        ),
        ("second_client=2", "snapshot in WORKING holding no artifact part yet, then only the 4 events"),
        // On the 0.3 wire the snapshot is a flat `kind: "task"` object: it
        // holds the same part.
        ("resubscribe=3&wire=0.3", "got a task snapshot in WORKING holding 1 part stored so far"),
        ("resubscribe=5", "got UnsupportedOperationError (-32004): the task was already COMPLETED, so only GetTask"),
        ("second_client=6", "A second client, after event 6, called SubscribeToTask and got UnsupportedOperationError"),
        ("ending=input&resubscribe=3", "the subscription stays open at INPUT_REQUIRED with nothing to come: 1 hung stream"),
        ("ending=input&resubscribe=3&sdk=js", "the stream closed at INPUT_REQUIRED, where the task waits for the client"),
        ("restart=2&store=memory&resubscribe=3", "After a restart broke its stream, the client called SubscribeToTask and got TaskNotFoundError (-32001)"),
        ("restart=2&store=database&resubscribe=5&sdk=js", "the stream closed although the task is WORKING and nothing resumes it"),
        ("late=0&second_client=3", "then only the 4 events after it (1 after the terminal status)"),
        ("ending=never&second_client=3", "2 hung streams"),
        ("ending=never&second_client=3&timeout_ms=700", "the client's own timeout gave up on it"),
    ] {
        let sentence = say(query);
        assert!(sentence.contains(expected), "{query}: {sentence}");
    }
}

#[test]
fn after_a_reconnect_the_advice_is_to_replace_the_view_with_the_snapshot() {
    let replace = "Replace your view with the snapshot after SubscribeToTask";
    assert!(titles("resubscribe=3").contains(&replace));
    assert!(titles("second_client=2").contains(&replace));
    assert!(!titles("").contains(&replace));
    // A drop that never came leaves no subscription to advise on.
    assert!(!titles("cancel=1&resubscribe=6").contains(&replace));
    assert!(titles("resubscribe=6").contains(&"Call GetTask when SubscribeToTask is refused"));
    let judge = "Judge the end by the last status, not by the stream";
    assert!(titles("restart=2&store=database&resubscribe=5&sdk=js").contains(&judge));
    assert!(titles("ending=input&second_client=3").contains(&judge));
    assert!(!titles("second_client=3").contains(&judge));
}

#[test]
fn every_two_sdks_explain_every_measured_difference() {
    use crate::model_support::recorded::FixtureIndex;
    use a2a_lab::model::evidence::compare::compare;
    use a2a_lab::model::pictures::sdk_difference::{package, sdk_difference};
    use a2a_lab::model::sim::scenario::Sdk;
    let index: FixtureIndex = serde_json::from_str(include_str!(
        "../fidelity/fixtures/python/subscribe/index.json"
    ))
    .unwrap();
    let queries = index
        .scenarios
        .iter()
        .map(|e| e.scenario.as_str())
        .filter(|q| !q.contains("wire=0.3"))
        .chain([
            "late=0",
            "cancel=1&cancel_impl=raise",
            "cancel=1&cancel_impl=noop",
            "cancel=1&work=await",
            "ending=raise&push=inline",
        ]);
    let mut explained = [0; 3];
    let mut unexplained = Vec::new();
    for query in queries {
        for (n, (a, b)) in [
            (Sdk::Python, Sdk::Js),
            (Sdk::Python, Sdk::Rust),
            (Sdk::Js, Sdk::Rust),
        ]
        .into_iter()
        .enumerate()
        {
            let base = Scenario::from_query(query).unwrap();
            // An SDK without a counterpart of a key's value is not compared.
            let (Ok(a), Ok(b)) = (base.with("sdk", a.name()), base.with("sdk", b.name())) else {
                continue;
            };
            for d in compare(&a, &b).differences {
                let why = sdk_difference(d.metric, &a, &b);
                if why.contains("handle this differently") {
                    unexplained.push(format!(
                        "{query} {} vs {}: {}",
                        a.sdk.name(),
                        b.sdk.name(),
                        d.metric.name()
                    ));
                }
                assert!(
                    why.starts_with(package(a.sdk)) && why.contains(package(b.sdk)),
                    "{why}"
                );
                explained[n] += 1;
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "differences without a reason: {unexplained:#?}"
    );
    assert!(
        explained.iter().all(|&n| n >= 5),
        "differences explained per pair: {explained:?}"
    );
    let input = Scenario::from_query("ending=input&second_client=3").unwrap();
    let input_js = input.with("sdk", "js").unwrap();
    assert!(sdk_difference(Metric::HungStreams, &input, &input_js)
        .contains("only at a terminal status"));
}

#[test]
fn a_webhook_never_told_failed_reads_as_one_sentence_with_its_advice() {
    let sentence = say("ending=raise&push=inline");
    assert!(sentence.contains("never told FAILED"), "{sentence}");
    assert!(sentence.contains("WORKING"), "{sentence}");
    assert!(titles("ending=raise&push=inline").contains(&"Read GetTask when the pushes stop"));
    // @a2a-js/sdk pushes the FAILED.
    assert!(!say("ending=raise&push=inline&sdk=js").contains("never told"));
}

#[test]
fn a_slow_webhook_holds_a2a_sdks_stream_and_not_the_js_one() {
    let python = say("push=inline&webhook_delay_ms=2000");
    assert!(python.contains("holds this SDK's stream"), "{python}");
    assert!(titles("push=inline&webhook_delay_ms=2000")
        .contains(&"Answer the webhook at once (202) and work later"));
    let js = say("push=inline&webhook_delay_ms=2000&sdk=js");
    assert!(!js.contains("holds"), "{js}");
    assert!(js.contains("one after another"), "{js}");
}

#[test]
fn lost_and_repeated_pushes_read_with_their_advice() {
    assert!(say("push=inline&webhook=down").contains("6 POSTs went unanswered"));
    assert!(
        titles("push=inline&webhook=error").contains(&"Expect lost pushes: neither SDK retries")
    );
    assert!(titles("push=inline&cancel=1&sdk=js").contains(&"Make the webhook idempotent"));
}

#[test]
fn a_resend_beside_a_webhook_or_a_second_client_says_who_got_it_once() {
    let s = say("chunks=3&dup=2&second_client=2&push=inline");
    assert!(
        s.contains("resent it on the reconnected stream alone"),
        "{s}"
    );
    assert!(
        s.contains("the webhook and the second client got every event once"),
        "{s}"
    );
    let s = say("chunks=3&dup=3&resubscribe=3");
    assert!(s.contains("dropped its stream at event 3 itself"), "{s}");
    assert!(s.contains("resent nothing"), "{s}");
}

#[test]
fn a_retry_under_a_subscription_says_there_are_two_tasks_to_follow() {
    let s = say("retry=on&second_client=3");
    assert!(s.contains("A second client, after event 3"), "{s}");
    assert!(s.contains("holding 1 part stored so far"), "{s}");
    assert!(s.contains("made a second task and executed again"), "{s}");
    let s = say("retry=on&resubscribe=3");
    assert!(s.contains("The connection dropped after event 3"), "{s}");
    assert!(s.contains("made a second task"), "{s}");
}

#[test]
fn a_retried_message_with_a_push_config_tells_the_webhook_of_two_tasks() {
    let s = say("push=inline&retry=on");
    assert!(s.contains("12 POSTs for two tasks"), "{s}");
    assert!(s.contains("Tell them apart by task id"), "{s}");
}

#[test]
fn a_restart_under_a_push_config_is_told_as_a_race() {
    let s = say("push=inline&restart=2&store=database");
    assert!(
        s.contains("last heard WORKING and will hear nothing more"),
        "{s}"
    );
    assert!(s.contains("is a race"), "{s}");
    assert!(s.contains("4 POSTs went out"), "{s}");
}

#[test]
fn a_webhook_at_the_senders_timeout_is_told_as_a_race_where_it_was_one() {
    let s = say("push=inline&webhook_delay_ms=4995&sdk=js");
    assert!(
        s.contains("6 POSTs within 10 ms of the sender's 5000 ms timeout: a race"),
        "{s}"
    );
    let s = say("push=inline&webhook_delay_ms=4995");
    assert!(!s.contains("race"), "a2a-sdk answered every run: {s}");
    let s = say("push=inline&webhook_delay_ms=5005&sdk=js");
    assert!(!s.contains("race"), "{s}");
}

#[test]
fn the_combinations_advise_the_webhooks_owner_the_operator_and_the_subscriber() {
    assert!(titles("retry=on&push=inline").contains(&"Key webhook records by task id"));
    assert!(titles("restart=2&store=database&push=inline")
        .contains(&"After a restart, re-register push configs and poll GetTask"));
    assert!(titles("interrupt=input&second_client=3")
        .contains(&"Keep a subscription open across an interruption"));
    assert!(!titles("second_client=3").contains(&"Keep a subscription open across an interruption"));
}

#[test]
fn a_subscription_closed_at_the_next_question_says_the_task_went_on_without_it() {
    let s = say("interrupt=both&sdk=js&second_client=3");
    assert!(
        s.contains(
            "the stream closed at INPUT_REQUIRED, and the task went on to COMPLETED without it"
        ),
        "{s}"
    );
    let s = say("interrupt=both&second_client=3");
    assert!(
        s.contains("the stream closed at COMPLETED"),
        "a2a-sdk's lives on: {s}"
    );
}
