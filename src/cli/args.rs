//! The command line's words, defined once on clap: one subcommand per
//! command, the flags two commands share (`--json`, `--format`, `--wire`)
//! in one place each, and every value read by the same parser the old
//! messages came from. The help, the usage errors, the shell completions
//! and `docs/cli.md` all come from these definitions, so they cannot drift.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::model::evidence::probe::report::MAX_TASKS;
use crate::model::wire::rest::Binding;
use crate::model::wire::Wire;

/// How the exit codes read, under every help.
pub const EXIT_CODES: &str = "Exit codes: 0 nothing broken, 1 something broken, 2 bad input.";

/// `a2a-lab`: the A2A Lifecycle Lab's model on the command line.
#[derive(Parser, Debug)]
#[command(
    name = "a2a-lab",
    version,
    about = "The A2A Lifecycle Lab on the command line: simulate a scenario, reduce seed-form \
             ledger events, check a capture, probe a live agent.",
    after_help = EXIT_CODES,
    propagate_version = true
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate a scenario and print the export JSON the page downloads.
    #[command(after_help = EXIT_CODES)]
    Trace {
        /// The scenario as the lab's URL query, e.g. 'ending=never&cancel=3'
        /// (every key left out keeps its default).
        query: Option<String>,
    },
    /// Apply seed-form ledger events ([{"id","status","authorizationReceipt"?}])
    /// to a fresh task and print {status, sequence, accepted, rejected}.
    #[command(after_help = EXIT_CODES)]
    Reduce {
        /// A JSON array of the seed's ledger events.
        file: String,
    },
    /// Re-simulate an export and report differences, or judge a capture of
    /// real traffic (SSE, JSON Lines or a JSON array; A2A 1.0 or 0.3; files
    /// read in order as one capture) task by task through the ledger and
    /// the wire's schema.
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Check an agent's card, put the agent through its lifecycle (stream,
    /// get, cancel, cancel-terminal, resubscribe, subscribe-terminal) and
    /// judge what it answers. Each probe creates a task: probe your own
    /// agent or a test deployment.
    #[command(after_help = EXIT_CODES)]
    Probe(ProbeArgs),
    /// Serve the lab's page on 127.0.0.1 from inside this binary (built
    /// with the `page` feature): the same page, URL queries, Import and
    /// Export, with no toolchain. With --agent, Live: the page talks to
    /// that agent through a relay (only to it, only for this page, with
    /// the token in the URL printed) and judges every event as it arrives.
    /// Runs until stopped.
    #[command(after_help = EXIT_CODES)]
    Serve(ServeArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the command-line reference (docs/cli.md).
    #[command(hide = true)]
    Reference,
}

/// How a report is written: the flags `check` and `probe` share.
#[derive(Args, Debug, Clone, Default)]
pub struct ReportFlags {
    /// The same as --format json.
    #[arg(long)]
    pub json: bool,
    /// How the report is written: text, json, junit (JUnit XML) or sarif
    /// (SARIF 2.1.0).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<Format>,
}

impl ReportFlags {
    /// The format asked for; text by default.
    pub fn chosen(&self) -> Format {
        match (self.json, self.format) {
            (true, _) => Format::Json,
            (false, format) => format.unwrap_or(Format::Text),
        }
    }
}

/// The wire to read or speak, forced: the flag `check` and `probe` share.
#[derive(Args, Debug, Clone, Default)]
pub struct WireFlag {
    /// The A2A wire version: 1.0 or 0.3 (read from each event, or the card,
    /// when not given).
    #[arg(long, value_name = "VERSION", value_parser = parse_wire)]
    pub wire: Option<Wire>,
}

/// `check`'s arguments.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// How the report is written (`--json`, `--junit`, `--sarif`).
    #[command(flatten)]
    pub report: ReportFlags,
    /// The wire to read the events on (`--wire`), else each event's own.
    #[command(flatten)]
    pub wire: WireFlag,
    /// A webhook's log of POST bodies (JSON Lines, an array or one body per
    /// file), alone or beside the stream of the same task; repeatable,
    /// read in order as one log.
    #[arg(long = "webhook", value_name = "LOG")]
    pub webhooks: Vec<String>,
    /// An earlier capture (a downloaded live session, a recorded stream)
    /// to gate on: pass while no finding code is more frequent than there;
    /// repeatable, read in order as one capture.
    #[arg(long = "baseline", value_name = "CAPTURE")]
    pub baselines: Vec<String>,
    /// The files: an export, or a capture read in order.
    #[arg(value_name = "FILE")]
    pub paths: Vec<String>,
}

