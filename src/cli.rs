//! The CLI's commands as a pure function from arguments (a file reader and
//! a writer for standard output) to an exit, so that every path is testable
//! in-process.

use std::io::{Read, Write};

mod probe;

use probe::{probe, ProbeArgs};

use crate::model::evidence::capture::{
    CaptureFinding, CaptureReader, CaptureReport, RpcError, TaskSummary, Wire,
};
use crate::model::evidence::ci_report;
use crate::model::evidence::export::{export_json, pretty_json};
use crate::model::evidence::import::looks_like_export;
use crate::model::evidence::json_array;
use crate::model::evidence::push_log::{PushLog, PushReport, PushedTask};
use crate::model::evidence::seed_form::{write_answer, SeedEventRef};
use crate::model::ledger::TaskLedger;
use crate::model::sim::scenario::Scenario;

/// How a command ended. Standard output went to the writer given to
/// [`run`]; a command that fails writes nothing there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Standard error.
    pub stderr: String,
    /// 0 ok, 1 something broken, 2 bad input.
    pub code: u8,
}

impl Output {
    fn exit(code: u8) -> Output {
        Output {
            stderr: String::new(),
            code,
        }
    }

    fn bad(message: impl Into<String>) -> Output {
        let mut stderr = format!("a2a-lab: {}", message.into());
        stderr.push('\n');
        Output { stderr, code: 2 }
    }
}

/// Each command's usage, in the order the whole usage lists them.
const COMMANDS: [(&str, &str); 4] = [
    (
        "trace",
        "  a2a-lab trace [QUERY]        simulate a scenario (e.g. 'ending=never&cancel=3'), print the export JSON\n",
    ),
    (
        "reduce",
        "  a2a-lab reduce FILE          apply seed-form ledger events ([{\"id\",\"status\",\"authorizationReceipt\"?}])
                               to a fresh task and print {status, sequence, accepted, rejected}\n",
    ),
    (
        "check",
        "  a2a-lab check [--json | --format text|json|junit|sarif] [--wire 1.0|0.3] [--webhook LOG]... FILE...
                               re-simulate an export and report differences, or judge a capture of real
                               traffic (SSE, JSON Lines or a JSON array; A2A 1.0 or 0.3; files read in
                               order as one capture) task by task through the ledger and the wire's
                               schema; --webhook reads a webhook's log of POST bodies (alone, or beside
                               the stream of the same task)\n",
    ),
    (
        "probe",
        "  a2a-lab probe URL [--json | --format text|json|junit|sarif] [--baseline probe.json] [--wire 1.0|0.3] [--binding jsonrpc|rest] [--card CARD_URL] [--out DIR] [--message TEXT] [--timeout-ms N]
                [--webhook] [--webhook-url URL] [--header 'NAME: VALUE']... [--tasks N]
                               check the agent's card, put the agent through its lifecycle (stream,
                               get, cancel, cancel-terminal, resubscribe, subscribe-terminal) and judge
                               what it answers; each probe creates a task: probe your own or a test
                               deployment; --card reads the card from CARD_URL instead of the
                               well-known paths; --binding speaks that binding even where the card
                               offers none (at URL); --tasks N (1 to 64) runs the stream probe as N
                               streams at once, each judged on its own;
                               --webhook listens on 127.0.0.1 for push notifications and judges them
                               (push); --webhook-url is the address the agent must POST to when it
                               cannot reach 127.0.0.1 (a public address that forwards to the probe)\n",
    ),
];

/// How the usage ends.
const EXIT_CODES: &str = "exit codes: 0 nothing broken, 1 something broken, 2 bad input\n";

/// The usage text: every command.
pub fn usage() -> String {
    let mut text = String::from("usage:\n");
    for (_, lines) in COMMANDS {
        text.push_str(lines);
    }
    text.push_str("  a2a-lab --version\n");
    text.push_str(EXIT_CODES);
    text
}

/// One command's usage (`a2a-lab CMD --help`, `a2a-lab help CMD`).
fn usage_of(command: &str) -> Option<String> {
    let (_, lines) = COMMANDS.iter().find(|(name, _)| *name == command)?;
    Some(format!("usage:\n{lines}{EXIT_CODES}"))
}

/// Where the commands get the files named on the command line.
pub trait Files {
    /// The whole file (for `check`, which needs to look at it twice).
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String>;
    /// The file as a stream (for `reduce`, which reads the events a
    /// buffer at a time and never holds them all).
    fn open(&mut self, path: &str) -> Result<Box<dyn std::io::Read>, String>;
}

