//! Every SDK-specific rule of the simulation, in one table (SPEC §7), so the
//! simulator reads as one algorithm with profile decisions.

use crate::model::sim::keys::{Key, Sdk};
use crate::model::wire::signs::{EnvelopeHead, WireSigns};
use crate::model::wire::{RpcCode, Wire};

/// When a streaming response or a blocking call ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamCloses {
    /// When `execute()` returns and the handler closes the queue: anything
    /// emitted after a terminal status is still delivered and stored.
    ExecuteReturns,
    /// At the first terminal or input-required status, after which the
    /// SDK drops what the executor publishes silently (not delivered, not
    /// stored); or when `execute()` returns, unless the task is
    /// auth-required (the SDK keeps that task's channel open, so a stream
    /// hangs there).
    FirstFinalStatus,
}

/// What a `cancel()` that raises does to the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaisingCancel {
    /// The task ends FAILED.
    FailsTask,
    /// Only the CancelTask caller sees an error; the executor runs on.
    ErrorOnly,
    /// The CancelTask caller gets the error and the message stream ends
    /// with it as a JSON-RPC error event; the task stays as the handler
    /// stored it before calling `cancel()` ([`Profile::cancel_stored_first`]),
    /// and the executor is dropped at its next event. Measured:
    /// `tests/fidelity/fixtures/rust/cancel-1_cancel_impl-raise.json`
    /// (a2a-server-lf 0.5.3 `handler.rs:975`, `begin_cancel`).
    EndsStream,
}

/// When a SubscribeToTask stream, opened while the executor runs, ends
/// (SPEC §9; measured in `tests/fidelity/fixtures/*/subscribe/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionEnd {
    /// Only when the queue closes with the task terminal: a queue that
    /// closes at an interruption, or when `execute()` returns without a
    /// final status, leaves the subscription open with nothing to come.
    AtTerminal,
    /// Wherever the message stream ends ([`StreamCloses`]).
    WithTheStream,
}

/// What a subscription opened when nothing runs for the task any more
/// (`execute()` returned, or a fresh server after a restart) does after the
/// task snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleSubscription {
    /// It stays open with nothing to come.
    Hangs,
    /// The SDK finds no event bus for the task and closes the stream, unless
    /// the task is interrupted (its bus is kept): then it stays open.
    ClosesUnlessInterrupted,
    /// The SDK finds no running execution for the task and answers
    /// TaskNotFoundError (-32001) instead of a snapshot, interrupted or
    /// not. Measured: `tests/fidelity/fixtures/rust/subscribe/`
    /// `ending-input_resubscribe-6`, `ending-return_resubscribe-5` and
    /// every `interrupt=*` subscription (a2a-server-lf 0.5.3
    /// `handler.rs:1048-1074`).
    NotFound,
}

/// A key value an SDK has no counterpart of (SPEC §16): with that SDK the
/// scenario is refused, and the page's control says why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lack {
    /// The key.
    pub key: Key,
    /// The value the SDK cannot serve (every other value is its default).
    pub value: &'static str,
    /// Why, with the SDK's source line.
    pub why: &'static str,
}

/// What a webhook whose config was registered over A2A 0.3 receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushBody03 {
    /// The event as a 1.0 `StreamResponse`, whatever wire the config came on.
    StreamResponse10,
    /// The whole task after the event, as a 0.3 `Task` snapshot.
    TaskSnapshot03,
}

/// A JSON-RPC error as an SDK was recorded sending it: a row of the
/// profile table (a capture's errors are
/// [`crate::model::evidence::capture::RpcError`], read off real traffic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SdkError {
    /// Its code.
    pub code: RpcCode,
    /// Its message, word for word as recorded.
    pub message: &'static str,
}

