//! The probe as a CI gate (SPEC §11), on recorded runs of the real agents
//! (tests/fixtures/probe/records/): JUnit with a testcase per probe, SARIF
//! with a result per finding, and a run held against a baseline.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use a2a_lab::model::evidence::ci_report;
use a2a_lab::model::evidence::probe::gate::{against, cases, findings};
use a2a_lab::model::evidence::probe::plan::replay;
use a2a_lab::model::evidence::probe::report::{Probe, ProbeReport, ProbedAgent};
use model_support::probe::records;
use serde_json::Value;

/// The report the probe makes of a recorded run.
fn report(name: &str) -> ProbeReport {
    let records = records(name);
    let mut report = ProbeReport::new(ProbedAgent {
        name: name.into(),
        url: "http://127.0.0.1:1".into(),
        wire: records.wire,
        binding: records.binding,
        offered: true,
        headers: Vec::new(),
    });
    for (probe, judged) in replay(&records).unwrap() {
        report.file(probe, judged, (Vec::new(), Vec::new()), &[]);
    }
    report
}

fn names<T: serde::Serialize>(items: &[T]) -> Vec<String> {
    items
        .iter()
        .map(|i| {
            let v = serde_json::to_value(i).unwrap();
            format!(
                "{}:{}",
                v["probe"].as_str().unwrap(),
                v["code"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn an_unchanged_agent_passes_its_baseline_and_a_changed_one_fails_it() {
    let healthy = report("python-1.0-none");
    let late = report("python-1.0-late-artifact");
    let same = against(&healthy, &healthy);
    assert!(
        same.passes() && same.new.is_empty() && same.gone.is_empty() && same.changed.is_empty()
    );
    // An upgrade that starts sending an artifact after complete().
    let worse = against(&late, &healthy);
    assert!(!worse.passes());
    assert_eq!(
        names(&worse.new),
        ["stream:after-terminal", "resubscribe:after-terminal"]
    );
    assert_eq!(worse.changed.len(), 2, "{:?}", worse.changed);
    assert_eq!(
        (worse.changed[0].was, worse.changed[0].now),
        ("clean", "broken")
    );
    // The fix: the findings are gone and the outcomes changed back.
    let better = against(&healthy, &late);
    assert_eq!(
        names(&better.gone),
        ["stream:after-terminal", "resubscribe:after-terminal"]
    );
    assert!(!better.passes(), "an outcome changed");
    assert!(better
        .to_text()
        .contains("finding gone after-terminal in stream"));
    // A known defect accepted in the baseline: the same run passes.
    assert!(against(&late, &late).passes());
}

#[test]
fn a_baseline_kept_before_a_probe_was_added_or_with_other_counts_still_holds() {
    let healthy = report("python-1.0-none");
    // A probe.json kept before the card was judged has no `card` probe:
    // the card's outcome has nothing to differ from.
    let mut old = healthy.clone();
    old.probes.retain(|p| p.name != Probe::Card);
    assert!(against(&healthy, &old).passes());
    // A thin card is new, though: its finding fails the gate.
    let thin = report("thin-card-python-1.0");
    let diff = against(&thin, &old);
    assert!(!diff.passes());
    assert_eq!(
        names(&diff.new),
        ["card:card-field"],
        "one pair for three fields"
    );
    // Under load the number of streams that saw a defect may differ from
    // run to run; the same findings are accepted however many.
    let load = report("load-js-1.0-shared-state");
    let mut fewer = load.clone();
    let first = fewer
        .findings
        .iter()
        .position(|f| f.code.code() == "foreign-task")
        .unwrap();
    fewer.findings.remove(first);
    assert!(against(&load, &fewer).passes());
    assert!(against(&fewer, &load).passes());
}

#[test]
fn junit_has_a_testcase_per_probe_and_sarif_a_result_per_finding() {
    let late = report("python-1.0-late-artifact");
    let xml = ci_report::junit("probe", &cases(&late));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 7);
    let failed: Vec<&str> = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .map(|c| c.attribute("name").unwrap())
        .collect();
    assert_eq!(failed, ["stream", "resubscribe"]);
    let sarif: Value = serde_json::from_str(&ci_report::sarif("0", &findings(&late))).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["properties"]["probe"], "stream");
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // A probe that could not run is skipped, with why.
    let hung = report("endless-ping");
    let xml = ci_report::junit(
        "probe",
        &a2a_lab::model::evidence::probe::gate::cases(&hung),
    );
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let terminal = doc
        .descendants()
        .find(|n| n.attribute("name") == Some("cancel-terminal"))
        .unwrap();
    let skipped = terminal
        .children()
        .find(|n| n.has_tag_name("skipped"))
        .unwrap();
    let why = skipped.attribute("message").unwrap();
    assert!(why.contains("did not finish"), "{why}");
}
