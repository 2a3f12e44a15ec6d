//! What `a2a-lab probe` found out about a live agent (SPEC §10): each
//! probe's outcome and findings, and, in the `probe.json` it keeps, the
//! events each probe received, so that the page's Import can show every
//! probe as a trace. Pure data: the probing itself is native only
//! (`crate::probe`).

use serde::Serialize;
use serde_json::Value;

use crate::model::evidence::capture::{CaptureReader, CaptureReport, Wire};
use crate::model::evidence::export::pretty_json;
use crate::model::evidence::finding::FindingCode;
use crate::model::evidence::scenario_of::ScenarioOf;
use crate::model::wire::read_error::{ProbeJsonFault, ReadError, ReadKind};
use crate::model::wire::rest::Binding;

/// The `format` of a `probe.json`.
pub const PROBE_FORMAT: &str = "a2a-lifecycle-lab/probe";

/// The six probes of SPEC §10, and `push` (SPEC §12, with `--webhook`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Probe {
    /// The agent card: the fields its protocol version requires.
    Card,
    /// A streaming message, read to its end.
    Stream,
    /// GetTask after it.
    Get,
    /// A new task, CancelTask once it shows it is running.
    Cancel,
    /// CancelTask on the finished task.
    CancelTerminal,
    /// A new task, its stream dropped, then SubscribeToTask.
    Resubscribe,
    /// SubscribeToTask on the finished task.
    SubscribeTerminal,
    /// What the webhook was POSTed about the `stream` and `cancel` tasks,
    /// and a task streamed while the webhook answers slowly.
    Push,
}

impl Probe {
    /// Every probe, in the order they run.
    pub const ALL: [Probe; 8] = [
        Probe::Card,
        Probe::Stream,
        Probe::Get,
        Probe::Cancel,
        Probe::CancelTerminal,
        Probe::Resubscribe,
        Probe::SubscribeTerminal,
        Probe::Push,
    ];

    /// Its name, as reports and `probe.json` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Probe::Card => "card",
            Probe::Stream => "stream",
            Probe::Get => "get",
            Probe::Cancel => "cancel",
            Probe::CancelTerminal => "cancel-terminal",
            Probe::Resubscribe => "resubscribe",
            Probe::SubscribeTerminal => "subscribe-terminal",
            Probe::Push => "push",
        }
    }

    /// The probe named `text`, if it is one.
    pub fn parse(text: &str) -> Option<Probe> {
        Probe::ALL.into_iter().find(|p| p.name() == text)
    }
}

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that a table's column width applies.
        f.pad(self.name())
    }
}

impl Serialize for Probe {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Probe {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Probe, D::Error> {
        let text = String::deserialize(d)?;
        Probe::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a probe")))
    }
}

/// What a probe can find: a stream finding of SPEC §8 (or a webhook log's
/// of SPEC §12), or one of the probe's own (SPEC §10, §12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeCode {
    /// A finding of the capture reader on what a probe received.
    Stream(FindingCode),
    /// A wait ran out: a stream that did not close, a call that did not
    /// answer.
    Hung,
    /// GetTask disagrees with what was streamed.
    GetTaskMismatch,
    /// A task canceled mid-stream did not end CANCELED with nothing after.
    CancelNotCanceled,
    /// CancelTask on a finished task did not fail with -32002.
    CancelTerminalAccepted,
    /// SubscribeToTask on a finished task did not fail.
    SubscribeTerminalAccepted,
    /// A slow webhook held up the stream of its task.
    PushStallsStream,
    /// An event in one task's stream or subscription names another task.
    ForeignTask,
    /// A field the card's protocol version requires is missing, of the
    /// wrong type, or an empty list where one entry is needed.
    CardField,
    /// A JSON-RPC answer that is not JSON-RPC 2.0 for its request.
    RpcEnvelope,
    /// An event's `contextId` differs from its task's.
    ContextMismatch,
    /// An answer that cannot be read: not JSON, not JSON-RPC, an HTTP
    /// error status, an SSE line that is not an event (SPEC §13).
    UnreadableAnswer,
    /// The same probe meant something else over another binding of the
    /// same agent (`--binding all`, SPEC §16; A2A 1.0 §5.1).
    BindingMismatch,
}