/// How one SDK sends push notifications (SPEC §12; measured in
/// `tests/fidelity/fixtures/*/push/`). No SDK retries a POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushProfile {
    /// The task's consumer awaits each POST's answer before the stream (or
    /// a blocking call) gets the event: a slow webhook holds the stream.
    pub holds_stream: bool,
    /// What a config registered over 0.3 receives.
    pub body_03: PushBody03,
    /// When `execute()` raises, FAILED is published: streamed and pushed.
    /// Otherwise the SDK stores FAILED itself, pushes nothing and ends the
    /// stream with a JSON-RPC error.
    pub raise_publishes_failed: bool,
    /// CancelTask's own event loop pushes the CANCELED it sees again.
    pub cancel_call_pushes_again: bool,
    /// A follow-up turn that repeats the inline config adds a config (a
    /// config without an id gets a new one), so every later event is
    /// POSTed once more; otherwise it replaces the task's config.
    pub repeated_config_adds: bool,
    /// A blocking call that returned at AUTH_REQUIRED leaves its event
    /// loop running: it POSTs every later event too, until a terminal or
    /// input-required status.
    pub auth_call_loop_pushes: bool,
    /// The header names sent before the token and `Authorization`.
    pub headers_before: &'static [&'static str],
    /// The header names sent after them.
    pub headers_after: &'static [&'static str],
    /// With both a token and credentials configured, the token header is
    /// sent too (otherwise only `Authorization`).
    pub token_beside_credentials: bool,
    /// The names of the token header and of the credentials header, as
    /// sent.
    pub auth_headers: [&'static str; 2],
    /// The `Content-Type` of a 1.0 body and of a 0.3 config's body.
    pub content_type: [&'static str; 2],
    /// How long the sender waits for an answer (httpx's default and the JS
    /// sender's abort: 5 s; a2a-rs's `HttpPushSender`: 30 s).
    pub timeout_ms: u64,
    /// An answer this close to the timeout races it (SPEC §14): answered
    /// in one run, abandoned in the next. Measured: @a2a-js/sdk's abort
    /// timer also covers opening the connection and serializing the body,
    /// and a webhook answering at 4,995 ms lost 5, 2 and 1 of 6 POSTs in
    /// three runs (5,005 ms: all 6, every run); a2a-sdk's read timeout
    /// starts once the request is sent, so its window is narrower: of 6
    /// POSTs its sender gave up on 1, 0, 0 at 4,998 ms, on 1, 1, 1 at
    /// 4,999 and on 2, 2, 1 at 5,000; on none at 4,990 to 4,997 and on all
    /// from 5,001 to 5,010 (three runs each).
    pub timeout_race_ms: u64,
}

/// What an SDK's bytes show of it (`wire::signs`), measured on every
/// recorded stream of `tests/fidelity/fixtures/` (`raw` and `sse_raw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    /// The fraction digits its status timestamps carry.
    pub timestamp_digits: usize,
    /// How many timestamps of another precision one task may show by
    /// chance: a2a-sdk writes protobuf timestamps, which drop a zero
    /// group (`.588000Z` is written `.588Z`, one time in a thousand).
    pub stray_timestamps: u32,
    /// How its JSON-RPC envelopes open on 1.0: the first keys it writes
    /// (a result's, an error's), and whether a space follows the colon.
    pub envelope_1_0: (&'static [&'static str], bool),
    /// The same on 0.3.
    pub envelope_0_3: (&'static [&'static str], bool),
    /// Whether its 0.3 events open with `kind` (keys in the order its
    /// types declare them), or never do (keys sorted: `contextId` comes
    /// first).
    pub kind_first_0_3: bool,
    /// Its SSE bodies end their lines with `\r\n` (sse-starlette's), not
    /// `\n`.
    pub sse_crlf: bool,
    /// Its SSE events carry an `id` line (a2a-rs numbers them; the others
    /// send none).
    pub sse_ids: bool,
    /// Its 1.0 events' keys come sorted (`contextId` before `taskId`), not
    /// in the order the proto declares them (the task's id first).
    pub sorted_keys_1_0: bool,
    /// Every event it sends names it (its key order, where no other SDK's
    /// is sorted): bytes that name another SDK are never its own.
    pub told_by_every_event: bool,
    /// The `Cache-Control` its handler sends on an SSE answer, and whether
    /// it sends `X-Accel-Buffering: no` (each SDK's pair is its own, as
    /// recorded in tests/agents/answers/raw/*-stream.headers and
    /// tests/agents/rust/answers/cancel-stream.txt).
    pub sse_headers: (&'static str, bool),
}

