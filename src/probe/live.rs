//! The relay's side of Live (`a2a-lab serve --agent`): it reaches for the
//! one agent named on the command line (the card, the interface, a first
//! call with the credentials given), then makes each call the page asks
//! for over the probe's own callers, handing every answer back as it
//! arrives. The requests are the probe's builder's, aimed at the card's
//! interface on the agent's host: the page names a call, never a target.
//! The credentials (`--header`) live in the callers and nowhere else.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::model::evidence::live::ask::LiveAsk;
use crate::model::evidence::live::doctor::{CardTry, Connect, Reached, Spoken};
use crate::model::evidence::live::frame::{sent, status_text, CallEnded, Frame};
use crate::model::evidence::probe::records::AnswerEnd;
use crate::model::evidence::probe::request::{Method, Request, Requests};
use crate::model::wire::card::{AgentCard, CARD_PATHS};
use crate::model::wire::rest::Binding;
use crate::model::wire::Wire;

use super::call::{millis, Caller, Flow};
use super::grpc::{self, GrpcClient};
use super::http::{CallError, HttpClient};
use super::tls::Trust;

/// What a session keeps in place of the webhook's token.
pub const HIDDEN_TOKEN: &str = "(the webhook's token, kept by the relay)";

/// The agent a relay serves, as named on the command line.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// Its base URL.
    pub url: String,
    /// Sent on every request to it (`--header`); never written anywhere.
    pub headers: Vec<(String, String)>,
    /// The binding to speak (`--binding`), else the card's choice.
    pub binding: Option<Binding>,
    /// Where its card is (`--card`), when not at a well-known path.
    pub card: Option<String>,
    /// The wire to speak, overriding the card's (`--wire`).
    pub wire: Option<Wire>,
    /// How long one call may take (a stream included).
    pub timeout: Duration,
    /// Where the relay keeps the session as it goes (`--out`): the
    /// capture `check` reads, `session.jsonl`, each line as it came.
    pub out: Option<std::path::PathBuf>,
}

/// An agent reached: the caller over the interface chosen and the
/// requests' builder.
pub struct Reachable {
    caller: Box<dyn Caller + Send>,
    requests: Mutex<Requests>,
    timeout: Duration,
}

/// Reaches for the agent: the card, then the interface, then a first call
/// (a GetTask of a task that does not exist) with the credentials given.
/// What was found is the doctor's to read; the agent is reachable only
/// when a call got an answer.
pub fn connect(options: &AgentOptions) -> (Connect, Option<Reachable>) {
    let base = options.url.trim_end_matches('/');
    let mut connect = Connect {
        agent: options.url.clone(),
        tried: Vec::new(),
        card: None,
        binding: options.binding,
        interface: None,
        problem: None,
        reached: None,
    };
    let trust = Trust::default();
    let mut client = match HttpClient::new(base, &trust) {
        Ok(client) => client,
        Err(e) => {
            connect.problem = Some(e);
            return (connect, None);
        }
    };
    client.headers = options.headers.clone();
    let wait = options.timeout.min(Duration::from_secs(10));
    let urls: Vec<String> = match &options.card {
        Some(url) => vec![url.clone()],
        None => CARD_PATHS.iter().map(|p| format!("{base}{p}")).collect(),
    };
    for url in urls {
        let (status, error, bytes) = match client.get(&url, wait) {
            Err(CallError::TimedOut(_)) => (None, Some("no answer in time".into()), None),
            Err(CallError::Tls(why) | CallError::Failed(why)) => (refused(&why), Some(why), None),
            Ok(answer) => {
                let status = answer.status;
                match answer.bytes() {
                    Ok(bytes) if status == 200 => (Some(status), None, Some(bytes)),
                    Ok(_) => (Some(status), None, None),
                    Err(e) => (Some(status), Some(e.to_string()), None),
                }
            }
        };
        let card = bytes.map(|b| {
            (
                AgentCard::parse(&b),
                String::from_utf8_lossy(&b).into_owned(),
            )
        });
        let error = match &card {
            Some((Err(e), _)) => Some(format!("not a card: {e}")),
            _ => error,
        };
        connect.tried.push(CardTry { url, status, error });
        if let Some((Ok(card), text)) = card {
            connect.card = Some(text);
            return reach(connect, &card, client, base, options, &trust);
        }
    }
    (connect, None)
}

