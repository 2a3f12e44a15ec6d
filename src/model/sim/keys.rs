//! The scenario keys of SPEC §4 and §7 as one table: each key's name,
//! control group, values and meaning, in the order of the spec's tables.
//! That order is the URL's and the export's; the page groups the same
//! table into its control panels. Parsing a value, printing it and the
//! choices a control offers all read this table.

use std::fmt;

/// Defines a value enum together with its spellings, so a value's name in
/// URLs, the CLI and exports is written once.
macro_rules! named_values {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in the order of [`Self::NAMES`].
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];
            /// Every value's spelling.
            pub const NAMES: &'static [&'static str] = &[$($text,)+];

            /// The value's spelling in URLs, the CLI and exports.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }
    };
}

named_values! {
    /// How `execute()` ends after the last chunk.
    Ending {
        /// `complete()`: COMPLETED.
        Complete = "complete",
        /// `failed()`: FAILED.
        Fail = "fail",
        /// Asks for input: INPUT_REQUIRED.
        Input = "input",
        /// Asks for authorization: AUTH_REQUIRED.
        Auth = "auth",
        /// Returns without a final status.
        Return = "return",
        /// Never returns.
        Never = "never",
        /// Raises an exception after the last chunk.
        Raise = "raise",
    }
}

named_values! {
    /// Which client calls the agent.
    Client {
        /// `SendStreamingMessage`: reads the event stream.
        Stream = "stream",
        /// A blocking `SendMessage`: waits for one result.
        Block = "block",
    }
}

named_values! {
    /// How the executor does its lookup work.
    Work {
        /// Awaiting code: a cancel stops it at its next await.
        Await = "await",
        /// One blocking call in `asyncio.to_thread`: a cancel cannot stop it.
        ToThread = "to_thread",
        /// A thread that checks a cancel flag between steps.
        Flag = "flag",
    }
}

named_values! {
    /// What the executor's `cancel()` does.
    CancelImpl {
        /// Writes CANCELED.
        Write = "write",
        /// Raises `NotImplementedError`.
        Raise = "raise",
        /// Writes nothing.
        Noop = "noop",
    }
}

named_values! {
    /// Where the server keeps tasks.
    Store {
        /// In-memory: a restart loses the task.
        Memory = "memory",
        /// A database: the task survives a restart.
        Database = "database",
    }
}

named_values! {
    /// Interruptions the executor asks for after WORKING.
    Interrupt {
        /// None.
        None = "none",
        /// Authorization.
        Auth = "auth",
        /// Input.
        Input = "input",
        /// Authorization, then input.
        Both = "both",
    }
}

named_values! {
    /// Whether the resume from auth-required carries an authorization receipt.
    ReceiptMode {
        /// It does.
        Valid = "valid",
        /// It does not.
        Missing = "missing",
    }
}

named_values! {
    /// A worked ledger of seed 000, played instead of the executor scenario.
    Preset {
        /// T-42: auth, authorized resume, input, completed with manifest M9.
        T42 = "t42",
        /// T-43: submitted straight to rejected.
        T43 = "t43",
        /// The release drill.
        Drill = "drill",
    }
}

named_values! {
    /// Which SDK's behaviour the simulation follows.
    Sdk {
        /// a2a-sdk 1.3.0 (Python) with its default request handler.
        Python = "python",
        /// @a2a-js/sdk 1.3.0 with its DefaultRequestHandler and Express handlers.
        Js = "js",
        /// a2a-rs: `a2a-server-lf` 0.5.3's DefaultRequestHandler and
        /// InMemoryTaskStore (SPEC §16).
        Rust = "rust",
    }
}

named_values! {
    /// What the client's webhook does with a POST (SPEC §12).
    Webhook {
        /// Answers 200.
        Ok = "ok",
        /// Answers 500.
        Error = "error",
        /// Nothing listens: the connection is refused.
        Down = "down",
    }
}

named_values! {
    /// What the push config carries to authenticate the agent (SPEC §12).
    PushAuth {
        /// A token (`X-A2A-Notification-Token`).
        Token = "token",
        /// Authentication credentials (`Authorization: Bearer …`).
        Bearer = "bearer",
        /// Both.
        Both = "both",
    }
}

