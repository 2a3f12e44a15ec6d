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
