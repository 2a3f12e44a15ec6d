//! Who may use a server that acts for the user (`serve --agent`): only
//! the page it serves, in the browser it was opened in. A request must
//! name the loopback address the server listens on as its Host (a name
//! that resolves there by DNS rebinding names another), an Origin, when
//! the browser sends one, of that same address, and, to reach the relay,
//! the token made at launch. Without these, any web page open in the same
//! browser could drive the agent with the user's credentials
//! (CVE-2025-49596, the MCP Inspector's proxy).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// The header the page sends the token in (a header, so that a form or a
/// link on another site cannot carry it, and a script there must ask the
/// browser's preflight first, which the gate refuses).
pub const TOKEN_HEADER: &str = "x-a2a-lab-token";

/// What a request must show.
#[derive(Debug, Clone)]
pub struct Gate {
    port: u16,
    token: String,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its Host is not the loopback address served.
    Host,
    /// Its Origin is another site's.
    Origin,
    /// It carries no token, or another one.
    Token,
}

impl Refusal {
    /// What the refused client is told.
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Host => "refused: the Host is not this server's loopback address",
            Refusal::Origin => "refused: the request comes from another site",
            Refusal::Token => "refused: no launch token, or not this launch's",
        }
    }
}

impl Gate {
    /// A gate for a server on 127.0.0.1:`port` whose launch token is
    /// `token`.
    pub fn new(port: u16, token: String) -> Gate {
        Gate { port, token }
    }

    /// The addresses the page may be opened at.
    fn own(&self, authority: &str) -> bool {
        [
            format!("127.0.0.1:{}", self.port),
            format!("localhost:{}", self.port),
        ]
        .iter()
        .any(|own| own.eq_ignore_ascii_case(authority))
    }

    /// Whether a request with these headers may have the page's files.
    pub fn page(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(|h| self.own(h)) {
            return Err(Refusal::Host);
        }
        match headers.get(header::ORIGIN).map(|o| o.to_str()) {
            None => Ok(()),
            Some(Ok(origin)) if origin.strip_prefix("http://").is_some_and(|a| self.own(a)) => {
                Ok(())
            }
            Some(_) => Err(Refusal::Origin),
        }
    }

    /// Whether a request with these headers may use the relay.
    pub fn relay(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        self.page(headers)?;
        // A fetch from another site says so, whatever its Origin.
        let site = headers.get("sec-fetch-site").and_then(|s| s.to_str().ok());
        if site.is_some_and(|s| s == "cross-site" || s == "same-site") {
            return Err(Refusal::Origin);
        }
        let sent = headers.get(TOKEN_HEADER).map(|t| t.as_bytes());
        match sent {
            Some(sent) if same(sent, self.token.as_bytes()) => Ok(()),
            _ => Err(Refusal::Token),
        }
    }
}

/// Compares a token in time that does not depend on where it differs.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// A token for this launch: 128 bits from the system's randomness, in
/// hex.
pub fn launch_token() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|e| format!("no randomness for the token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Around every route: the page's files need the Host and Origin, the
/// relay (`/live/`) the token too; a refusal is 403 with its reason.
pub async fn guard(
    State(gate): State<std::sync::Arc<Gate>>,
    request: Request,
    next: Next,
) -> Response {
    let checked = match request.uri().path().starts_with("/live/") {
        true => gate.relay(request.headers()),
        false => gate.page(request.headers()),
    };
    match checked {
        Ok(()) => next.run(request).await,
        Err(refusal) => Response::builder()
            .status(StatusCode::FORBIDDEN)
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(Body::from(refusal.message()))
            .unwrap_or_default(),
    }
}
