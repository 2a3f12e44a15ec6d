//! `a2a-lab serve`: the page's release bundle, built by trunk and embedded
//! in the binary by the `page` feature (build.rs lists `dist/`), served on
//! 127.0.0.1 as files: the page runs in the browser as it does from any
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
    let server = match tiny_http::Server::http(("127.0.0.1", port)) {
        Ok(server) => server,
        Err(e) => return Ok(Output::bad(format!("serve: 127.0.0.1:{port}: {e}"))),
    };
    let port = server
        .server_addr()
        .to_ip()
        .map_or(port, |address| address.port());
    let url = format!("http://127.0.0.1:{port}/");
    writeln!(stdout, "The A2A Lifecycle Lab: {url} (Ctrl-C stops it)")?;
    stdout.flush()?;
    if open {
        page::open_in_browser(&url);
    }
    for request in server.incoming_requests() {
        let answer = page::answer(request.url());
        // A client gone before its answer is no reason to stop serving.
        let _ = request.respond(answer);
    }
    Ok(Output::exit(0))
}

#[cfg(feature = "page")]
mod page {
    use std::io::Cursor;

    use tiny_http::{Header, Response, StatusCode};

    // `FILES`: each file of the bundle, by name, with its bytes.
    include!(concat!(env!("OUT_DIR"), "/page_files.rs"));

    /// The answer to a GET of `url`: the bundle's file it names (`/` is
    /// the page), or 404. Queries are the page's to read.
    pub(super) fn answer(url: &str) -> Response<Cursor<&'static [u8]>> {
        let path = url.split(['?', '#']).next().unwrap_or_default();
        let name = match path.trim_start_matches('/') {
            "" => "index.html",
            name => name,
        };
        // The bytes are the binary's own: answered in place, never copied.
        let (status, headers, bytes): (u16, Vec<Header>, &'static [u8]) =
            match FILES.iter().find(|(file, _)| *file == name) {
                Some((file, bytes)) => (200, vec![content_type(file)], bytes),
                None => (404, Vec::new(), b"not found"),
            };
        Response::new(
            StatusCode(status),
            headers,
            Cursor::new(bytes),
            Some(bytes.len()),
            None,
        )
    }

    fn content_type(file: &str) -> Header {
        let kind = match file.rsplit('.').next() {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript; charset=utf-8",
            Some("css") => "text/css; charset=utf-8",
            Some("wasm") => "application/wasm",
            Some("json") => "application/json",
            Some("svg") => "image/svg+xml",
            Some("png") => "image/png",
            _ => "application/octet-stream",
        };
        Header::from_bytes("Content-Type", kind).expect("a valid header")
    }

    /// Asks the desktop to open `url`; where none can, the printed URL is
    /// the way in.
    pub(super) fn open_in_browser(url: &str) {
        let opener = if cfg!(target_os = "macos") {
            "open"
        } else if cfg!(windows) {
            "explorer"
        } else {
            "xdg-open"
        };
        let _ = std::process::Command::new(opener).arg(url).spawn();
    }
}