/// The stream codes a `probe.json` may hold, for reading one back.
const STREAM_CODES: [FindingCode; 10] = [
    FindingCode::WireShape,
    FindingCode::AfterTerminal,
    FindingCode::MissingTerminal,
    FindingCode::ConflictingCoordinate,
    FindingCode::IllegalTransition,
    FindingCode::Duplicate,
    FindingCode::ArtifactGap,
    FindingCode::PushMissingTerminal,
    FindingCode::PushedAfterTerminal,
    FindingCode::PushDuplicate,
];

impl ProbeCode {
    /// The kebab-case code.
    pub fn code(self) -> &'static str {
        match self {
            ProbeCode::Stream(code) => code.code(),
            ProbeCode::Hung => "hung",
            ProbeCode::GetTaskMismatch => "get-task-mismatch",
            ProbeCode::CancelNotCanceled => "cancel-not-canceled",
            ProbeCode::CancelTerminalAccepted => "cancel-terminal-accepted",
            ProbeCode::SubscribeTerminalAccepted => "subscribe-terminal-accepted",
            ProbeCode::PushStallsStream => "push-stalls-stream",
            ProbeCode::ForeignTask => "foreign-task",
            ProbeCode::CardField => "card-field",
            ProbeCode::RpcEnvelope => "rpc-envelope",
            ProbeCode::ContextMismatch => "context-mismatch",
            ProbeCode::UnreadableAnswer => "unreadable-answer",
            ProbeCode::BindingMismatch => "binding-mismatch",
        }
    }

    /// The code spelled `text`, if it is one.
    pub fn parse(text: &str) -> Option<ProbeCode> {
        [
            ProbeCode::Hung,
            ProbeCode::GetTaskMismatch,
            ProbeCode::CancelNotCanceled,
            ProbeCode::CancelTerminalAccepted,
            ProbeCode::SubscribeTerminalAccepted,
            ProbeCode::PushStallsStream,
            ProbeCode::ForeignTask,
            ProbeCode::CardField,
            ProbeCode::RpcEnvelope,
            ProbeCode::ContextMismatch,
            ProbeCode::UnreadableAnswer,
            ProbeCode::BindingMismatch,
        ]
        .into_iter()
        .chain(STREAM_CODES.map(ProbeCode::Stream))
        .find(|c| c.code() == text)
    }

    /// What to fix, in a sentence, for the README's table and the page.
    pub fn advice(self) -> &'static str {
        match self {
            ProbeCode::Stream(code) => code.advice(),
            ProbeCode::Hung => {
                "A wait ran out: make execute() end with a final status on every path, and give \
                 blocking work a way to stop."
            }
            ProbeCode::GetTaskMismatch => {
                "GetTask disagrees with the stream: store every status and artifact you stream, \
                 and stream everything you store."
            }
            ProbeCode::CancelNotCanceled => {
                "A canceled task must end CANCELED: make cancel() write the canceled status and \
                 not raise, and stop the work it cancels."
            }
            ProbeCode::CancelTerminalAccepted => {
                "A finished task cannot be canceled: answer CancelTask with -32002 \
                 (TaskNotCancelableError)."
            }
            ProbeCode::SubscribeTerminalAccepted => {
                "A finished task has nothing to subscribe to: answer SubscribeToTask with an \
                 error (-32004 in A2A 1.0)."
            }
            ProbeCode::PushStallsStream => {
                "A slow webhook held up the task's stream: send push notifications off the path \
                 that delivers events (a queue or a background task with its own timeout), so a \
                 webhook's answer time never delays a client."
            }
            ProbeCode::ForeignTask => {
                "A task's stream carried another task's event: keep per-task data on the task \
                 (its context, its event queue), never on the executor, which serves every task \
                 at once."
            }
            ProbeCode::CardField => {
                "Complete the agent card: every field its protocol version requires, of the \
                 right type, with at least one skill and one input and output mode."
            }
            ProbeCode::RpcEnvelope => {
                "Answer in JSON-RPC 2.0: `\"jsonrpc\": \"2.0\"`, the request's `id` echoed, one \
                 of `result` and `error`, an integer error `code`."
            }
            ProbeCode::ContextMismatch => {
                "Write every event of a task with the task's own contextId, kept on the task, \
                 not on the executor."
            }
            ProbeCode::UnreadableAnswer => {
                "An answer could not be read: answer every call with JSON-RPC 2.0 (or the REST \
                 binding's JSON), stream each event as one `data:` line of JSON, and never answer \
                 a valid call with an HTTP error."
            }
            ProbeCode::BindingMismatch => {
                "Serve every binding from one request handler, each error in its form (A2A 1.0 §5.4)."
            }
        }
    }
}

