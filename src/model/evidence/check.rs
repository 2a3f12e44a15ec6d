//! `a2a-lab check` and the page's Import: an export is re-simulated and
//! compared; a raw A2A event log (a JSON array of wire events, or the SSE
//! stream as a server sent it) is run through the ledger and artifact store
//! and what it breaks is listed.

use serde::Serialize;
use serde_json::Value;

use crate::model::digest::sha256_hex;
use crate::model::evidence::export::{Export, FORMAT, MAX_FILE_BYTES, VERSION};
use crate::model::ledger::artifacts::Part;
use crate::model::ledger::{Body, Decision, LedgerEvent, Outcome, Reason, TaskLedger};
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::state::TaskState;
use crate::model::wire::event_kind;

/// The deepest JSON nesting the lab reads; deeper input is refused.
pub const MAX_DEPTH: usize = 64;

/// What a finding says is broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingCode {
    /// An event after the task was already terminal.
    AfterTerminal,
    /// The stream ended while the task was neither terminal nor interrupted.
    MissingTerminal,
    /// The same artifact coordinate with other bytes.
    ConflictingCoordinate,
    /// A transition outside the allowlist, or a state outside the eight.
    IllegalTransition,
    /// The same event again.
    Duplicate,
    /// Any other refusal of the ledger, by its reason.
    Refused(Reason),
    /// An export that does not re-simulate to itself.
    Differs,
}

impl FindingCode {
    /// The kebab-case code of SPEC §5 (a refusal's is its reason's).
    pub fn code(self) -> &'static str {
        match self {
            FindingCode::AfterTerminal => "after-terminal",
            FindingCode::MissingTerminal => "missing-terminal",
            FindingCode::ConflictingCoordinate => "conflicting-coordinate",
            FindingCode::IllegalTransition => "illegal-transition",
            FindingCode::Duplicate => "duplicate",
            FindingCode::Refused(reason) => reason.code(),
            FindingCode::Differs => "differs",
        }
    }
}

impl std::fmt::Display for FindingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for FindingCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

/// One thing a checked file breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What is broken.
    pub code: FindingCode,
    /// The event or row it concerns (`None` for the whole file).
    pub index: Option<usize>,
    /// For people.
    pub message: String,
}

/// The result of a check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// What was checked: `export` or `raw-log`.
    #[serde(skip)]
    pub kind: &'static str,
    /// How many events or rows were read.
    #[serde(skip)]
    pub read: usize,
    /// What is broken, in file order.
    pub findings: Vec<Finding>,
}

impl Report {
    /// `{"findings":[{"code","index","message"}]}` and a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// One line per finding, then a summary line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for f in &self.findings {
            let at = f.index.map_or(String::new(), |i| format!(" #{i}"));
            out.push_str(&format!("{}{at}: {}\n", f.code, f.message));
        }
        let what = if self.kind == "export" {
            "trace rows"
        } else {
            "events"
        };
        if self.findings.is_empty() {
            out.push_str(&format!(
                "ok: {} {what} checked, nothing broken\n",
                self.read
            ));
        } else {
            out.push_str(&format!(
                "{} finding(s) in {} {what}\n",
                self.findings.len(),
                self.read
            ));
        }
        out
    }
}

/// A file the page or the CLI was given, understood.
#[derive(Debug, Clone, PartialEq)]
pub enum Imported {
    /// A lab export: its scenario and whether it re-simulates to itself.
    Export {
        /// The inputs it was made from.
        scenario: Scenario,
        /// Differences against a fresh simulation (empty when it matches).
        report: Report,
    },
    /// A raw A2A event log, classified.
    RawLog(Report),
}

/// Reads a file of any kind the lab accepts.
pub fn import_bytes(bytes: &[u8]) -> Result<Imported, String> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "the file has {} bytes; the lab reads at most {MAX_FILE_BYTES}",
            bytes.len()
        ));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("the file is not UTF-8 text (byte {})", e.valid_up_to()))?;
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return Err("the file is empty".into());
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        check_depth(trimmed)?;
        let value: Value =
            serde_json::from_str(trimmed).map_err(|e| format!("malformed JSON: {e}"))?;
        return match value {
            Value::Object(ref map) if map.contains_key("format") => import_export(value),
            Value::Object(_) => {
                Err("a JSON object that is not a lab export (no `format` field)".into())
            }
            Value::Array(items) => {
                let events = items.into_iter().map(unwrap_result).collect::<Vec<_>>();
                classify_raw(&events).map(Imported::RawLog)
            }
            _ => Err("expected a lab export or a JSON array of A2A events".into()),
        };
    }
    let events = parse_sse(trimmed)?;
    classify_raw(&events).map(Imported::RawLog)
}