/// Runs one command, printing its result on `stdout`.
pub fn run(args: &[String], files: &mut dyn Files, stdout: &mut dyn Write) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let printed = match args.as_slice() {
        ["--version"] | ["-V"] => print(
            stdout,
            &format!("a2a-lab {}\n", env!("CARGO_PKG_VERSION")),
            0,
        ),
        ["--help"] | ["-h"] | ["help"] => print(stdout, &usage(), 0),
        ["help", command] => match usage_of(command) {
            Some(text) => print(stdout, &text, 0),
            None => return Output::bad(format!("help: no command `{command}`\n{}", usage())),
        },
        [command, rest @ ..] if rest.iter().any(|a| matches!(*a, "--help" | "-h")) => {
            match usage_of(command) {
                Some(text) => print(stdout, &text, 0),
                None => return Output::bad(format!("no command `{command}`\n{}", usage())),
            }
        }
        ["trace"] => trace("", stdout),
        ["trace", query] => trace(query, stdout),
        ["reduce", path] => match files.open(path) {
            Ok(reader) => reduce_stream(reader, stdout),
            Err(e) => return Output::bad(e),
        },
        ["check", rest @ ..] => match CheckArgs::parse(rest) {
            Ok(args) => check(&args, files, stdout),
            Err(e) => return Output::bad(format!("check: {e}\n{}", usage())),
        },
        ["probe", rest @ ..] => match ProbeArgs::parse(rest) {
            Ok(args) => probe(&args, stdout),
            Err(e) => return Output::bad(format!("probe: {e}\n{}", usage())),
        },
        [] => return Output::bad(format!("no command\n{}", usage())),
        [cmd, ..] => {
            return Output::bad(format!(
                "unknown command or arguments starting at `{cmd}`\n{}",
                usage()
            ))
        }
    };
    match printed {
        Ok(out) => out,
        Err(e) => Output::bad(format!("writing the output: {e}")),
    }
}

fn print(stdout: &mut dyn Write, text: &str, code: u8) -> std::io::Result<Output> {
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(Output::exit(code))
}

fn trace(query: &str, stdout: &mut dyn Write) -> std::io::Result<Output> {
    match Scenario::from_query(query) {
        Ok(scenario) => print(stdout, &export_json(&scenario), 0),
        Err(e) => Ok(Output::bad(format!("scenario: {e}"))),
    }
}

/// `reduce`: seed-form events in, the seed reducer's answer out. Events are
/// decided a buffer at a time as they are read, each parsed in place, so
/// memory holds the ledger and one buffer of input, never the events; the
/// answer is written straight from the ledger.
pub fn reduce_stream(
    reader: Box<dyn std::io::Read>,
    stdout: &mut dyn Write,
) -> std::io::Result<Output> {
    let mut ledger = TaskLedger::new("seed");
    let split = json_array::split(reader, |buf, elements| {
        let mut events = Vec::with_capacity(elements.len());
        for element in elements {
            let bytes = &buf[element.start..element.end];
            let event: SeedEventRef = serde_json::from_slice(bytes).map_err(|e| {
                let (message, line, column) = located(&e, element);
                format!(
                    "event {} (line {line}, column {column}): {message}",
                    element.index
                )
            })?;
            events.push(event);
        }
        ledger.apply_all(events.iter().map(SeedEventRef::view));
        Ok(())
    });
    if let Err(e) = split {
        return Ok(Output::bad(format!(
            "reduce: expected a JSON array of {{\"id\",\"status\",\"authorizationReceipt\"?}} events: {e}"
        )));
    }
    write_answer(&ledger, stdout)?;
    Ok(Output::exit(0))
}

/// A parse error's message and its position in the whole input (serde
/// counts from the start of the element).
fn located(e: &serde_json::Error, element: &json_array::Element) -> (String, u64, u64) {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    };
    let (line, column) = (e.line() as u64, e.column() as u64);
    if line <= 1 {
        (
            message,
            element.line,
            element.column + column.saturating_sub(1),
        )
    } else {
        (message, element.line + line - 1, column)
    }
}

/// `check`'s arguments.
struct CheckArgs<'a> {
    format: Format,
    wire: Option<Wire>,
    paths: Vec<&'a str>,
    /// Webhook logs (`--webhook`), read in order as one log.
    webhooks: Vec<&'a str>,
}