named_values! {
    /// How the agent hands over its result (SPEC §14).
    ResultShape {
        /// One artifact chunk per step, as it goes.
        Chunks = "chunks",
        /// The whole artifact in one event right before COMPLETED, as
        /// google-adk's agents and most LLM agents send it.
        Last = "last",
    }
}

named_values! {
    /// What a follow-up turn's message carries of the push config (SPEC §14).
    PushFollowup {
        /// Nothing: the config stays as the first turn set it.
        None = "none",
        /// The first turn's inline config again, as a client that sends
        /// the same request shape each turn does.
        Repeat = "repeat",
    }
}

/// When the client asks for push notifications (SPEC §12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Push {
    /// Never.
    Off,
    /// The config is sent with the message.
    Inline,
    /// The client creates the config after delivered event k.
    After(u32),
}

impl Push {
    /// Reads `off`, `inline` or `after:k` (k from 1 to `most`).
    pub fn parse(value: &str, most: u32) -> Result<Push, ScenarioError> {
        match value {
            "off" => return Ok(Push::Off),
            "inline" => return Ok(Push::Inline),
            _ => {}
        }
        match value.strip_prefix("after:") {
            Some(k) => parse_range("push", k, 1, most).map(Push::After),
            None => Err(err(
                "push",
                format!("`{value}` is not one of off, inline, after:k"),
            )),
        }
    }

    /// Itself, where `after:k` names an event a stream can carry (as
    /// [`Push::parse`] holds a value read as text).
    pub fn checked(self) -> Result<Push, ScenarioError> {
        match self {
            Push::After(k) => in_range("push", k.into(), 1, MOST_EVENTS).map(Push::After),
            other => Ok(other),
        }
    }

    /// The value's spelling.
    pub fn name(self) -> String {
        match self {
            Push::Off => "off".into(),
            Push::Inline => "inline".into(),
            Push::After(k) => format!("after:{k}"),
        }
    }
}

pub use crate::model::wire::Wire;

/// The spellings of an on/off key.
pub const SWITCH: &[&str] = &["off", "on"];

/// One scenario key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// `chunks`
    Chunks,
    /// `step_ms`
    StepMs,
    /// `ending`
    Ending,
    /// `client`
    Client,
    /// `timeout_ms`
    TimeoutMs,
    /// `cancel`
    Cancel,
    /// `work`
    Work,
    /// `cancel_impl`
    CancelImpl,
    /// `late`
    Late,
    /// `guard`
    Guard,
    /// `restart`
    Restart,
    /// `store`
    Store,
    /// `interrupt`
    Interrupt,
    /// `receipt`
    Receipt,
    /// `dup`
    Dup,
    /// `conflict`
    Conflict,
    /// `retry`
    Retry,
    /// `sdk`
    Sdk,
    /// `resubscribe`
    Resubscribe,
    /// `second_client`
    SecondClient,
    /// `wire`
    Wire,
    /// `push`
    Push,
    /// `webhook`
    Webhook,
    /// `webhook_delay_ms`
    WebhookDelayMs,
    /// `push_auth`
    PushAuth,
    /// `progress`
    Progress,
    /// `result`
    Result,
    /// `push_followup`
    PushFollowup,
    /// `preset`
    Preset,
}

/// What values a key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// A whole number in `lo ..= hi`.
    Number {
        /// Smallest.
        lo: u32,
        /// Largest.
        hi: u32,
    },
    /// A word meaning "none", or a whole number in `lo ..= hi`.
    WordOrNumber {
        /// The word (`none`, `off`).
        word: &'static str,
        /// Smallest.
        lo: u32,
        /// Largest.
        hi: u32,
    },
    /// One of these spellings.
    Choice(&'static [&'static str]),
    /// Read by the key's own parser (`push`: `off`, `inline`, `after:k`).
    Own(&'static [&'static str]),
}

