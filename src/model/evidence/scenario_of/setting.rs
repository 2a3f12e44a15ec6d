//! A key's value as read off a task, typed as the scenario holds it: an
//! `Ending`, an `Interrupt`, a count. Never a `key=value` string built and
//! parsed back, and never a word the compiler cannot check. A reading is
//! the settings one way of reading a task gives; the search builds its
//! scenario from them ([`scenario_of_reading`]) and writes its query once,
//! as the lab writes any.

use crate::model::sim::keys::{
    CancelImpl, Client, Ending, Interrupt, Key, Push, PushAuth, PushFollowup, ResultShape,
    ScenarioError, Store, Webhook,
};
use crate::model::sim::scenario::{given_once, Scenario};
use crate::model::wire::Wire;

/// One key set to one value. Counts are as read (a task may show more
/// than a key's limit: [`scenario_of_reading`] says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// `chunks`: the steps whose chunks reached the wire.
    Chunks(usize),
    /// `cancel`: the step a cancel fell after.
    Cancel(usize),
    /// `cancel_impl`: what the executor's cancel() did.
    CancelImpl(CancelImpl),
    /// `ending`: how `execute()` ended.
    Ending(Ending),
    /// `client`: a blocking call's answers.
    Client(Client),
    /// `late`: an artifact after the ending.
    Late(usize),
    /// `interrupt`: the questions answered across follow-up turns.
    Interrupt(Interrupt),
    /// `progress`: WORKING updates before each step.
    Progress(usize),
    /// `result`: the whole artifact at once.
    Result(ResultShape),
    /// `wire`: the wire the task was read on.
    Wire(Wire),
    /// `dup`: the event a resend repeated.
    Dup(usize),
    /// `conflict=on`: the resent part's bytes differed.
    Conflict,
    /// `retry=on`: the submission retried.
    Retry,
    /// `resubscribe`: the event after which the stream dropped.
    Resubscribe(usize),
    /// `second_client`: the event after which a second client subscribed.
    SecondClient(usize),
    /// `restart`: the step after which the server restarted.
    Restart(usize),
    /// `store`: where the server kept the task.
    Store(Store),
    /// `push`: when the push config took effect.
    Push(Push),
    /// `webhook`: how the webhook answered.
    Webhook(Webhook),
    /// `webhook_delay_ms`: how long the webhook took.
    WebhookDelayMs(usize),
    /// `push_auth`: what the push config carried.
    PushAuth(PushAuth),
    /// `push_followup`: a follow-up turn's push config.
    PushFollowup(PushFollowup),
}

impl Setting {
    /// The key it sets.
    pub fn key(self) -> Key {
        match self {
            Setting::Chunks(_) => Key::Chunks,
            Setting::Cancel(_) => Key::Cancel,
            Setting::CancelImpl(_) => Key::CancelImpl,
            Setting::Ending(_) => Key::Ending,
            Setting::Client(_) => Key::Client,
            Setting::Late(_) => Key::Late,
            Setting::Interrupt(_) => Key::Interrupt,
            Setting::Progress(_) => Key::Progress,
            Setting::Result(_) => Key::Result,
            Setting::Wire(_) => Key::Wire,
            Setting::Dup(_) => Key::Dup,
            Setting::Conflict => Key::Conflict,
            Setting::Retry => Key::Retry,
            Setting::Resubscribe(_) => Key::Resubscribe,
            Setting::SecondClient(_) => Key::SecondClient,
            Setting::Restart(_) => Key::Restart,
            Setting::Store(_) => Key::Store,
            Setting::Push(_) => Key::Push,
            Setting::Webhook(_) => Key::Webhook,
            Setting::WebhookDelayMs(_) => Key::WebhookDelayMs,
            Setting::PushAuth(_) => Key::PushAuth,
            Setting::PushFollowup(_) => Key::PushFollowup,
        }
    }