/// `serve`'s arguments.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// The port; 0 takes any free one (the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Open the page in the default browser as well.
    #[arg(long)]
    pub open: bool,
    /// Live: relay the page to this agent (its base URL), and only to it.
    /// The URL printed then carries this launch's token.
    #[arg(long, value_name = "URL", value_parser = parse_url)]
    pub agent: Option<String>,
    /// With --agent: a header sent on every request to the agent, such as
    /// its credentials; never sent to the page, never written down.
    #[arg(long = "header", value_name = "'NAME: VALUE'", value_parser = parse_header, requires = "agent")]
    pub headers: Vec<(String, String)>,
    /// With --agent: the binding to speak (jsonrpc, rest, grpc), else the
    /// card's.
    #[arg(long, value_name = "BINDING", value_parser = parse_one_binding, requires = "agent")]
    pub binding: Option<Binding>,
    /// With --agent: where its card is, when not at a well-known path.
    #[arg(long, value_name = "CARD_URL", value_parser = parse_card_url, requires = "agent")]
    pub card: Option<String>,
    /// With --agent: keep the session in this folder as it goes
    /// (session.jsonl, what `check` reads and the page downloads; with a
    /// card that declares push, the webhook's POSTs beside it in
    /// pushes.jsonl, for `check session.jsonl --webhook pushes.jsonl`).
    #[arg(long, value_name = "DIR", requires = "agent")]
    pub out: Option<String>,
    /// With --agent: how long one call may take, a stream included, in
    /// milliseconds (1 to 3600000; 300000 by default).
    #[arg(long = "timeout-ms", value_name = "MS", value_parser = parse_timeout, requires = "agent")]
    pub timeout_ms: Option<u64>,
}

/// `probe`'s arguments.
#[derive(Args, Debug, Clone)]
pub struct ProbeArgs {
    /// The agent's base URL (its card is under it).
    #[arg(value_name = "URL", value_parser = parse_url)]
    pub url: String,
    /// How the report is written (`--json`, `--junit`, `--sarif`).
    #[command(flatten)]
    pub report: ReportFlags,
    /// An earlier run's probe.json: pass when every probe has the same
    /// outcome and no finding is new.
    #[arg(long, value_name = "PROBE_JSON")]
    pub baseline: Option<String>,
    /// The wire to read the events on (`--wire`), else each event's own.
    #[command(flatten)]
    pub wire: WireFlag,
    /// The binding to speak: jsonrpc, rest or grpc (spoken at URL even when
    /// the card does not offer it), or all: every binding the card offers,
    /// compared (`binding-mismatch` where they disagree).
    #[arg(long, value_name = "BINDING", value_parser = parse_binding)]
    pub binding: Option<BindingArg>,
    /// Where the card is, when not at a well-known path (A2A 1.0 §8.2).
    #[arg(long, value_name = "CARD_URL", value_parser = parse_card_url)]
    pub card: Option<String>,
    /// Keep every raw answer, probe.json and records.json in this folder.
    #[arg(long, value_name = "DIR")]
    pub out: Option<String>,
    /// The text of the messages sent.
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
    /// Each probe's wait, in milliseconds (1 to 3600000; 10000 by default).
    #[arg(long = "timeout-ms", value_name = "MS", value_parser = parse_timeout)]
    pub timeout_ms: Option<u64>,
    /// Listen on 127.0.0.1 for push notifications and judge them (push).
    #[arg(long)]
    pub webhook: bool,
    /// The address the agent must POST to when it cannot reach 127.0.0.1
    /// (a public address that forwards to the probe's webhook).
    #[arg(long = "webhook-url", value_name = "URL", value_parser = parse_webhook_url)]
    pub webhook_url: Option<String>,
    /// A header sent on every request, 'NAME: VALUE' (repeatable); its
    /// value is written nowhere.
    #[arg(long = "header", value_name = "'NAME: VALUE'", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,
    /// Trust only the CA certificates in this PEM file for the agent's
    /// TLS (its card, and every binding), in place of the public roots.
    #[arg(long = "ca-file", value_name = "PEM_FILE")]
    pub ca_file: Option<String>,
    /// Run the stream probe as N streams at once, each judged on its own
    /// (1 to 64).
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_tasks)]
    pub tasks: usize,
}