/// `check`: the report for any accepted file.
pub fn check_bytes(bytes: &[u8]) -> Result<Report, String> {
    Ok(match import_bytes(bytes)? {
        Imported::Export { report, .. } => report,
        Imported::RawLog(report) => report,
    })
}

/// Refuses nesting deeper than [`MAX_DEPTH`] before parsing, so hostile
/// input cannot exhaust the stack.
fn check_depth(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in text.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn import_export(value: Value) -> Result<Imported, String> {
    let format = value.get("format").and_then(Value::as_str).unwrap_or("");
    if format != FORMAT {
        return Err(format!("`format` is `{format}`, expected `{FORMAT}`"));
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(v) => {
            return Err(format!(
                "export version {v} is not supported (this lab reads version {VERSION})"
            ))
        }
        None => return Err("`version` is missing or not a number".into()),
    }
    let inputs = value.get("inputs").ok_or("`inputs` is missing")?;
    let scenario = Scenario::from_inputs(inputs).map_err(|e| format!("inputs: {e}"))?;
    let fresh = Export::of(&scenario, &simulate(&scenario));
    let fresh = serde_json::to_value(&fresh).map_err(|e| format!("export: {e}"))?;
    let report = compare(&value, &fresh);
    Ok(Imported::Export { scenario, report })
}

/// Where an export differs from a fresh simulation of its inputs, both as
/// JSON values (so a hand-edited field of the wrong type is a difference,
/// not a parse failure).
pub fn compare(file: &Value, fresh: &Value) -> Report {
    let mut findings = Vec::new();
    let differs = |index, message| Finding {
        code: FindingCode::Differs,
        index,
        message,
    };
    for (name, b) in fresh["metrics"].as_object().into_iter().flatten() {
        let a = &file["metrics"][name];
        if a != b {
            findings.push(differs(
                None,
                format!("metric {name}: file says {a}, the model gives {b}"),
            ));
        }
    }
    let empty = Vec::new();
    let rows_a = file["trace"].as_array().unwrap_or(&empty);
    let rows_b = fresh["trace"].as_array().unwrap_or(&empty);
    if rows_a.len() != rows_b.len() {
        findings.push(differs(
            None,
            format!(
                "the file has {} trace rows, the model gives {}",
                rows_a.len(),
                rows_b.len()
            ),
        ));
    }
    for (i, (a, b)) in rows_a.iter().zip(rows_b).enumerate() {
        if a != b {
            let event = |r: &Value| r["event"].as_str().unwrap_or("?").to_string();
            findings.push(differs(
                Some(i),
                format!(
                    "row {i}: file says `{}`, the model gives `{}`",
                    event(a),
                    event(b)
                ),
            ));
            if findings.len() >= 50 {
                break;
            }
        }
    }
    for key in ["ledger", "generator"] {
        if file[key] != fresh[key] {
            findings.push(differs(
                None,
                format!("the {key} section differs from the model's"),
            ));
        }
    }
    if let Some(extra) = file
        .as_object()
        .and_then(|m| m.keys().find(|k| fresh.get(k.as_str()).is_none()))
    {
        findings.push(differs(None, format!("unknown field `{extra}`")));
    }
    Report {
        kind: "export",
        read: rows_a.len(),
        findings,
    }
}

/// A JSON-RPC response's `result`, or the value itself.
fn unwrap_result(item: Value) -> Value {
    match item {
        Value::Object(mut map) if map.contains_key("jsonrpc") || map.contains_key("result") => {
            map.remove("result").unwrap_or(Value::Object(map))
        }
        other => other,
    }
}

/// The events of an SSE stream: each event's `data:` lines joined; other
/// fields and blank lines ignored.
pub fn parse_sse(text: &str) -> Result<Vec<Value>, String> {
    let mut events = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    let mut flush = |data: &mut Vec<&str>, line_no: usize| -> Result<(), String> {
        if data.is_empty() {
            return Ok(());
        }
        let joined = data.join("\n");
        data.clear();
        check_depth(&joined).map_err(|e| format!("SSE event ending at line {line_no}: {e}"))?;
        let value: Value = serde_json::from_str(&joined)
            .map_err(|e| format!("SSE event ending at line {line_no}: data is not JSON: {e}"))?;
        if let Some(err) = value.get("error") {
            return Err(format!(
                "SSE event ending at line {line_no} is a JSON-RPC error: {err}"
            ));
        }
        events.push(unwrap_result(value));
        Ok(())
    };
    let mut saw_data = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            flush(&mut data, i + 1)?;
        } else if let Some(rest) = line.strip_prefix("data:") {
            saw_data = true;
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    flush(&mut data, text.lines().count())?;
    if !saw_data {
        return Err(
            "not a lab export, a JSON array of A2A events, or an SSE stream with `data:` lines"
                .into(),
        );
    }
    Ok(events)
}

/// Runs wire events through a fresh ledger and artifact store.
pub fn classify_raw(events: &[Value]) -> Result<Report, String> {
    let mut ledger = TaskLedger::new("raw");
    let mut findings = Vec::new();
    let mut parts_seen: std::collections::BTreeMap<String, u32> = Default::default();
    let mut finding = |code: FindingCode, index: usize, message: String| {
        findings.push(Finding {
            code,
            index: Some(index),
            message,
        })
    };
    for (index, event) in events.iter().enumerate() {
        let kind = event_kind(event).ok_or_else(|| {
            format!("event {index} is not an A2A event (expected exactly one of task, statusUpdate, artifactUpdate, message)")
        })?;
        let id = sha256_hex(serde_json::to_string(event).unwrap_or_default().as_bytes());
        let body = match kind {
            "message" => continue,
            "task" | "statusUpdate" => {
                let state = event[kind]["status"]["state"]
                    .as_str()
                    .ok_or_else(|| format!("event {index}: {kind} has no status.state"))?;
                match TaskState::from_wire(state) {
                    Some(TaskState::Submitted) if kind == "task" && ledger.receipt_count() == 0 => {
                        Body::Submit
                    }
                    Some(s) => Body::Status {
                        status: s.kebab().into(),
                        authorization_receipt: Some("raw".into()),
                        manifest: None,
                    },
                    None => Body::Status {
                        status: state.into(),
                        authorization_receipt: None,
                        manifest: None,
                    },
                }
            }
            _ => {
                let artifact = &event[kind]["artifact"];
                let artifact_id = artifact["artifactId"].as_str().ok_or_else(|| {
                    format!("event {index}: artifactUpdate has no artifact.artifactId")
                })?;
                let append = event[kind]["append"].as_bool().unwrap_or(false);
                let last = event[kind]["lastChunk"].as_bool().unwrap_or(false);
                let number = match (append, parts_seen.get(artifact_id)) {
                    (true, Some(&n)) => n + 1,
                    _ => 0,
                };
                parts_seen.insert(artifact_id.to_string(), number);
                let text = serde_json::to_string(&artifact["parts"]).unwrap_or_default();
                Body::Part(Part::text(artifact_id, number, &text, last))
            }
        };
        let was_terminal = ledger.state().is_terminal();
        let ledger_event = LedgerEvent {
            task_id: "raw".into(),
            event_id: id.clone(),
            producer: "server".into(),
            source_seq: None,
            digest: id,
            observed_ms: index as u64,
            body,
        };
        match ledger.apply(&ledger_event) {
            Decision::Duplicate(_) => finding(
                FindingCode::Duplicate,
                index,
                "the same event again: a lookup hit".into(),
            ),
            Decision::New(Outcome::Incident { coordinate }) => finding(
                FindingCode::ConflictingCoordinate,
                index,
                format!("{coordinate} already holds other bytes"),
            ),
            Decision::New(Outcome::Rejected { reason }) => match reason {
                _ if was_terminal => finding(
                    FindingCode::AfterTerminal,
                    index,
                    format!(
                        "{kind} after the task was already {}",
                        ledger.state().label()
                    ),
                ),
                Reason::IllegalTransition => finding(
                    FindingCode::IllegalTransition,
                    index,
                    format!(
                        "{} → {} is outside the allowlist",
                        ledger.state().label(),
                        describe_state(event, kind)
                    ),
                ),
                other => finding(
                    FindingCode::Refused(other),
                    index,
                    format!("refused: {}", other.code()),
                ),
            },
            Decision::New(_) => {}
        }
    }
    let end = ledger.state();
    if !events.is_empty() && !end.is_terminal() && !end.is_interrupted() {
        findings.push(Finding {
            code: FindingCode::MissingTerminal,
            index: Some(events.len() - 1),
            message: format!("the stream ended while the task was {}", end.label()),
        });
    }
    Ok(Report {
        kind: "raw-log",
        read: events.len(),
        findings,
    })
}

fn describe_state(event: &Value, kind: &str) -> String {
    event[kind]["status"]["state"]
        .as_str()
        .unwrap_or("?")
        .to_string()
}
