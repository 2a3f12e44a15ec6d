//! Reports for CI (SPEC §11 "Reports for CI"): JUnit XML, one `testcase`
//! per thing judged (a task for `check`, a probe for `probe`), failing
//! with its findings' codes and messages, a skipped one `skipped`; and
//! SARIF 2.1.0, one `result` per finding (`ruleId` the finding code) and
//! one rule per code with what to fix.
//!
//! Both are written through maintained writers, `quick-junit` and
//! `serde-sarif` (whose types are generated from the SARIF 2.1.0 schema),
//! natively only: the page never writes these reports, so neither enters
//! its WebAssembly. The cases and findings are plain data, made anywhere.

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
///
/// JUnit holds at most one `failure` per `testcase` (and a failed case is
/// not also skipped), so a case with several findings fails once with all
/// of them: the codes its `type`, the messages its `message`, and one
/// `code: message` line each as its text, where a skipped case's reason
/// follows too.
#[cfg(not(target_arch = "wasm32"))]
pub fn junit(suite: &str, cases: &[Case]) -> String {
    use quick_junit::{Report, TestCase, TestSuite};

    let mut test_suite = TestSuite::new(suite);
    test_suite.add_test_cases(cases.iter().map(|case| {
        let mut test_case = TestCase::new(case.name.as_str(), junit_status(case));
        test_case.set_classname(suite);
        test_case
    }));
    let mut report = Report::new("a2a-lab");
    report.add_test_suite(test_suite);
    report
        .to_string()
        .expect("a report written to memory from UTF-8 text cannot fail")
}

/// How a case ended, as JUnit says it.
#[cfg(not(target_arch = "wasm32"))]
fn junit_status(case: &Case) -> quick_junit::TestCaseStatus {
    use quick_junit::{NonSuccessKind, TestCaseStatus};

    if case.failures.is_empty() {
        let Some(why) = &case.skipped else {
            return TestCaseStatus::success();
        };
        let mut status = TestCaseStatus::skipped();
        status.set_message(why.as_str());
        return status;
    }
    let mut codes: Vec<&str> = Vec::new();
    for (code, _) in &case.failures {
        if !codes.contains(code) {
            codes.push(code);
        }
    }
    let messages: Vec<&str> = case.failures.iter().map(|(_, m)| m.as_str()).collect();
    let mut lines: Vec<String> = case
        .failures
        .iter()
        .map(|(code, message)| format!("{code}: {message}"))
        .collect();
    if let Some(why) = &case.skipped {
        lines.push(format!("skipped: {why}"));
    }
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status
        .set_type(codes.join(", "))
        .set_message(messages.join("; "))
        .set_description(lines.join("\n"));
    status
}

/// A SARIF 2.1.0 log of the findings, from the tool `a2a-lab` at `version`.
#[cfg(not(target_arch = "wasm32"))]
pub fn sarif(version: &str, findings: &[Finding]) -> String {
    use serde_sarif::sarif::{
        Message, MultiformatMessageString, PropertyBag, ReportingDescriptor, Result as SarifResult,
        ResultLevel, Run, Sarif, Tool, ToolComponent, Version,
    };

    let mut rules: Vec<ReportingDescriptor> = Vec::new();
    let results: Vec<SarifResult> = findings
        .iter()
        .map(|f| {
            let index = match rules.iter().position(|rule| rule.id == f.code) {
                Some(index) => index,
                None => {
                    rules.push(
                        ReportingDescriptor::builder()
                            .id(f.code)
                            .short_description(
                                MultiformatMessageString::builder().text(f.code).build(),
                            )
                            .help(MultiformatMessageString::builder().text(f.help).build())
                            .build(),
                    );
                    rules.len() - 1
                }
            };
            let place = std::collections::BTreeMap::from([(
                f.place.0.to_string(),
                serde_json::Value::from(f.place.1.as_str()),
            )]);
            SarifResult::builder()
                .rule_id(f.code)
                .rule_index(index as i64)
                .level(ResultLevel::Error)
                .message(Message::builder().text(f.message.as_str()).build())
                .properties(PropertyBag::builder().additional_properties(place).build())
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("a2a-lab")
        .version(version)
        .rules(rules)
        .build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .build();
    let log = Sarif::builder()
        .version(Version::V2_1_0.to_string())
        .runs(vec![run])
        .build();
    let mut text =
        serde_json::to_string_pretty(&log).expect("a SARIF log of strings is always JSON");
    text.push('\n');
    text
}
