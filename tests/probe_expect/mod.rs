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

/// A stand-in of tests/agents/hostile.py, or an agent on another stack,
/// and exactly the findings the probe must report on it, where they show.
pub struct Judged {
    /// The records' name: `tests/fixtures/probe/records/NAME.json`.
    pub name: &'static str,
    /// The launcher (under tests/agents) and its arguments.
    pub start: &'static [&'static str],
    /// The wire to probe in.
    pub wire: &'static str,
    /// More arguments for `probe` (`URL` stands for the agent's URL).
    pub more: &'static [&'static str],
    /// The findings, `probe:code`, in order.
    pub expect: &'static [&'static str],
}

/// What the probe must find on each stand-in of tests/agents/hostile.py,
/// which breaks a contract no SDK breaks (SPEC §11, §13), or keeps one
/// that the SDK samples never exercise: exactly these findings.
pub const HOSTILE: [Judged; 16] = [
    stand_in("clean", &[]),
    stand_in(
        "envelope",
        &[
            "stream:rpc-envelope",
            "get:rpc-envelope",
            // The stream's events, and the GetTask after it.
            "cancel:rpc-envelope",
            "cancel:rpc-envelope",
            "cancel-terminal:rpc-envelope",
            "resubscribe:rpc-envelope",
            "resubscribe:rpc-envelope",
        ],
    ),
    stand_in(
        "context",
        &["stream:context-mismatch", "resubscribe:context-mismatch"],
    ),
    // Cancel acts at the first WORKING, before the foreign event; the
    // subscription after the drop carries it.
    stand_in(
        "foreign",
        &["stream:foreign-task", "resubscribe:foreign-task"],
    ),
    stand_in(
        "thin-card",
        &["card:card-field", "card:card-field", "card:card-field"],
    ),
    // Progress, an artifact only at the end, or none: A2A, and clean.
    stand_in("progress", &[]),
    stand_in("artifact-last", &[]),
    stand_in("no-artifact", &[]),
    // CancelTask answered CANCELED; the stream and GetTask then said
    // COMPLETED.
    stand_in(
        "cancel-ignored",
        &["cancel:after-terminal", "cancel:after-terminal"],
    ),
    // Timestamps without a zone (A2A 1.0 §5.6.1).
    stand_in(
        "naive-time",
        &[
            "stream:wire-shape",
            "get:wire-shape",
            "cancel:wire-shape",
            "resubscribe:wire-shape",
        ],
    ),
    // 0x1e before every event: nothing can be read, and the probes that
    // need a finished task say why they did not run.
    stand_in(
        "rs-byte",
        &[
            "stream:unreadable-answer",
            "cancel:unreadable-answer",
            "resubscribe:unreadable-answer",
        ],
    ),
    // GetTask answers HTTP 500 with text, or JSON that is not JSON: the
    // `get` probe and the cancel probe's GetTask.
    stand_in(
        "get-500",
        &["get:unreadable-answer", "cancel:unreadable-answer"],
    ),
    stand_in(
        "get-garbage",
        &["get:unreadable-answer", "cancel:unreadable-answer"],
    ),
    // The card off the well-known paths, found with --card.
    Judged {
        name: "hostile-card-elsewhere",
        start: &["hostile.py", "card-elsewhere"],
        wire: "1.0",
        more: &["--card", "URL/agent/card.json"],
        expect: &[],
    },
    // REST served though the card lists only JSON-RPC: --binding rest.
    Judged {
        name: "hostile-rest-unlisted",
        start: &["hostile.py", "rest-unlisted"],
        wire: "1.0",
        more: &["--binding", "rest"],
        expect: &[],
    },
    // A 0.3 card may list no skills.
    Judged {
        name: "hostile-card-03-no-skills",
        start: &["hostile.py", "card-03-no-skills"],
        wire: "0.3",
        more: &[],
        expect: &[],
    },
];

const fn stand_in(kind: &'static str, expect: &'static [&'static str]) -> Judged {
    Judged {
        name: kind,
        start: &[],
        wire: "1.0",
        more: &[],
        expect,
    }
}

/// Agents built on other A2A implementations than the two SDK samples
/// (SPEC §13), as tests/agents/ANSWERS.md ("Other stacks", "Progress and
/// a last artifact") says each behaves: no finding where they keep the
/// spec, the right one where they do not.
pub const OTHER_STACKS: [Judged; 7] = [
    // google-adk 2.13.0 `to_a2a`, a stub agent: progress as WORKING
    // updates, its one artifact right before COMPLETED. Clean.
    Judged {
        name: "stack-adk",
        start: &["stacks/start.sh", "adk"],
        wire: "1.0",
        more: &[],
        expect: &[],
    },
    // pydantic's fasta2a 2.1.1: `"skills": []` by default, timestamps
    // without a zone, CancelTask answered with the task (never -32002),
    // SubscribeToTask on a finished task streamed.
    Judged {
        name: "stack-fasta2a",
        start: &["stacks/start.sh", "fasta2a"],
        wire: "1.0",
        more: &[],
        expect: &[
            "card:card-field",
            "stream:wire-shape",
            "get:wire-shape",
            "cancel:cancel-not-canceled",
            "cancel:wire-shape",
            "cancel-terminal:cancel-terminal-accepted",
            "cancel-terminal:wire-shape",
            "resubscribe:wire-shape",
            "subscribe-terminal:subscribe-terminal-accepted",
            "subscribe-terminal:wire-shape",
        ],
    },
    // Both SDKs reporting progress and sending their artifact last, on
    // both wires: clean.
    Judged {
        name: "progress-python-1.0",
        start: &[
            "start.sh",
            "python",
            "1.0",
            "none",
            "progress=2",
            "result=last",
        ],
        wire: "1.0",
        more: &[],
        expect: &[],
    },
    Judged {
        name: "progress-python-0.3",
        start: &[
            "start.sh",
            "python",
            "0.3",
            "none",
            "progress=2",
            "result=last",
        ],
        wire: "0.3",
        more: &[],
        expect: &[],
    },
    Judged {
        name: "progress-js-1.0",
        start: &["start.sh", "js", "1.0", "none", "progress=2", "result=last"],
        wire: "1.0",
        more: &[],
        expect: &[],
    },
    Judged {
        name: "progress-js-0.3",
        start: &["start.sh", "js", "0.3", "none", "progress=2", "result=last"],
        wire: "0.3",
        more: &[],
        expect: &[],
    },
    // The SDK defect is still found with progress and a last artifact.
    Judged {
        name: "progress-js-1.0-cancel-raises",
        start: &[
            "start.sh",
            "js",
            "1.0",
            "cancel-raises",
            "progress=1",
            "result=last",
        ],
        wire: "1.0",
        more: &[],
        expect: &["cancel:cancel-not-canceled"],
    },
];

/// bad.py's `endless-ping`: a task WORKING, then only `: ping` comments.
/// The streams never close (`hung`); CancelTask answers CANCELED while
/// GetTask still says WORKING (`after-terminal`).
pub const ENDLESS_PING: [&str; 4] = [
    "stream:hung",
    "cancel:hung",
    "cancel:after-terminal",
    "resubscribe:hung",
];