impl std::fmt::Display for ProbeCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for ProbeCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

/// The agent probed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbedAgent {
    /// The name on its agent card.
    pub name: String,
    /// The URL given to `probe`.
    pub url: String,
    /// The wire spoken to it (`1.0` or `0.3` in `probe.json`).
    pub wire: Wire,
    /// The binding spoken to it (`jsonrpc` or `rest` in `probe.json`).
    pub binding: Binding,
    /// Whether the card offered that binding (else `--binding` asked for
    /// it, and it was spoken at the URL given).
    #[serde(skip_serializing_if = "is_true")]
    pub offered: bool,
    /// The headers sent with every request (`--header`), each as `NAME:
    /// <redacted>`: which were sent, never their values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
}

fn is_true(b: &bool) -> bool {
    *b
}

impl ProbedAgent {
    /// The binding spoken, as a card names it, when it was not JSON-RPC.
    pub fn spoke_other(&self) -> Option<&'static str> {
        (self.binding != Binding::JsonRpc).then(|| self.binding.card_name())
    }
}

/// How a header sent to the agent is written anywhere: its name only.
pub fn redacted(name: &str) -> String {
    format!("{name}: <redacted>")
}

/// How a probe ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// Nothing broken.
    Clean,
    /// Something broken: see its findings.
    Broken,
    /// Not run, because what it needs did not happen (say, the first task
    /// never finished, so there is no finished task to cancel).
    Skipped,
}

impl ProbeOutcome {
    const ALL: [ProbeOutcome; 3] = [
        ProbeOutcome::Clean,
        ProbeOutcome::Broken,
        ProbeOutcome::Skipped,
    ];

    /// `clean`, `broken` or `skipped`, as `probe.json` and the page spell it.
    pub fn name(self) -> &'static str {
        match self {
            ProbeOutcome::Clean => "clean",
            ProbeOutcome::Broken => "broken",
            ProbeOutcome::Skipped => "skipped",
        }
    }

    /// The outcome spelled `text`, if it is one.
    pub fn parse(text: &str) -> Option<ProbeOutcome> {
        ProbeOutcome::ALL.into_iter().find(|o| o.name() == text)
    }
}

impl Serialize for ProbeOutcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The most streams `--tasks` runs at once (SPEC §11).
pub const MAX_TASKS: usize = 64;

/// The `stream` probe run as several streams at once (`--tasks N`,
/// SPEC §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Load {
    /// How many streams ran at once.
    pub tasks: usize,
    /// How many of them were clean.
    pub clean: usize,
    /// How long the slowest took, in ms (unknown in records kept before
    /// calls were timed).
    pub slowest_ms: Option<u64>,
}

impl Load {
    /// `8 streams at once: 1 clean, the slowest 640 ms`.
    pub fn summary(&self) -> String {
        let slowest = match self.slowest_ms {
            Some(ms) => format!(", the slowest {ms} ms"),
            None => String::new(),
        };
        format!(
            "{} streams at once: {} clean{slowest}",
            self.tasks, self.clean
        )
    }
}

/// One probe's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeResult {
    /// Which probe.
    pub name: Probe,
    /// How it ended.
    pub outcome: ProbeOutcome,
    /// What happened, in a sentence.
    pub summary: String,
    /// The `stream` probe's streams, when it ran several at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<Load>,
    /// The codes of its findings, in order.
    pub findings: Vec<ProbeCode>,
    /// The raw captures it kept under `--out`, by file name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captures: Vec<String>,
    /// What each of its calls received, in order, as it came (an SSE body
    /// or a JSON-RPC response: what the capture reader reads; for `push`,
    /// the bodies the webhook was POSTed, one SSE event each); only in
    /// `probe.json`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
    /// The lab's scenario that explains the task it streamed, where the
    /// `stream` probe found something (issue 33; the command line's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<ScenarioOf>,
}

