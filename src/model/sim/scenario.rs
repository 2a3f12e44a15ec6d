//! Scenario keys (SPEC §4): one codec for the URL query, the CLI argument and
//! an export's `inputs` object.
//!
//! A key may be left out (its default applies); unknown keys, repeated keys
//! and out-of-range values are errors that name the key.

use std::fmt;

use serde_json::{Map, Value};

/// How `execute()` ends after the last chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `complete()`: COMPLETED.
    Complete,
    /// `failed()`: FAILED.
    Fail,
    /// Asks for input: INPUT_REQUIRED.
    Input,
    /// Asks for authorization: AUTH_REQUIRED.
    Auth,
    /// Returns without a final status.
    Return,
    /// Never returns.
    Never,
}

/// Which client calls the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// `SendStreamingMessage`: reads the event stream.
    Stream,
    /// A blocking `SendMessage`: waits for one result.
    Block,
}

/// How the executor does its lookup work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Awaiting code: a cancel stops it at its next await.
    Await,
    /// One blocking call in `asyncio.to_thread`: a cancel cannot stop it.
    ToThread,
    /// A thread that checks a cancel flag between steps.
    Flag,
}

/// What the executor's `cancel()` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelImpl {
    /// Writes CANCELED.
    Write,
    /// Raises `NotImplementedError`.
    Raise,
    /// Writes nothing.
    Noop,
}

/// Where the server keeps tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// In-memory: a restart loses the task.
    Memory,
    /// A database: the task survives a restart.
    Database,
}

/// Interruptions the executor asks for after WORKING.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// None.
    None,
    /// Authorization.
    Auth,
    /// Input.
    Input,
    /// Authorization, then input.
    Both,
}

/// Whether the resume from auth-required carries an authorization receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiptMode {
    /// It does.
    Valid,
    /// It does not.
    Missing,
}

/// A worked ledger of seed 000, played instead of the executor scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// T-42: auth, authorized resume, input, completed with manifest M9.
    T42,
    /// T-43: submitted straight to rejected.
    T43,
    /// The release drill.
    Drill,
}

/// Which SDK's behaviour the simulation follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// a2a-sdk 1.3.0 (Python) with its default request handler.
    Python,
    /// @a2a-js/sdk 1.3.0 with its DefaultRequestHandler and Express handlers.
    Js,
}

/// Every input of one simulation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Courier lookup steps, one artifact chunk each.
    pub chunks: u32,
    /// Virtual milliseconds per lookup step.
    pub step_ms: u32,
    /// How `execute()` ends.
    pub ending: Ending,
    /// Streaming or blocking client.
    pub client: Client,
    /// Client-side timeout.
    pub timeout_ms: Option<u32>,
    /// A cancel request after chunk k.
    pub cancel: Option<u32>,
    /// How the lookup work runs.
    pub work: Work,
    /// What `cancel()` does.
    pub cancel_impl: CancelImpl,
    /// A late artifact this many ms after the ending.
    pub late: Option<u32>,
    /// The ledger in front of delivery and storage.
    pub guard: bool,
    /// A server restart after chunk k.
    pub restart: Option<u32>,
    /// Task store.
    pub store: Store,
    /// Interruptions after WORKING.
    pub interrupt: Interrupt,
    /// Authorization receipt on resume.
    pub receipt: ReceiptMode,
    /// The stream breaks after delivered event k and event k is resent.
    pub dup: Option<u32>,
    /// The resent part has other bytes at the same coordinate.
    pub conflict: bool,
    /// The client retries the submission with the same idempotency key.
    pub retry: bool,
    /// A seed-000 script instead of the executor.
    pub preset: Option<Preset>,
    /// SDK profile.
    pub sdk: Sdk,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            chunks: 3,
            step_ms: 200,
            ending: Ending::Complete,
            client: Client::Stream,
            timeout_ms: None,
            cancel: None,
            work: Work::Await,
            cancel_impl: CancelImpl::Write,
            late: None,
            guard: false,
            restart: None,
            store: Store::Memory,
            interrupt: Interrupt::None,
            receipt: ReceiptMode::Valid,
            dup: None,
            conflict: false,
            retry: false,
            preset: None,
            sdk: Sdk::Python,
        }
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

fn err(key: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        key: key.to_string(),
        message: message.into(),
    }
}