impl Fingerprint {
    /// Whether this SDK could have written bytes with these signs.
    pub fn fits(&self, signs: &WireSigns) -> bool {
        let strays: u32 = signs
            .fraction_digits
            .iter()
            .enumerate()
            .filter(|&(digits, _)| digits != self.timestamp_digits)
            .map(|(_, &n)| n)
            .sum();
        let envelope_fits = |head: &EnvelopeHead| {
            let (keys, spaced) = match head.wire {
                Wire::V1_0 => self.envelope_1_0,
                Wire::V0_3 => self.envelope_0_3,
            };
            keys.contains(&head.first_key.as_str()) && spaced == head.spaced
        };
        let other_order = signs.kind_first[usize::from(!self.kind_first_0_3)];
        // `\r\n` is a sign; `\n`, what nearly everything writes, is none.
        let crlf_fits = self.sse_crlf || signs.line_ends[1] == 0;
        let ids_fit = signs.sse_ids[usize::from(!self.sse_ids)] == 0;
        let key_order_fits = signs.key_order_1_0[usize::from(!self.sorted_keys_1_0)] == 0;
        strays <= self.stray_timestamps
            && key_order_fits
            && signs.envelopes.iter().all(envelope_fits)
            && other_order == 0
            && crlf_fits
            && ids_fit
    }

    /// Whether its handler sends SSE answers with these headers.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn headers_fit(&self, headers: &crate::model::wire::signs::SseHeaders) -> bool {
        let (cache_control, no_buffering) = self.sse_headers;
        headers.cache_control.as_deref() == Some(cache_control)
            && headers.no_buffering == no_buffering
    }
}

/// The SDK whose bytes these are, where the signs fit exactly one
/// profile; `None` where they fit several (or none: a hand-written
/// capture, another stack).
pub fn sdk_named(signs: &WireSigns) -> Option<Sdk> {
    // The SDKs that fit, one bit each, in the order of `Sdk::ALL`.
    let fitting = |fits: &dyn Fn(&Fingerprint) -> bool| {
        Sdk::ALL
            .iter()
            .enumerate()
            .filter(|(_, sdk)| fits(&Profile::of(**sdk).fingerprint))
            .fold(0u8, |bits, (i, _)| bits | 1 << i)
    };
    let by_bytes = match signs.is_empty() {
        true => u8::MAX,
        false => fitting(&|print| print.fits(signs)),
    };
    // Only the probe has headers (a capture keeps bodies): the page
    // carries none of their reading.
    #[cfg(not(target_arch = "wasm32"))]
    let by_headers =
        by_bytes & fitting(&|print| signs.sse_headers.iter().all(|h| print.headers_fit(h)));
    #[cfg(target_arch = "wasm32")]
    let by_headers = 0;
    // Headers no SDK sends (a proxy in between, another stack) tell
    // nothing: the bytes alone decide then.
    let named = match (signs.sse_headers.is_empty(), by_headers) {
        (false, 1..) => by_headers,
        _ if signs.is_empty() => return None,
        _ => by_bytes,
    };
    (named.count_ones() == 1).then(|| Sdk::ALL[named.trailing_zeros() as usize])
}

