//! What `a2a-lab probe` found out about a live agent (SPEC §10): each
//! probe's outcome and findings, and, in the `probe.json` it keeps, the
//! events each probe received, so that the page's Import can show every
//! probe as a trace. Pure data: the probing itself is native only
//! (`crate::probe`).

mod codes;
mod read;

pub use codes::{Probe, ProbeCode};

use serde::Serialize;

use crate::model::evidence::capture::Wire;
use crate::model::evidence::export::pretty_json;
use crate::model::evidence::scenario_of::ScenarioOf;
use crate::model::wire::rest::Binding;

/// The `format` of a `probe.json`.
pub const PROBE_FORMAT: &str = "a2a-lifecycle-lab/probe";

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
}