/// One scenario key: its name, group, allowed values for people and its
/// default as text.
pub struct KeySpec {
    /// The key.
    pub name: &'static str,
    /// The control group in the page.
    pub group: &'static str,
    /// Allowed values, for messages and the page.
    pub values: &'static str,
    /// One-line meaning.
    pub help: &'static str,
    /// The choices of an enumerated key (empty for a number).
    pub choices: &'static [&'static str],
}

/// Every scenario key, in canonical order (the order of SPEC §4).
pub const KEYS: &[KeySpec] = &[
    KeySpec {
        name: "chunks",
        group: "executor",
        values: "0 – 10000",
        help: "courier lookup steps, one artifact chunk each",
        choices: &[],
    },
    KeySpec {
        name: "step_ms",
        group: "executor",
        values: "1 – 60000",
        help: "virtual milliseconds per lookup step",
        choices: &[],
    },
    KeySpec {
        name: "ending",
        group: "executor",
        values: "complete, fail, input, auth, return, never",
        help: "how execute() ends after the last chunk",
        choices: &["complete", "fail", "input", "auth", "return", "never"],
    },
    KeySpec {
        name: "work",
        group: "executor",
        values: "await, to_thread, flag",
        help: "how the lookup work runs when a cancel arrives",
        choices: &["await", "to_thread", "flag"],
    },
    KeySpec {
        name: "cancel_impl",
        group: "executor",
        values: "write, raise, noop",
        help: "what the executor's cancel() does",
        choices: &["write", "raise", "noop"],
    },
    KeySpec {
        name: "late",
        group: "executor",
        values: "off or 0 – 600000",
        help: "a second artifact this many ms after the ending",
        choices: &[],
    },
    KeySpec {
        name: "interrupt",
        group: "executor",
        values: "none, auth, input, both",
        help: "ask for authorization and/or input after WORKING",
        choices: &["none", "auth", "input", "both"],
    },
    KeySpec {
        name: "client",
        group: "client",
        values: "stream, block",
        help: "streaming or blocking client",
        choices: &["stream", "block"],
    },
    KeySpec {
        name: "timeout_ms",
        group: "client",
        values: "none or 1 – 600000",
        help: "client-side timeout",
        choices: &[],
    },
    KeySpec {
        name: "cancel",
        group: "client",
        values: "none or 0 – chunks",
        help: "a cancel request after chunk k",
        choices: &[],
    },
    KeySpec {
        name: "receipt",
        group: "client",
        values: "valid, missing",
        help: "authorization receipt on the resume from auth-required",
        choices: &["valid", "missing"],
    },
    KeySpec {
        name: "retry",
        group: "client",
        values: "off, on",
        help: "retry the submission with the same idempotency key",
        choices: &["off", "on"],
    },
    KeySpec {
        name: "sdk",
        group: "client",
        values: "python, js",
        help: "which SDK's behaviour to model: a2a-sdk 1.3.0 or @a2a-js/sdk 1.3.0",
        choices: &["python", "js"],
    },
    KeySpec {
        name: "restart",
        group: "faults",
        values: "none or 0 – chunks",
        help: "the server restarts after chunk k",
        choices: &[],
    },
    KeySpec {
        name: "store",
        group: "faults",
        values: "memory, database",
        help: "where the server keeps tasks",
        choices: &["memory", "database"],
    },
    KeySpec {
        name: "dup",
        group: "faults",
        values: "none or 1 – chunks+3",
        help: "the stream breaks after delivered event k; event k is resent",
        choices: &[],
    },
    KeySpec {
        name: "conflict",
        group: "faults",
        values: "off, on",
        help: "the resent part has different bytes at the same coordinate",
        choices: &["off", "on"],
    },
    KeySpec {
        name: "guard",
        group: "policy",
        values: "off, on",
        help: "the replay-safe ledger in front of delivery and storage",
        choices: &["off", "on"],
    },
    KeySpec {
        name: "preset",
        group: "policy",
        values: "t42, t43, drill",
        help: "play a seed-000 worked ledger instead of the executor",
        choices: &["", "t42", "t43", "drill"],
    },
];

fn parse_enum<T: Copy>(key: &str, value: &str, table: &[(&str, T)]) -> Result<T, ScenarioError> {
    table
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            err(key, format!("`{value}` is not one of {}", names.join(", ")))
        })
}

