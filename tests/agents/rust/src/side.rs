//! The executor's side channel: one JSON line per executor step, appended to a file
//! the recorder reads for its triggers, `executions` and orphaned steps (the same
//! records as the Python recorder's `SideChannel`).

use std::fs::OpenOptions;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

#[derive(Clone)]
pub struct SideChannel {
    path: Arc<String>,
    lock: Arc<Mutex<()>>,
}

impl SideChannel {
    pub fn new(path: impl Into<String>) -> Self {
        SideChannel {
            path: Arc::new(path.into()),
            lock: Arc::new(Mutex::new(())),
        }
    }

    /// Appends `{"t": unix seconds, "pid", "ev", ...fields}`. A write that fails is
    /// dropped: the side channel must never change what the agent does.
    pub fn log(&self, ev: &str, fields: &[(&str, Value)]) {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        // Written by hand so the keys keep this order (serde_json's map sorts them),
        // with json.dumps' separators, as the Python side channel writes them.
        let mut line = format!("{{\"t\": {t}, \"pid\": {}, \"ev\": {}", std::process::id(), Value::from(ev));
        for (k, v) in fields {
            line.push_str(&format!(", {}: {}", Value::from(*k), v));
        }
        line.push_str("}\n");
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(self.path.as_str()) {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// Reads every record of a side channel file (missing file: none).
pub fn read_side(path: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .map(|s| {
            s.lines()
                .filter(|l| !l.trim().is_empty())
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}