/// One key: its name, group, values and meaning.
#[derive(Debug)]
pub struct KeySpec {
    /// The key.
    pub key: Key,
    /// Its name in URLs, the CLI and exports.
    pub name: &'static str,
    /// The control group in the page.
    pub group: &'static str,
    /// Allowed values, for messages and the page.
    pub values: &'static str,
    /// One-line meaning.
    pub help: &'static str,
    /// How a value is read.
    pub kind: Values,
    /// How the scenario reader reads it back off a task's traffic.
    pub read_back: ReadBack,
}

/// How the scenario reader (`evidence/scenario_of/`) reads a key back
/// off a task's traffic (SPEC §15): each row of [`KEYS`] says, so a key
/// added to the table says it too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadBack {
    /// Read off the events, counted or read off the wire (`keys_of` for
    /// one stream, `streams.rs`, `pushes.rs`).
    Observed,
    /// Its values tried by simulation: a short list the traffic allows
    /// (where a resend or a resubscription fell, where a restart did and
    /// how the task was kept, when a push config took effect, each SDK).
    Searched,
    /// No traffic shows it: the scenario that explains a task leaves it
    /// at its default.
    OffTheWire {
        /// Why no traffic shows it.
        why: &'static str,
    },
}

const OBSERVED: ReadBack = ReadBack::Observed;
const SEARCHED: ReadBack = ReadBack::Searched;

const fn off(why: &'static str) -> ReadBack {
    ReadBack::OffTheWire { why }
}

impl KeySpec {
    /// The choices of an enumerated key (empty for a number).
    pub fn choices(&self) -> &'static [&'static str] {
        match self.kind {
            Values::Choice(names) | Values::Own(names) => names,
            _ => &[],
        }
    }
}

const fn spec(
    key: Key,
    name: &'static str,
    group: &'static str,
    values: &'static str,
    help: &'static str,
    kind: Values,
    read_back: ReadBack,
) -> KeySpec {
    KeySpec {
        key,
        name,
        group,
        values,
        help,
        kind,
        read_back,
    }
}

const fn number(lo: u32, hi: u32) -> Values {
    Values::Number { lo, hi }
}

/// The most events one stream can carry (`chunks` at its largest, plus the
/// Task, WORKING, the ending and a late artifact): the widest range of the
/// subscriber keys before the scenario's own limit applies.
pub(super) const MOST_EVENTS: u32 = 10_004;

const fn or_word(word: &'static str, lo: u32, hi: u32) -> Values {
    Values::WordOrNumber { word, lo, hi }
}

