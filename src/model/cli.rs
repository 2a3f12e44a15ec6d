//! The CLI's commands as a pure function from arguments (and a file reader)
//! to output and an exit code, so that every path is testable in-process.

use super::export::export_json;
use super::ledger::TaskLedger;
use super::scenario::Scenario;
use super::seed_form::{answer_json, SeedEvent};

/// What a command prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// 0 ok, 1 something broken, 2 bad input.
    pub code: u8,
}

impl Output {
    fn ok(stdout: String) -> Output {
        Output {
            stdout,
            stderr: String::new(),
            code: 0,
        }
    }

    fn bad(message: impl Into<String>) -> Output {
        let mut stderr = format!("a2a-lab: {}", message.into());
        stderr.push('\n');
        Output {
            stdout: String::new(),
            stderr,
            code: 2,
        }
    }
}

/// The usage text.
pub const USAGE: &str = "\
usage:
  a2a-lab trace [QUERY]        simulate a scenario (e.g. 'ending=never&cancel=3'), print the export JSON
  a2a-lab reduce FILE          apply seed-form ledger events ([{\"id\",\"status\",\"authorizationReceipt\"?}])
                               to a fresh task and print {status, sequence, accepted, rejected}
  a2a-lab check [--json] FILE  re-simulate an export and report differences, or run a raw A2A event log
                               (JSON array of wire events, or SSE data: lines) through the ledger
  a2a-lab --version
exit codes: 0 nothing broken, 1 something broken, 2 bad input
";

/// Where the commands get the files named on the command line.
pub trait Files {
    /// The whole file (for `check`, which needs to look at it twice).
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String>;
    /// The file as a stream (for `reduce`, which decides each event as it
    /// is parsed and never holds the events).
    fn open(&mut self, path: &str) -> Result<Box<dyn std::io::Read>, String>;
}

/// Runs one command.
pub fn run(args: &[String], files: &mut dyn Files) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["--version"] | ["-V"] => Output::ok(format!("a2a-lab {}\n", env!("CARGO_PKG_VERSION"))),
        ["--help"] | ["-h"] | ["help"] => Output::ok(USAGE.to_string()),
        ["trace"] => trace(""),
        ["trace", query] => trace(query),
        ["reduce", path] => match files.open(path) {
            Ok(reader) => reduce_stream(reader),
            Err(e) => Output::bad(e),
        },
        ["check", path] => check_file(path, false, files),
        ["check", "--json", path] | ["check", path, "--json"] => check_file(path, true, files),
        [] => Output::bad(format!("no command\n{USAGE}")),
        [cmd, ..] => Output::bad(format!(
            "unknown command or arguments starting at `{cmd}`\n{USAGE}"
        )),
    }
}

fn trace(query: &str) -> Output {
    match Scenario::from_query(query) {
        Ok(scenario) => Output::ok(export_json(&scenario)),
        Err(e) => Output::bad(format!("scenario: {e}")),
    }
}

/// `reduce`: seed-form events in, the seed reducer's answer out. Each
/// event is decided as soon as it is parsed, so memory holds the ledger but
/// never the list of events.
pub fn reduce_stream(reader: Box<dyn std::io::Read>) -> Output {
    let mut ledger = TaskLedger::new("seed");
    let mut de =
        serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(1 << 16, reader));
    let parsed = serde::Deserializer::deserialize_seq(&mut de, ApplyEach(&mut ledger))
        .and_then(|()| de.end());
    if let Err(e) = parsed {
        return Output::bad(format!(
            "reduce: expected a JSON array of {{\"id\",\"status\",\"authorizationReceipt\"?}} events: {e}"
        ));
    }
    let mut text = answer_json(&ledger);
    text.push('\n');
    Output::ok(text)
}

/// Applies each array element to the ledger as it is parsed.
struct ApplyEach<'a>(&'a mut TaskLedger);

impl<'de> serde::de::Visitor<'de> for ApplyEach<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of seed-form events")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(event) = seq.next_element::<SeedEvent>()? {
            self.0.apply(&event.to_ledger_event("seed"));
        }
        Ok(())
    }
}

fn check_file(path: &str, json: bool, files: &mut dyn Files) -> Output {
    let bytes = match files.read(path) {
        Ok(bytes) => bytes,
        Err(e) => return Output::bad(e),
    };
    match super::check::check_bytes(&bytes) {
        Ok(report) => {
            let stdout = if json {
                report.to_json()
            } else {
                report.to_text()
            };
            Output {
                stdout,
                stderr: String::new(),
                code: if report.findings.is_empty() { 0 } else { 1 },
            }
        }
        Err(e) => Output::bad(format!("check: {e}")),
    }
}