/// The interface chosen on `card`, and a first call over it.
fn reach(
    mut connect: Connect,
    card: &AgentCard,
    mut client: HttpClient,
    base: &str,
    options: &AgentOptions,
    trust: &Trust,
) -> (Connect, Option<Reachable>) {
    let endpoint = match card.endpoint(options.wire, options.binding, base) {
        Ok(endpoint) => endpoint,
        Err(e) => {
            connect.problem = Some(e.to_string());
            return (connect, None);
        }
    };
    connect.interface = Some(Spoken::of(&endpoint));
    if endpoint.wire == Wire::V1_0 {
        client.version_header = Some("1.0");
    }
    let caller: Box<dyn Caller + Send> = match endpoint.binding {
        Binding::Grpc => {
            let grpc = grpc::same_host(base, &endpoint.url)
                .and_then(|()| GrpcClient::new(&endpoint.url, &options.headers, trust));
            match grpc {
                Ok(grpc) => Box::new(grpc),
                Err(e) => {
                    connect.problem = Some(e);
                    return (connect, None);
                }
            }
        }
        Binding::JsonRpc | Binding::Rest => Box::new(client),
    };
    let salt = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut requests = Requests::new(&endpoint, format!("live-{salt:x}"));
    let first = requests.on_task(Method::Get, &format!("a2a-lab-no-such-task-{salt:x}"));
    let credentials = !options.headers.is_empty();
    let wait = options.timeout.min(Duration::from_secs(10));
    let reached = match caller.call(&first, wait, &mut |_, _| Flow::Read) {
        Ok(received) => Reached {
            status: Some(match received.status {
                Some(crate::model::evidence::probe::records::AnswerStatus::Rest(s))
                | Some(crate::model::evidence::probe::records::AnswerStatus::Http(s)) => s,
                _ => 200,
            }),
            error: None,
            credentials,
        },
        Err(why) => match refused(&why) {
            Some(status) => Reached {
                status: Some(status),
                error: None,
                credentials,
            },
            None => Reached {
                status: None,
                error: Some(why),
                credentials,
            },
        },
    };
    let ok = reached.error.is_none() && !matches!(reached.status, Some(401 | 403));
    connect.reached = Some(reached);
    let reachable = ok.then(|| Reachable {
        caller,
        requests: Mutex::new(requests),
        timeout: options.timeout,
    });
    (connect, reachable)
}

/// The status of a call the callers refused for its credentials: they
/// say it in their error (HTTP 401, 403; gRPC UNAUTHENTICATED,
/// PERMISSION_DENIED), as the probe stops there.
fn refused(why: &str) -> Option<u16> {
    if why.contains("answered HTTP 401") || why.contains("UNAUTHENTICATED") {
        Some(401)
    } else if why.contains("answered HTTP 403") || why.contains("PERMISSION_DENIED") {
        Some(403)
    } else {
        None
    }
}

impl Reachable {
    /// The request for the call `ask` names, by the probe's builder; an
    /// ask the agent's wire has no call for (ListTasks on 0.3) is refused
    /// with why, before anything is sent.
    pub fn request(&self, ask: &LiveAsk) -> Result<Request, String> {
        match self.requests.lock() {
            Ok(mut requests) => ask.request(&mut requests),
            Err(poisoned) => ask.request(&mut poisoned.into_inner()),
        }
    }

    /// Makes the call `request` (made by [`Reachable::request`] for
    /// `ask`), handing each frame to `on_frame` as it comes: the request
    /// sent, each answer, the end. `on_frame` answers `false` when nobody
    /// reads any more (the page dropped the stream), and the call is
    /// dropped then. With `push` (the relay's webhook and its token), a
    /// message that starts a task carries the push config; the frame of
    /// the request sent holds the URL, never the token, which only the
    /// agent and the webhook know.
    pub fn call(
        &self,
        ask: &LiveAsk,
        mut request: Request,
        push: Option<(&str, &str)>,
        on_frame: &mut dyn FnMut(Frame) -> bool,
    ) {
        let mut shown = sent(&request);
        if let (Some((url, token)), LiveAsk::Send { task_id: None, .. }) = (push, ask) {
            let mut hidden = request.clone();
            hidden.push_to(url, HIDDEN_TOKEN);
            shown = sent(&hidden);
            request.push_to(url, token);
        }
        if !on_frame(Frame::Sent(shown)) {
            return;
        }
        let started = Instant::now();
        let mut streamed = false;
        let mut reading = true;
        let result = self.caller.call(&request, self.timeout, &mut |raw, _| {
            streamed = true;
            reading = on_frame(Frame::Answer(raw.to_string()));
            match reading {
                true => Flow::Read,
                false => Flow::Drop,
            }
        });
        if !reading {
            return;
        }
        let end = match result {
            Ok(received) => {
                // A JSON answer comes whole, at its end.
                if !received.sse
                    && !received.raw.is_empty()
                    && !streamed
                    && !on_frame(Frame::Answer(received.body()))
                {
                    return;
                }
                CallEnded {
                    how: received.end,
                    status: received.status.as_ref().map(status_text),
                    ms: received.ms,
                    error: None,
                }
            }
            Err(why) => CallEnded {
                how: AnswerEnd::Closed,
                status: None,
                ms: millis(started.elapsed()),
                error: Some(why),
            },
        };
        on_frame(Frame::End(end));
    }
}
