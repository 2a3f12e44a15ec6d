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
    let listener = match std::net::TcpListener::bind(("127.0.0.1", port)) {
        Ok(listener) => listener,
        Err(e) => return Ok(Output::bad(format!("serve: 127.0.0.1:{port}: {e}"))),
    };
    let port = listener.local_addr().map_or(port, |address| address.port());
    let url = format!("http://127.0.0.1:{port}/");
    writeln!(stdout, "The A2A Lifecycle Lab: {url} (Ctrl-C stops it)")?;
    stdout.flush()?;
    if open {
        page::open_in_browser(&url);
    }
    // A thread per connection, for as long as the browser keeps it: the page
    // fetches its files over several connections at once (index.html
    // preloads the module beside its loaders), and each is answered whatever
    // the others do. (tiny_http's pool, used here before, could leave a
    // connection queued behind a kept-alive one, so the page never loaded.)
    for connection in listener.incoming() {
        let Ok(connection) = connection else { continue };
        // A client gone before its answer is no reason to stop serving.
        std::thread::spawn(move || page::answer(connection));
    }
    Ok(Output::exit(0))
}

#[cfg(feature = "page")]
mod page {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    // `FILES`: each file of the bundle, by name, with its bytes.
    include!(concat!(env!("OUT_DIR"), "/page_files.rs"));

    /// The most of a request's head that is read: a browser's GET is far
    /// less; more ends the connection.
    const MAX_HEAD: usize = 16 * 1024;

    /// Answers one connection's requests in turn until the client closes it
    /// (or is silent for a minute): a GET or HEAD gets the bundle's file its
    /// path names (`/` is the page) or 404; any other method 405, and the
    /// connection ends, as its body is not read.
    pub(super) fn answer(connection: TcpStream) -> std::io::Result<()> {
        connection.set_read_timeout(Some(Duration::from_secs(60)))?;
        let mut reader = BufReader::new(connection.try_clone()?);
        let mut writer = connection;
        loop {
            let mut request = String::new();
            if reader.read_line(&mut request)? == 0 {
                return Ok(());
            }
            let mut head = request.len();
            loop {
                let mut header = String::new();
                let read = reader.read_line(&mut header)?;
                head += read;
                if read == 0 || head > MAX_HEAD {
                    return Ok(());
                }
                if header.trim_end().is_empty() {
                    break;
                }
            }
            let mut words = request.split_whitespace();
            let (method, target) = (
                words.next().unwrap_or_default(),
                words.next().unwrap_or("/"),
            );
            if method != "GET" && method != "HEAD" {
                write!(writer, "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
                return Ok(());
            }
            let (status, kind, body) = file(target);
            write!(
                writer,
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )?;
            if method == "GET" {
                writer.write_all(body)?;
            }
            writer.flush()?;
        }
    }

    /// The bundle's file that `target` names (`/` is the page), with its
    /// status line and type, or 404. Queries are the page's to read.
    fn file(target: &str) -> (&'static str, &'static str, &'static [u8]) {
        let path = target.split(['?', '#']).next().unwrap_or_default();
        let name = match path.trim_start_matches('/') {
            "" => "index.html",
            name => name,
        };
        // The bytes are the binary's own: answered in place, never copied.
        match FILES.iter().find(|(file, _)| *file == name) {
            Some((file, bytes)) => ("200 OK", content_type(file), bytes),
            None => ("404 Not Found", "text/plain; charset=utf-8", b"not found"),
        }
    }

    fn content_type(file: &str) -> &'static str {
        match file.rsplit('.').next() {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript; charset=utf-8",
            Some("css") => "text/css; charset=utf-8",
            Some("wasm") => "application/wasm",
            Some("json") => "application/json",
            Some("svg") => "image/svg+xml",
            Some("png") => "image/png",
            _ => "application/octet-stream",
        }
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