/// Every scenario key, in the order of SPEC §4's tables: the order of URLs
/// and exports, and within each group the order of the page's controls.
#[rustfmt::skip]
pub const KEYS: &[KeySpec] = &[
    spec(Key::Chunks, "chunks", "executor", "0 – 10000", "courier lookup steps, one artifact chunk each", number(0, 10_000), OBSERVED),
    spec(Key::StepMs, "step_ms", "executor", "1 – 60000", "virtual milliseconds per lookup step", number(1, 60_000), off("how long a step takes: events are compared, not their times")),
    spec(Key::Ending, "ending", "executor", "complete, fail, input, auth, return, never, raise", "how execute() ends after the last chunk", Values::Choice(Ending::NAMES), OBSERVED),
    spec(Key::Client, "client", "client", "stream, block", "streaming or blocking client", Values::Choice(Client::NAMES), OBSERVED),
    spec(Key::TimeoutMs, "timeout_ms", "client", "none or 1 – 600000", "client-side timeout", or_word("none", 1, 600_000), off("the client's own timeout: the wire shows only that the stream ended")),
    spec(Key::Cancel, "cancel", "client", "none or 0 – chunks", "a cancel request after chunk k", or_word("none", 0, 10_000), OBSERVED),
    spec(Key::Work, "work", "executor", "await, to_thread, flag", "how the lookup work runs when a cancel arrives", Values::Choice(Work::NAMES), off("how the executor works: the wire shows only what it sent")),
    spec(Key::CancelImpl, "cancel_impl", "executor", "write, raise, noop", "what the executor's cancel() does", Values::Choice(CancelImpl::NAMES), OBSERVED),
    spec(Key::Late, "late", "executor", "off or 0 – 600000", "a second artifact this many ms after the ending", or_word("off", 0, 600_000), OBSERVED),
    spec(Key::Guard, "guard", "policy", "off, on", "the replay-safe ledger in front of delivery and storage", Values::Choice(SWITCH), off("the lab's own policy, never the agent's: the page toggles it beside the task")),
    spec(Key::Restart, "restart", "faults", "none or 0 – chunks", "the server restarts after chunk k", or_word("none", 0, 10_000), SEARCHED),
    spec(Key::Store, "store", "faults", "memory, database", "where the server keeps tasks", Values::Choice(Store::NAMES), SEARCHED),
    spec(Key::Interrupt, "interrupt", "executor", "none, auth, input, both", "ask for authorization and/or input after WORKING", Values::Choice(Interrupt::NAMES), OBSERVED),
    spec(Key::Receipt, "receipt", "client", "valid, missing", "authorization receipt on the resume from auth-required", Values::Choice(ReceiptMode::NAMES), off("whether a resume carried a receipt is in the client's request, not in what it received")),
    spec(Key::Dup, "dup", "faults", "none or 1 – chunks+3", "the stream breaks after delivered event k; event k is resent", or_word("none", 1, 10_003), SEARCHED),
    spec(Key::Conflict, "conflict", "faults", "off, on", "the resent part has different bytes at the same coordinate", Values::Choice(SWITCH), SEARCHED),
    spec(Key::Retry, "retry", "client", "off, on", "retry the submission with the same idempotency key", Values::Choice(SWITCH), OBSERVED),
    spec(Key::Sdk, "sdk", "client", "python, js, rust", "which SDK's behaviour to model: a2a-sdk 1.3.0, @a2a-js/sdk 1.3.0 or a2a-rs (a2a-server-lf 0.5.3)", Values::Choice(Sdk::NAMES), SEARCHED),
    spec(Key::Resubscribe, "resubscribe", "faults", "none or 1 – events", "the stream drops after delivered event k; the client calls SubscribeToTask", or_word("none", 1, MOST_EVENTS), SEARCHED),
    spec(Key::SecondClient, "second_client", "client", "none or 1 – events", "after delivered event k a second client calls SubscribeToTask", or_word("none", 1, MOST_EVENTS), SEARCHED),
    spec(Key::Wire, "wire", "client", "1.0, 0.3", "the A2A wire of the trace and export: 1.0, or the SDKs' 0.3 compatibility mode", Values::Choice(Wire::NAMES), OBSERVED),
    spec(Key::Push, "push", "client", "off, inline, after:k", "push notifications to the client's webhook: with the message, or created after delivered event k", Values::Own(&["off", "inline", "after:2"]), SEARCHED),
    spec(Key::Webhook, "webhook", "faults", "ok, error, down", "the webhook answers 200, answers 500, or refuses connections", Values::Choice(Webhook::NAMES), OBSERVED),
    spec(Key::WebhookDelayMs, "webhook_delay_ms", "faults", "none or 1 – 60000", "how long the webhook takes to answer", or_word("none", 1, 60_000), SEARCHED),
    spec(Key::PushAuth, "push_auth", "client", "token, bearer, both", "what the push config carries: a token, credentials, or both", Values::Choice(PushAuth::NAMES), OBSERVED),
    spec(Key::Progress, "progress", "executor", "0 – 20", "WORKING status updates with a message before each step's chunk (TaskUpdater.update_status, every ADK event)", number(0, 20), OBSERVED),
    spec(Key::Result, "result", "executor", "chunks, last", "one chunk per step, or the whole artifact in one event right before the ending", Values::Choice(ResultShape::NAMES), OBSERVED),
    spec(Key::PushFollowup, "push_followup", "client", "none, repeat", "what a follow-up turn carries of the push config: nothing, or the first turn's inline config again", Values::Choice(PushFollowup::NAMES), SEARCHED),
    spec(Key::Preset, "preset", "policy", "t42, t43, drill", "play a seed-000 worked ledger instead of the executor", Values::Choice(Preset::NAMES), off("seed 000's worked ledgers are the lab's own, no agent's traffic")),
];

