//! A scenario: every input of one simulation, and its codec for the URL
//! query, the CLI argument and an export's `inputs` object (SPEC §4). The
//! keys themselves, with their values, are the table of [`super::keys`].
//!
//! A key may be left out (its default applies); unknown keys, repeated keys
//! and out-of-range values are errors that name the key.

use serde_json::{Map, Value};

pub use super::keys::{
    CancelImpl, Client, Ending, Interrupt, Key, KeySpec, Preset, Push, PushAuth, PushFollowup,
    ReceiptMode, ResultShape, ScenarioError, Sdk, Store, Values, Webhook, Wire, Work, KEYS,
};
pub use super::query::{parse_pairs, split_view_keys, Pairs, MAX_QUERY_BYTES, VIEW_KEYS};

use super::keys::{err, SWITCH};
use super::profile::{Lack, Profile};

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
    /// Client 1's stream drops after delivered event k; it then calls
    /// SubscribeToTask.
    pub resubscribe: Option<u32>,
    /// After client 1's delivered event k a second client calls
    /// SubscribeToTask.
    pub second_client: Option<u32>,
    /// The wire the trace and the export are written in.
    pub wire: Wire,
    /// Push notifications to the client's webhook (SPEC §12).
    pub push: Push,
    /// What the webhook answers.
    pub webhook: Webhook,
    /// How long the webhook takes to answer.
    pub webhook_delay_ms: Option<u32>,
    /// What the push config carries to authenticate the agent.
    pub push_auth: PushAuth,
    /// WORKING status updates with a message before each step's chunk
    /// (SPEC §14).
    pub progress: u32,
    /// How the agent hands over its result (SPEC §14).
    pub result: ResultShape,
    /// What a follow-up turn carries of the push config (SPEC §14).
    pub push_followup: PushFollowup,
}

