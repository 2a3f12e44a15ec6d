//! What the probe must find on each real agent the test command starts:
//! shared by the live probe tests (tests/probe_agents.rs) and the judge's
//! tests on recorded answers (tests/probe_judge.rs), so both hold the same
//! expectation.

/// What the probe must report for each defect on one SDK and wire:
/// exactly these findings and nothing else.
pub fn expect(sdk: &str, defect: &str) -> &'static [&'static str] {
    match (sdk, defect) {
        (_, "none") => &[],
        // The executor returns without a final status: the stream closes
        // with the task WORKING; a subscriber's stream never closes.
        ("python", "no-final") => &["stream:missing-terminal", "resubscribe:hung"],
        // An artifact after complete() is delivered and stored.
        ("python", "late-artifact") => &["stream:after-terminal", "resubscribe:after-terminal"],
        // cancel() raises: CancelTask fails and the task ends FAILED.
        ("python", "cancel-raises") => &["cancel:cancel-not-canceled"],
        // execute() never returns: the streams stay open.
        ("python", "never-returns") => &["stream:hung", "resubscribe:hung"],
        // @a2a-js/sdk closes a subscriber's stream too when execute()
        // returns.
        ("js", "no-final") => &["stream:missing-terminal", "resubscribe:missing-terminal"],
        // @a2a-js/sdk drops an event after the terminal status before it
        // reaches the client or the store: nothing to see from outside.
        ("js", "late-artifact") => &[],
        // cancel() throws: CancelTask fails (-32603) and the task runs on
        // to COMPLETED.
        ("js", "cancel-raises") => &["cancel:cancel-not-canceled"],
        ("js", "never-returns") => &["stream:hung", "resubscribe:hung"],
        (sdk, defect) => panic!("no expectation for {sdk} {defect}"),
    }
}

/// The defects each SDK's test agent is started with.
pub const DEFECTS: [&str; 5] = [
    "none",
    "no-final",
    "late-artifact",
    "cancel-raises",
    "never-returns",
];

/// The push-enabled test agents (`start.sh SDK WIRE DEFECT push=on
/// [KEY=VALUE]`, SPEC §12) and one that declares no push, each probed with
/// `--webhook`: a name for its records, how it is started, and exactly
/// the findings the probe must report.
pub struct PushAgent {
    /// The records' name: `tests/fixtures/probe/records/push-NAME.json`.
    pub name: &'static str,
    /// `start.sh`'s arguments.
    pub args: &'static [&'static str],
    /// The findings, `probe:code`, in order.
    pub expect: &'static [&'static str],
}

pub const PUSH_AGENTS: [PushAgent; 8] = [
    // a2a-sdk awaits each POST before the stream gets the event: a slow
    // webhook holds up the stream.
    PushAgent {
        name: "python-1.0-none",
        args: &["python", "1.0", "none", "push=on"],
        expect: &["push:push-stalls-stream"],
    },
    PushAgent {
        name: "python-0.3-none",
        args: &["python", "0.3", "none", "push=on"],
        expect: &["push:push-stalls-stream"],
    },
    // execute() raises: FAILED is stored (GetTask) but neither streamed
    // nor pushed.
    PushAgent {
        name: "python-1.0-raise",
        args: &["python", "1.0", "none", "push=on", "ending=raise"],
        expect: &[
            "stream:missing-terminal",
            "get:get-task-mismatch",
            "resubscribe:missing-terminal",
            "push:push-missing-terminal",
            "push:push-stalls-stream",
        ],
    },
    // An artifact after complete() is streamed and pushed.
    PushAgent {
        name: "python-1.0-late-artifact",
        args: &["python", "1.0", "late-artifact", "push=on"],
        expect: &[
            "stream:after-terminal",
            "resubscribe:after-terminal",
            "push:pushed-after-terminal",
            "push:push-stalls-stream",
        ],
    },
    // @a2a-js/sdk pushes CANCELED from the streaming request and from
    // CancelTask: twice, byte for byte. A slow webhook does not hold up
    // its streams.
    PushAgent {
        name: "js-1.0-none",
        args: &["js", "1.0", "none", "push=on"],
        expect: &["push:pushed-after-terminal", "push:push-duplicate"],
    },
    PushAgent {
        name: "js-0.3-none",
        args: &["js", "0.3", "none", "push=on"],
        expect: &["push:pushed-after-terminal", "push:push-duplicate"],
    },
    // execute() raises: FAILED is streamed and pushed.
    PushAgent {
        name: "js-1.0-raise",
        args: &["js", "1.0", "none", "push=on", "ending=raise"],
        expect: &["push:pushed-after-terminal", "push:push-duplicate"],
    },
    // The card declares no push: the push probe is skipped.
    PushAgent {
        name: "js-1.0-no-push",
        args: &["js", "1.0", "none"],
        expect: &[],
    },
];

/// What the probe must find on each stand-in of tests/agents/hostile.py,
/// which breaks a contract no SDK breaks (SPEC §11): exactly these
/// findings, where they show.
pub const HOSTILE: [(&str, &[&str]); 5] = [
    ("clean", &[]),
    (
        "envelope",
        &[
            "stream:rpc-envelope",
            "get:rpc-envelope",
            "cancel:rpc-envelope",
            "cancel-terminal:rpc-envelope",
            "resubscribe:rpc-envelope",
            "resubscribe:rpc-envelope",
        ],
    ),
    (
        "context",
        &["stream:context-mismatch", "resubscribe:context-mismatch"],
    ),
    ("foreign", &["stream:foreign-task", "cancel:foreign-task"]),
    (
        "thin-card",
        &["card:card-field", "card:card-field", "card:card-field"],
    ),
];