impl Key {
    /// The key's row of [`KEYS`].
    pub fn spec(self) -> &'static KeySpec {
        // KEYS lists the keys in declaration order, so the discriminant is
        // the row (a test holds this).
        &KEYS[self as usize]
    }

    /// The key's name.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The key named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Key> {
        KEYS.iter().find(|k| k.name == name).map(|k| k.key)
    }
}

/// A scenario input that cannot be used, naming the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The offending key (or the raw text when there is no key).
    pub key: String,
    /// What is wrong, for people.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// An error about `key`.
pub fn err(key: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        key: key.to_string(),
        message: message.into(),
    }
}

impl KeySpec {
    /// Reads a whole-number value ([`Values::Number`]).
    pub fn number(&self, value: &str) -> Result<u32, ScenarioError> {
        match self.kind {
            Values::Number { lo, hi } => self.within(whole(self.name, value, lo, hi)?),
            _ => Err(err(self.name, "is not a number key")),
        }
    }

    /// A count for this key, held to its range (a number or a
    /// word-or-number key's): the one range check, for a value read as
    /// text and for a count read off a task.
    pub fn within(&self, n: u64) -> Result<u32, ScenarioError> {
        match self.kind {
            Values::Number { lo, hi } => in_range(self.name, n, lo, hi),
            Values::WordOrNumber { word, lo, hi } => {
                in_range(self.name, n, lo, hi).map_err(|e| also_word(e, word))
            }
            _ => Err(err(self.name, "is not a number key")),
        }
    }

    /// Reads a word-or-number value ([`Values::WordOrNumber`]): the word is
    /// `None`.
    pub fn optional(&self, value: &str) -> Result<Option<u32>, ScenarioError> {
        let Values::WordOrNumber { word, lo, hi } = self.kind else {
            return Err(err(self.name, "is not a number key"));
        };
        if value == word {
            return Ok(None);
        }
        let n = whole(self.name, value, lo, hi).map_err(|e| also_word(e, word))?;
        self.within(n).map(Some)
    }

    /// Reads an enumerated value: the entry of `all` at the position of
    /// its spelling among [`KeySpec::choices`].
    pub fn choice<T: Copy>(&self, value: &str, all: &[T]) -> Result<T, ScenarioError> {
        let names = self.choices();
        names
            .iter()
            .position(|n| *n == value)
            .and_then(|i| all.get(i).copied())
            .ok_or_else(|| {
                err(
                    self.name,
                    format!("`{value}` is not one of {}", names.join(", ")),
                )
            })
    }

    /// Reads an on/off value.
    pub fn switch(&self, value: &str) -> Result<bool, ScenarioError> {
        self.choice(value, &[false, true])
    }
}

fn parse_range(key: &str, value: &str, lo: u32, hi: u32) -> Result<u32, ScenarioError> {
    in_range(key, whole(key, value, lo, hi)?, lo, hi)
}

/// `value` as a whole number, whatever its size (`lo – hi` only says, in
/// the message, what the key takes).
fn whole(key: &str, value: &str, lo: u32, hi: u32) -> Result<u64, ScenarioError> {
    value
        .parse()
        .ok()
        .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            err(
                key,
                format!("`{value}` is not a whole number ({lo} – {hi})"),
            )
        })
}

/// A word-or-number key's error, saying the word it also takes.
fn also_word(e: ScenarioError, word: &str) -> ScenarioError {
    ScenarioError {
        message: format!("{}, or `{word}`", e.message),
        ..e
    }
}

/// `n` where it is within `lo ..= hi`: one range check for a value read
/// as text and for one read off a task as a count.
fn in_range(key: &str, n: u64, lo: u32, hi: u32) -> Result<u32, ScenarioError> {
    match u32::try_from(n) {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(err(key, format!("{n} is out of range ({lo} – {hi})"))),
    }
}
