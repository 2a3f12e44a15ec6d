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