/// The behaviour of one SDK's default request handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// Which SDK.
    pub sdk: Sdk,
    /// Its name and version, for traces and explanations.
    pub name: &'static str,
    /// When the stream ends.
    pub stream_end: StreamCloses,
    /// A cancel stops awaiting code at its next await (where
    /// [`Profile::terminal_drops_executor`], once the step in progress
    /// finishes).
    pub cancel_interrupts_awaiting: bool,
    /// What a raising `cancel()` does.
    pub raising_cancel: RaisingCancel,
    /// JSON-RPC code the CancelTask caller gets when `cancel()` raises.
    pub raising_cancel_code: RpcCode,
    /// A blocking call returns at FAILED (otherwise it waits until
    /// `execute()` returns, as a2a-sdk 1.3.0 was measured to do).
    pub blocking_returns_at_failed: bool,
    /// A `cancel()` that writes nothing still leaves the task CANCELED: the
    /// SDK stores it itself without streaming it.
    pub noop_cancel_stores_canceled: bool,
    /// Whether the lab's restart behaviour was measured for this SDK.
    pub restart_measured: bool,
    /// A client timeout restarts with every event received (httpx's read
    /// timeout); otherwise it is a deadline for the whole call (an abort
    /// signal).
    pub timeout_is_inactivity: bool,
    /// Every `execute()`, a resume included, must publish the task first.
    pub resume_publishes_task: bool,
    /// A blocking call that returned at AUTH_REQUIRED leaves its event loop
    /// running (the loop of [`PushProfile::auth_call_loop_pushes`]), and
    /// each loop applies an event to the stored task on its own: until a
    /// terminal or input-required status, every appended chunk is stored
    /// twice.
    pub auth_call_loop_reapplies_appends: bool,
    /// How a message stream the SDK kept open at AUTH_REQUIRED ends when
    /// the follow-up's `execute()` publishes the task again, while the
    /// follow-up streams on a connection of its own; `None` where no
    /// message stream is open then (the SDK closed it at the interruption).
    pub republish_ends_open_stream: Option<SdkError>,
    /// What the executor's blocking work runs on, for trace labels.
    pub thread_name: &'static str,
    /// When a subscription opened while the executor runs ends.
    pub subscription_end: SubscriptionEnd,
    /// What a subscription opened when nothing runs for the task does.
    pub idle_subscription: IdleSubscription,
    /// How it pushes to a webhook.
    pub push: PushProfile,
    /// What its bytes show of it.
    pub fingerprint: Fingerprint,
    /// Key values it has no counterpart of: refused with it.
    pub lacks: &'static [Lack],
    /// At the first terminal status the handler stops reading `execute()`'s
    /// events, ends the streams and calls there, and drops the executor at
    /// its next event: that event is neither delivered nor stored (awaiting
    /// work's step in progress finishes, its chunk dropped: 1 orphaned
    /// step) and nothing after it is produced (a late artifact never is).
    /// Otherwise the executor runs until it returns or a cancel stops it.
    pub terminal_drops_executor: bool,
    /// The handler stores CANCELED before it calls `cancel()`, without
    /// streaming or pushing it; the executor's next event can no longer be
    /// stored and, where the message stream is still open (a `cancel()`
    /// that writes nothing), ends it with this JSON-RPC error event.
    /// `None` where the task is left to `cancel()`.
    pub cancel_stored_first: Option<SdkError>,
    /// When `execute()` raises and the SDK does not publish FAILED
    /// ([`PushProfile::raise_publishes_failed`]), it stores FAILED itself;
    /// otherwise the task stays as it was.
    pub raise_stores_failed: bool,
}

/// The header names of a push token and of credentials, as a2a-sdk and
/// @a2a-js/sdk send them.
const AUTH_HEADERS: [&str; 2] = ["X-A2A-Notification-Token", "Authorization"];

/// JSON-RPC code of `TaskNotCancelableError`.
pub const TASK_NOT_CANCELABLE: RpcCode = -32002;
/// JSON-RPC internal error.
pub const INTERNAL_ERROR: RpcCode = -32603;
/// JSON-RPC code of `TaskNotFoundError`.
pub const TASK_NOT_FOUND: RpcCode = -32001;
/// JSON-RPC code of `UnsupportedOperationError` (SubscribeToTask on a
/// finished task).
pub const UNSUPPORTED_OPERATION: RpcCode = -32004;

