//! The connection doctor: what the relay found when it reached for the
//! agent ([`Connect`]), read as ordered steps ([`steps`]), each saying
//! what held or failed and, when one failed, the fix. The relay reads
//! them and sends the page a [`Diagnosis`]: the page shows the steps and
//! carries none of their words. The card is the agent's: untrusted,
//! read here as data and shown by the page as text.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::evidence::probe::request::no_list;
use crate::model::wire::card::{AgentCard, Endpoint};
use crate::model::wire::rest::Binding;
use crate::model::wire::Wire;

/// One place the relay looked for the card, and what it got there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardTry {
    /// Where.
    pub url: String,
    /// The HTTP status, when an answer came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Why no answer came, or why the answer is not a card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The interface the relay speaks to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spoken {
    /// Its URL (the card's, with no credential).
    pub url: String,
    /// The wire spoken there.
    pub wire: Wire,
    /// The binding.
    pub binding: Binding,
    /// The card offers it (else `--binding` named one it does not list).
    pub offered: bool,
    /// The card declares push notifications.
    pub push: bool,
}

impl Spoken {
    /// The interface of an endpoint the card gave.
    pub fn of(endpoint: &Endpoint) -> Spoken {
        Spoken {
            url: endpoint.url.clone(),
            wire: endpoint.wire,
            binding: endpoint.binding,
            offered: endpoint.offered,
            push: endpoint.push,
        }
    }
}

/// What a call with the credentials given got, before any task: a
/// GetTask of a task that does not exist, which an agent that takes the
/// credentials answers with an error of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reached {
    /// The HTTP status (gRPC: 401 for UNAUTHENTICATED, 403 for
    /// PERMISSION_DENIED, else 200), when an answer came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Why no answer came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the relay sends headers of the user's (`--header`): only
    /// that they are there, never their names' values.
    pub credentials: bool,
}

/// What the relay found when it reached for the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connect {
    /// The agent, as named on the command line.
    pub agent: String,
    /// Where the card was looked for, in order.
    pub tried: Vec<CardTry>,
    /// The card as served, when one was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    /// The binding asked for (`--binding`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    /// The interface chosen, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<Spoken>,
    /// Why there is none, when the card was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The first call's answer, when an interface was chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
}

/// What the relay found and the doctor's steps on it: the answer of the
/// relay's connect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The card as served, when one was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    /// What was found.
    pub connect: Connect,
    /// Why the interface has no ListTasks, when it has none (the page
    /// says it beside List, in the relay's words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_list: Option<String>,
}

/// What the page reads of a [`Diagnosis`]: the steps and the card, to
/// show (the rest is the CLI's and the tests').
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DoctorView {
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The card as served, when one was found.
    #[serde(default)]
    pub card: Option<String>,
    /// Why List is off, when it is ([`Diagnosis::no_list`]).
    #[serde(default)]
    pub no_list: Option<String>,
}

impl Diagnosis {
    /// The steps on what was found.
    pub fn of(connect: Connect) -> Diagnosis {
        Diagnosis {
            steps: steps(&connect),
            card: connect.card.clone(),
            no_list: connect.interface.as_ref().and_then(|i| no_list(i.wire)),
            connect,
        }
    }
}

/// How a step came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepVerdict {
    /// It holds.
    Ok,
    /// It holds, with something to know.
    Warn,
    /// It stops the session; the step says the fix.
    Fail,
    /// Not reached, an earlier step failed.
    Skipped,
}

/// One step of the doctor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// What is checked.
    pub name: String,
    /// How it came out.
    pub verdict: StepVerdict,
    /// What was found.
    pub said: String,
    /// What to do, when it did not hold.
    pub fix: Option<String>,
}

/// The steps, in order: the card, the version, the binding, the
/// credentials. A step after a failed one is skipped.
pub fn steps(connect: &Connect) -> Vec<Step> {
    let mut steps = vec![card_step(connect)];
    let card = connect
        .card
        .as_deref()
        .and_then(|text| AgentCard::parse(text.as_bytes()).ok());
    match (&card, &connect.interface) {
        (Some(card), Some(interface)) => {
            steps.push(version_step(card, interface));
            steps.push(binding_step(connect, interface));
            steps.push(credentials_step(connect));
        }
        (Some(_), None) => {
            steps.push(step(
                "Version",
                StepVerdict::Skipped,
                "no interface to speak to".into(),
                None,
            ));
            steps.push(step(
                "Binding",
                StepVerdict::Fail,
                connect
                    .problem
                    .clone()
                    .unwrap_or_else(|| "the card offers no interface the lab speaks".into()),
                Some(
                    "list a JSON-RPC, HTTP+JSON or GRPC interface in the card's \
                     supportedInterfaces (0.3: url and preferredTransport)"
                        .into(),
                ),
            ));
            steps.push(skipped("Credentials"));
        }
        (None, _) => {
            for name in ["Version", "Binding", "Credentials"] {
                steps.push(skipped(name));
            }
        }
    }
    steps
}

/// Whether the steps let a session start.
pub fn connected(steps: &[Step]) -> bool {
    steps
        .iter()
        .all(|s| matches!(s.verdict, StepVerdict::Ok | StepVerdict::Warn))
}

fn step(name: &str, verdict: StepVerdict, said: String, fix: Option<String>) -> Step {
    Step {
        name: name.to_string(),
        verdict,
        said,
        fix,
    }
}

fn skipped(name: &str) -> Step {
    step(name, StepVerdict::Skipped, "not reached".into(), None)
}

