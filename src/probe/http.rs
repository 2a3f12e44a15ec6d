//! The probe's HTTP: one host only, every call with a deadline, every
//! answer bounded in size. Redirects are not followed by the client: one
//! to the same host is followed here, one to another host is refused.

use super::tls::{refusal, Trust};
use crate::model::wire::signs::SseHeaders;
use std::io::Read;
use std::time::{Duration, Instant};

use ureq::http::Response;
use ureq::Body;

/// The largest agent card or JSON answer read.
pub const MAX_JSON_BYTES: u64 = 4 << 20;
/// The most a stream may send before the probe stops reading it, on
/// every binding.
pub const MAX_STREAM_BYTES: u64 = 16 << 20;

/// What the probe says of a stream that sent more than
/// [`MAX_STREAM_BYTES`], on every binding.
pub fn stream_too_long() -> String {
    format!("the stream sent more than {MAX_STREAM_BYTES} bytes")
}
/// Redirects followed on the same host before giving up.
const MAX_REDIRECTS: usize = 3;

/// Why a call gave no answer.
#[derive(Debug)]
pub enum CallError {
    /// The deadline ran out after this long.
    TimedOut(Duration),
    /// The agent's TLS was refused ([`super::tls::refusal`]), said for
    /// people.
    Tls(String),
    /// Anything else, said for people.
    Failed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::TimedOut(waited) => write!(f, "no answer in {} ms", waited.as_millis()),
            CallError::Tls(why) | CallError::Failed(why) => f.write_str(why),
        }
    }
}