const PYTHON: Profile = Profile {
    sdk: Sdk::Python,
    name: "a2a-sdk 1.3.0 (Python)",
    stream_end: StreamCloses::ExecuteReturns,
    cancel_interrupts_awaiting: true,
    raising_cancel: RaisingCancel::FailsTask,
    raising_cancel_code: INTERNAL_ERROR,
    blocking_returns_at_failed: false,
    noop_cancel_stores_canceled: true,
    restart_measured: true,
    timeout_is_inactivity: true,
    resume_publishes_task: false,
    auth_call_loop_reapplies_appends: false,
    republish_ends_open_stream: None,
    thread_name: "asyncio.to_thread",
    subscription_end: SubscriptionEnd::AtTerminal,
    idle_subscription: IdleSubscription::Hangs,
    push: PushProfile {
        holds_stream: true,
        body_03: PushBody03::StreamResponse10,
        raise_publishes_failed: false,
        cancel_call_pushes_again: false,
        repeated_config_adds: false,
        auth_call_loop_pushes: false,
        headers_before: &[
            "Host",
            "Accept",
            "Accept-Encoding",
            "Connection",
            "User-Agent",
        ],
        headers_after: &["Content-Length", "Content-Type"],
        token_beside_credentials: true,
        auth_headers: AUTH_HEADERS,
        content_type: ["application/json", "application/json"],
        timeout_ms: 5_000,
        timeout_race_ms: 3,
    },
    // a2a-sdk 1.0: `{"result": …, "id": …, "jsonrpc": "2.0"}` by
    // json.dumps (783 events; `{"error": ` 4); 0.3: sorted keys, compact
    // (348); timestamps with microseconds (2,057; 5 with milliseconds).
    fingerprint: Fingerprint {
        timestamp_digits: 6,
        stray_timestamps: 1,
        envelope_1_0: (&["result", "error"], true),
        envelope_0_3: (&["id"], false),
        kind_first_0_3: false,
        sse_crlf: true,
        sse_ids: false,
        sorted_keys_1_0: false,
        told_by_every_event: false,
        // sse-starlette's EventSourceResponse (tests/agents/answers/raw/*-stream.headers).
        sse_headers: ("no-store", true),
    },
    lacks: &[],
    terminal_drops_executor: false,
    cancel_stored_first: None,
    raise_stores_failed: true,
};