/// How a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A table for people.
    Text,
    /// JSON.
    Json,
    /// JUnit XML.
    Junit,
    /// SARIF 2.1.0.
    Sarif,
}

fn parse_format(text: &str) -> Result<Format, String> {
    match text {
        "text" => Ok(Format::Text),
        "json" => Ok(Format::Json),
        "junit" => Ok(Format::Junit),
        "sarif" => Ok(Format::Sarif),
        other => Err(format!(
            "--format `{other}` is not text, json, junit or sarif"
        )),
    }
}

fn parse_wire(text: &str) -> Result<Wire, String> {
    Wire::parse(text).ok_or_else(|| format!("--wire `{text}` is not 1.0 or 0.3"))
}

/// `--binding`: one binding, or every one the card offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingArg {
    /// This binding.
    One(Binding),
    /// `all`.
    All,
}

fn parse_binding(text: &str) -> Result<BindingArg, String> {
    match text {
        "all" => Ok(BindingArg::All),
        _ => Binding::parse(text)
            .map(BindingArg::One)
            .ok_or_else(|| format!("--binding `{text}` is not jsonrpc, rest, grpc or all")),
    }
}

/// An http:// or https:// URL, the one check every URL argument gets.
fn http_url(text: &str, what: &str) -> Result<String, String> {
    match text.starts_with("http://") || text.starts_with("https://") {
        true => Ok(text.to_string()),
        false => Err(format!("{what}`{text}` is not an http:// or https:// URL")),
    }
}

fn parse_one_binding(text: &str) -> Result<Binding, String> {
    Binding::parse(text).ok_or_else(|| format!("--binding `{text}` is not jsonrpc, rest or grpc"))
}

fn parse_url(text: &str) -> Result<String, String> {
    http_url(text, "")
}

fn parse_card_url(text: &str) -> Result<String, String> {
    http_url(text, "--card ")
}

fn parse_webhook_url(text: &str) -> Result<String, String> {
    http_url(text, "--webhook-url ")
}

fn parse_timeout(text: &str) -> Result<u64, String> {
    text.parse()
        .ok()
        .filter(|ms| (1..=3_600_000).contains(ms))
        .ok_or_else(|| {
            format!("--timeout-ms `{text}` is not a number of milliseconds from 1 to 3600000")
        })
}

fn parse_tasks(text: &str) -> Result<usize, String> {
    text.parse()
        .ok()
        .filter(|n| (1..=MAX_TASKS).contains(n))
        .ok_or_else(|| format!("--tasks `{text}` is not a number of streams from 1 to {MAX_TASKS}"))
}

/// `NAME: VALUE`; the value is never repeated, in this message or any.
fn parse_header(text: &str) -> Result<(String, String), String> {
    text.split_once(':')
        .map(|(n, v)| (n.trim(), v.trim()))
        .filter(|(n, _)| {
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b))
        })
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .ok_or_else(|| {
            "--header needs 'NAME: VALUE' with a header name before the colon".to_string()
        })
}

/// What reading the arguments came to.
pub enum Parsed {
    /// A command to run.
    Run(Command),
    /// Help or the version, asked for: print it, exit 0.
    Print(String),
    /// A usage error: the message (naming the flag), exit 2.
    Bad(String),
}

/// Reads the arguments (without the program's name).
pub fn parse_args(args: &[String]) -> Parsed {
    let argv = std::iter::once("a2a-lab".to_string()).chain(args.iter().cloned());
    match Cli::try_parse_from(argv) {
        Ok(cli) => Parsed::Run(cli.command),
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => Parsed::Print(e.to_string()),
            _ => Parsed::Bad(usage_error(&e, args)),
        },
    }
}

