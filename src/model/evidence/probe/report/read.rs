//! A `probe.json` read back: the page's Import, and `--baseline` for the gate.

use serde_json::Value;

use super::{
    Load, Probe, ProbeCode, ProbeFinding, ProbeOutcome, ProbeReport, ProbeResult, ProbedAgent,
    PROBE_FORMAT,
};
use crate::model::evidence::capture::Wire;
use crate::model::wire::read_error::{ProbeJsonFault, ReadError, ReadKind};
use crate::model::wire::rest::Binding;

impl ProbeReport {
    /// Reads a file given as a `probe.json` (`--baseline`).
    pub fn from_json(text: &str) -> Result<ProbeReport, ReadError> {
        let not = |fault| ReadError::new(ReadKind::NotProbeJson(fault));
        let value =
            serde_json::from_str(text).map_err(|e| not(ProbeJsonFault::Json(e.to_string())))?;
        read_report(value).map_err(not)
    }

    /// Reads a parsed file that says it is a `probe.json` (the page's
    /// Import).
    pub fn from_value(value: Value) -> Result<ProbeReport, ReadError> {
        read_report(value).map_err(|fault| ReadError::new(ReadKind::ProbeJson(fault)))
    }
}

/// A parsed `probe.json`, read by hand rather than derived: the page
/// already parses JSON into values, and a derived reader would add a
/// second JSON reader to its bundle.
fn read_report(value: Value) -> Result<ProbeReport, ProbeJsonFault> {
    let format = text(&value, "format")?;
    if format != PROBE_FORMAT {
        return Err(ProbeJsonFault::Format {
            found: format,
            expected: PROBE_FORMAT,
        });
    }
    let agent = agent(value.get("agent").ok_or(ProbeJsonFault::NoAgent)?)?;
    let mut probes = Vec::new();
    for p in list(&value, "probes")? {
        probes.push(probe_result(p)?);
    }
    let mut findings = Vec::new();
    for f in list(&value, "findings")? {
        findings.push(ProbeFinding {
            code: code(f.get("code"))?,
            probe: probe_named(f)?,
            message: text(f, "message")?,
        });
    }
    Ok(ProbeReport {
        format,
        agent,
        probes,
        findings,
    })
}

/// The agent as `probe.json` names it.
fn agent(agent: &Value) -> Result<ProbedAgent, ProbeJsonFault> {
    Ok(ProbedAgent {
        name: text(agent, "name")?,
        url: text(agent, "url")?,
        wire: {
            let wire = text(agent, "wire")?;
            Wire::parse(&wire).ok_or(ProbeJsonFault::Wire(wire))?
        },
        // A probe.json kept before REST was probed spoke JSON-RPC, and so
        // was one that names no binding the lab knows, as it always read.
        binding: agent
            .get("binding")
            .and_then(Value::as_str)
            .and_then(Binding::parse)
            .unwrap_or(Binding::JsonRpc),
        offered: agent
            .get("offered")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        headers: strings(agent, "headers"),
    })
}

fn probe_result(p: &Value) -> Result<ProbeResult, ProbeJsonFault> {
    let outcome = text(p, "outcome")?;
    let outcome = ProbeOutcome::parse(&outcome).ok_or(ProbeJsonFault::Outcome(outcome))?;
    let mut findings = Vec::new();
    for c in list(p, "findings")? {
        findings.push(code(Some(c))?);
    }
    Ok(ProbeResult {
        name: {
            let name = text(p, "name")?;
            Probe::parse(&name).ok_or(ProbeJsonFault::Probe(name))?
        },
        outcome,
        summary: text(p, "summary")?,
        load: p.get("load").and_then(load),
        findings,
        captures: strings(p, "captures"),
        calls: strings(p, "calls"),
        scenario: None,
    })
}

/// An optional list of text: strings only, anything else in it left out.
fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

/// A `load` as `probe.json` holds it; anything else is left out.
fn load(v: &Value) -> Option<Load> {
    let count = |key: &str| v.get(key)?.as_u64().and_then(|n| usize::try_from(n).ok());
    Some(Load {
        tasks: count("tasks")?,
        clean: count("clean")?,
        slowest_ms: v.get("slowest_ms").and_then(Value::as_u64),
    })
}

fn probe_named(v: &Value) -> Result<Probe, ProbeJsonFault> {
    let name = text(v, "probe")?;
    Probe::parse(&name).ok_or(ProbeJsonFault::Probe(name))
}

fn text(v: &Value, key: &'static str) -> Result<String, ProbeJsonFault> {
    v.get(key)
        .and_then(Value::as_str)
        .map(String::from)
        .ok_or(ProbeJsonFault::NotText(key))
}

fn list<'a>(v: &'a Value, key: &'static str) -> Result<&'a Vec<Value>, ProbeJsonFault> {
    v.get(key)
        .and_then(Value::as_array)
        .ok_or(ProbeJsonFault::NotList(key))
}

fn code(v: Option<&Value>) -> Result<ProbeCode, ProbeJsonFault> {
    let text = v.and_then(Value::as_str).unwrap_or("");
    ProbeCode::parse(text).ok_or_else(|| ProbeJsonFault::Code(text.to_string()))
}
