//! `a2a-lab serve`: the page's release bundle, built by trunk and embedded
//! in the binary by the `page` feature (build.rs lists `dist/`), served on
//! 127.0.0.1 as files by the lab's one server stack ([`crate::serve`],
//! with its limits): the page runs in the browser as it does from any
//! other host. A binary built without the feature says how to get the page.

use std::io::Write;

use super::Output;

/// What a binary without the page says.
#[cfg(not(feature = "page"))]
const NO_PAGE: &str = "serve: this a2a-lab was built without the page. Build the page \
(`trunk build --release`), then this binary with it (`cargo build --release --features page`), \
or serve the lab from a checkout with `bash scripts/serve.sh`.";

/// Serves the page on 127.0.0.1:`port` until the process is stopped.
#[cfg(not(feature = "page"))]
pub fn serve(_port: u16, _open: bool, _stdout: &mut dyn Write) -> std::io::Result<Output> {
    Ok(Output::bad(NO_PAGE))
}

/// Serves the page on 127.0.0.1:`port` until the process is stopped.
#[cfg(feature = "page")]
pub fn serve(port: u16, open: bool, stdout: &mut dyn Write) -> std::io::Result<Output> {
    use crate::serve::{files, Bound, Limits};
    let bound = match Bound::local(port, Limits::default()) {
        Ok(bound) => bound,
        Err(e) => return Ok(Output::bad(format!("serve: {e}"))),
    };
    let url = format!("http://127.0.0.1:{}/", bound.addr().port());
    writeln!(stdout, "The A2A Lifecycle Lab: {url} (Ctrl-C stops it)")?;
    stdout.flush()?;
    if open {
        open_in_browser(&url);
    }
    // The page fetches its files over several connections at once
    // (index.html preloads the module beside its loaders): each is a task
    // of its own, answered whatever the others do.
    match bound.run(files::router(page::FILES)) {
        Ok(()) => Ok(Output::exit(0)),
        Err(e) => Ok(Output::bad(format!("serve: {e}"))),
    }
}

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