/// One finding of a probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeFinding {
    /// What is broken.
    pub code: ProbeCode,
    /// The probe that found it.
    pub probe: Probe,
    /// For people.
    pub message: String,
}

/// Everything `probe` found (SPEC §10's `--json`, and `probe.json` with
/// each probe's events).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeReport {
    /// [`PROBE_FORMAT`].
    pub format: String,
    /// The agent.
    pub agent: ProbedAgent,
    /// Every probe, in order.
    pub probes: Vec<ProbeResult>,
    /// Every finding, in order.
    pub findings: Vec<ProbeFinding>,
}

impl ProbeReport {
    /// An empty report on `agent`.
    pub fn new(agent: ProbedAgent) -> ProbeReport {
        ProbeReport {
            format: PROBE_FORMAT.to_string(),
            agent,
            probes: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// Adds a probe's result with its findings.
    pub fn push(&mut self, mut result: ProbeResult, findings: Vec<(ProbeCode, String)>) {
        result.findings = findings.iter().map(|(code, _)| *code).collect();
        if result.outcome != ProbeOutcome::Skipped {
            result.outcome = if findings.is_empty() {
                ProbeOutcome::Clean
            } else {
                ProbeOutcome::Broken
            };
        }
        for (code, message) in findings {
            self.findings.push(ProbeFinding {
                code,
                probe: result.name,
                message,
            });
        }
        self.probes.push(result);
    }

    /// The report without the events (what `--json` prints).
    pub fn to_json(&self) -> String {
        pretty_json(&self.lean())
    }

    /// The report without the events: what `--json` prints, and what a
    /// `--json` with more beside it (the baseline's differences) flattens.
    pub fn lean(&self) -> ProbeReport {
        let mut lean = self.clone();
        for probe in &mut lean.probes {
            probe.calls.clear();
        }
        lean
    }

    /// The report with what each probe's calls received: `probe.json`.
    pub fn to_file_json(&self) -> String {
        pretty_json(self)
    }

    /// A table per probe, then a summary line.
    pub fn to_text(&self) -> String {
        let binding = match self.agent.spoke_other() {
            Some(name) => format!(", {name}"),
            None => String::new(),
        };
        let mut out = format!(
            "agent {} at {} (A2A {}{binding})\n",
            self.agent.name, self.agent.url, self.agent.wire
        );
        if !self.agent.offered {
            out.push_str(&format!(
                "the card offers no {} interface: spoken at the URL given, as --binding asked\n",
                self.agent.binding.card_name()
            ));
        }
        for probe in &self.probes {
            // Upper case where something broke, so that it stands out.
            let outcome = match probe.outcome {
                ProbeOutcome::Broken => "BROKEN",
                other => other.name(),
            };
            out.push_str(&format!(
                "{:<20} {:<8} {}\n",
                probe.name, outcome, probe.summary
            ));
            for f in self.findings.iter().filter(|f| f.probe == probe.name) {
                out.push_str(&format!("    {}: {}\n", f.code, f.message));
            }
            if let Some(s) = &probe.scenario {
                out.push_str(&format!("    {s}\n"));
            }
        }
        if self.findings.is_empty() {
            out.push_str("ok: nothing broken\n");
        } else {
            out.push_str(&format!(
                "{} finding(s); what to fix:\n",
                self.findings.len()
            ));
            let mut seen: Vec<ProbeCode> = Vec::new();
            for f in &self.findings {
                if !seen.contains(&f.code) {
                    seen.push(f.code);
                    out.push_str(&format!("  {}: {}\n", f.code, f.code.advice()));
                }
            }
        }
        out
    }

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

/// Judges what a probe received, one body per call, read in order as one
/// capture (SPEC §8: a dropped stream and its resubscription are one
/// session), keeping each task's rows for the views and explaining each
/// task with a finding by a scenario. `wire` is the wire
/// the agent was spoken to in.
pub fn capture_of_calls(calls: &[&str], wire: Option<Wire>) -> Result<CaptureReport, ReadError> {
    let mut reader = CaptureReader::new(wire).keeping_rows().keeping_events();
    for body in calls {
        reader.read_bytes(super::records::stream_errors_read(body).as_bytes())?;
    }
    Ok(reader.finish().explained())
}
