//! `a2a-lab probe URL`: the command, over the probe's IO (`crate::probe`);
//! its arguments are read in [`super::args`], before anything is
//! contacted.

use std::io::Write;

use super::args::{BindingArg, Format, ProbeArgs};
use super::{print, Output};
use crate::model::evidence::ci_report;
use crate::model::evidence::export::pretty_json;
use crate::model::evidence::probe::gate as probe_gate;
use crate::model::evidence::probe::report::ProbeReport;

/// `probe --json --baseline`: the report with how it differs.
#[derive(serde::Serialize)]
struct WithBaseline<'a> {
    #[serde(flatten)]
    report: ProbeReport,
    baseline: &'a probe_gate::BaselineDiff,
}

/// `probe`: only natively, where the lab can talk HTTP.
pub(super) fn probe(args: &ProbeArgs, stdout: &mut dyn Write) -> std::io::Result<Output> {
    use crate::probe::{Options, DEFAULT_MESSAGE, DEFAULT_TIMEOUT_MS};
    let options = Options {
        url: args.url.clone(),
        wire: args.wire.wire,
        binding: match args.binding {
            Some(BindingArg::One(binding)) => Some(binding),
            _ => None,
        },
        all_bindings: args.binding == Some(BindingArg::All),
        card: args.card.clone(),
        out: args.out.as_ref().map(std::path::PathBuf::from),
        message: args
            .message
            .clone()
            .unwrap_or_else(|| DEFAULT_MESSAGE.into()),
        timeout: std::time::Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)),
        webhook: args.webhook || args.webhook_url.is_some(),
        webhook_url: args.webhook_url.clone(),
        headers: args.headers.clone(),
        tasks: args.tasks,
        ca_file: args.ca_file.as_ref().map(std::path::PathBuf::from),
    };
    // The baseline is read before any request: a bad one is bad input.
    let baseline = match &args.baseline {
        None => None,
        Some(path) => {
            let bad = |e: &dyn std::fmt::Display| {
                Ok(Output::bad(format!("probe: --baseline {path}: {e}")))
            };
            let text = match std::fs::read_to_string(path) {
                Ok(text) => text,
                Err(e) => return bad(&e),
            };
            match ProbeReport::from_json(&text) {
                Ok(report) => Some(report),
                Err(e) => return bad(&e),
            }
        }
    };
    match crate::probe::probe(&options) {
        Ok(report) => {
            let diff = baseline.as_ref().map(|b| probe_gate::against(&report, b));
            let broken = match &diff {
                Some(diff) => !diff.passes(),
                None => !report.findings.is_empty(),
            };
            let text = match args.report.chosen() {
                Format::Json => match &diff {
                    Some(diff) => pretty_json(&WithBaseline {
                        report: report.lean(),
                        baseline: diff,
                    }),
                    None => report.to_json(),
                },
                Format::Text => {
                    let mut text = report.to_text();
                    text.push_str(&diff.as_ref().map(|d| d.to_text()).unwrap_or_default());
                    text
                }
                Format::Junit => ci_report::junit("probe", &probe_gate::cases(&report)),
                Format::Sarif => {
                    ci_report::sarif(env!("CARGO_PKG_VERSION"), &probe_gate::findings(&report))
                }
            };
            print(stdout, &text, u8::from(broken))
        }
        Err(e) => Ok(Output::bad(format!(
            "probe: cannot probe {}: {e}",
            args.url
        ))),
    }
}