fn name_of<T: PartialEq>(value: T, table: &[(&'static str, T)]) -> &'static str {
    table
        .iter()
        .find(|(_, v)| *v == value)
        .map(|(n, _)| *n)
        .unwrap_or("?")
}

fn parse_range(key: &str, value: &str, lo: u32, hi: u32) -> Result<u32, ScenarioError> {
    let n: u32 = value
        .parse()
        .ok()
        .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            err(
                key,
                format!("`{value}` is not a whole number ({lo} – {hi})"),
            )
        })?;
    if n < lo || n > hi {
        return Err(err(key, format!("{n} is out of range ({lo} – {hi})")));
    }
    Ok(n)
}

fn parse_optional(
    key: &str,
    value: &str,
    none: &str,
    lo: u32,
    hi: u32,
) -> Result<Option<u32>, ScenarioError> {
    if value == none {
        return Ok(None);
    }
    parse_range(key, value, lo, hi)
        .map(Some)
        .map_err(|e| err(key, format!("{}, or `{none}`", e.message)))
}

const ENDINGS: &[(&str, Ending)] = &[
    ("complete", Ending::Complete),
    ("fail", Ending::Fail),
    ("input", Ending::Input),
    ("auth", Ending::Auth),
    ("return", Ending::Return),
    ("never", Ending::Never),
];
const CLIENTS: &[(&str, Client)] = &[("stream", Client::Stream), ("block", Client::Block)];
const WORKS: &[(&str, Work)] = &[
    ("await", Work::Await),
    ("to_thread", Work::ToThread),
    ("flag", Work::Flag),
];
const CANCEL_IMPLS: &[(&str, CancelImpl)] = &[
    ("write", CancelImpl::Write),
    ("raise", CancelImpl::Raise),
    ("noop", CancelImpl::Noop),
];
const STORES: &[(&str, Store)] = &[("memory", Store::Memory), ("database", Store::Database)];
const INTERRUPTS: &[(&str, Interrupt)] = &[
    ("none", Interrupt::None),
    ("auth", Interrupt::Auth),
    ("input", Interrupt::Input),
    ("both", Interrupt::Both),
];
const RECEIPTS: &[(&str, ReceiptMode)] = &[
    ("valid", ReceiptMode::Valid),
    ("missing", ReceiptMode::Missing),
];
const SWITCHES: &[(&str, bool)] = &[("off", false), ("on", true)];
const PRESETS: &[(&str, Preset)] = &[
    ("t42", Preset::T42),
    ("t43", Preset::T43),
    ("drill", Preset::Drill),
];
const SDKS: &[(&str, Sdk)] = &[("python", Sdk::Python), ("js", Sdk::Js)];

impl Scenario {
    /// Whether a key's control applies to this scenario, and if not, why
    /// (the page shows it disabled with the reason, never hidden).
    pub fn applies(&self, key: &str) -> Result<(), &'static str> {
        if self.preset.is_some() && !matches!(key, "preset" | "sdk") {
            return Err("a preset replaces the executor scenario");
        }
        match key {
            "work" | "cancel_impl" if self.cancel.is_none() => {
                Err("applies only when a cancel is sent")
            }
            "store" if self.restart.is_none() => Err("applies only when the server restarts"),
            "receipt" if !matches!(self.interrupt, Interrupt::Auth | Interrupt::Both) => {
                Err("applies only when the executor asks for authorization")
            }
            "conflict" if self.dup.is_none() => Err("applies only when an event is resent (dup)"),
            "dup" if self.client == Client::Block => Err("a blocking call has no stream to break"),
            _ => Ok(()),
        }
    }
}

/// The longest query or inputs object the codec reads, so that hostile input
/// is refused before any work.
pub const MAX_QUERY_BYTES: usize = 4096;

