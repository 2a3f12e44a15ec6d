//! `check --format junit|sarif` (SPEC §11 "Reports for CI"): the JUnit XML
//! parses, with one testcase per task and a failure per finding; the SARIF
//! has the shape SARIF 2.1.0 requires, one result per finding and one rule
//! per code with what to fix.
#![cfg(not(target_arch = "wasm32"))]

use crate::cli_support;
use crate::model_support;

use std::ffi::OsString;

use cli_support::{binary, Scratch};
use model_support::wire_events;
use serde_json::Value;

/// `a2a-lab check ARGS FILES…` with the files written to a folder of this
/// call's own: the exit code, stdout and stderr.
fn check(args: &[&str], files: &[(&str, Vec<u8>)]) -> (i32, String, String) {
    let dir = Scratch::new("ci");
    let mut argv: Vec<OsString> = std::iter::once("check")
        .chain(args.iter().copied())
        .map(OsString::from)
        .collect();
    for (name, bytes) in files {
        argv.push(dir.write(name, bytes).into());
    }
    let out = binary(argv);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Two tasks: the defaults' stream (clean) and a late artifact's under a
/// task id that needs escaping in XML.
fn two_tasks() -> Vec<u8> {
    let odd = "t<&\"'>";
    let mut events = wire_events("");
    for mut e in wire_events("late=0") {
        let quoted = serde_json::to_string(odd).unwrap();
        let text = e
            .to_string()
            .replace("task-bbs-1042", &quoted[1..quoted.len() - 1]);
        e = serde_json::from_str(&text).unwrap();
        events.push(e);
    }
    serde_json::to_vec(&events).unwrap()
}

#[test]
fn junit_has_a_testcase_per_task_and_a_failure_per_finding() {
    let (code, xml, err) = check(&["--format", "junit"], &[("capture.json", two_tasks())]);
    assert_eq!(code, 1, "{err}");
    let doc = roxmltree::Document::parse(&xml).expect("the JUnit report is XML");
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("2"));
    assert_eq!(suite.attribute("failures"), Some("1"));
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases[0].attribute("name"), Some("task task-bbs-1042"));
    assert!(cases[0].children().all(|n| !n.has_tag_name("failure")));
    assert_eq!(
        cases[1].attribute("name"),
        Some("task t<&\"'>"),
        "escaped and read back"
    );
    let failure = cases[1]
        .children()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(failure.attribute("type"), Some("after-terminal"));
    assert!(failure.text().unwrap().starts_with("after-terminal: "));
}

#[test]
fn sarif_has_one_result_per_finding_and_one_rule_per_code() {
    let (code, text, err) = check(&["--format", "sarif"], &[("capture.json", two_tasks())]);
    assert_eq!(code, 1, "{err}");
    let log: Value = serde_json::from_str(&text).expect("SARIF is JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "a2a-lab");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(["error", "warning", "note", "none"].contains(&result["level"].as_str().unwrap()));
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        assert_eq!(result["properties"]["task"], "t<&\"'>");
    }
    assert_eq!(rules[0]["id"], "after-terminal");
    assert!(rules[0]["help"]["text"]
        .as_str()
        .unwrap()
        .contains("terminal-state guard"));
    // A clean capture: no result, still a valid log.
    let (code, text, _) = check(
        &["--format", "sarif"],
        &[("clean.json", serde_json::to_vec(&wire_events("")).unwrap())],
    );
    assert_eq!(code, 0);
    let log: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn an_export_is_one_testcase_and_a_bad_format_is_exit_2() {
    let export = a2a_lab::model::evidence::export::export_json(
        &a2a_lab::model::sim::scenario::Scenario::from_query("late=0").unwrap(),
    );
    let (code, xml, _) = check(&["--format", "junit"], &[("e.json", export.into_bytes())]);
    assert_eq!(code, 0);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 1);
    assert!(cases[0].attribute("name").unwrap().starts_with("export "));
    let (code, _, err) = check(&["--format", "yaml"], &[("e.json", b"[]".to_vec())]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--format `yaml` is not text, json, junit or sarif"),
        "{err}"
    );
}

/// JUnit holds one `failure` per `testcase`: a case with several findings
/// fails once with every code and message; a skipped case with a finding
/// fails, its text saying why it was skipped too.
#[test]
fn several_findings_are_one_failure_with_all_of_them() {
    use a2a_lab::model::evidence::ci_report::{junit, Case};
    let cases = [
        Case {
            name: "task a".into(),
            failures: vec![
                ("after-terminal", "working after completed".into()),
                ("duplicate", "the same event twice".into()),
                ("after-terminal", "an artifact after completed".into()),
            ],
            skipped: None,
        },
        Case {
            name: "cancel".into(),
            failures: vec![("foreign-task", "an answer about task z".into())],
            skipped: Some("no task ran".into()),
        },
        Case {
            name: "push".into(),
            failures: Vec::new(),
            skipped: Some("no webhook".into()),
        },
    ];
    let xml = junit("probe", &cases);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("3"));
    assert_eq!(suite.attribute("failures"), Some("2"));
    assert_eq!(suite.attribute("skipped"), Some("1"));
    let failures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len(), 2);
    assert_eq!(
        failures[0].attribute("type"),
        Some("after-terminal, duplicate")
    );
    assert_eq!(
        failures[0].attribute("message"),
        Some("working after completed; the same event twice; an artifact after completed")
    );
    assert_eq!(
        failures[0].text(),
        Some(
            "after-terminal: working after completed\n\
             duplicate: the same event twice\n\
             after-terminal: an artifact after completed"
        )
    );
    assert_eq!(
        failures[1].text(),
        Some("foreign-task: an answer about task z\nskipped: no task ran")
    );
    let skipped: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("skipped"))
        .collect();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].attribute("message"), Some("no webhook"));
}

/// The SARIF reads back as serde-sarif's SARIF 2.1.0 log, whose types are
/// generated from the schema.
#[test]
fn sarif_reads_back_as_a_sarif_2_1_0_log() {
    let (_, text, err) = check(&["--format", "sarif"], &[("capture.json", two_tasks())]);
    let log: serde_sarif::sarif::Sarif = serde_json::from_str(&text).expect(&err);
    let run = &log.runs[0];
    let results = run.results.as_ref().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(
        results[0].level,
        Some(serde_sarif::sarif::ResultLevel::Error)
    );
    assert_eq!(run.tool.driver.rules.as_ref().unwrap().len(), 1);
}