const JS: Profile = Profile {
    sdk: Sdk::Js,
    name: "@a2a-js/sdk 1.3.0 (JavaScript)",
    stream_end: StreamCloses::FirstFinalStatus,
    cancel_interrupts_awaiting: false,
    raising_cancel: RaisingCancel::ErrorOnly,
    raising_cancel_code: INTERNAL_ERROR,
    blocking_returns_at_failed: true,
    noop_cancel_stores_canceled: false,
    restart_measured: true,
    timeout_is_inactivity: false,
    resume_publishes_task: true,
    // Measured: `interrupt=auth&client=block` stores 5 parts for 3 chunks
    // (1, 2, 2, 3, 3) on both wires, in the blocking answer and GetTask
    // alike. The loop keeps draining after the AUTH_REQUIRED snapshot
    // (`dist/server/index.js:3096-3100`, `_continueDraining`), and each
    // loop's `ResultManager` loads the stored task and appends the chunk's
    // parts to it (`applyArtifactUpdate`, `:2379-2399`).
    auth_call_loop_reapplies_appends: true,
    // Measured in every streaming push and subscribe combination that
    // passes AUTH_REQUIRED (tests/fidelity/fixtures/js/{push,subscribe}/).
    // The message stream iterates the task's event bus, whose queue stops
    // at a terminal or input-required status only
    // (`dist/server/index.js:2168-2174`), and it takes one `task` event
    // at most (`_advanceStreamPattern`, `:3162` and `:3485-3488`): the
    // resumed `execute()` publishes the task on the same bus.
    republish_ends_open_stream: Some(SdkError {
        code: UNSUPPORTED_OPERATION,
        message: "Stream ordering violation: received task in task lifecycle stream.",
    }),
    thread_name: "a worker thread",
    subscription_end: SubscriptionEnd::WithTheStream,
    idle_subscription: IdleSubscription::ClosesUnlessInterrupted,
    push: PushProfile {
        holds_stream: false,
        body_03: PushBody03::TaskSnapshot03,
        raise_publishes_failed: true,
        cancel_call_pushes_again: true,
        repeated_config_adds: true,
        auth_call_loop_pushes: true,
        headers_before: &["host", "connection", "Content-Type"],
        headers_after: &[
            "accept",
            "accept-language",
            "sec-fetch-mode",
            "user-agent",
            "accept-encoding",
            "content-length",
        ],
        token_beside_credentials: false,
        auth_headers: AUTH_HEADERS,
        content_type: ["application/a2a+json", "application/json"],
        timeout_ms: 5_000,
        timeout_race_ms: 10,
    },
    // @a2a-js/sdk 1.0: `{"jsonrpc":"2.0","id":…,"result":…}` by
    // JSON.stringify (827 events); 0.3: `{"id":…,"jsonrpc":"2.0",…}` on
    // a stream (369), `{"jsonrpc":"2.0",…}` for a blocking call's answer,
    // each event opening with `kind`; timestamps by Date.toISOString, always milliseconds (2,211).
    fingerprint: Fingerprint {
        timestamp_digits: 3,
        stray_timestamps: 0,
        envelope_1_0: (&["jsonrpc"], false),
        envelope_0_3: (&["id", "jsonrpc"], false),
        kind_first_0_3: true,
        sse_crlf: false,
        sse_ids: false,
        sorted_keys_1_0: false,
        told_by_every_event: false,
        // Its Express handler's own headers (rest-js-1.0-stream.headers).
        sse_headers: ("no-cache", true),
    },
    lacks: &[],
    terminal_drops_executor: false,
    cancel_stored_first: None,
    raise_stores_failed: true,
};

/// JSON-RPC code of an invalid request (a2a-rs: an event the task store
/// refuses, such as WORKING on a canceled task).
pub const INVALID_REQUEST: RpcCode = -32600;

