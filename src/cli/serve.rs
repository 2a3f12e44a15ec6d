//! `a2a-lab serve`: the page's release bundle, built by trunk and embedded
//! in the binary by the `page` feature (build.rs lists `dist/`), served on
//! 127.0.0.1 as files by the lab's one server stack ([`crate::serve`],
//! with its limits): the page runs in the browser as it does from any
//! other host. With `--agent`, Live: the relay to that agent beside the
//! files, behind the gate, and the URL printed carries this launch's
//! token. A binary built without the feature says how to get the page.

use std::io::Write;

use super::args::ServeArgs;
use super::Output;

/// What a binary without the page says.
#[cfg(not(feature = "page"))]
const NO_PAGE: &str = "serve: this a2a-lab was built without the page. Build the page \
(`trunk build --release`), then this binary with it (`cargo build --release --features page`), \
or serve the lab from a checkout with `bash scripts/serve.sh`.";

/// Serves the page on 127.0.0.1 until the process is stopped.
#[cfg(not(feature = "page"))]
pub fn serve(_args: &ServeArgs, _stdout: &mut dyn Write) -> std::io::Result<Output> {
    Ok(Output::bad(NO_PAGE))
}

/// Serves the page (and with `--agent`, the relay) on 127.0.0.1 until
/// the process is stopped.
#[cfg(feature = "page")]
pub fn serve(args: &ServeArgs, stdout: &mut dyn Write) -> std::io::Result<Output> {
    use crate::serve::{files, live, Bound, Limits};
    let bound = match Bound::local(args.port, Limits::default()) {
        Ok(bound) => bound,
        Err(e) => return Ok(Output::bad(format!("serve: {e}"))),
    };
    let port = bound.addr().port();
    let (router, url) = match &args.agent {
        None => (
            files::router(page::FILES),
            format!("http://127.0.0.1:{port}/"),
        ),
        Some(_) => match live::LiveServer::launch(port, agent_options(args)) {
            Ok(live) => {
                let url = live.page_url();
                (live.router(files::router(page::FILES)), url)
            }
            Err(e) => return Ok(Output::bad(format!("serve: {e}"))),
        },
    };
    writeln!(stdout, "The A2A Lifecycle Lab: {url} (Ctrl-C stops it)")?;
    stdout.flush()?;
    if args.open {
        open_in_browser(&url);
    }
    // The page fetches its files over several connections at once
    // (index.html preloads the module beside its loaders): each is a task
    // of its own, answered whatever the others do.
    match bound.run(router) {
        Ok(()) => Ok(Output::exit(0)),
        Err(e) => Ok(Output::bad(format!("serve: {e}"))),
    }
}

/// The agent `--agent` and its flags name.
#[cfg(feature = "page")]
fn agent_options(args: &ServeArgs) -> crate::probe::live::AgentOptions {
    crate::probe::live::AgentOptions {
        url: args.agent.clone().unwrap_or_default(),
        headers: args.headers.clone(),
        binding: args.binding,
        card: args.card.clone(),
        wire: None,
        timeout: std::time::Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)),
        out: args.out.as_ref().map(std::path::PathBuf::from),
    }
}

/// How long one live call may take when `--timeout-ms` is not given: a
/// long task's stream, watched as it runs.
#[cfg(feature = "page")]
const DEFAULT_TIMEOUT_MS: u64 = 300_000;

#[cfg(feature = "page")]
mod page {
    // `FILES`: each file of the bundle, by name, with its bytes.
    include!(concat!(env!("OUT_DIR"), "/page_files.rs"));
}

/// Asks the desktop to open `url`; where none can, the printed URL is the
/// way in.
#[cfg(feature = "page")]
fn open_in_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(opener).arg(url).spawn();
}