/// An answer: its status, content type and the open body.
pub struct HttpAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type`, lower case, without parameters.
    pub content_type: String,
    /// The headers that show which SDK's handler answered.
    pub sse_headers: SseHeaders,
    /// The body, not yet read.
    pub body: Box<dyn Read + Send>,
    /// When the call started, for the time a wait took.
    pub started: Instant,
}

impl HttpAnswer {
    /// Reads the whole body, up to [`MAX_JSON_BYTES`].
    pub fn bytes(self) -> Result<Vec<u8>, CallError> {
        let started = self.started;
        let mut out = Vec::new();
        self.body
            .take(MAX_JSON_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|e| read_error(&e, started))?;
        if out.len() as u64 > MAX_JSON_BYTES {
            return Err(CallError::Failed(format!(
                "the answer is larger than {MAX_JSON_BYTES} bytes"
            )));
        }
        Ok(out)
    }
}

/// A read error as a [`CallError`]: a timeout says how long it waited.
pub fn read_error(e: &std::io::Error, started: Instant) -> CallError {
    let timed_out = e.kind() == std::io::ErrorKind::TimedOut
        || e.get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
            .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)));
    if timed_out {
        CallError::TimedOut(started.elapsed())
    } else {
        CallError::Failed(format!("reading the answer: {e}"))
    }
}

/// The client for one agent.
pub struct HttpClient {
    agent: ureq::Agent,
    host: String,
    /// `A2A-Version` sent with every call after the card, when set.
    pub version_header: Option<&'static str>,
    /// Sent on every request, the card's included (`--header`). Their
    /// values are written nowhere.
    pub headers: Vec<(String, String)>,
}

impl HttpClient {
    /// A client that talks only to the host (and port) of `base`, and
    /// trusts `trust` over TLS.
    pub fn new(base: &str, trust: &Trust) -> Result<HttpClient, String> {
        let host = host_of(base).ok_or_else(|| format!("`{base}` is not an http(s) URL"))?;
        let agent = ureq::Agent::config_builder()
            .max_redirects(0)
            .max_redirects_will_error(false)
            .http_status_as_error(false)
            .user_agent(concat!("a2a-lab/", env!("CARGO_PKG_VERSION")))
            .tls_config(trust.ureq())
            .build()
            .new_agent();
        Ok(HttpClient {
            agent,
            host,
            version_header: None,
            headers: Vec::new(),
        })
    }

    /// `GET url`, within `deadline`.
    pub fn get(&self, url: &str, deadline: Duration) -> Result<HttpAnswer, CallError> {
        self.call(url, None, "application/json", deadline)
    }

    /// `POST url` with a JSON body, within `deadline` (for a stream, the
    /// deadline covers reading it to the end).
    pub fn post(
        &self,
        url: &str,
        body: &serde_json::Value,
        accept: &str,
        deadline: Duration,
    ) -> Result<HttpAnswer, CallError> {
        self.call(url, Some(body.to_string()), accept, deadline)
    }

    fn call(
        &self,
        url: &str,
        body: Option<String>,
        accept: &str,
        deadline: Duration,
    ) -> Result<HttpAnswer, CallError> {
        let started = Instant::now();
        let mut url = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            self.same_host(&url)?;
            let left = deadline.saturating_sub(started.elapsed());
            let answer = self.once(&url, body.as_deref(), accept, left, started)?;
            let status = answer.status().as_u16();
            if status == 401 || status == 403 {
                return Err(CallError::Failed(format!(
                    "{url} answered HTTP {status}: the agent wants credentials; give them with \
                     --header 'NAME: VALUE' (for example --header 'Authorization: Bearer …')"
                )));
            }
            if !(300..400).contains(&status) {
                return Ok(into_answer(answer, started));
            }
            let location = answer
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    CallError::Failed(format!("{url}: redirect {status} without a Location"))
                })?;
            url = resolve(&url, location);
        }
        Err(CallError::Failed(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }

    fn once(
        &self,
        url: &str,
        body: Option<&str>,
        accept: &str,
        left: Duration,
        started: Instant,
    ) -> Result<Response<Body>, CallError> {
        let timeout = Some(left.max(Duration::from_millis(1)));
        let result = match body {
            None => {
                let mut request = self
                    .agent
                    .get(url)
                    .config()
                    .timeout_global(timeout)
                    .build()
                    .header("Accept", accept);
                if let Some(version) = self.version_header {
                    request = request.header("A2A-Version", version);
                }
                for (name, value) in &self.headers {
                    request = request.header(name.as_str(), value.as_str());
                }
                request.call()
            }
            Some(body) => {
                let mut request = self
                    .agent
                    .post(url)
                    .config()
                    .timeout_global(timeout)
                    .build()
                    .header("Accept", accept)
                    .header("Content-Type", "application/json");
                if let Some(version) = self.version_header {
                    request = request.header("A2A-Version", version);
                }
                for (name, value) in &self.headers {
                    request = request.header(name.as_str(), value.as_str());
                }
                request.send(body)
            }
        };
        result.map_err(|e| match e {
            ureq::Error::Timeout(_) => CallError::TimedOut(started.elapsed()),
            ureq::Error::Rustls(tls) => CallError::Tls(refusal(url, &tls).unwrap_or_default()),
            ureq::Error::Io(io) => match refusal(url, &io) {
                Some(tls) => CallError::Tls(tls),
                None => CallError::Failed(format!("{url}: {io}")),
            },
            other => CallError::Failed(format!("{url}: {other}")),
        })
    }

    fn same_host(&self, url: &str) -> Result<(), CallError> {
        match host_of(url) {
            Some(host) if host == self.host => Ok(()),
            Some(host) => Err(CallError::Failed(format!(
                "refusing to follow {url}: {host} is not the host probed ({})",
                self.host
            ))),
            None => Err(CallError::Failed(format!("`{url}` is not an http(s) URL"))),
        }
    }
}

fn into_answer(answer: Response<Body>, started: Instant) -> HttpAnswer {
    let status = answer.status().as_u16();
    let content_type = answer
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let sse_headers = SseHeaders::of(
        answer
            .headers()
            .iter()
            .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?))),
    );
    HttpAnswer {
        status,
        content_type,
        sse_headers,
        body: Box::new(answer.into_body().into_reader()),
        started,
    }
}

/// `scheme://host[:port]` of an http(s) URL, lower case.
pub fn host_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    Some(format!("{scheme}://{}", authority.to_ascii_lowercase()))
}

/// `location` made absolute against `base`.
pub fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let origin = host_of(base).unwrap_or_default();
    if let Some(path) = location.strip_prefix('/') {
        return format!("{origin}/{path}");
    }
    let dir = match base.rfind('/') {
        Some(cut) if cut > origin.len() => &base[..=cut],
        _ => return format!("{origin}/{location}"),
    };
    format!("{dir}{location}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_redirect_targets() {
        assert_eq!(
            host_of("http://127.0.0.1:9/a/b").as_deref(),
            Some("http://127.0.0.1:9")
        );
        assert_eq!(host_of("ftp://x/"), None);
        assert_eq!(host_of("http://user@evil/"), None);
        assert_eq!(resolve("http://h:1/a/b", "/c"), "http://h:1/c");
        assert_eq!(resolve("http://h:1/a/b", "c"), "http://h:1/a/c");
        assert_eq!(resolve("http://h:1", "c"), "http://h:1/c");
        assert_eq!(resolve("http://h:1/a", "http://o/"), "http://o/");
    }
}
