//! `a2a-lab probe URL` (SPEC §10, §11, §16): the IO around the model. It
//! finds the agent's JSON-RPC, REST or gRPC endpoint on its card, runs the
//! six probes over it (HTTP, or gRPC's HTTP/2),
//! and hands what came back to the model's capture reader and ledger, which
//! judge it exactly as `check` judges a capture. Native only: nothing here
//! enters the page.

mod call;
mod grpc;
mod http;
pub mod live;
mod pump;
mod sse;
mod tls;
pub mod webhook;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::model::evidence::export::pretty_json;
use crate::model::evidence::probe::bindings::{compared, BindingRun};
use crate::model::evidence::probe::judge::ProbeJudge;
use crate::model::evidence::probe::plan::{PlanOptions, ProbePlan};
use crate::model::evidence::probe::records::ProbeRecords;
use crate::model::evidence::probe::report::{redacted, ProbeReport, ProbedAgent};
use crate::model::wire::card::{AgentCard, Endpoint, CARD_PATHS};
use crate::model::wire::rest::Binding;
use crate::model::wire::Wire;

use call::Caller;
use grpc::GrpcClient;
use http::{CallError, HttpClient};
use tls::Trust;
use webhook::WebhookServer;

/// What `probe` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The agent's base URL (its card is under it).
    pub url: String,
    /// The wire to speak, overriding the card's.
    pub wire: Option<Wire>,
    /// The binding to speak (`--binding`), else JSON-RPC when the card
    /// offers it, else REST, else gRPC.
    pub binding: Option<Binding>,
    /// `--binding all`: every binding the card offers, compared
    /// (`binding` is then ignored).
    pub all_bindings: bool,
    /// The card's URL (`--card`), when it is not at a well-known path
    /// (A2A 1.0 §8.2: a card URL configured beforehand).
    pub card: Option<String>,
    /// Where to keep the raw captures and `probe.json`.
    pub out: Option<PathBuf>,
    /// The text of the messages sent.
    pub message: String,
    /// Each probe's wait.
    pub timeout: Duration,
    /// Listen for push notifications (`--webhook`) and run the `push`
    /// probe.
    pub webhook: bool,
    /// The address the agent is told to POST to, when it cannot reach
    /// 127.0.0.1 (`--webhook-url`: a public address that forwards to the
    /// probe's webhook).
    pub webhook_url: Option<String>,
    /// Headers sent on every request to the agent (`--header`), such as
    /// its credentials; their values are written nowhere.
    pub headers: Vec<(String, String)>,
    /// How many streams the `stream` probe runs at once (`--tasks`).
    pub tasks: usize,
    /// The CA certificates (PEM) an agent's TLS certificate must chain
    /// to, in place of the public roots (`--ca-file`), on every binding.
    pub ca_file: Option<PathBuf>,
}