impl<'a> CheckArgs<'a> {
    fn parse(args: &[&'a str]) -> Result<CheckArgs<'a>, String> {
        let mut out = CheckArgs {
            format: Format::Text,
            wire: None,
            paths: Vec::new(),
            webhooks: Vec::new(),
        };
        let mut args = args.iter();
        while let Some(&arg) = args.next() {
            match arg {
                "--json" => out.format = Format::Json,
                "--format" => out.format = Format::parse(args.next().copied())?,
                "--wire" => {
                    let value = args.next().ok_or("--wire needs 1.0 or 0.3")?;
                    out.wire = Some(
                        Wire::parse(value)
                            .ok_or_else(|| format!("--wire `{value}` is not 1.0 or 0.3"))?,
                    );
                }
                "--webhook" => out
                    .webhooks
                    .push(args.next().ok_or("--webhook needs a log file")?),
                flag if flag.starts_with("--") => return Err(format!("unknown flag `{flag}`")),
                path => out.paths.push(path),
            }
        }
        if out.paths.is_empty() && out.webhooks.is_empty() {
            return Err("no file to check".into());
        }
        Ok(out)
    }
}

/// `check`: an export is re-simulated and compared; anything else is a
/// capture, its files streamed in order through one reader.
fn check(
    args: &CheckArgs,
    files: &mut dyn Files,
    stdout: &mut dyn Write,
) -> std::io::Result<Output> {
    if let ([path], []) = (&args.paths[..], &args.webhooks[..]) {
        match is_export(path, files) {
            Ok(true) => return check_export(path, args.format, files, stdout),
            Ok(false) => {}
            Err(e) => return Ok(Output::bad(e)),
        }
    }
    let mut reader = CaptureReader::new(args.wire);
    for path in &args.paths {
        let input = match files.open(path) {
            Ok(input) => input,
            Err(e) => return Ok(Output::bad(e)),
        };
        if let Err(e) = reader.read(input) {
            return Ok(Output::bad(format!("check: {path}: {e}")));
        }
    }
    let report = if args.paths.is_empty() {
        None
    } else {
        match reader.finish_checked(&args.paths) {
            Ok(report) => Some(report),
            Err(e) => return Ok(Output::bad(format!("check: {e}"))),
        }
    };
    let pushes = match read_webhook_logs(&args.webhooks, report.as_ref(), files) {
        Ok(pushes) => pushes,
        Err(e) => return Ok(Output::bad(format!("check: {e}"))),
    };
    let broken = report.as_ref().is_some_and(|r| !r.findings.is_empty())
        || pushes.as_ref().is_some_and(|p| !p.findings.is_empty());
    let text = match (&report, &pushes, args.format) {
        (report, pushes, Format::Junit) => {
            ci_report::junit("check", &task_cases(report.as_ref(), pushes.as_ref()))
        }
        (report, pushes, Format::Sarif) => ci_report::sarif(
            env!("CARGO_PKG_VERSION"),
            &sarif_findings(report.as_ref(), pushes.as_ref()),
        ),
        (Some(report), None, Format::Json) => report.to_json(),
        (Some(report), None, Format::Text) => report.to_text(),
        (report, Some(pushes), Format::Json) => {
            pretty_json(&WithPushes::new(report.as_ref(), pushes))
        }
        (report, Some(pushes), Format::Text) => {
            let mut text = report.as_ref().map(|r| r.to_text()).unwrap_or_default();
            text.push_str(&pushes.to_text());
            text
        }
        (None, None, _) => String::new(),
    };
    print(stdout, &text, u8::from(broken))
}

/// How a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Junit,
    Sarif,
}

impl Format {
    fn parse(value: Option<&str>) -> Result<Format, String> {
        match value {
            Some("text") => Ok(Format::Text),
            Some("json") => Ok(Format::Json),
            // Their writers are native only (`ci_report`).
            Some("junit" | "sarif") if cfg!(target_arch = "wasm32") => {
                Err(format!("--format: {}", ci_report::NATIVE_ONLY))
            }
            Some("junit") => Ok(Format::Junit),
            Some("sarif") => Ok(Format::Sarif),
            Some(other) => Err(format!(
                "--format `{other}` is not text, json, junit or sarif"
            )),
            None => Err("--format needs text, json, junit or sarif".into()),
        }
    }
}

/// One JUnit testcase per task of the capture and of the webhook log,
/// each failing with its findings.
fn task_cases(report: Option<&CaptureReport>, pushes: Option<&PushReport>) -> Vec<ci_report::Case> {
    // One pass over the tasks and one over the findings, by task id: a
    // capture may hold 100,000 tasks.
    let mut cases: Vec<ci_report::Case> = Vec::new();
    let mut by_id: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let tasks = report
        .into_iter()
        .flat_map(|r| r.tasks.iter().map(|t| t.id.as_str()))
        .chain(
            pushes
                .into_iter()
                .flat_map(|p| p.tasks.iter().map(|t| t.id.as_str())),
        );
    for id in tasks {
        by_id.entry(id).or_insert_with(|| {
            cases.push(ci_report::Case {
                name: format!("task {id}"),
                failures: Vec::new(),
                skipped: None,
            });
            cases.len() - 1
        });
    }
    let findings = report
        .into_iter()
        .flat_map(|r| &r.findings)
        .chain(pushes.into_iter().flat_map(|p| &p.findings));
    for f in findings {
        if let Some(&at) = by_id.get(f.task.as_str()) {
            cases[at].failures.push((f.code.code(), f.message.clone()));
        }
    }
    cases
}

/// One SARIF result per finding of the capture and the webhook log.
fn sarif_findings(
    report: Option<&CaptureReport>,
    pushes: Option<&PushReport>,
) -> Vec<ci_report::Finding> {
    report
        .into_iter()
        .flat_map(|r| &r.findings)
        .chain(pushes.into_iter().flat_map(|p| &p.findings))
        .map(|f| ci_report::Finding {
            code: f.code.code(),
            help: f.code.advice(),
            message: f.message.clone(),
            place: ("task", f.task.clone()),
        })
        .collect()
}

/// The webhook logs, read in order as one log and judged beside the
/// stream capture; `None` when there are none.
fn read_webhook_logs(
    paths: &[&str],
    stream: Option<&CaptureReport>,
    files: &mut dyn Files,
) -> Result<Option<PushReport>, String> {
    if paths.is_empty() {
        return Ok(None);
    }
    let mut log = PushLog::new();
    for path in paths {
        let bytes = files.read(path)?;
        log.read_file(&bytes).map_err(|e| format!("{path}: {e}"))?;
    }
    // A log with no POST checked nothing: a capture step that failed.
    if !log.empty_files().is_empty() {
        let named: Vec<&str> = log.empty_files().iter().map(|&i| paths[i]).collect();
        return Err(format!("no webhook POSTs in {}", named.join(", ")));
    }
    Ok(Some(log.judge(stream)))
}

/// `check --json` with webhook logs: the capture's report, its findings
/// and the log's together, and what the webhook was told of each task.
#[derive(serde::Serialize)]
struct WithPushes<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    wire: Option<&'a str>,
    tasks: &'a [TaskSummary],
    findings: Vec<&'a CaptureFinding>,
    errors: &'a [RpcError],
    pushes: Pushes<'a>,
}