    /// The count it sets, for a key whose value is one.
    pub fn count(self) -> Option<usize> {
        match self {
            Setting::Chunks(n)
            | Setting::Cancel(n)
            | Setting::Late(n)
            | Setting::Progress(n)
            | Setting::Dup(n)
            | Setting::Resubscribe(n)
            | Setting::SecondClient(n)
            | Setting::Restart(n)
            | Setting::WebhookDelayMs(n) => Some(n),
            _ => None,
        }
    }

    /// Sets it in `scenario`, a count held to its key's range.
    fn apply(self, scenario: &mut Scenario) -> Result<(), ScenarioError> {
        let spec = self.key().spec();
        let within = |n: usize| spec.within(u64::try_from(n).unwrap_or(u64::MAX));
        match self {
            Setting::Chunks(n) => scenario.chunks = within(n)?,
            Setting::Cancel(n) => scenario.cancel = Some(within(n)?),
            Setting::CancelImpl(v) => scenario.cancel_impl = v,
            Setting::Ending(v) => scenario.ending = v,
            Setting::Client(v) => scenario.client = v,
            Setting::Late(n) => scenario.late = Some(within(n)?),
            Setting::Interrupt(v) => scenario.interrupt = v,
            Setting::Progress(n) => scenario.progress = within(n)?,
            Setting::Result(v) => scenario.result = v,
            Setting::Wire(v) => scenario.wire = v,
            Setting::Dup(n) => scenario.dup = Some(within(n)?),
            Setting::Conflict => scenario.conflict = true,
            Setting::Retry => scenario.retry = true,
            Setting::Resubscribe(n) => scenario.resubscribe = Some(within(n)?),
            Setting::SecondClient(n) => scenario.second_client = Some(within(n)?),
            Setting::Restart(n) => scenario.restart = Some(within(n)?),
            Setting::Store(v) => scenario.store = v,
            Setting::Push(v) => scenario.push = v.checked()?,
            Setting::Webhook(v) => scenario.webhook = v,
            Setting::WebhookDelayMs(n) => scenario.webhook_delay_ms = Some(within(n)?),
            Setting::PushAuth(v) => scenario.push_auth = v,
            Setting::PushFollowup(v) => scenario.push_followup = v,
        }
        Ok(())
    }
}

/// The value as the key table spells it (`3`, `never`, `after:2`, `on`).
impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(n) = self.count() {
            return write!(f, "{n}");
        }
        match self {
            Setting::CancelImpl(v) => f.write_str(v.name()),
            Setting::Ending(v) => f.write_str(v.name()),
            Setting::Client(v) => f.write_str(v.name()),
            Setting::Interrupt(v) => f.write_str(v.name()),
            Setting::Result(v) => f.write_str(v.name()),
            Setting::Wire(v) => f.write_str(v.name()),
            Setting::Store(v) => f.write_str(v.name()),
            Setting::Push(v) => f.write_str(&v.name()),
            Setting::Webhook(v) => f.write_str(v.name()),
            Setting::PushAuth(v) => f.write_str(v.name()),
            Setting::PushFollowup(v) => f.write_str(v.name()),
            _ => f.write_str("on"),
        }
    }
}

/// The settings one way of reading a task gives (none: the defaults).
pub type Reading = Vec<Setting>;

/// The scenario a reading makes: the defaults with each setting applied,
/// held to the limits a query is held to (each key once, each count in
/// its range, the limits across keys).
pub fn scenario_of_reading(reading: &[Setting]) -> Result<Scenario, ScenarioError> {
    let mut scenario = Scenario::default();
    let mut given: Vec<Key> = Vec::with_capacity(reading.len());
    for setting in reading {
        given_once(&mut given, setting.key())?;
        setting.apply(&mut scenario)?;
    }
    scenario.checked(&given)
}

/// The steps a reading says, if it says them.
pub fn chunks_of(reading: &[Setting]) -> Option<usize> {
    reading.iter().find_map(|s| match s {
        Setting::Chunks(n) => Some(*n),
        _ => None,
    })
}

/// Whether `key` is set in a reading.
pub fn has(reading: &[Setting], key: Key) -> bool {
    reading.iter().any(|s| s.key() == key)
}
