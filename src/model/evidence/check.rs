//! `a2a-lab check` and the page's Import: an export is re-simulated and
//! compared; anything else is a capture of real traffic, read by
//! [`crate::model::evidence::capture`].

use serde::Serialize;
use serde_json::Value;

use crate::model::evidence::capture::{CaptureReader, CaptureReport};
use crate::model::evidence::export::{pretty_json, Export, FORMAT, MAX_FILE_BYTES, VERSION};
use crate::model::evidence::probe_report::{ProbeReport, PROBE_FORMAT};
use crate::model::ledger::Reason;
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;

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
    /// An append to an artifact the client holds no start of.
    ArtifactGap,
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
            FindingCode::ArtifactGap => "artifact-gap",
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

/// The result of checking an export against a fresh simulation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// How many trace rows were read.
    #[serde(skip)]
    pub read: usize,
    /// What is broken, in file order.
    pub findings: Vec<Finding>,
}

impl Report {
    /// `{"findings":[{"code","index","message"}]}` and a newline.
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }

    /// One line per finding, then a summary line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for f in &self.findings {
            let at = f.index.map_or(String::new(), |i| format!(" #{i}"));
            out.push_str(&format!("{}{at}: {}\n", f.code, f.message));
        }
        let what = "trace rows";
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
    /// A capture of real traffic, judged task by task (SPEC §8).
    Capture(CaptureReport),
    /// What `a2a-lab probe` found, with what each probe received (SPEC §10).
    Probe(ProbeReport),
}

/// What [`import_bytes`] says of a file that holds no A2A event.
pub const NO_EVENTS: &str = "no A2A events in the file";

/// Reads a file of any kind the lab accepts. A file that is not an export
/// and holds no A2A event is refused ([`NO_EVENTS`]): nothing was checked.
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
        return Err(NO_EVENTS.into());
    }
    if trimmed.starts_with('{') {
        // One JSON document is an export, or a capture of a single event;
        // anything else starting with `{` is JSON Lines.
        check_depth(trimmed.as_bytes())?;
        if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
            let Value::Object(ref map) = value else {
                unreachable!("a document starting with {{ is an object")
            };
            if map.get("format").and_then(Value::as_str) == Some(PROBE_FORMAT) {
                return ProbeReport::from_value(value)
                    .map(Imported::Probe)
                    .map_err(|e| format!("a probe.json that cannot be read: {e}"));
            }
            if map.contains_key("format") {
                return import_export(value);
            }
            let event_like = ["jsonrpc", "result", "error", "kind"]
                .iter()
                .any(|k| map.contains_key(*k))
                || map.len() == 1;
            if !event_like {
                return Err("a JSON object that is not a lab export (no `format` field)".into());
            }
        }
    }
    let mut reader = CaptureReader::new(None).keeping_rows();
    reader.read_bytes(bytes)?;
    match reader.finish_checked(&["the file"]) {
        Ok(report) => Ok(Imported::Capture(report)),
        Err(_) => Err(NO_EVENTS.into()),
    }
}

/// `check` of one exported file: its differences from a fresh simulation.
pub fn check_bytes(bytes: &[u8]) -> Result<Report, String> {
    match import_bytes(bytes)? {
        Imported::Export { report, .. } => Ok(report),
        Imported::Capture(_) => Err("not a lab export: a capture, read by `check` as one".into()),
        Imported::Probe(_) => {
            Err("not a lab export: a probe.json (the page's Import shows it)".into())
        }
    }
}

/// Refuses nesting deeper than [`MAX_DEPTH`] before parsing, so hostile
/// input cannot exhaust the stack.
pub fn check_depth(text: &[u8]) -> Result<(), String> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text {
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
    // The fresh export as the very bytes the lab writes, read back: the
    // page then carries one serializer of the export (to text), not two.
    let fresh = Export::of(&scenario, &simulate(&scenario)).to_json();
    let fresh: Value = serde_json::from_str(&fresh).map_err(|e| format!("export: {e}"))?;
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
        read: rows_a.len(),
        findings,
    }
}