/// The message a probe sends when none is given.
pub const DEFAULT_MESSAGE: &str = "Where is my order BBS-1042?";
/// Each probe's wait when none is given.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// Probes the agent. `Err` says why it cannot be probed (exit 2).
pub fn probe(options: &Options) -> Result<ProbeReport, String> {
    // A bad --ca-file is bad input, said before anything is contacted.
    let trust = match &options.ca_file {
        Some(path) => Trust::ca_file(path)?,
        None => Trust::default(),
    };
    if !options.all_bindings {
        return run(options, &trust).map(|(report, _)| report);
    }
    // `--binding all`: the card read once for the list, then each binding
    // probed as `--binding B` would, its files in a folder of its own.
    let base = options.url.trim_end_matches('/');
    let client = http_client(base, options, &trust)?;
    let (_, card, _) = discover(&client, base, options)?;
    let card = AgentCard::parse(card.as_bytes()).map_err(|e| e.to_string())?;
    let mut runs = Vec::new();
    for binding in card.offered(options.wire, base) {
        let one = Options {
            binding: Some(binding),
            all_bindings: false,
            out: options.out.as_ref().map(|d| d.join(binding.name())),
            ..options.clone()
        };
        let (report, records) = run(&one, &trust)?;
        runs.push(BindingRun {
            binding,
            report,
            records,
        });
    }
    let report = compared(&runs).ok_or("the agent card offers no binding the probe speaks")?;
    if let Some(dir) = &options.out {
        let path = dir.join("probe.json");
        std::fs::write(&path, report.to_file_json())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(report)
}

fn http_client(base: &str, options: &Options, trust: &Trust) -> Result<HttpClient, String> {
    let mut client = HttpClient::new(base, trust)?;
    client.headers = options.headers.clone();
    Ok(client)
}

/// Probes the agent over one binding; returns what was found and what
/// was received.
fn run(options: &Options, trust: &Trust) -> Result<(ProbeReport, ProbeRecords), String> {
    let base = options.url.trim_end_matches('/');
    let mut client = http_client(base, options, trust)?;
    let (endpoint, card, card_url) = discover(&client, base, options)?;
    no_downgrade(&card_url, &endpoint, &options.headers)?;
    // Exactly `1.0`: @a2a-js/sdk's REST binding refuses `1` and `1.0.0`.
    if endpoint.wire == Wire::V1_0 {
        client.version_header = Some("1.0");
    }
    if let Some(dir) = &options.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    let salt = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let webhook = match options.webhook && endpoint.push {
        true => Some(WebhookServer::start()?),
        false => None,
    };
    let push = webhook.as_ref().map(|w| push_target(options, w, salt));
    let plan_options = PlanOptions {
        message: options.message.clone(),
        tasks: options.tasks,
        push,
        webhook: options.webhook,
        keep_files: options.out.is_some(),
    };
    let judge = ProbeJudge::new(endpoint.wire).on(endpoint.binding);
    let mut plan = ProbePlan::new(
        judge,
        &endpoint,
        Some(card),
        plan_options,
        ProbeReport::new(probed_agent(options, &endpoint)),
        format!("{salt:x}"),
    );
    // The card was read over HTTP; the calls go over the binding chosen.
    let grpc = match endpoint.binding {
        Binding::Grpc => {
            grpc::same_host(base, &endpoint.url)?;
            Some(GrpcClient::new(&endpoint.url, &options.headers, trust)?)
        }
        Binding::JsonRpc | Binding::Rest => None,
    };
    let caller: &dyn Caller = match &grpc {
        Some(grpc) => grpc,
        None => &client,
    };
    pump::pump(
        caller,
        &mut plan,
        options.timeout,
        options.out.as_deref(),
        webhook.as_ref(),
    )?;
    let (report, records) = plan.finish();
    if let Some(dir) = &options.out {
        keep_files(dir, &report, &records)?;
    }
    Ok((report, records))
}

/// Credentials (`--header`) never go in plain text to an agent whose card
/// came over https: an interface that does not speak TLS is refused
/// before any call is made over it.
fn no_downgrade(
    card_url: &str,
    endpoint: &Endpoint,
    headers: &[(String, String)],
) -> Result<(), String> {
    let https = |url: &str| {
        url.get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
    };
    let tls = match endpoint.binding {
        Binding::Grpc => grpc::speaks_tls(&endpoint.url),
        Binding::JsonRpc | Binding::Rest => https(&endpoint.url),
    };
    if headers.is_empty() || tls || !https(card_url) {
        return Ok(());
    }
    Err(format!(
        "refusing to send --header in plain text: the card came over https ({card_url}), \
         and its {} interface {} does not speak TLS",
        endpoint.binding.name(),
        endpoint.url
    ))
}

/// The agent as the report names it: its headers' values redacted.
fn probed_agent(options: &Options, endpoint: &Endpoint) -> ProbedAgent {
    ProbedAgent {
        name: endpoint.name.clone(),
        url: options.url.clone(),
        wire: endpoint.wire,
        binding: endpoint.binding,
        offered: endpoint.offered,
        headers: options
            .headers
            .iter()
            .map(|(name, _)| redacted(name))
            .collect(),
    }
}

/// Where the agent is told to POST its pushes (`--webhook-url` when the
/// webhook sits behind a forwarder) and the token it must send.
fn push_target(options: &Options, webhook: &WebhookServer, salt: u128) -> (String, String) {
    let token = format!("a2a-lab-token-{salt:x}");
    let Some(url) = &options.webhook_url else {
        return (webhook.url(), token);
    };
    // The forwarder needs the port the webhook listens on.
    eprintln!(
        "probe: the webhook listens on {}; the agent is told to POST to {url}",
        webhook.url()
    );
    (url.clone(), token)
}

/// What the judge read, kept in `--out` so that it can judge the run
/// again with no agent running (tests/fixtures/probe/ holds such records).
fn keep_files(dir: &Path, report: &ProbeReport, records: &ProbeRecords) -> Result<(), String> {
    let mut kept = vec![
        ("probe.json", report.to_file_json()),
        ("records.json", pretty_json(records)),
    ];
    if let Some(push) = records.push.as_ref().filter(|p| p.declared) {
        kept.push(("push.jsonl", push.log()));
    }
    for (name, text) in kept {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Reads the card (`--card`, else the first of [`CARD_PATHS`] that
/// answers 200) and picks the endpoint; returns the card as served, and
/// where it was, too.
fn discover(
    client: &HttpClient,
    base: &str,
    options: &Options,
) -> Result<(Endpoint, String, String), String> {
    let wait = options.timeout.min(Duration::from_secs(10));
    let urls: Vec<String> = match &options.card {
        Some(url) => vec![url.clone()],
        None => CARD_PATHS.iter().map(|p| format!("{base}{p}")).collect(),
    };
    let mut tried = Vec::new();
    for url in urls {
        let answer = client.get(&url, wait).map_err(|e| match e {
            CallError::TimedOut(_) => format!("{url}: {e}"),
            CallError::Tls(why) => why,
            CallError::Failed(why) => format!("cannot reach the agent: {why}"),
        })?;
        if answer.status != 200 {
            tried.push(format!("{url} answered HTTP {}", answer.status));
            continue;
        }
        let bytes = answer.bytes().map_err(|e| format!("{url}: {e}"))?;
        return AgentCard::parse(&bytes)
            .and_then(|card| card.endpoint(options.wire, options.binding, base))
            .map(|endpoint| {
                (
                    endpoint,
                    String::from_utf8_lossy(&bytes).into_owned(),
                    url.clone(),
                )
            })
            .map_err(|e| format!("{url}: {e}"));
    }
    let hint = match options.card {
        Some(_) => "",
        None => " (a card elsewhere: --card URL)",
    };
    Err(format!("no agent card: {}{hint}", tried.join("; ")))
}