// a2a-rs: `a2a-server-lf` 0.5.3 (`a2a-lf` 0.4.2 types). Every row is
// measured in `tests/fidelity/fixtures/rust/` (README there, fixture by
// fixture); `handler.rs` is `a2a-server-lf`'s `src/handler.rs`.
const RUST: Profile = Profile {
    sdk: Sdk::Rust,
    name: "a2a-rs: a2a-server-lf 0.5.3 (Rust)",
    // `execute()` returns a stream the handler drives (`drive_execution`,
    // handler.rs:354-409): the call ends when that stream ends
    // (`ending-auth`: closed after AUTH_REQUIRED), or at a terminal status
    // ([`Profile::terminal_drops_executor`]).
    stream_end: StreamCloses::ExecuteReturns,
    // The handler drops the executor's stream once the task is terminal
    // (handler.rs:367-369); the step in progress still finishes
    // (`terminal_drops_executor`).
    cancel_interrupts_awaiting: true,
    raising_cancel: RaisingCancel::EndsStream,
    raising_cancel_code: INTERNAL_ERROR,
    // At FAILED, a terminal status, the handler stops (handler.rs:391-393).
    blocking_returns_at_failed: true,
    noop_cancel_stores_canceled: false,
    restart_measured: true,
    // The recorder's client is raw reqwest: a2a-client-lf's default
    // `reqwest::Client` has no timeout, so `timeout_ms` is a deadline for
    // the whole call, as for @a2a-js/sdk.
    timeout_is_inactivity: false,
    // The follow-up streams WORKING first (`interrupt-*`).
    resume_publishes_task: false,
    // `interrupt=auth&client=block`: 3 parts, as a2a-sdk.
    auth_call_loop_reapplies_appends: false,
    republish_ends_open_stream: None,
    thread_name: "tokio's spawn_blocking",
    // A subscription ends when the execution does, terminal or not
    // (`ending-input_resubscribe-3`, `ending-return_resubscribe-3`).
    subscription_end: SubscriptionEnd::WithTheStream,
    idle_subscription: IdleSubscription::NotFound,
    push: PushProfile {
        // Every POST is sent, and answered, before its event reaches the
        // stream (handler.rs:379-390): `webhook_delay_ms=2000` holds
        // stream and blocking call alike.
        holds_stream: true,
        // No 0.3 wire (`lacks`).
        body_03: PushBody03::StreamResponse10,
        // `ending=raise`: a -32603 error event, nothing pushed, the task
        // left WORKING.
        raise_publishes_failed: false,
        cancel_call_pushes_again: false,
        // `push_followup=repeat`: a second config with a fresh id
        // (handler.rs:771-791, push/store.rs:62-92), each POSTed
        // (handler.rs:208-211).
        repeated_config_adds: true,
        auth_call_loop_pushes: false,
        // reqwest sends them in lower case (`push-inline*.json`).
        headers_before: &["content-type"],
        headers_after: &["accept", "host", "content-length"],
        token_beside_credentials: true,
        auth_headers: ["a2a-notification-token", "authorization"],
        content_type: ["application/json", "application/json"],
        // `HttpPushSender`'s default (push/sender.rs:39-46): a webhook
        // answering at 4,995 or 5,005 ms is answered, every run.
        timeout_ms: 30_000,
        // Not measured at 30 s: no window is claimed.
        timeout_race_ms: 0,
    },
    // a2a-rs 1.0: `{"jsonrpc":"2.0","id":…,"result":…}`, the event's keys
    // sorted (it builds ProtoJSON through `serde_json::Value`), timestamps
    // with nanoseconds (all 93 recorded; protobuf may drop a zero group
    // as for a2a-sdk); no 0.3 envelope at all.
    fingerprint: Fingerprint {
        timestamp_digits: 9,
        stray_timestamps: 1,
        envelope_1_0: (&["jsonrpc"], false),
        envelope_0_3: (&[], false),
        kind_first_0_3: false,
        sse_crlf: false,
        sse_ids: true,
        sorted_keys_1_0: true,
        told_by_every_event: true,
        // axum's Sse: no X-Accel-Buffering.
        sse_headers: ("no-cache", false),
    },
    lacks: &[
        Lack {
            key: Key::Wire,
            value: "0.3",
            why: "a2a-rs (a2a-server-lf 0.5.3) serves no A2A 0.3 wire: a request without an A2A-Version header, or with 0.3, is refused with -32009 (src/jsonrpc.rs, check_a2a_version)",
        },
        Lack {
            key: Key::Store,
            value: "database",
            why: "a2a-rs (a2a-server-lf 0.5.3) ships only InMemoryTaskStore (src/task_store/mod.rs:7)",
        },
    ],
    // handler.rs:391-393 (a terminal event) and :367-369 (a snapshot made
    // terminal by a cancel): `late-*` 6 events, GetTask 1 artifact;
    // `cancel-1` 1 orphaned step (step 2).
    terminal_drops_executor: true,
    // `begin_cancel` (handler.rs:975); `cancel-1_cancel_impl-noop`: the
    // next chunk ends the stream with -32600 (task_store/inmemory.rs:58-63).
    cancel_stored_first: Some(SdkError {
        code: INVALID_REQUEST,
        message: "task … is in terminal state Canceled and cannot transition to Working",
    }),
    raise_stores_failed: false,
};

impl Profile {
    /// The profile of an SDK.
    pub fn of(sdk: Sdk) -> &'static Profile {
        match sdk {
            Sdk::Python => &PYTHON,
            Sdk::Js => &JS,
            Sdk::Rust => &RUST,
        }
    }
}
