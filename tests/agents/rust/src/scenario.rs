//! The lab's scenario keys (SPEC §4), as the Python recorder defines them
//! (tests/fidelity/python/recorder.py: DEFAULTS, ENUMS, MATRIX, step_text, ...).

pub const TRACKING_ID: &str = "BBS-1042-tracking";
pub const TRACKING_NAME: &str = "courier-tracking";
pub const RECEIPT_ID: &str = "BBS-1042-receipt";
pub const RECEIPT_NAME: &str = "delivery-receipt";
pub const RECEIPT_TEXT: &str = "BBS-1042 receipt: delivered to the front desk";
pub const USER_TEXT: &str = "Where is my order BBS-1042?";
pub const AUTH_TEXT: &str = "Sign in to the courier portal to see BBS-1042 tracking.";
pub const INPUT_TEXT: &str = "Deliver BBS-1042 to home or office?";
pub const RAISE_TEXT: &str = "courier lookup failed after the last step";

/// The recorded keys, in the order a fixture's `inputs` lists them.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("chunks", "3"),
    ("ending", "complete"),
    ("client", "stream"),
    ("timeout_ms", "none"),
    ("cancel", "none"),
    ("work", "await"),
    ("cancel_impl", "write"),
    ("late", "off"),
    ("restart", "none"),
    ("store", "memory"),
    ("retry", "off"),
    ("interrupt", "none"),
];

/// Shapes of agents on other stacks (SPEC §14), read by the executor only.
pub const SHAPE_DEFAULTS: &[(&str, &str)] = &[("progress", "0"), ("result", "chunks")];

pub fn enum_values(key: &str) -> Option<&'static [&'static str]> {
    Some(match key {
        "ending" => &["complete", "fail", "input", "auth", "return", "never", "raise"],
        "client" => &["stream", "block"],
        "work" => &["await", "to_thread", "flag"],
        "cancel_impl" => &["write", "raise", "noop"],
        "store" => &["memory", "database"],
        "retry" => &["off", "on"],
        "interrupt" => &["none", "auth", "input", "both"],
        "result" => &["chunks", "last"],
        _ => return None,
    })
}

/// The Python recorder's matrix, in its order.
pub const MATRIX: &[&str] = &[
    "defaults",
    "ending=return",
    "ending=never",
    "ending=never&client=block",
    "ending=never&cancel=3",
    "late=0",
    "late=300",
    "late=0&client=block",
    "late=300&client=block",
    "cancel=1",
    "cancel=1&work=to_thread",
    "cancel=1&work=flag",
    "cancel=1&cancel_impl=raise",
    "cancel=1&cancel_impl=noop",
    "cancel=3",
    "cancel=0",
    "cancel=1&client=block",
    "restart=2&store=memory",
    "restart=2&store=database",
    "ending=never&timeout_ms=1000",
    "ending=never&client=block&timeout_ms=1000",
    "timeout_ms=1000",
    "chunks=0",
    "chunks=1",
    "chunks=10",
    "ending=fail",
    "ending=fail&client=block",
    "ending=fail&late=300",
    "ending=fail&late=300&client=block",
    "ending=input",
    "ending=input&client=block",
    "ending=auth",
    "ending=auth&client=block",
    "ending=return&client=block",
    "client=block",
    "work=to_thread",
    "work=flag",
    "store=database",
    "retry=on",
    "interrupt=auth",
    "interrupt=input",
    "interrupt=both",
    "interrupt=auth&client=block",
];

/// A full set of keys: the recorded ones in DEFAULTS order, then any shape keys.
#[derive(Clone, Debug, Default)]
pub struct Scenario(pub Vec<(String, String)>);

impl Scenario {
    pub fn defaults() -> Self {
        Scenario(DEFAULTS.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    pub fn get(&self, key: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .or_else(|| SHAPE_DEFAULTS.iter().find(|(k, _)| *k == key).map(|(_, v)| *v))
            .unwrap_or("")
    }

    pub fn set(&mut self, key: &str, value: &str) {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value.to_string(),
            None => self.0.push((key.to_string(), value.to_string())),
        }
    }

    pub fn chunks(&self) -> usize {
        self.get("chunks").parse().unwrap_or(3)
    }

    /// From the JSON object launch.py and the recorder pass (`conf.scenario`).
    pub fn from_json(v: &serde_json::Value) -> Self {
        let mut sc = Scenario::defaults();
        if let Some(obj) = v.as_object() {
            for (k, val) in obj {
                let s = match val {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                sc.set(k, &s);
            }
        }
        sc
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Object(
            self.0.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str()))).collect(),
        )
    }
}

/// Parses a lab query string into the full set of keys, with the Python recorder's
/// checks (unknown, repeated, out-of-range).
pub fn parse_scenario(query: &str) -> Result<Scenario, String> {
    let mut sc = Scenario::defaults();
    if query.is_empty() || query == "defaults" {
        return Ok(sc);
    }
    let mut seen: Vec<&str> = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').ok_or_else(|| format!("bad pair {pair:?}"))?;
        if !DEFAULTS.iter().any(|(k, _)| *k == key) {
            return Err(format!("unknown key {key:?}"));
        }
        if seen.contains(&key) {
            return Err(format!("repeated key {key:?}"));
        }
        seen.push(key);
        if let Some(values) = enum_values(key) {
            if !values.contains(&value) {
                return Err(format!("bad value for {key}: {value:?}"));
            }
        }
        sc.set(key, value);
    }
    let chunks: usize = sc.get("chunks").parse().map_err(|_| "chunks must be a number".to_string())?;
    for key in ["cancel", "restart"] {
        let v = sc.get(key);
        if v != "none" {
            let k: usize = v.parse().map_err(|_| format!("{key} must be none or 0..chunks"))?;
            if k > chunks {
                return Err(format!("{key} must be none or 0..chunks"));
            }
        }
    }
    Ok(sc)
}

pub fn file_stem(query: &str) -> String {
    if query == "defaults" {
        return "defaults".into();
    }
    query.replace('&', "_").replace('=', "-")
}

pub fn step_text(i: usize, n: usize) -> String {
    let what = if i == n {
        "out for delivery".to_string()
    } else if i == 1 {
        "parcel scanned at the Belgavi depot".to_string()
    } else {
        format!("in transit, hub {}", i - 1)
    };
    format!("BBS-1042 courier step {i}/{n}: {what}")
}

/// The agent message of progress update j of k before step i of n.
pub fn progress_text(i: usize, n: usize, j: usize, k: usize) -> String {
    if k > 1 {
        format!("Looking up BBS-1042 (step {i}/{n}, update {j}/{k})")
    } else {
        format!("Looking up BBS-1042 (step {i}/{n})")
    }
}