fn card_step(connect: &Connect) -> Step {
    let found = connect
        .tried
        .iter()
        .find(|t| t.status == Some(200) && t.error.is_none());
    let before: Vec<String> = connect
        .tried
        .iter()
        .take_while(|t| Some(*t) != found)
        .map(|t| match (t.status, &t.error) {
            (_, Some(e)) => format!("{}: {e}", t.url),
            (Some(s), None) => format!("{} answered HTTP {s}", t.url),
            (None, None) => format!("{}: no answer", t.url),
        })
        .collect();
    match (found, &connect.card) {
        (Some(t), Some(_)) if before.is_empty() => {
            step("Card", StepVerdict::Ok, format!("read at {}", t.url), None)
        }
        (Some(t), Some(_)) => step(
            "Card",
            StepVerdict::Warn,
            format!("read at {} (after {})", t.url, before.join("; ")),
            Some("serve it at /.well-known/agent-card.json, where A2A 1.0 §8.2 puts it".into()),
        ),
        _ => step(
            "Card",
            StepVerdict::Fail,
            match before.is_empty() {
                true => format!("no card under {}", connect.agent),
                false => before.join("; "),
            },
            Some(
                "serve the card at URL/.well-known/agent-card.json (A2A 1.0 §8.2), \
                 or restart with --card CARD_URL"
                    .into(),
            ),
        ),
    }
}

fn version_step(card: &AgentCard, interface: &Spoken) -> Step {
    let spoken = interface.wire.name();
    let declared = card
        .supported_interfaces
        .iter()
        .chain(&card.additional_interfaces)
        .filter_map(|i| i.protocol_version.as_deref())
        .chain(card.protocol_version.as_deref())
        .map(str::to_string)
        .collect::<Vec<_>>();
    if declared.is_empty() {
        return step(
            "Version",
            StepVerdict::Warn,
            format!("the card declares no protocolVersion; the lab speaks A2A {spoken}, by the card's shape"),
            Some("declare protocolVersion on each interface (A2A 1.0 §8.2)".into()),
        );
    }
    let major = |v: &str| v.split('.').take(2).collect::<Vec<_>>().join(".");
    let speaks = declared.iter().any(|v| major(v) == spoken);
    match speaks {
        true => step(
            "Version",
            StepVerdict::Ok,
            format!(
                "the card declares {}; the lab speaks A2A {spoken}",
                declared.join(", ")
            ),
            None,
        ),
        false => step(
            "Version",
            StepVerdict::Warn,
            format!(
                "the card declares {}, the lab speaks A2A {spoken}",
                declared.join(", ")
            ),
            Some("declare the version the interface speaks (A2A 1.0 §3.6)".into()),
        ),
    }
}

fn binding_step(connect: &Connect, interface: &Spoken) -> Step {
    let said = format!(
        "{} at {}{}",
        interface.binding.card_name(),
        interface.url,
        if interface.push {
            ", push declared"
        } else {
            ""
        }
    );
    match (interface.offered, connect.binding) {
        (true, _) => step("Binding", StepVerdict::Ok, said, None),
        (false, _) => step(
            "Binding",
            StepVerdict::Warn,
            format!("{said}: spoken because --binding asked, the card does not list it"),
            Some("list the interface in the card's supportedInterfaces".into()),
        ),
    }
}

fn credentials_step(connect: &Connect) -> Step {
    let Some(reached) = &connect.reached else {
        return skipped("Credentials");
    };
    let schemes = connect
        .card
        .as_deref()
        .map(security_schemes)
        .unwrap_or_default();
    let declared = match schemes.is_empty() {
        true => "the card declares no securitySchemes".to_string(),
        false => format!("the card declares {}", schemes.join(", ")),
    };
    match (reached.status, &reached.error) {
        (_, Some(e)) => step(
            "Credentials",
            StepVerdict::Fail,
            format!("no answer from the interface: {e}"),
            Some("check that the agent listens at the interface's URL its card gives".into()),
        ),
        (Some(status @ (401 | 403)), None) => {
            let what = if status == 401 {
                "asks for credentials"
            } else {
                "refuses the credentials sent"
            };
            let fix = match (schemes.is_empty(), reached.credentials) {
                (true, _) => "declare the scheme the agent asks for in the card's securitySchemes (A2A 1.0 §4.5), so that clients know what to send".to_string(),
                (false, false) => "restart with --header 'NAME: VALUE' carrying what the scheme asks for".to_string(),
                (false, true) => "check the value given with --header against what the scheme asks for".to_string(),
            };
            step(
                "Credentials",
                StepVerdict::Fail,
                format!("HTTP {status}: the agent {what}; {declared}"),
                Some(fix),
            )
        }
        (status, None) => step(
            "Credentials",
            StepVerdict::Ok,
            format!(
                "the interface answers{}; {declared}",
                status.map_or(String::new(), |s| format!(" (HTTP {s})"))
            ),
            None,
        ),
    }
}

/// Each security scheme the card declares, as `name (kind)`.
pub fn security_schemes(card: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<Value>(card) else {
        return Vec::new();
    };
    let Some(schemes) = value.get("securitySchemes").and_then(Value::as_object) else {
        return Vec::new();
    };
    schemes
        .iter()
        .map(|(name, scheme)| {
            // 0.3 says `type`; 1.0 wraps each kind (`httpAuthSecurityScheme`).
            let kind = scheme
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| scheme.as_object().and_then(|o| o.keys().next().cloned()))
                .unwrap_or_else(|| "?".into());
            format!("{name} ({kind})")
        })
        .collect()
}