impl Scenario {
    /// Parses a query string (`chunks=3&ending=never`, an optional leading
    /// `?`). View keys such as `step` and `embed` are not scenario keys:
    /// callers strip them with [`split_view_keys`] first.
    pub fn from_query(query: &str) -> Result<Scenario, ScenarioError> {
        let pairs = parse_pairs(query)?;
        Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// Builds a scenario from key/value pairs, checking every key.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Scenario, ScenarioError> {
        let mut s = Scenario::default();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            if seen.contains(&key) {
                return Err(err(key, "is given more than once"));
            }
            let Some(spec) = KEYS.iter().find(|k| k.name == key) else {
                return Err(err(key, "is not a scenario key"));
            };
            seen.push(spec.name);
            match key {
                "chunks" => s.chunks = parse_range(key, value, 0, 10_000)?,
                "step_ms" => s.step_ms = parse_range(key, value, 1, 60_000)?,
                "ending" => s.ending = parse_enum(key, value, ENDINGS)?,
                "client" => s.client = parse_enum(key, value, CLIENTS)?,
                "timeout_ms" => s.timeout_ms = parse_optional(key, value, "none", 1, 600_000)?,
                "cancel" => s.cancel = parse_optional(key, value, "none", 0, 10_000)?,
                "work" => s.work = parse_enum(key, value, WORKS)?,
                "cancel_impl" => s.cancel_impl = parse_enum(key, value, CANCEL_IMPLS)?,
                "late" => s.late = parse_optional(key, value, "off", 0, 600_000)?,
                "guard" => s.guard = parse_enum(key, value, SWITCHES)?,
                "restart" => s.restart = parse_optional(key, value, "none", 0, 10_000)?,
                "store" => s.store = parse_enum(key, value, STORES)?,
                "interrupt" => s.interrupt = parse_enum(key, value, INTERRUPTS)?,
                "receipt" => s.receipt = parse_enum(key, value, RECEIPTS)?,
                "dup" => s.dup = parse_optional(key, value, "none", 1, 10_003)?,
                "conflict" => s.conflict = parse_enum(key, value, SWITCHES)?,
                "retry" => s.retry = parse_enum(key, value, SWITCHES)?,
                "preset" => s.preset = Some(parse_enum(key, value, PRESETS)?),
                "sdk" => s.sdk = parse_enum(key, value, SDKS)?,
                _ => return Err(err(key, "is not a scenario key")),
            }
        }
        s.validate(&seen)?;
        Ok(s)
    }

    /// Checks the limits that depend on more than one key.
    fn validate(&self, given: &[&str]) -> Result<(), ScenarioError> {
        if self.preset.is_some() {
            if let Some(other) = given.iter().find(|k| !matches!(**k, "preset" | "sdk")) {
                return Err(err(
                    other,
                    "cannot be combined with preset (a preset replaces the executor scenario)",
                ));
            }
            return Ok(());
        }
        if let Some(k) = self.cancel {
            if k > self.chunks {
                return Err(err(
                    "cancel",
                    format!("{k} is out of range (0 – chunks = {})", self.chunks),
                ));
            }
        }
        if let Some(k) = self.restart {
            if k > self.chunks {
                return Err(err(
                    "restart",
                    format!("{k} is out of range (0 – chunks = {})", self.chunks),
                ));
            }
        }
        if let Some(k) = self.dup {
            let most = self.chunks + 3;
            if k > most {
                return Err(err(
                    "dup",
                    format!("{k} is out of range (1 – chunks+3 = {most})"),
                ));
            }
            if self.client == Client::Block {
                return Err(err(
                    "dup",
                    "needs client=stream (a blocking call has no stream to break)",
                ));
            }
        }
        if self.conflict {
            let chunk_range = 3..=self.chunks + 2;
            match self.dup {
                Some(k) if chunk_range.contains(&k) => {}
                _ if self.chunks == 0 => {
                    return Err(err(
                        "conflict",
                        "needs an artifact chunk to resend (chunks ≥ 1)",
                    ))
                }
                _ => {
                    return Err(err(
                        "conflict",
                        format!(
                            "needs dup to name an artifact chunk (dup = 3 – {})",
                            self.chunks + 2
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Every key with its value as text, in canonical order.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let opt = |v: Option<u32>, none: &str| v.map_or(none.to_string(), |n| n.to_string());
        // The order of SPEC §4's tables, so URLs read as the spec does.
        let mut out = vec![
            ("chunks", self.chunks.to_string()),
            ("step_ms", self.step_ms.to_string()),
            ("ending", name_of(self.ending, ENDINGS).to_string()),
            ("client", name_of(self.client, CLIENTS).to_string()),
            ("timeout_ms", opt(self.timeout_ms, "none")),
            ("cancel", opt(self.cancel, "none")),
            ("work", name_of(self.work, WORKS).to_string()),
            (
                "cancel_impl",
                name_of(self.cancel_impl, CANCEL_IMPLS).to_string(),
            ),
            ("late", opt(self.late, "off")),
            ("guard", name_of(self.guard, SWITCHES).to_string()),
            ("restart", opt(self.restart, "none")),
            ("store", name_of(self.store, STORES).to_string()),
            ("interrupt", name_of(self.interrupt, INTERRUPTS).to_string()),
            ("receipt", name_of(self.receipt, RECEIPTS).to_string()),
            ("dup", opt(self.dup, "none")),
            ("conflict", name_of(self.conflict, SWITCHES).to_string()),
            ("retry", name_of(self.retry, SWITCHES).to_string()),
            ("sdk", name_of(self.sdk, SDKS).to_string()),
        ];
        if let Some(p) = self.preset {
            out = vec![("sdk", name_of(self.sdk, SDKS).to_string())];
            out.push(("preset", name_of(p, PRESETS).to_string()));
        }
        out
    }

    /// The value of one key as text.
    pub fn get(&self, key: &str) -> Option<String> {
        self.pairs()
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// A copy with one key changed, checked like any other input.
    pub fn with(&self, key: &str, value: &str) -> Result<Scenario, ScenarioError> {
        let mut pairs: Vec<(&str, String)> = self
            .non_default_pairs()
            .into_iter()
            .filter(|(k, _)| *k != key && !(key == "preset" && *k != "sdk"))
            .collect();
        pairs.push((
            KEYS.iter().find(|k| k.name == key).map_or(key, |k| k.name),
            value.to_string(),
        ));
        Scenario::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
    }

    /// Only the keys that differ from the defaults, in canonical order.
    pub fn non_default_pairs(&self) -> Vec<(&'static str, String)> {
        let defaults = Scenario::default().pairs();
        self.pairs()
            .into_iter()
            .filter(|(k, v)| {
                defaults
                    .iter()
                    .find(|(dk, _)| dk == k)
                    .is_none_or(|(_, dv)| dv != v)
            })
            .collect()
    }

    /// The shortest query that reproduces this scenario (empty for the
    /// defaults).
    pub fn to_query(&self) -> String {
        self.non_default_pairs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The export's `inputs`: every key with its value as text.
    pub fn to_inputs(&self) -> Value {
        let mut map = Map::new();
        for (k, v) in self.pairs() {
            map.insert(k.to_string(), Value::String(v));
        }
        Value::Object(map)
    }

    /// Reads an export's `inputs` object (values as text or whole numbers).
    pub fn from_inputs(inputs: &Value) -> Result<Scenario, ScenarioError> {
        let Some(map) = inputs.as_object() else {
            return Err(err("inputs", "is not an object of scenario keys"));
        };
        let mut pairs = Vec::with_capacity(map.len());
        for (k, v) in map {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) if n.is_u64() => n.to_string(),
                _ => return Err(err(k, "must be text or a whole number")),
            };
            pairs.push((k.clone(), text));
        }
        Scenario::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// A file-name-safe label (`ending-never_cancel-3`, `defaults`).
    pub fn slug(&self) -> String {
        let q = self.to_query();
        if q.is_empty() {
            return "defaults".to_string();
        }
        q.replace('&', "_").replace('=', "-")
    }
}

/// Splits a query into `key=value` pairs, percent-decoded, refusing what is
/// too long or malformed.
pub fn parse_pairs(query: &str) -> Result<Pairs, ScenarioError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(err(
            "query",
            format!("is longer than {MAX_QUERY_BYTES} bytes"),
        ));
    }
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut out = Vec::new();
    for item in query.split('&').filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| err(&shorten(item), "has no `=value`"))?;
        let k =
            percent_decode(k).ok_or_else(|| err(&shorten(k), "is not valid percent-encoding"))?;
        if k.is_empty() {
            return Err(err(
                "query",
                format!("`{}` has no key before `=`", shorten(item)),
            ));
        }
        let v = percent_decode(v).ok_or_else(|| err(&k, "value is not valid percent-encoding"))?;
        out.push((k, v));
    }
    Ok(out)
}

/// The page's own keys, which ride in the URL beside the scenario.
pub const VIEW_KEYS: &[&str] = &["step", "embed"];

/// Decoded `key=value` pairs of a query, in order.
pub type Pairs = Vec<(String, String)>;

/// Separates the page's view keys from the scenario keys of a query:
/// (scenario pairs, view pairs).
pub fn split_view_keys(query: &str) -> Result<(Pairs, Pairs), ScenarioError> {
    let pairs = parse_pairs(query)?;
    Ok(pairs
        .into_iter()
        .partition(|(k, _)| !VIEW_KEYS.contains(&k.as_str())))
}

fn shorten(s: &str) -> String {
    s.chars().take(40).collect()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let text = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(text, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}
