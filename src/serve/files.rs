//! A set of files as routes: `serve`'s page (the bundle build.rs embeds)
//! or any other set (the tests'). GET and HEAD of a file its path names
//! (`/` is `index.html`), 404 for any other path, 405 with
//! `Allow: GET, HEAD` for any other method.

use axum::body::Body;
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;

/// Files by name, with their bytes (the binary's own: answered in place,
/// never copied).
pub type Bundle = &'static [(&'static str, &'static [u8])];

/// `files` as a router.
pub fn router(files: Bundle) -> Router {
    Router::new()
        .fallback(move |method: Method, uri: Uri| async move { answer(files, &method, &uri) })
}

fn answer(files: Bundle, method: &Method, uri: &Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return Response::builder()
            .status(StatusCode::METHOD_NOT_ALLOWED)
            .header(header::ALLOW, "GET, HEAD")
            .body(Body::empty())
            .unwrap_or_default();
    }
    // Queries are the page's to read.
    let name = match uri.path().trim_start_matches('/') {
        "" => "index.html",
        name => name,
    };
    // hyper sends a HEAD's headers alone, the length the body's.
    match files.iter().find(|(file, _)| *file == name) {
        Some((file, bytes)) => Response::builder()
            .header(header::CONTENT_TYPE, content_type(file))
            .body(Body::from(*bytes))
            .unwrap_or_default(),
        None => Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(Body::from("not found"))
            .unwrap_or_default(),
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
