//! The lab's examples: the defaults and each step of the seed's "Run
//! controlled comparisons" in its order, the disorder of seed 000, SPEC §9's
//! subscribers, §12's push notifications, §14's shapes of agents on other
//! stacks, and seed 000's worked ledgers. Each is only a scenario
//! query, so each is a URL too.

/// One example: a label for people and its scenario query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// What it shows.
    pub label: &'static str,
    /// The scenario query (empty for the defaults).
    pub query: &'static str,
}

const fn ex(label: &'static str, query: &'static str) -> Example {
    Example { label, query }
}

/// Every example, in the order a reader meets them in the seeds.
pub const EXAMPLES: &[Example] = &[
    ex("Defaults: 3 chunks, complete(), streaming client", ""),
    ex("execute() returns without a final status", "ending=return"),
    ex("execute() never returns", "ending=never"),
    ex("…with a blocking client", "ending=never&client=block"),
    ex("…and a cancel after chunk 3", "ending=never&cancel=3"),
    ex("A late artifact right after complete()", "late=0"),
    ex("A late artifact 300 ms after complete()", "late=300"),
    ex("Late artifact, blocking client", "client=block&late=0"),
    ex("Late artifact, your own guard", "late=0&guard=on"),
    ex("Cancel after chunk 1 (awaiting code)", "cancel=1"),
    ex(
        "Cancel after chunk 1, asyncio.to_thread",
        "cancel=1&work=to_thread",
    ),
    ex(
        "Cancel after chunk 1, thread checks a flag",
        "cancel=1&work=flag",
    ),
    ex(
        "cancel() raises NotImplementedError",
        "cancel=1&cancel_impl=raise",
    ),
    ex(
        "…a2a-rs: CANCELED anyway, the stream ends with -32603",
        "cancel=1&cancel_impl=raise&sdk=rust",
    ),
    ex("Cancel after the last chunk loses the race", "cancel=3"),
    ex("Restart after chunk 2, in-memory store", "restart=2"),
    ex(
        "Restart after chunk 2, database store",
        "restart=2&store=database",
    ),
    ex("Reconnect resends event 3", "dup=3"),
    ex("Reconnect resends event 3, guard on", "guard=on&dup=3"),
    ex("Resent part with other bytes", "dup=4&conflict=on"),
    ex(
        "Resent part with other bytes, guard on",
        "guard=on&dup=4&conflict=on",
    ),
    ex("Retried submission", "retry=on"),
    ex("Retried submission, guard on", "guard=on&retry=on"),
    ex(
        "Resume without an authorization receipt",
        "interrupt=auth&receipt=missing",
    ),
    ex("…guard on", "guard=on&interrupt=auth&receipt=missing"),
    ex(
        "Connection drops after chunk 1: SubscribeToTask",
        "resubscribe=3",
    ),
    ex(
        "…after the last chunk: -32004, only GetTask knows",
        "resubscribe=5",
    ),
    ex(
        "…at input-required: a2a-sdk's subscription hangs",
        "ending=input&resubscribe=3",
    ),
    ex(
        "…@a2a-js/sdk closes it",
        "ending=input&sdk=js&resubscribe=3",
    ),
    ex(
        "…after a restart, database store",
        "restart=2&store=database&resubscribe=3",
    ),
    ex(
        "A second client subscribes after chunk 1",
        "second_client=3",
    ),
    ex("…and a late artifact", "late=0&second_client=3"),
    ex(
        "…@a2a-js/sdk drops the late artifact",
        "late=0&sdk=js&second_client=3",
    ),
    ex(
        "Push: execute() raises, the webhook never hears FAILED",
        "ending=raise&push=inline",
    ),
    ex(
        "Push: a slow webhook holds a2a-sdk's stream",
        "push=inline&webhook_delay_ms=2000",
    ),
    ex(
        "Push across the turns of a task that asks for input",
        "interrupt=input&push=inline",
    ),
    ex(
        "…each turn repeats the config: @a2a-js/sdk POSTs twice",
        "interrupt=input&sdk=js&push=inline&push_followup=repeat",
    ),
    ex(
        "A retried message with a push config: two tasks pushed",
        "retry=on&push=inline",
    ),
    ex(
        "Restart under a push config: the webhook hears nothing more",
        "restart=2&store=database&push=inline",
    ),
    ex(
        "A webhook at @a2a-js/sdk's 5 s timeout: a race",
        "sdk=js&push=inline&webhook_delay_ms=4995",
    ),
    ex(
        "A subscriber across the turns of a task that asks for input",
        "interrupt=input&second_client=3",
    ),
    ex(
        "…@a2a-js/sdk closes it at the second question",
        "interrupt=both&sdk=js&second_client=3",
    ),
    ex(
        "Progress updates: WORKING again, never a transition",
        "guard=on&progress=2",
    ),
    ex(
        "The whole result at the end: a cancel timed from it lands late",
        "cancel=1&result=last",
    ),
    ex(
        "…and a reconnect timed from it: -32004",
        "resubscribe=3&result=last",
    ),
    ex("Seed 000: T-42 worked ledger", "preset=t42"),
    ex("Seed 000: T-43 declined task", "preset=t43"),
    ex("Seed 000: release drill", "preset=drill"),
];
