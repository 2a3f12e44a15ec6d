//! The CLI's commands as a pure function from arguments (a file reader and
//! a writer for standard output) to an exit, so that every path is testable
//! in-process.

use std::io::{Read, Write};

pub mod args;
mod probe;
mod serve;

use args::{CheckArgs, Command, Format, Parsed};
use probe::probe;

use crate::model::evidence::capture::gate::CaptureBaselineDiff;
use crate::model::evidence::capture::{
    CaptureFinding, CaptureReader, CaptureReport, RpcError, TaskSummary, CHECK_KEEPS_AT_MOST,
};
use crate::model::evidence::ci_report;
use crate::model::evidence::export::{export_json, pretty_json};
use crate::model::evidence::import::looks_like_export;
use crate::model::evidence::json_array;
use crate::model::evidence::push_log::{PushLog, PushReport, PushedTask};
use crate::model::evidence::seed_form::{write_answer, SeedEventRef};
use crate::model::ledger::TaskLedger;
use crate::model::sim::scenario::Scenario;
use crate::model::wire::read_error::Place;

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
    let command = match args::parse_args(args) {
        Parsed::Run(command) => command,
        Parsed::Print(text) => {
            return print(stdout, &text, 0)
                .unwrap_or_else(|e| Output::bad(format!("writing the output: {e}")))
        }
        Parsed::Bad(message) => return Output::bad(message),
    };
    let printed = match command {
        Command::Trace { query } => trace(query.as_deref().unwrap_or(""), stdout),
        Command::Reduce { file } => match files.open(&file) {
            Ok(reader) => reduce_stream(reader, stdout),
            Err(e) => return Output::bad(e),
        },
        Command::Check(args) if args.paths.is_empty() && args.webhooks.is_empty() => {
            return Output::bad(format!(
                "check: no file to check\n{}",
                args::usage_of("check")
            ))
        }
        Command::Check(args) => check(&args, files, stdout),
        Command::Probe(args) => probe(&args, stdout),
        Command::Serve(args) => serve::serve(&args, stdout),
        Command::Completions { shell } => {
            args::completions(shell, stdout);
            Ok(Output::exit(0))
        }
        Command::Reference => print(stdout, &args::reference(), 0),
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
    let split = json_array::split(reader, |buf, elements| -> Result<(), String> {
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

/// `check`: an export is re-simulated and compared; anything else is a
/// capture, its files streamed in order through one reader.
fn check(
    args: &CheckArgs,
    files: &mut dyn Files,
    stdout: &mut dyn Write,
) -> std::io::Result<Output> {
    let format = args.report.chosen();
    if let ([path], []) = (&args.paths[..], &args.webhooks[..]) {
        match is_export(path, files) {
            Ok(true) if !args.baselines.is_empty() => return Ok(Output::bad(
                "check: --baseline gates a capture; an export is checked against its own inputs",
            )),
            Ok(true) => return check_export(path, format, files, stdout),
            Ok(false) => {}
            Err(e) => return Ok(Output::bad(e)),
        }
    }
    let mut reader = CaptureReader::new(args.wire.wire).keeping_events_up_to(CHECK_KEEPS_AT_MOST);
    for path in &args.paths {
        let input = match files.open(path) {
            Ok(input) => input,
            Err(e) => return Ok(Output::bad(e)),
        };
        if let Err(e) = reader.read(input) {
            let e = e.within(Place::File(path.clone()));
            return Ok(Output::bad(format!("check: {e}")));
        }
    }
    let mut report = if args.paths.is_empty() {
        None
    } else {
        match reader.finish_checked(&args.paths) {
            Ok(report) => Some(report),
            Err(e) => return Ok(Output::bad(format!("check: {e}"))),
        }
    };
    let unexplained = match report.take() {
        Some(read) => {
            let (explained, unexplained) = explain_tasks(read, args, files);
            report = Some(explained);
            unexplained
        }
        None => None,
    };
    let pushes = match read_webhook_logs(&args.webhooks, report.as_ref(), files) {
        Ok(pushes) => pushes,
        Err(e) => return Ok(Output::bad(format!("check: {e}"))),
    };
    let baseline = match (&report, &args.baselines[..]) {
        (_, []) => None,
        (Some(report), paths) => match read_baseline(paths, args, files) {
            Ok(before) => Some(CaptureBaselineDiff::of(report, &before)),
            Err(e) => return Ok(Output::bad(format!("check: {e}"))),
        },
        (None, _) => {
            return Ok(Output::bad(
                "check: --baseline gates a capture: name the capture's files too",
            ))
        }
    };
    let broken = match &baseline {
        Some(diff) => !diff.passes(),
        None => report.as_ref().is_some_and(|r| !r.findings.is_empty()),
    } || pushes.as_ref().is_some_and(|p| !p.findings.is_empty());
    let text = match (&report, &pushes, format) {
        (report, pushes, Format::Junit) => {
            ci_report::junit("check", &task_cases(report.as_ref(), pushes.as_ref()))
        }
        (report, pushes, Format::Sarif) => ci_report::sarif(
            env!("CARGO_PKG_VERSION"),
            &sarif_findings(report.as_ref(), pushes.as_ref()),
        ),
        (Some(report), None, Format::Json) => match &baseline {
            Some(diff) => pretty_json(&WithCaptureBaseline {
                report,
                baseline: diff,
            }),
            None => report.to_json(),
        },
        (Some(report), None, Format::Text) => {
            let mut text = report.to_text();
            text.push_str(&baseline.as_ref().map(|d| d.to_text()).unwrap_or_default());
            text
        }
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
    let mut output = print(stdout, &text, u8::from(broken))?;
    if let Some(why) = unexplained {
        output.stderr.push_str(&format!(
            "a2a-lab: check: the tasks with findings are not explained by a scenario: {why}\n"
        ));
    }
    Ok(output)
}

/// `check --json --baseline`: the report with how it differs.
#[derive(serde::Serialize)]
struct WithCaptureBaseline<'a> {
    #[serde(flatten)]
    report: &'a CaptureReport,
    baseline: &'a CaptureBaselineDiff,
}

/// The baseline capture of `check --baseline`, read as the capture is.
fn read_baseline(
    paths: &[String],
    args: &CheckArgs,
    files: &mut dyn Files,
) -> Result<CaptureReport, String> {
    let mut reader = CaptureReader::new(args.wire.wire);
    for path in paths {
        let input = files
            .open(path)
            .map_err(|e| format!("--baseline {path}: {e}"))?;
        reader
            .read(input)
            .map_err(|e| format!("--baseline {path}: {e}"))?;
    }
    reader
        .finish_checked(paths)
        .map_err(|e| format!("--baseline {}: {e}", paths.join(" ")))
}

/// Each task with a finding explained by the lab's scenario (issue 33):
/// from the events the first reading kept, when the capture was short
/// enough to keep them ([`CHECK_KEEPS_AT_MOST`]); else from the files read
/// again, each such task kept until its last event and explained then, so
/// that memory grows with the tasks open at once. When the files cannot
/// be read again (a pipe, a file gone since), the report goes without
/// explanations, and the second value says why.
fn explain_tasks(
    report: CaptureReport,
    args: &CheckArgs,
    files: &mut dyn Files,
) -> (CaptureReport, Option<String>) {
    if report.findings.is_empty() {
        return (report, None);
    }
    if !report.events.is_empty() {
        return (report.explained(), None);
    }
    let mut report = report;
    let mut reader = CaptureReader::explaining(args.wire.wire, &report);
    for path in &args.paths {
        let read = files.open(path).and_then(|input| {
            reader
                .read(input)
                .map_err(|e| e.within(Place::File(path.clone())).to_string())
        });
        if let Err(why) = read {
            return (report, Some(format!("reading the capture again: {why}")));
        }
    }
    for (task, found) in reader.explained() {
        if let Some(summary) = report.tasks.get_mut(task) {
            summary.scenario = Some(Box::new(found));
        }
    }
    (report, None)
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
    paths: &[String],
    stream: Option<&CaptureReport>,
    files: &mut dyn Files,
) -> Result<Option<PushReport>, String> {
    if paths.is_empty() {
        return Ok(None);
    }
    let mut log = PushLog::new();
    for path in paths {
        let bytes = files.read(path)?;
        log.read_file(&bytes)
            .map_err(|e| e.within(Place::File(path.clone())).to_string())?;
    }
    // A log with no POST checked nothing: a capture step that failed.
    if !log.empty_files().is_empty() {
        let named: Vec<&str> = log
            .empty_files()
            .iter()
            .map(|&i| paths[i].as_str())
            .collect();
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