/// A usage error as the lab says it: which command, what is wrong with
/// which flag, then the command's usage.
fn usage_error(e: &clap::Error, args: &[String]) -> String {
    let command = args
        .first()
        .filter(|c| Cli::command().find_subcommand(c.as_str()).is_some());
    let context = |kind: ContextKind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(s)) => s.join(", "),
        _ => String::new(),
    };
    // The flag's name without its value placeholder: `--timeout-ms`.
    let flag = context(ContextKind::InvalidArg);
    let flag = flag
        .split([' ', '='])
        .next()
        .unwrap_or_default()
        .to_string();
    let what = match e.kind() {
        // A value's own parser says what is wrong with it.
        ErrorKind::ValueValidation => match std::error::Error::source(e) {
            Some(why) => why.to_string(),
            None => format!("{flag}: {}", context(ContextKind::InvalidValue)),
        },
        ErrorKind::UnknownArgument if flag.starts_with('-') => format!("unknown flag `{flag}`"),
        ErrorKind::UnknownArgument if command.is_some_and(|c| c == "probe") => {
            format!("one URL only (`{flag}` is a second)")
        }
        ErrorKind::UnknownArgument => format!("unexpected argument `{flag}`"),
        ErrorKind::InvalidValue | ErrorKind::NoEquals => format!("{flag} needs a value"),
        ErrorKind::MissingRequiredArgument if command.is_some_and(|c| c == "probe") => {
            "no URL to probe".to_string()
        }
        ErrorKind::MissingRequiredArgument => format!("{flag} is missing"),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            "no command".to_string()
        }
        ErrorKind::InvalidSubcommand => format!(
            "unknown command or arguments starting at `{}`",
            context(ContextKind::InvalidSubcommand)
        ),
        _ => e
            .kind()
            .as_str()
            .unwrap_or("the arguments cannot be read")
            .to_string(),
    };
    match command {
        Some(c) => format!("{c}: {what}\n{}", usage_of(c)),
        None => format!("{what}\n{}", usage_of("")),
    }
}

/// The usage line of `command` (or of the whole tool), as the help says
/// it: `Usage: a2a-lab probe [OPTIONS] <URL>`.
pub fn usage_of(command: &str) -> String {
    let mut cli = Cli::command();
    match cli.find_subcommand_mut(command) {
        Some(sub) => format!("Usage: a2a-lab {}", usage_line(sub)),
        None => cli.render_usage().to_string(),
    }
}

/// A subcommand's usage without the word `Usage:`, from its own name on.
fn usage_line(sub: &mut clap::Command) -> String {
    let usage = sub.render_usage().to_string();
    usage.trim_start_matches("Usage: ").to_string()
}

/// Writes `shell`'s completion script.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn std::io::Write) {
    clap_complete::generate(shell, &mut Cli::command(), "a2a-lab", out);
}

/// The command-line reference as Markdown (docs/cli.md), from the same
/// definitions as the help.
pub fn reference() -> String {
    let cli = Cli::command();
    let mut out = String::from(
        "# `a2a-lab`: the command-line reference\n\n\
         Made from the same definitions as `a2a-lab --help` \
         (`cargo run --bin a2a-lab -- reference > docs/cli.md`); a test holds the two together.\n\n",
    );
    if let Some(about) = cli.get_about() {
        out.push_str(&format!("{about}\n\n{EXIT_CODES}\n"));
    }
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        out.push_str(&format!("\n## `a2a-lab {name}`\n\n"));
        if let Some(about) = sub.get_about() {
            out.push_str(&format!("{about}\n\n"));
        }
        let usage = sub.clone().render_usage().to_string();
        let usage = usage.trim_start_matches("Usage: ");
        out.push_str(&format!(
            "```\n{}\n```\n\n",
            usage.replacen(name, &format!("a2a-lab {name}"), 1)
        ));
        out.push_str("| argument | what it is |\n|---|---|\n");
        // Every command takes --help and --version; the table lists its own.
        let own = |a: &&clap::Arg| {
            !a.is_hide_set() && !["help", "version"].contains(&a.get_id().as_str())
        };
        for arg in sub.get_arguments().filter(own) {
            let shown = match arg.get_long() {
                Some(long) => {
                    let value = match arg.get_value_names() {
                        Some(names) if arg.get_action().takes_values() => {
                            format!(" {}", names.join(" "))
                        }
                        _ => String::new(),
                    };
                    format!("`--{long}{value}`")
                }
                None => format!(
                    "`{}`",
                    arg.get_value_names()
                        .map(|n| n.join(" "))
                        .unwrap_or_else(|| arg.get_id().to_string())
                ),
            };
            let help = arg
                .get_help()
                .map(|h| h.to_string().replace('\n', " "))
                .unwrap_or_default();
            out.push_str(&format!("| {shown} | {} |\n", help.replace('|', "\\|")));
        }
    }
    out
}
