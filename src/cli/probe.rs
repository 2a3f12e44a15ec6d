//! `a2a-lab probe URL`: its arguments, read on every target (bad ones are
//! refused before anything is contacted), and the command, which talks
//! HTTP natively only (`crate::probe`).

use std::io::Write;

#[cfg(not(target_arch = "wasm32"))]
use super::print;
use super::{Format, Output};
#[cfg(not(target_arch = "wasm32"))]
use crate::model::evidence::ci_report;
#[cfg(not(target_arch = "wasm32"))]
use crate::model::evidence::export::pretty_json;
#[cfg(not(target_arch = "wasm32"))]
use crate::model::evidence::probe::gate as probe_gate;
#[cfg(not(target_arch = "wasm32"))]
use crate::model::evidence::probe::report::ProbeReport;
use crate::model::evidence::probe::report::MAX_TASKS;
use crate::model::wire::rest::Binding;
use crate::model::wire::Wire;

/// `probe`'s arguments.
pub(super) struct ProbeArgs {
    format: Format,
    /// An earlier run's probe.json to hold this run against.
    baseline: Option<String>,
    url: String,
    wire: Option<Wire>,
    binding: Option<Binding>,
    /// `--card URL`: where the card is, when not at a well-known path.
    card: Option<String>,
    out: Option<String>,
    message: Option<String>,
    timeout_ms: Option<u64>,
    webhook: bool,
    webhook_url: Option<String>,
    /// `--header 'NAME: VALUE'`, in order.
    headers: Vec<(String, String)>,
    /// `--tasks N`: streams the `stream` probe runs at once.
    tasks: usize,
}

impl ProbeArgs {
    pub(super) fn parse(args: &[&str]) -> Result<ProbeArgs, String> {
        let mut out = ProbeArgs {
            format: Format::Text,
            baseline: None,
            headers: Vec::new(),
            url: String::new(),
            wire: None,
            binding: None,
            card: None,
            out: None,
            message: None,
            timeout_ms: None,
            webhook: false,
            webhook_url: None,
            tasks: 1,
        };
        let mut args = args.iter();
        while let Some(&arg) = args.next() {
            let mut value = |what: &str| {
                args.next()
                    .map(|v| v.to_string())
                    .ok_or_else(|| format!("{arg} needs {what}"))
            };
            match arg {
                "--json" => out.format = Format::Json,
                "--format" => out.format = Format::parse(args.next().copied())?,
                "--baseline" => out.baseline = Some(value("a probe.json")?),
                "--header" => {
                    let text = value("'NAME: VALUE'")?;
                    // The value is never repeated, in this message or any.
                    let (name, value) = text
                        .split_once(':')
                        .map(|(n, v)| (n.trim(), v.trim()))
                        .filter(|(n, _)| {
                            !n.is_empty()
                                && n.bytes()
                                    .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b))
                        })
                        .ok_or_else(|| {
                            "--header needs 'NAME: VALUE' with a header name before the colon"
                                .to_string()
                        })?;
                    out.headers.push((name.to_string(), value.to_string()));
                }
                "--wire" => {
                    let text = value("1.0 or 0.3")?;
                    out.wire = Some(
                        Wire::parse(&text)
                            .ok_or_else(|| format!("--wire `{text}` is not 1.0 or 0.3"))?,
                    );
                }
                "--binding" => {
                    let text = value("jsonrpc or rest")?;
                    out.binding = Some(
                        Binding::parse(&text)
                            .ok_or_else(|| format!("--binding `{text}` is not jsonrpc or rest"))?,
                    );
                }
                "--card" => {
                    let url = value("the card's URL")?;
                    if !(url.starts_with("http://") || url.starts_with("https://")) {
                        return Err(format!("--card `{url}` is not an http:// or https:// URL"));
                    }
                    out.card = Some(url);
                }
                "--out" => out.out = Some(value("a directory")?),
                "--webhook" => out.webhook = true,
                "--webhook-url" => {
                    let url = value("a URL")?;
                    if !(url.starts_with("http://") || url.starts_with("https://")) {
                        return Err(format!(
                            "--webhook-url `{url}` is not an http:// or https:// URL"
                        ));
                    }
                    out.webhook_url = Some(url);
                }
                "--message" => out.message = Some(value("a text")?),
                "--tasks" => {
                    let text = value("a number of streams")?;
                    out.tasks = text
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_TASKS).contains(n))
                        .ok_or_else(|| {
                            format!(
                                "--tasks `{text}` is not a number of streams from 1 to {MAX_TASKS}"
                            )
                        })?;
                }
                "--timeout-ms" => {
                    let text = value("a number of milliseconds")?;
                    let ms: u64 = text
                        .parse()
                        .ok()
                        .filter(|ms| (1..=3_600_000).contains(ms))
                        .ok_or_else(|| {
                            format!("--timeout-ms `{text}` is not a number of milliseconds from 1 to 3600000")
                        })?;
                    out.timeout_ms = Some(ms);
                }
                flag if flag.starts_with("--") => return Err(format!("unknown flag `{flag}`")),
                url if out.url.is_empty() => out.url = url.to_string(),
                extra => return Err(format!("one URL only (`{extra}` is a second)")),
            }
        }
        if out.url.is_empty() {
            return Err("no URL to probe".into());
        }
        if !(out.url.starts_with("http://") || out.url.starts_with("https://")) {
            return Err(format!("`{}` is not an http:// or https:// URL", out.url));
        }
        Ok(out)
    }
}

/// `probe --json --baseline`: the report with how it differs.
#[cfg(not(target_arch = "wasm32"))]
#[derive(serde::Serialize)]
struct WithBaseline<'a> {
    #[serde(flatten)]
    report: ProbeReport,
    baseline: &'a probe_gate::BaselineDiff,
}

/// `probe`: only natively, where the lab can talk HTTP.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn probe(args: &ProbeArgs, stdout: &mut dyn Write) -> std::io::Result<Output> {
    use crate::probe::{Options, DEFAULT_MESSAGE, DEFAULT_TIMEOUT_MS};
    let options = Options {
        url: args.url.clone(),
        wire: args.wire,
        binding: args.binding,
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
    };
    // The baseline is read before any request: a bad one is bad input.
    let baseline = match &args.baseline {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| ProbeReport::from_json(&text))
        {
            Ok(report) => Some(report),
            Err(e) => return Ok(Output::bad(format!("probe: --baseline {path}: {e}"))),
        },
    };
    match crate::probe::probe(&options) {
        Ok(report) => {
            let diff = baseline.as_ref().map(|b| probe_gate::against(&report, b));
            let broken = match &diff {
                Some(diff) => !diff.passes(),
                None => !report.findings.is_empty(),
            };
            let text = match args.format {
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

#[cfg(target_arch = "wasm32")]
pub(super) fn probe(_: &ProbeArgs, _: &mut dyn Write) -> std::io::Result<Output> {
    Ok(Output::bad("probe: only the native CLI talks HTTP"))
}
