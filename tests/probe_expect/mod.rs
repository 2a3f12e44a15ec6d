//! What the probe must find on each real agent the test command starts:
//! shared by the live probe tests (tests/probe_agents.rs) and the judge's
//! tests on recorded answers (tests/model/probe_judge.rs), so both hold the same
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
        // a2a-rs (a2a-server-lf 0.5.3, tests/agents/ANSWERS.md, "a2a-rs"):
        // the handler ends every stream of the task when the executor's
        // stream ends, a subscriber's too, as @a2a-js/sdk does.
        ("rust", "no-final") => &["stream:missing-terminal", "resubscribe:missing-terminal"],
        // The SDK prevents this defect: the handler stops polling the
        // executor at its first terminal event (src/handler.rs:391-393),
        // so the artifact after complete() is never made, streamed or
        // stored. Nothing to see, by the SDK's design.
        ("rust", "late-artifact") => &[],
        // begin_cancel stores CANCELED before cancel() runs
        // (src/handler.rs:975), then cancel()'s error goes to the caller
        // and, as an error event, to the open stream, which closes
        // (src/handler.rs:1032-1037): the stream never says CANCELED (a
        // stream with no terminal status, SPEC 8) and CancelTask fails
        // though the store says CANCELED (SPEC 10). On REST the error
        // event is the bare JSON-RPC error object (src/sse.rs:34-37), read
        // as the error it says (A2A 1.0 names no form for it).
        ("rust", "cancel-raises") => &["cancel:missing-terminal", "cancel:cancel-not-canceled"],
        ("rust", "never-returns") => &["stream:hung", "resubscribe:hung"],
        // One request at a time, the executor's own ids are the request's.
        ("rust", "shared-state") => &[],
        // The SDK has no executor-side cancellation (the handler only
        // drops the executor's stream; ANSWERS.md, "What has no
        // counterpart"), so the canceled task's work goes on, and with the
        // queue kept on the executor its later chunks, built from the
        // latest request's ids, reach the latest request: the resubscribe
        // probe's task, whose subscription gets them besides its own (the
        // same chunk twice, SPEC 8's duplicate).
        ("rust", "shared-queue") => &["resubscribe:duplicate", "resubscribe:duplicate"],
        (sdk, defect) => panic!("no expectation for {sdk} {defect}"),
    }
}

/// The defects `sdk`'s test agent is started with by the live probe's
/// tests: a2a-rs's also alone with the executor that keeps the task on
/// itself, where the SDK's missing cancellation shows it.
pub fn defects(sdk: &str) -> &'static [&'static str] {
    match sdk {
        "rust" => &RUST_DEFECTS,
        _ => &DEFECTS,
    }
}

/// The defects the a2a-rs agent is started with.
pub const RUST_DEFECTS: [&str; 7] = [
    "none",
    "no-final",
    "late-artifact",
    "cancel-raises",
    "never-returns",
    "shared-state",
    "shared-queue",
];

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

/// The push-enabled a2a-rs agents, probed with `--webhook` as
/// [`PUSH_AGENTS`] (tests/agents/ANSWERS.md, "a2a-rs", "Push").
pub const RUST_PUSH_AGENTS: [PushAgent; 3] = [
    // The sender POSTs and awaits the answer before the event goes to the
    // stream (src/handler.rs:379-390): a slow webhook holds it up.
    PushAgent {
        name: "rust-1.0-none",
        args: &["rust", "1.0", "none", "push=on"],
        expect: &["push:push-stalls-stream"],
    },
    PushAgent {
        name: "rest-rust-1.0-none",
        args: &["rust", "1.0", "none", "push=on", "rest=only"],
        expect: &["push:push-stalls-stream"],
    },
    // cancel() fails: the task is stored CANCELED by begin_cancel, which
    // pushes nothing, so the webhook is last told WORKING though GetTask
    // says CANCELED.
    PushAgent {
        name: "rust-1.0-cancel-raises",
        args: &["rust", "1.0", "cancel-raises", "push=on"],
        expect: &[
            "cancel:missing-terminal",
            "cancel:cancel-not-canceled",
            "push:push-missing-terminal",
            "push:push-stalls-stream",
        ],
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