/// Keys added after the export format was fixed (SPEC §9, §12): written
/// only when they differ from their default.
pub const SINCE_FORMAT: &[Key] = &[
    Key::Resubscribe,
    Key::SecondClient,
    Key::Wire,
    Key::Push,
    Key::Webhook,
    Key::WebhookDelayMs,
    Key::PushAuth,
    Key::Progress,
    Key::Result,
    Key::PushFollowup,
];

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
            resubscribe: None,
            second_client: None,
            wire: Wire::V1_0,
            push: Push::Off,
            webhook: Webhook::Ok,
            webhook_delay_ms: None,
            push_auth: PushAuth::Token,
            progress: 0,
            result: ResultShape::Chunks,
            push_followup: PushFollowup::None,
        }
    }
}

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
        let mut seen: Vec<Key> = Vec::new();
        for (name, value) in pairs {
            let Some(key) = Key::from_name(name) else {
                return Err(err(name, "is not a scenario key"));
            };
            given_once(&mut seen, key)?;
            s.set(key, value)?;
        }
        s.validate(&seen)?;
        Ok(s)
    }

    /// Reads one key's value into the scenario (limits that involve other
    /// keys are checked afterwards, by `validate`).
    fn set(&mut self, key: Key, value: &str) -> Result<(), ScenarioError> {
        let spec = key.spec();
        match key {
            Key::Chunks => self.chunks = spec.number(value)?,
            Key::StepMs => self.step_ms = spec.number(value)?,
            Key::Ending => self.ending = spec.choice(value, Ending::ALL)?,
            Key::Client => self.client = spec.choice(value, Client::ALL)?,
            Key::TimeoutMs => self.timeout_ms = spec.optional(value)?,
            Key::Cancel => self.cancel = spec.optional(value)?,
            Key::Work => self.work = spec.choice(value, Work::ALL)?,
            Key::CancelImpl => self.cancel_impl = spec.choice(value, CancelImpl::ALL)?,
            Key::Late => self.late = spec.optional(value)?,
            Key::Guard => self.guard = spec.switch(value)?,
            Key::Restart => self.restart = spec.optional(value)?,
            Key::Store => self.store = spec.choice(value, Store::ALL)?,
            Key::Interrupt => self.interrupt = spec.choice(value, Interrupt::ALL)?,
            Key::Receipt => self.receipt = spec.choice(value, ReceiptMode::ALL)?,
            Key::Dup => self.dup = spec.optional(value)?,
            Key::Conflict => self.conflict = spec.switch(value)?,
            Key::Retry => self.retry = spec.switch(value)?,
            Key::Sdk => self.sdk = spec.choice(value, Sdk::ALL)?,
            Key::Resubscribe => self.resubscribe = spec.optional(value)?,
            Key::SecondClient => self.second_client = spec.optional(value)?,
            Key::Wire => self.wire = spec.choice(value, Wire::ALL)?,
            Key::Push => self.push = Push::parse(value, super::keys::MOST_EVENTS)?,
            Key::Webhook => self.webhook = spec.choice(value, Webhook::ALL)?,
            Key::WebhookDelayMs => self.webhook_delay_ms = spec.optional(value)?,
            Key::PushAuth => self.push_auth = spec.choice(value, PushAuth::ALL)?,
            Key::Progress => self.progress = spec.number(value)?,
            Key::Result => self.result = spec.choice(value, ResultShape::ALL)?,
            Key::PushFollowup => self.push_followup = spec.choice(value, PushFollowup::ALL)?,
            Key::Preset => self.preset = Some(spec.choice(value, Preset::ALL)?),
        }
        Ok(())
    }

    /// One key's value as text (a preset's is empty without one).
    pub fn value(&self, key: Key) -> String {
        let optional = |v: Option<u32>| match (v, key.spec().kind) {
            (Some(n), _) => n.to_string(),
            (None, Values::WordOrNumber { word, .. }) => word.to_string(),
            (None, _) => String::new(),
        };
        let switch = |on: bool| SWITCH[usize::from(on)].to_string();
        match key {
            Key::Chunks => self.chunks.to_string(),
            Key::StepMs => self.step_ms.to_string(),
            Key::Ending => self.ending.name().into(),
            Key::Client => self.client.name().into(),
            Key::TimeoutMs => optional(self.timeout_ms),
            Key::Cancel => optional(self.cancel),
            Key::Work => self.work.name().into(),
            Key::CancelImpl => self.cancel_impl.name().into(),
            Key::Late => optional(self.late),
            Key::Guard => switch(self.guard),
            Key::Restart => optional(self.restart),
            Key::Store => self.store.name().into(),
            Key::Interrupt => self.interrupt.name().into(),
            Key::Receipt => self.receipt.name().into(),
            Key::Dup => optional(self.dup),
            Key::Conflict => switch(self.conflict),
            Key::Retry => switch(self.retry),
            Key::Sdk => self.sdk.name().into(),
            Key::Resubscribe => optional(self.resubscribe),
            Key::SecondClient => optional(self.second_client),
            Key::Wire => self.wire.name().into(),
            Key::Push => self.push.name(),
            Key::Webhook => self.webhook.name().into(),
            Key::WebhookDelayMs => optional(self.webhook_delay_ms),
            Key::PushAuth => self.push_auth.name().into(),
            Key::Progress => self.progress.to_string(),
            Key::Result => self.result.name().into(),
            Key::PushFollowup => self.push_followup.name().into(),
            Key::Preset => self.preset.map_or(String::new(), |p| p.name().into()),
        }
    }

    /// Whether a key's control applies to this scenario, and if not, why
    /// (the page shows it disabled with the reason, never hidden).
    pub fn applies(&self, key: Key) -> Result<(), &'static str> {
        if self.preset.is_some() && !matches!(key, Key::Preset | Key::Sdk) {
            return Err("a preset replaces the executor scenario");
        }
        if let Some(lack) = self.lack(key) {
            return Err(lack.why);
        }
        match key {
            Key::Work | Key::CancelImpl if self.cancel.is_none() => {
                Err("applies only when a cancel is sent")
            }
            Key::Store if self.restart.is_none() => Err("applies only when the server restarts"),
            Key::Receipt if !matches!(self.interrupt, Interrupt::Auth | Interrupt::Both) => {
                Err("applies only when the executor asks for authorization")
            }
            Key::Conflict if self.dup.is_none() => {
                Err("applies only when an event is resent (dup)")
            }
            Key::Dup if self.client == Client::Block => {
                Err("a blocking call has no stream to break")
            }
            Key::Resubscribe | Key::SecondClient => self.subscribers_apply(),
            Key::Webhook | Key::WebhookDelayMs | Key::PushAuth if self.push == Push::Off => {
                Err("applies only when push is on")
            }
            Key::PushFollowup if self.push == Push::Off || self.interrupt == Interrupt::None => {
                Err("applies only with push on and an interruption (the follow-up turns)")
            }
            _ => Ok(()),
        }
    }

    /// What the SDK lacks of `key`'s values, if anything (SPEC §16).
    fn lack(&self, key: Key) -> Option<&'static Lack> {
        Profile::of(self.sdk).lacks.iter().find(|l| l.key == key)
    }

    /// Refuses a value the SDK has no counterpart of (a scenario built
    /// field by field, as the scenario reader builds one per SDK, is
    /// checked here too).
    pub fn check_lacks(&self) -> Result<(), ScenarioError> {
        for lack in Profile::of(self.sdk).lacks {
            if self.value(lack.key) == lack.value {
                return Err(err(
                    lack.key.name(),
                    format!(
                        "{} does not apply with sdk={}: {}",
                        lack.value,
                        self.sdk.name(),
                        lack.why
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The scenario, where the limits that depend on more than one key
    /// hold for the keys `given` (a reading of a task builds it so).
    pub fn checked(self, given: &[Key]) -> Result<Scenario, ScenarioError> {
        self.validate(given)?;
        Ok(self)
    }

    /// Checks the limits that depend on more than one key.
    fn validate(&self, given: &[Key]) -> Result<(), ScenarioError> {
        if self.preset.is_some() {
            if let Some(other) = given.iter().find(|k| !matches!(k, Key::Preset | Key::Sdk)) {
                return Err(err(
                    other.name(),
                    "cannot be combined with preset (a preset replaces the executor scenario)",
                ));
            }
            return Ok(());
        }
        self.check_lacks()?;
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
        self.validate_subscribers()?;
        self.validate_push()?;
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

    /// Every key with its value as text, in the table's order (a preset:
    /// only `sdk` and `preset`). A key newer than the export format
    /// ([`SINCE_FORMAT`]) is left out at its default, so that an export made
    /// before it existed still reads as itself.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let keys: &mut dyn Iterator<Item = Key> = match self.preset {
            Some(_) => &mut [Key::Sdk, Key::Preset].into_iter(),
            None => &mut KEYS.iter().map(|k| k.key).filter(|k| *k != Key::Preset),
        };
        let defaults = Scenario::default();
        keys.filter(|k| !SINCE_FORMAT.contains(k) || self.value(*k) != defaults.value(*k))
            .map(|k| (k.name(), self.value(k)))
            .collect()
    }

    /// The value of one key as text (`None` for a key the scenario does
    /// not list: `preset` without one, any other key with one).
    pub fn get(&self, key: &str) -> Option<String> {
        let key = Key::from_name(key)?;
        let listed = match self.preset {
            Some(_) => matches!(key, Key::Sdk | Key::Preset),
            None => key != Key::Preset,
        };
        listed.then(|| self.value(key))
    }

    /// A copy with one key changed, checked like any other input.
    pub fn with(&self, key: &str, value: &str) -> Result<Scenario, ScenarioError> {
        let mut pairs: Vec<(&str, String)> = self
            .non_default_pairs()
            .into_iter()
            .filter(|(k, _)| *k != key && !(key == "preset" && *k != "sdk"))
            .collect();
        pairs.push((key, value.to_string()));
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
        // SPEC §9's keys are listed only when set (`pairs`), so that every
        // export made before them keeps its bytes.
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

/// Notes `key` among the keys `given`, refusing it when it is there
/// already: a query and a reading of a task give each key once.
pub fn given_once(given: &mut Vec<Key>, key: Key) -> Result<(), ScenarioError> {
    if given.contains(&key) {
        return Err(err(key.name(), "is given more than once"));
    }
    given.push(key);
    Ok(())
}
