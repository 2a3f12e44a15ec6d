//! `a2a-lab check` and the page's Import: an export is re-simulated and
//! compared; anything else is a capture of real traffic, read by
//! [`crate::model::evidence::capture`].

use serde::Serialize;
use serde_json::Value;

use super::export::{pretty_json, Export, FORMAT, VERSION};
pub use super::finding::{check_depth, FindingCode, MAX_DEPTH};
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::wire::read_error::{ExportFault, ReadError, ReadKind};

/// One thing a checked file breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckFinding {
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
    pub findings: Vec<CheckFinding>,
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

/// An export read back: its scenario, and where it differs from a fresh
/// simulation of its inputs.
pub fn import_export(value: Value) -> Result<(Scenario, Report), ReadError> {
    let not = |fault| ReadError::new(ReadKind::Export(fault));
    let format = value.get("format").and_then(Value::as_str).unwrap_or("");
    if format != FORMAT {
        return Err(not(ExportFault::Format {
            found: format.to_string(),
            expected: FORMAT,
        }));
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(found) => {
            return Err(not(ExportFault::Version {
                found,
                reads: VERSION,
            }))
        }
        None => return Err(not(ExportFault::NoVersion)),
    }
    let inputs = value
        .get("inputs")
        .ok_or_else(|| not(ExportFault::NoInputs))?;
    let scenario = Scenario::from_inputs(inputs).map_err(|e| {
        not(ExportFault::Inputs {
            key: e.key,
            message: e.message,
        })
    })?;
    // The fresh export as the very bytes the lab writes, read back: the
    // page then carries one serializer of the export (to text), not two.
    let fresh = Export::of(&scenario, &simulate(&scenario)).to_json();
    let fresh: Value =
        serde_json::from_str(&fresh).map_err(|e| not(ExportFault::Fresh(e.to_string())))?;
    let report = differences(&value, &fresh);
    Ok((scenario, report))
}

/// Where an export differs from a fresh simulation of its inputs, both as
/// JSON values (so a hand-edited field of the wrong type is a difference,
/// not a parse failure).
pub fn differences(file: &Value, fresh: &Value) -> Report {
    let mut findings = Vec::new();
    let differs = |index, message| CheckFinding {
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