#[derive(serde::Serialize)]
struct Pushes<'a> {
    posts: usize,
    tasks: &'a [PushedTask],
}

impl<'a> WithPushes<'a> {
    fn new(report: Option<&'a CaptureReport>, pushes: &'a PushReport) -> WithPushes<'a> {
        WithPushes {
            wire: report.map(|r| r.wire.name()),
            tasks: report.map_or(&[][..], |r| &r.tasks[..]),
            findings: report
                .into_iter()
                .flat_map(|r| &r.findings)
                .chain(&pushes.findings)
                .collect(),
            errors: report.map_or(&[][..], |r| &r.errors[..]),
            pushes: Pushes {
                posts: pushes.posts,
                tasks: &pushes.tasks,
            },
        }
    }
}

/// Whether the file is a lab export rather than a capture, told from its
/// head as the page's Import tells it.
fn is_export(path: &str, files: &mut dyn Files) -> Result<bool, String> {
    let mut input = files.open(path)?;
    let mut head = vec![0u8; 4096];
    let mut got = 0;
    while got < head.len() {
        match input.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(format!("{path}: {e}")),
        }
    }
    let ended = got < head.len();
    head.truncate(got);
    if ended {
        // The whole file is in: its last line is complete.
        head.push(b'\n');
    }
    Ok(looks_like_export(&head).unwrap_or(false))
}

fn check_export(
    path: &str,
    format: Format,
    files: &mut dyn Files,
    stdout: &mut dyn Write,
) -> std::io::Result<Output> {
    let bytes = match files.read(path) {
        Ok(bytes) => bytes,
        Err(e) => return Ok(Output::bad(e)),
    };
    match crate::model::evidence::import::check_bytes(&bytes) {
        Ok(report) => {
            let failures = || {
                report
                    .findings
                    .iter()
                    .map(|f| (f.code.code(), f.message.clone()))
                    .collect()
            };
            let text = match format {
                Format::Json => report.to_json(),
                Format::Text => report.to_text(),
                Format::Junit => ci_report::junit(
                    "check",
                    &[ci_report::Case {
                        name: format!("export {path}"),
                        failures: failures(),
                        skipped: None,
                    }],
                ),
                Format::Sarif => ci_report::sarif(
                    env!("CARGO_PKG_VERSION"),
                    &report
                        .findings
                        .iter()
                        .map(|f| ci_report::Finding {
                            code: f.code.code(),
                            help: f.code.advice(),
                            message: f.message.clone(),
                            place: ("export", path.to_string()),
                        })
                        .collect::<Vec<_>>(),
                ),
            };
            print(
                stdout,
                &text,
                if report.findings.is_empty() { 0 } else { 1 },
            )
        }
        Err(e) => Ok(Output::bad(format!("check: {e}"))),
    }
}
