//! A key's value as read off a task: typed by the key table's [`Key`],
//! never a `key=value` string built and parsed back. A reading is the
//! settings one way of reading a task gives; the search builds its
//! scenario from them and writes its query once, as the lab writes any.

use crate::model::sim::keys::Key;

/// One value of a key, as the key table spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// A count or a place (`chunks=3`, `dup=5`, `resubscribe=2`).
    Count(usize),
    /// A word of the key's values (`ending=never`, `store=database`).
    Word(&'static str),
    /// `push=after:k`: the config took effect after event k.
    After(usize),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Count(n) => write!(f, "{n}"),
            Value::Word(w) => f.write_str(w),
            Value::After(k) => write!(f, "after:{k}"),
        }
    }
}

/// One key set to one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The key.
    pub key: Key,
    /// Its value.
    pub value: Value,
}

/// `key` set to the count `n`.
pub fn count(key: Key, n: usize) -> Setting {
    Setting {
        key,
        value: Value::Count(n),
    }
}

/// `key` set to the word `w` (one of the key table's spellings).
pub fn word(key: Key, w: &'static str) -> Setting {
    Setting {
        key,
        value: Value::Word(w),
    }
}

/// The settings one way of reading a task gives (none: the defaults).
pub type Reading = Vec<Setting>;

/// The value `key` has in a reading, if it is set there.
pub fn value_of(reading: &[Setting], key: Key) -> Option<Value> {
    reading.iter().find(|s| s.key == key).map(|s| s.value)
}

/// The count `key` has in a reading, if it is set to one.
pub fn count_of(reading: &[Setting], key: Key) -> Option<usize> {
    match value_of(reading, key)? {
        Value::Count(n) => Some(n),
        _ => None,
    }
}

/// Whether `key` is set in a reading.
pub fn has(reading: &[Setting], key: Key) -> bool {
    reading.iter().any(|s| s.key == key)
}

/// The reading as the pairs a scenario is built from, each value as the
/// key table spells it.
pub fn pairs(reading: &[Setting]) -> Vec<(&'static str, String)> {
    reading
        .iter()
        .map(|s| (s.key.name(), s.value.to_string()))
        .collect()
}

/// The keys the scenario reader reads back off a task's traffic: set by
/// `keys_of` (one stream), `streams.rs` (several), `pushes.rs` (a
/// webhook's log), or the search itself (`sdk`, each profile tried).
pub const READ_BACK: &[Key] = &[
    Key::Chunks,
    Key::Ending,
    Key::Client,
    Key::Cancel,
    Key::CancelImpl,
    Key::Late,
    Key::Restart,
    Key::Store,
    Key::Interrupt,
    Key::Dup,
    Key::Conflict,
    Key::Retry,
    Key::Sdk,
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

/// The keys no task's traffic shows, and why: the scenario that explains
/// a task leaves them at their defaults. A key of the key table in
/// neither list has no reverse reading yet: a test says so.
pub const NOT_ON_THE_WIRE: &[(Key, &str)] = &[
    (
        Key::StepMs,
        "how long a step takes: events are compared, not their times",
    ),
    (
        Key::TimeoutMs,
        "the client's own timeout: the wire shows only that the stream ended",
    ),
    (
        Key::Work,
        "how the executor works: the wire shows only what it sent",
    ),
    (
        Key::Guard,
        "the lab's own policy, never the agent's: the page toggles it beside the task",
    ),
    (
        Key::Receipt,
        "whether a resume carried a receipt is in the client's request, not in what it received",
    ),
    (
        Key::Preset,
        "seed 000's worked ledgers are the lab's own, no agent's traffic",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sim::keys::KEYS;

    /// A key added to the key table is caught here until its author says
    /// how `scenario_of/` reads it back, or why the wire cannot show it.
    #[test]
    fn every_key_is_read_back_or_said_to_be_off_the_wire() {
        for spec in KEYS {
            let read = READ_BACK.contains(&spec.key);
            let off = NOT_ON_THE_WIRE.iter().any(|(k, _)| *k == spec.key);
            assert!(
                read != off,
                "key `{}`: give it a reverse reading in src/model/evidence/scenario_of/ and list it in \
                 READ_BACK, or say in NOT_ON_THE_WIRE why no traffic shows it (read: {read}, off: {off})",
                spec.name
            );
        }
        assert_eq!(READ_BACK.len() + NOT_ON_THE_WIRE.len(), KEYS.len());
    }
}
