//! Reports for CI (SPEC §11 "Reports for CI"): JUnit XML, one `testcase`
//! per thing judged (a task for `check`, a probe for `probe`), a finding a
//! `failure` with its message, a skipped one `skipped`; and SARIF 2.1.0,
//! one `result` per finding (`ruleId` the finding code) and one rule per
//! code with what to fix. Written by hand: a few lines of escaping beat an
//! XML writer in the bundle.

use serde_json::{json, Value};

use crate::model::xml::escape;

/// One thing judged: a testcase in JUnit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// What was judged (`task t-1`, `stream`).
    pub name: String,
    /// Its findings: code and message.
    pub failures: Vec<(&'static str, String)>,
    /// Why it was not run, when it was not.
    pub skipped: Option<String>,
}

/// One finding in SARIF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The finding code: the rule.
    pub code: &'static str,
    /// What to fix, for the code's rule.
    pub help: &'static str,
    /// For people.
    pub message: String,
    /// Where it was found (`task`, `probe`) and what it is called.
    pub place: (&'static str, String),
}

/// A JUnit XML report of the cases, as one suite named `suite`.
pub fn junit(suite: &str, cases: &[Case]) -> String {
    let failures: usize = cases.iter().filter(|c| !c.failures.is_empty()).count();
    let skipped = cases.iter().filter(|c| c.skipped.is_some()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"a2a-lab\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
        cases.len()
    ));
    out.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n",
        escape(suite),
        cases.len()
    ));
    for case in cases {
        out.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\"",
            escape(suite),
            escape(&case.name)
        ));
        if case.failures.is_empty() && case.skipped.is_none() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        if let Some(why) = &case.skipped {
            out.push_str(&format!("      <skipped message=\"{}\"/>\n", escape(why)));
        }
        for (code, message) in &case.failures {
            out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">{}: {}</failure>\n",
                escape(code),
                escape(message),
                escape(code),
                escape(message)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// A SARIF 2.1.0 log of the findings, from the tool `a2a-lab` at `version`.
pub fn sarif(version: &str, findings: &[Finding]) -> String {
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_ids: Vec<&str> = Vec::new();
    for f in findings {
        if !rule_ids.contains(&f.code) {
            rule_ids.push(f.code);
            rules.push(json!({
                "id": f.code,
                "shortDescription": {"text": f.code},
                "help": {"text": f.help},
            }));
        }
    }
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let index = rule_ids
                .iter()
                .position(|id| *id == f.code)
                .expect("every finding's rule was listed above");
            json!({
                "ruleId": f.code,
                "ruleIndex": index,
                "level": "error",
                "message": {"text": f.message},
                "properties": {f.place.0: f.place.1},
            })
        })
        .collect();
    let log = json!({
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "a2a-lab", "version": version, "rules": rules}},
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}
