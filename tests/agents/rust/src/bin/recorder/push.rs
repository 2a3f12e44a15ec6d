//! Push notifications (SPEC §12, §14) on a2a-rs: the twin of
//! tests/fidelity/python/push.py (`recorder push`), same matrix, receiver, fields,
//! into tests/fidelity/fixtures/rust/push/. The agent: `push: true` in its config, i.e.
//! `DefaultRequestHandler::with_push_notifications(InMemoryPushConfigStore::new(),
//! HttpPushSender::new(..))` (the sender's SSRF guard off: the webhook is on 127.0.0.1,
//! see order_status::server), the card declares `capabilities.pushNotifications`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use super::subscribe::{self, SubRun};
use super::*;

const TOKEN: &str = "bbs-1042-push-token";
const CREDENTIALS: &str = "bbs-1042-webhook-secret";
const QUIET_S: f64 = 1.0;
const PUSH_WAIT_CAP_S: f64 = 30.0;
const WATCHDOG_PER_DELAYED_EVENT: f64 = 8.0;

const PUSH_KEYS: [(&str, &str); 8] = [
    ("push", "off"),
    ("webhook", "ok"),
    ("webhook_delay_ms", "none"),
    ("push_auth", "token"),
    ("wire", "1.0"),
    ("push_followup", "none"),
    ("resubscribe", "none"),
    ("second_client", "none"),
];
/// Written in `inputs` only when set.
const LATE_KEYS: [(&str, &str); 5] =
    [("progress", "0"), ("result", "chunks"), ("push_followup", "none"), ("resubscribe", "none"), ("second_client", "none")];

const BASE: [&str; 11] = [
    "defaults", "ending=fail", "ending=input", "ending=auth", "ending=return", "ending=raise", "late=0", "cancel=1",
    "cancel=1&cancel_impl=raise", "client=block", "chunks=1",
];

fn one_wire() -> Vec<String> {
    let mut v: Vec<String> =
        BASE.iter().map(|q| if *q == "defaults" { "push=inline".to_string() } else { format!("push=inline&{q}") }).collect();
    for q in ["push=after:2", "push=inline&webhook=error", "push=inline&webhook=down", "push=inline&webhook_delay_ms=2000",
        "push=inline&webhook_delay_ms=2000&client=block", "push=inline&push_auth=bearer", "push=inline&push_auth=both"]
    {
        v.push(q.into());
    }
    v
}

pub fn combos() -> Vec<String> {
    let mut v = Vec::new();
    for i in ["input", "auth", "both"] {
        for c in ["stream", "block"] {
            for f in ["none", "repeat"] {
                v.push(format!(
                    "push=inline&interrupt={i}{}{}",
                    if c == "stream" { "" } else { "&client=block" },
                    if f == "none" { "" } else { "&push_followup=repeat" }
                ));
            }
        }
    }
    for q in [
        "push=inline&interrupt=input&wire=0.3",
        "push=inline&interrupt=input&push_followup=repeat&wire=0.3",
        "push=inline&interrupt=both&wire=0.3",
        "push=inline&interrupt=both&push_followup=repeat&wire=0.3",
        "push=inline&interrupt=input&client=block&push_followup=repeat&wire=0.3",
        "push=inline&interrupt=input&second_client=3",
        "push=inline&retry=on",
        "push=inline&retry=on&wire=0.3",
        "push=inline&retry=on&second_client=2",
        "push=inline&resubscribe=3",
        "push=inline&second_client=3",
        "push=inline&resubscribe=3&wire=0.3",
        "push=inline&restart=2&store=database",
        "push=inline&restart=2&store=database&resubscribe=5",
        "push=inline&restart=2&store=database&resubscribe=5&wire=0.3",
        "push=inline&webhook_delay_ms=4995",
        "push=inline&webhook_delay_ms=5005",
    ] {
        v.push(q.into());
    }
    v
}

pub fn matrix() -> Vec<String> {
    let one = one_wire();
    let mut m = one.clone();
    m.extend(one.iter().map(|q| format!("{q}&wire=0.3")));
    m.extend(combos());
    m
}

/// The lab's keys (parse_scenario) plus this recorder's (PUSH_KEYS).
pub fn parse_query(query: &str) -> Result<(Scenario, Extra), String> {
    let (cfg, extra) = split_query(query, &PUSH_KEYS)?;
    let get = |k: &str| extra_get(&extra, k).to_string();
    let p = get("push");
    let after_ok = p.strip_prefix("after:").is_some_and(|k| k.parse::<usize>().is_ok_and(|k| k >= 1));
    if !(p == "off" || p == "inline" || after_ok) {
        return Err("push must be off, inline or after:k".into());
    }
    if !["ok", "error", "down"].contains(&get("webhook").as_str()) {
        return Err("webhook must be ok, error or down".into());
    }
    let d = get("webhook_delay_ms");
    if d != "none" && !d.parse::<u64>().is_ok_and(|d| (1..=60000).contains(&d)) {
        return Err("webhook_delay_ms must be none or 1..60000".into());
    }
    if !["token", "bearer", "both"].contains(&get("push_auth").as_str()) {
        return Err("push_auth must be token, bearer or both".into());
    }
    if !["1.0", "0.3"].contains(&get("wire").as_str()) {
        return Err("wire must be '1.0' or '0.3'".into());
    }
    if p.starts_with("after:") && cfg.get("client") != "stream" {
        return Err("push=after:k needs client=stream".into());
    }
    if !["none", "repeat"].contains(&get("push_followup").as_str()) {
        return Err("push_followup must be none or repeat".into());
    }
    for key in ["resubscribe", "second_client"] {
        let v = get(key);
        if v != "none" && (!v.parse::<usize>().is_ok_and(|k| k >= 1) || cfg.get("client") != "stream") {
            return Err(format!("{key} must be none or k >= 1, with client=stream"));
        }
    }
    Ok((cfg, extra))
}

fn combined(cfg: &Scenario, extra: &Extra) -> bool {
    cfg.get("interrupt") != "none"
        || cfg.get("retry") != "off"
        || cfg.get("restart") != "none"
        || LATE_KEYS.iter().any(|(k, d)| extra.iter().any(|(ek, v)| ek == k && v != d))
}

// ---------------------------------------------------------------------------
// The webhook receiver: a bare HTTP/1.1 server, so the request line, the header
// names as sent and the body are kept exactly as they arrived.
// ---------------------------------------------------------------------------

pub struct Receiver {
    mode: String,
    delay_ms: Option<u64>,
    pub port: u16,
    t0: Arc<Mutex<Instant>>,
    posts: Mutex<Vec<J>>,
    in_flight: AtomicUsize,
    last_activity: Mutex<Instant>,
    connections: AtomicUsize,
}

impl Receiver {
    fn ms(&self) -> i64 {
        ms_since(*self.t0.lock().unwrap())
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/webhook", self.port)
    }

    async fn start(self: &Arc<Self>) -> Result<(), String> {
        if self.mode == "down" {
            return Ok(()); // nothing listens: the agent's connection is refused
        }
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port)).await.map_err(|e| e.to_string())?;
        let me = self.clone();
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let me = me.clone();
                tokio::spawn(async move { me.conn(sock).await });
            }
        });
        Ok(())
    }

    async fn conn(self: Arc<Self>, sock: tokio::net::TcpStream) {
        let conn = self.connections.fetch_add(1, Ordering::SeqCst) + 1;
        let (rd, mut wr) = sock.into_split();
        let mut rd = BufReader::new(rd);
        loop {
            let mut head = Vec::new();
            loop {
                let mut line = Vec::new();
                match rd.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                let end = line == b"\r\n";
                head.extend_from_slice(&line);
                if end {
                    break;
                }
            }
            let arrived = self.ms();
            self.in_flight.fetch_add(1, Ordering::SeqCst);
            *self.last_activity.lock().unwrap() = Instant::now();
            let text = String::from_utf8_lossy(&head).into_owned();
            let mut lines = text.split("\r\n").filter(|l| !l.is_empty());
            let request_line = lines.next().unwrap_or("").to_string();
            let headers: Vec<(String, String)> = lines
                .map(|h| {
                    let (k, v) = h.split_once(':').unwrap_or((h, ""));
                    (k.to_string(), v.trim().to_string())
                })
                .collect();
            let low = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
            let mut body = Vec::new();
            if let Some(n) = low("content-length").and_then(|v| v.parse::<usize>().ok()) {
                body.resize(n, 0);
                if rd.read_exact(&mut body).await.is_err() {
                    return;
                }
            } else if low("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
                loop {
                    let mut size_line = Vec::new();
                    if rd.read_until(b'\n', &mut size_line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let s = String::from_utf8_lossy(&size_line);
                    let size = usize::from_str_radix(s.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
                    let mut chunk = vec![0; size + 2];
                    if rd.read_exact(&mut chunk).await.is_err() {
                        return;
                    }
                    body.extend_from_slice(&chunk[..size]);
                    if size == 0 {
                        break;
                    }
                }
            }
            let mut post = J::obj()
                .with("t_ms", arrived)
                .with("body_done_ms", self.ms())
                .with("connection", conn)
                .with("request_line", request_line)
                .with("headers", headers.iter().map(|(k, _)| J::from(k.as_str())).collect::<Vec<_>>())
                .with("auth", auth_kinds(&headers))
                .with("content_type", low("content-type"))
                .with("body", String::from_utf8_lossy(&body).into_owned());
            let idx = {
                let mut posts = self.posts.lock().unwrap();
                posts.push(post.clone());
                posts.len() - 1
            };
            let mut closed_early = false;
            if let Some(d) = self.delay_ms {
                // the agent closing the connection while the webhook waits: its sender gave up
                let mut probe = [0u8; 1];
                let waited = Instant::now();
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(d)) => {}
                    n = rd.read(&mut probe) => {
                        if matches!(n, Ok(0) | Err(_)) {
                            closed_early = true;
                            post.set("agent_closed_before_answer_ms", self.ms());
                            tokio::time::sleep(Duration::from_millis(d).saturating_sub(waited.elapsed())).await;
                        }
                    }
                }
            }
            let status = if self.mode == "error" { 500 } else { 200 };
            let reason = if status == 500 { "Internal Server Error" } else { "OK" };
            let answer = format!("HTTP/1.1 {status} {reason}\r\nContent-Length: 0\r\n\r\n");
            let wrote = wr.write_all(answer.as_bytes()).await.and(wr.flush().await);
            post.set(
                "answer",
                match wrote {
                    Ok(()) if closed_early => "timeout".to_string(),
                    Ok(()) => status.to_string(),
                    Err(e) => format!("not delivered ({})", e.kind()),
                },
            );
            post.set("answered_ms", self.ms());
            self.posts.lock().unwrap()[idx] = post;
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            *self.last_activity.lock().unwrap() = Instant::now();
            if closed_early {
                return;
            }
        }
    }

    /// Until nothing arrived and nothing was answered for QUIET_S.
    pub async fn wait_quiet(&self) {
        let since = Instant::now();
        let cap = PUSH_WAIT_CAP_S.max(WATCHDOG_PER_DELAYED_EVENT * self.delay_ms.unwrap_or(0) as f64 / 1000.0);
        while since.elapsed().as_secs_f64() < cap {
            let last = (*self.last_activity.lock().unwrap()).max(since);
            if self.in_flight.load(Ordering::SeqCst) == 0 && last.elapsed().as_secs_f64() > QUIET_S {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Which header carried what (values never kept, only whether they match the config).
/// a2a-server-lf sends the token as `A2A-Notification-Token` (push/sender.rs), the two
/// other SDKs as `X-A2A-Notification-Token`: both are read, under the name as sent.
fn auth_kinds(headers: &[(String, String)]) -> J {
    let mut out = J::obj();
    for (k, v) in headers {
        let l = k.to_ascii_lowercase();
        if l == "x-a2a-notification-token" || l == "a2a-notification-token" {
            out.set(k, if v == TOKEN { "token" } else { "other" });
        }
        if l == "authorization" {
            let (scheme, cred) = v.split_once(' ').unwrap_or((v.as_str(), ""));
            out.set(k, format!("{scheme}{}", if cred == CREDENTIALS { " credentials" } else { " other" }));
        }
    }
    out
}

fn push_event(body: &str, terminal_seen: bool) -> J {
    let Ok(mut obj) = J::parse(body) else {
        return J::obj().with("kind", "unparsable").with("state", J::Null);
    };
    if obj.get("result").is_some() && obj.get("jsonrpc").is_some() {
        obj = obj.get("result").cloned().unwrap_or(J::Null);
    }
    let ev = subscribe::norm_event(&obj, terminal_seen);
    let shape = format!("1.0 StreamResponse {}", ev.get("kind").and_then(J::str).unwrap_or(""));
    ev.with("shape", shape)
}

fn task_of_body(body: &str) -> Option<String> {
    let obj = J::parse(body).ok()?;
    if let Some(t) = obj.get("task") {
        return t.get("id").and_then(J::str).map(str::to_string);
    }
    for k in ["statusUpdate", "artifactUpdate"] {
        if let Some(b) = obj.get(k) {
            return b.get("taskId").and_then(J::str).map(str::to_string);
        }
    }
    None
}

/// A body with uuids and timestamps masked (to keep later runs' bodies only where they differ).
fn masked(s: &str) -> String {
    let s = uuid_re_mask(s);
    // timestamps: "YYYY-MM-DDTHH:MM:SS(.frac)(Z|+hh:mm)"
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let is_ts = b.len() - i >= 19
            && b[i..i + 4].iter().all(u8::is_ascii_digit)
            && b[i + 4] == b'-'
            && b[i + 10] == b'T'
            && b[i + 13] == b':';
        if is_ts {
            let mut j = i + 19;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            if j < b.len() && b[j] == b'Z' {
                j += 1;
            } else if j + 6 <= b.len() && (b[j] == b'+' || b[j] == b'-') && b[j + 3] == b':' {
                j += 6;
            }
            out.push_str("<ts>");
            i = j;
            continue;
        }
        let c = s[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// What a run needs of push: the receiver and the config a send carries.
pub struct PushCtx {
    pub extra: Extra,
    pub receiver: Arc<Receiver>,
    pub config_set: Mutex<Option<J>>,
}

impl PushCtx {
    pub fn config(&self, task_id: Option<&str>) -> J {
        let mut c = J::obj();
        if let Some(t) = task_id {
            c.set("taskId", t);
        }
        c.set("url", self.receiver.url());
        let auth = extra_get(&self.extra, "push_auth");
        if auth == "token" || auth == "both" {
            c.set("token", TOKEN);
        }
        if auth == "bearer" || auth == "both" {
            c.set("authentication", J::obj().with("scheme", "Bearer").with("credentials", CREDENTIALS));
        }
        c
    }

    /// The inline config of a send (push=inline): the send and its identical resend
    /// carry it; a follow-up turn only with push_followup=repeat.
    pub fn inline_for(&self, client: u8, role: &str) -> Option<J> {
        if extra_get(&self.extra, "push") != "inline" || client != 1 {
            return None;
        }
        if role == "resume" && extra_get(&self.extra, "push_followup") != "repeat" {
            return None;
        }
        Some(self.config(None))
    }

    pub fn after(&self) -> Option<usize> {
        extra_get(&self.extra, "push").strip_prefix("after:").and_then(|k| k.parse().ok())
    }
}

/// CreateTaskPushNotificationConfig on the running task (push=after:k).
pub async fn set_config(run: &Run, ctx: &PushCtx) -> J {
    let mut out = J::obj().with("sent_ms", ms_since(run.t0()));
    let tid = run.task_id().or_else(|| run.task_id_from_side());
    let (obj, err, _) =
        run.http.unary("CreateTaskPushNotificationConfig", ctx.config(tid.as_deref()), Duration::from_secs(10)).await;
    match obj {
        Some(a) => {
            let ok = a.get("error").is_none();
            out.set("answer", a);
            out.set("result", if ok { "ok" } else { "error" });
        }
        None => out.set("result", format!("error: {}", err.unwrap_or_default())),
    }
    out.with("answered_ms", ms_since(run.t0()))
}

fn short(e: &J) -> String {
    let kind = e.get("kind").and_then(J::str).unwrap_or("");
    let mut s = match kind {
        "task" => "T".to_string(),
        "statusUpdate" => "S".into(),
        "artifactUpdate" => "A".into(),
        "message" => "M".into(),
        k => k.into(),
    };
    if let Some(st) = e.get("state").and_then(J::str) {
        s.push(':');
        s.push_str(st.trim_start_matches("TASK_STATE_"));
    }
    if kind == "artifactUpdate" {
        let a = e.get("artifact_id").and_then(J::str).unwrap_or("None");
        if a != TRACKING_ID {
            s.push_str(&format!("({a})"));
        }
    }
    s
}

fn assemble(sub: &J, ctx: &PushCtx, cfg: &Scenario, side_path: &str, log_path: &Path, t0_wall: f64, call_end_ms: i64) -> J {
    let streams = sub.get("streams").map(|s| s.arr().to_vec()).unwrap_or_default();
    let own: Vec<&J> = streams.iter().filter(|s| s.get("client").and_then(J::i64) == Some(1)).collect();
    let wire: Vec<J> = own.iter().flat_map(|s| s.get("wire").map(|w| w.arr().to_vec()).unwrap_or_default()).collect();
    let ms: Vec<J> = own
        .iter()
        .flat_map(|s| s.get("events").map(|e| e.arr().iter().map(|e| e.get("ms").cloned().unwrap_or(J::Null)).collect::<Vec<_>>()).unwrap_or_default())
        .collect();
    let events: Vec<J> = subscribe::events_of(&wire)
        .into_iter()
        .zip(ms)
        .map(|(mut e, t)| {
            for k in ["parts", "artifacts", "history"] {
                e.remove(k);
            }
            e.with("ms", t)
        })
        .collect();
    let last_rpc = own.last().and_then(|s| s.get("rpc_error").cloned()).unwrap_or(J::Null);
    let end = sub.get("stream").filter(|s| **s != J::Null).or(sub.get("call")).cloned().unwrap_or(J::Null);
    let mut posts = ctx.receiver.posts.lock().unwrap().clone();
    posts.sort_by_key(|p| p.get("t_ms").and_then(J::i64).unwrap_or(0));
    let is_combined = combined(cfg, &ctx.extra);
    let mut task_ids: Vec<String> = Vec::new();
    for a in sub.get("attempts").map(|a| a.arr().to_vec()).unwrap_or_default() {
        if let Some(t) = a.get("task_id").and_then(J::str) {
            if !task_ids.iter().any(|x| x == t) {
                task_ids.push(t.into());
            }
        }
    }
    let (mut seen_terminal, mut terminal_at) = (false, None);
    let mut bodies: Vec<String> = Vec::new();
    for (i, p) in posts.iter_mut().enumerate() {
        let body = p.get("body").and_then(J::str).unwrap_or("").to_string();
        let mut ev = push_event(&body, seen_terminal);
        ev.remove("parts");
        ev.remove("history");
        let st = ev.get("state").and_then(J::str).map(str::to_string);
        p.set("event", ev);
        p.set("duplicate", bodies.contains(&body));
        bodies.push(body.clone());
        if st.as_deref().is_some_and(|s| TERMINAL.contains(&s)) && !seen_terminal {
            seen_terminal = true;
            terminal_at = Some(i);
        }
        if is_combined {
            let tid = task_of_body(&body);
            if let Some(t) = &tid {
                if !task_ids.contains(t) {
                    task_ids.push(t.clone());
                }
            }
            p.set("task_n", tid.and_then(|t| task_ids.iter().position(|x| *x == t)).map(|n| n + 1));
        }
    }
    let side = read_side(side_path);
    let log_lines = server_log_lines(log_path);
    // the sender's failures, as a2a-server-lf logs them (push/sender.rs handle_error)
    let failed_logged = log_lines
        .iter()
        .filter(|l| l.contains("failed to send push notification") || l.contains("push endpoint returned status"))
        .count();
    let states: Vec<J> = posts.iter().filter_map(|p| p.at(&["event", "state"]).filter(|s| **s != J::Null).cloned()).collect();
    let side_records: Vec<J> = side_records(&side, t0_wall)
        .into_iter()
        .map(|mut r| {
            r.remove("task_id");
            r
        })
        .collect();
    let n_posts = posts.len();
    let mut run = J::obj()
        .with("events", events)
        .with("stream", if cfg.get("client") == "stream" { end.clone() } else { J::Null })
        .with("call", if cfg.get("client") != "stream" { end } else { J::Null })
        .with("end_error", sub.get("end_error").cloned().unwrap_or(J::Null))
        .with("rpc_error", last_rpc)
        .with("client_done_ms", call_end_ms)
        .with("posts", posts.clone())
        .with("pushes_received", n_posts)
        .with("pushes_failed_logged", failed_logged)
        .with("pushes_answered", posts.iter().filter(|p| p.get("answer").and_then(J::str) == Some("200")).count())
        .with("push_states", states.clone())
        .with("push_last_state", states.last().cloned())
        .with("push_after_terminal", terminal_at.map_or(0, |t| n_posts - t - 1))
        .with("push_duplicates", posts.iter().filter(|p| p.get("duplicate") == Some(&J::Bool(true))).count())
        .with("webhook_connections", ctx.receiver.connections.load(Ordering::SeqCst))
        .with("get_task_settled", sub.get("get_task_settled").cloned().unwrap_or(J::Null))
        .with("cancel", sub.get("cancel").cloned().unwrap_or(J::Null))
        .with("config_set", ctx.config_set.lock().unwrap().clone())
        .with("executions", side.iter().filter(|r| ev_is(r, "execute_start")).count())
        .with("side_channel", side_records)
        .with("server_log", log_lines.into_iter().take(20).map(J::from).collect::<Vec<_>>())
        .with("notes", sub.get("notes").cloned().unwrap_or(J::Null));
    if is_combined {
        run.set("streams", streams);
        run.set("tasks", task_ids.len());
        run.set(
            "posts_per_task",
            (1..=task_ids.len())
                .map(|n| J::from(posts.iter().filter(|p| p.get("task_n").and_then(J::i64) == Some(n as i64)).count()))
                .collect::<Vec<_>>(),
        );
        for k in ["attempts", "distinct_tasks", "first_attempt_task_settled", "restart", "resumed", "resumes", "states",
            "executor_after_drop", "get_task_after"]
        {
            if let Some(v) = sub.get(k) {
                run.set(k, v);
            }
        }
    }
    run
}

fn outcome_key(run: &J, delay_ms: Option<u64>) -> String {
    let posts: Vec<J> = run
        .get("posts")
        .map(|p| {
            p.arr()
                .iter()
                .map(|p| {
                    let ev = p.get("event").cloned().unwrap_or(J::Null);
                    J::Arr(vec![
                        J::from(short(&ev)),
                        ev.get("shape").cloned().unwrap_or(J::Null),
                        ev.get("append").cloned().unwrap_or(J::Null),
                        ev.get("last_chunk").cloned().unwrap_or(J::Null),
                        p.get("headers").cloned().unwrap_or(J::Null),
                        p.get("auth").cloned().unwrap_or(J::Null),
                        p.get("answer").cloned().unwrap_or(J::Null),
                        p.get("duplicate").cloned().unwrap_or(J::Null),
                    ])
                })
                .collect()
        })
        .unwrap_or_default();
    let settled = run.get("get_task_settled").cloned().unwrap_or(J::Null);
    let mut o = J::obj()
        .with("events", run.get("events").map(|e| e.arr().iter().map(|e| J::from(short(e))).collect::<Vec<_>>()).unwrap_or_default())
        .with("end", run.get("stream").filter(|s| **s != J::Null).or(run.get("call")).cloned().unwrap_or(J::Null))
        .with("rpc_error", run.at(&["rpc_error", "code"]).cloned().unwrap_or(J::Null))
        .with("posts", posts)
        .with("failed_logged", run.get("pushes_failed_logged").cloned().unwrap_or(J::Null))
        .with("settled", if settled.is_obj() { settled.get("state").cloned().unwrap_or(J::Null) } else { settled })
        .with("cancel", run.at(&["cancel", "result"]).cloned().unwrap_or(J::Null))
        .with("config_set", run.at(&["config_set", "result"]).cloned().unwrap_or(J::Null));
    if let Some(d) = delay_ms {
        o.set("client_done_after_delay", run.get("client_done_ms").and_then(J::i64).unwrap_or(0) >= d as i64);
    }
    if let Some(s) = run.get("streams") {
        o.set("streams", s.arr().iter().map(subscribe::stream_key).collect::<Vec<_>>());
        o.set("post_tasks", run.get("posts").map(|p| p.arr().iter().map(|p| p.get("task_n").cloned().unwrap_or(J::Null)).collect::<Vec<_>>()).unwrap_or_default());
        o.set("executions", run.get("executions").cloned().unwrap_or(J::Null));
    }
    o.compact()
}

fn describe(run: &J) -> String {
    let post_text = |p: &J| {
        let mut s = short(p.get("event").unwrap_or(&J::Null));
        let answer = p.get("answer").and_then(J::str).unwrap_or("None");
        if answer != "200" {
            s.push_str(&format!("[{answer}]"));
        }
        if p.get("duplicate") == Some(&J::Bool(true)) {
            s.push_str("=dup");
        }
        if let Some(n) = p.get("task_n").and_then(J::i64).filter(|n| *n > 1) {
            s.push_str(&format!("#{n}"));
        }
        s
    };
    let posts: Vec<String> = run.get("posts").map(|p| p.arr().iter().map(post_text).collect()).unwrap_or_default();
    let posts = if posts.is_empty() { "(none)".to_string() } else { posts.join(" ") };
    let ev = if let Some(streams) = run.get("streams") {
        streams
            .arr()
            .iter()
            .map(|s| {
                let evs: Vec<String> = s.get("events").map(|e| e.arr().iter().map(subscribe::short_event).collect()).unwrap_or_default();
                format!(
                    "c{} {}: {} -> {}",
                    s.get("client").map(J::compact).unwrap_or_default(),
                    s.get("role").and_then(J::str).unwrap_or(""),
                    if evs.is_empty() { "(none)".to_string() } else { evs.join(" ") },
                    s.get("end").and_then(J::str).unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join(" | ")
    } else {
        let evs: Vec<String> = run.get("events").map(|e| e.arr().iter().map(short).collect()).unwrap_or_default();
        if evs.is_empty() { "(none)".to_string() } else { evs.join(" ") }
    };
    let end = run.get("stream").filter(|s| **s != J::Null).or(run.get("call")).and_then(J::str).unwrap_or("None");
    let mut out = format!(
        "client: {ev} -> {end} at {} ms; webhook: {posts}",
        run.get("client_done_ms").map(J::compact).unwrap_or_default()
    );
    let failed = run.get("pushes_failed_logged").and_then(J::i64).unwrap_or(0);
    if failed > 0 {
        out.push_str(&format!("; {failed} failed POSTs logged"));
    }
    let g = run.get("get_task_settled").cloned().unwrap_or(J::Null);
    let gs = match &g {
        J::Str(s) => s.clone(),
        _ => g.get("state").and_then(J::str).unwrap_or("None").trim_start_matches("TASK_STATE_").to_string(),
    };
    out + &format!("; GetTask {gs}")
}

const NO_03: &str = "a2a-server-lf 0.5.3 has no A2A 0.3 wire (src/jsonrpc.rs check_a2a_version: a request without \
                     an A2A-Version header or with 0.3 is -32009). Nothing to measure.";
const NO_DB: &str = "a2a-server-lf 0.5.3 ships only InMemoryTaskStore (src/task_store/mod.rs); store=database has \
                     no SDK counterpart. Nothing to measure.";

async fn record_one(query: &str, runs: usize, rustc: &str) -> Result<J, String> {
    let (cfg, extra) = parse_query(query)?;
    let delay: Option<u64> = extra_get(&extra, "webhook_delay_ms").parse().ok();
    let watchdog_s = WATCHDOG_S + delay.map_or(0.0, |d| WATCHDOG_PER_DELAYED_EVENT * d as f64 / 1000.0);
    let mut inputs = inputs_of(&cfg);
    for (k, v) in &extra {
        let late = LATE_KEYS.iter().find(|(lk, _)| lk == k).map(|(_, d)| *d);
        if late.is_none_or(|d| d != v.as_str()) {
            inputs.set(k, v.as_str());
        }
    }
    let head = J::obj()
        .with("sdk", order_status::SDK)
        .with("rustc", rustc)
        .with("scenario", query)
        .with("inputs", inputs)
        .with("step_ms", RECORD_STEP_MS)
        .with("watchdog_ms", (watchdog_s * 1000.0).round() as i64);
    let not = if extra_get(&extra, "wire") == "0.3" {
        Some(NO_03)
    } else if cfg.get("store") == "database" {
        Some(NO_DB)
    } else {
        None
    };
    if let Some(note) = not {
        return Ok(head
            .with("measurable", false)
            .with("stable", J::Null)
            .with("summary", "not measurable")
            .with("note", note)
            .with("runs", Vec::<J>::new()));
    }
    let sub_extra: Vec<(String, String)> = ["resubscribe", "second_client", "wire"]
        .iter()
        .map(|k| (k.to_string(), extra_get(&extra, k).to_string()))
        .collect();
    let mut results = Vec::new();
    for i in 0..runs {
        let dir = std::env::temp_dir().join(format!("a2a-push-rs-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let mut run = Run::new(cfg.clone(), &dir, watchdog_s);
        run.push = true;
        let run = Arc::new(run);
        let receiver = Arc::new(Receiver {
            mode: extra_get(&extra, "webhook").to_string(),
            delay_ms: delay,
            port: free_port(),
            t0: Arc::new(Mutex::new(Instant::now())),
            posts: Mutex::default(),
            in_flight: AtomicUsize::new(0),
            last_activity: Mutex::new(Instant::now()),
            connections: AtomicUsize::new(0),
        });
        receiver.start().await?;
        let ctx = Arc::new(PushCtx { extra: extra.clone(), receiver: receiver.clone(), config_set: Mutex::default() });
        let sub = SubRun::new(run.clone(), sub_extra.clone(), Some(ctx.clone()));
        let t0_cell = receiver.t0.clone();
        let got = sub.execute_with(move |t0| *t0_cell.lock().unwrap() = t0).await;
        run.kill_server();
        let got = got.map_err(|e| format!("{query} run {} failed: {e}", i + 1))?;
        let call_end_ms = got.get("call_end_ms").and_then(J::i64).unwrap_or(0);
        let t0_wall = *run.t0_wall.lock().unwrap();
        let mut r = assemble(&got, &ctx, &cfg, &run.side_path, &run.log_path, t0_wall, call_end_ms);
        if let Some(J::Arr(ss)) = r.get_mut("streams") {
            for s in ss.iter_mut() {
                let raw = s.remove("_raw");
                if i == 0 {
                    s.set("raw", raw.unwrap_or(J::Null)); // the body exactly as received, first run only
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        results.push(r);
    }
    let keys: Vec<String> = results.iter().map(|r| outcome_key(r, delay)).collect();
    let stable = keys.iter().all(|k| *k == keys[0]);
    let mut variants: Vec<(String, usize, String)> = Vec::new();
    for (k, r) in keys.iter().zip(&results) {
        match variants.iter_mut().find(|(vk, _, _)| vk == k) {
            Some(v) => v.1 += 1,
            None => variants.push((k.clone(), 1, describe(r))),
        }
    }
    // bodies: run 1 keeps them all; a later run only where it differs once ids and
    // timestamps are masked
    let first: Vec<String> = results[0]
        .get("posts")
        .map(|p| p.arr().iter().map(|p| masked(p.get("body").and_then(J::str).unwrap_or(""))).collect())
        .unwrap_or_default();
    for r in results.iter_mut().skip(1) {
        if let Some(J::Arr(posts)) = r.get_mut("posts") {
            for (j, p) in posts.iter_mut().enumerate() {
                if j < first.len() && masked(p.get("body").and_then(J::str).unwrap_or("")) == first[j] {
                    p.set("body", J::Null);
                    p.set("body_as_run_1", true);
                }
            }
        }
    }
    let timing: Vec<J> = results
        .iter()
        .map(|r| {
            J::obj()
                .with("client_done_ms", r.get("client_done_ms").cloned().unwrap_or(J::Null))
                .with("event_ms", r.get("events").map(|e| e.arr().iter().map(|e| e.get("ms").cloned().unwrap_or(J::Null)).collect::<Vec<_>>()).unwrap_or_default())
                .with("post_ms", r.get("posts").map(|p| p.arr().iter().map(|p| p.get("t_ms").cloned().unwrap_or(J::Null)).collect::<Vec<_>>()).unwrap_or_default())
        })
        .collect();
    let summary = describe(&results[0]);
    let mut fx = head.with("measurable", true).with("stable", stable).with("summary", summary).with("timing", timing).with("runs", results);
    if !stable {
        fx.set("variants", variants.into_iter().map(|(_, n, s)| J::obj().with("runs", n).with("summary", s)).collect::<Vec<_>>());
    }
    Ok(fx)
}

pub async fn record(runs: usize, only: Vec<String>, out: Option<PathBuf>) -> Result<(), String> {
    let out = out.unwrap_or_else(|| default_out().join("push"));
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let all = matrix();
    let combos = combos();
    let queries = if only.is_empty() { all.clone() } else { only.clone() };
    for q in &queries {
        parse_query(q).map_err(|e| format!("{q}: {e}"))?;
    }
    let rustc = rustc_version();
    let index_path = out.join("index.json");
    let old = if !only.is_empty() { std::fs::read_to_string(&index_path).ok().and_then(|s| J::parse(&s).ok()) } else { None };
    let list = |name: &str| -> Vec<J> { old.as_ref().and_then(|o| o.get(name)).map(|l| l.arr().to_vec()).unwrap_or_default() };
    let (mut scenarios, mut combinations, mut not_measurable) = (list("scenarios"), list("combinations"), list("not_measurable"));
    let started = Instant::now();
    for q in &queries {
        let t = Instant::now();
        let fx = record_one(q, runs, &rustc).await?;
        let name = format!("{}.json", file_stem(q).replace(':', "-"));
        std::fs::write(out.join(&name), fx.pretty() + "\n").map_err(|e| e.to_string())?;
        for l in [&mut scenarios, &mut combinations, &mut not_measurable] {
            l.retain(|e| e.get("scenario").and_then(J::str) != Some(q.as_str()));
        }
        let stable = fx.get("stable").cloned().unwrap_or(J::Null);
        let summary = fx.get("summary").cloned().unwrap_or(J::Null);
        let mut e = J::obj().with("scenario", q.as_str()).with("file", name.as_str());
        if fx.get("measurable") == Some(&J::Bool(false)) {
            not_measurable.push(e);
        } else {
            e.set("stable", stable.clone());
            e.set("summary", summary.clone());
            if let Some(v) = fx.get("variants") {
                e.set("variants", v);
            }
            if combos.contains(q) { combinations.push(e) } else { scenarios.push(e) }
        }
        println!("[{:5.1}s] {q}: stable={} {}", t.elapsed().as_secs_f64(), stable.compact(), summary.str().unwrap_or(""));
        if let Some(v) = fx.get("variants") {
            for v in v.arr() {
                println!("    {}x {}", v.get("runs").map(J::compact).unwrap_or_default(), v.get("summary").and_then(J::str).unwrap_or(""));
            }
        }
    }
    let order = |e: &J| all.iter().position(|m| Some(m.as_str()) == e.get("scenario").and_then(J::str)).unwrap_or(10_000);
    for l in [&mut scenarios, &mut combinations, &mut not_measurable] {
        l.sort_by_key(|e| order(e));
    }
    let unstable: Vec<J> = scenarios
        .iter()
        .chain(&combinations)
        .filter(|e| e.get("stable") == Some(&J::Bool(false)))
        .filter_map(|e| e.get("scenario").cloned())
        .collect();
    let index = J::obj()
        .with("sdk", order_status::SDK)
        .with("rustc", rustc.as_str())
        .with("packages", package_versions())
        .with(
            "agent",
            "DefaultRequestHandler::new(..).with_push_notifications(InMemoryPushConfigStore::new(), \
             HttpPushSender::new(Some(HttpPushSenderConfig { validate_urls: false, ..Default::default() }))) \
             (timeout 30 s, fail_on_error false: the defaults), card capabilities.pushNotifications = true",
        )
        .with(
            "wire_1.0",
            "raw JSON-RPC over reqwest; push=inline: params.configuration.taskPushNotificationConfig; \
             push=after:k: CreateTaskPushNotificationConfig",
        )
        .with("wire_0.3", NO_03)
        .with(
            "webhook",
            "a bare HTTP/1.1 receiver on 127.0.0.1 in the recorder (keep-alive); it answers 200, or 500 (webhook=error), \
             after webhook_delay_ms; webhook=down: a free port nobody listens on (the agent's attempts are counted from \
             its log: pushes_failed_logged)",
        )
        .with(
            "config",
            J::obj()
                .with("token", "push_auth=token|both")
                .with("authentication", "{scheme 'Bearer', credentials} for push_auth=bearer|both"),
        )
        .with("step_ms", RECORD_STEP_MS)
        .with("watchdog_ms", (WATCHDOG_S * 1000.0).round() as i64)
        .with("runs_per_scenario", runs)
        .with("scenarios", scenarios)
        .with("unstable", unstable.clone())
        .with("combinations", combinations)
        .with("not_measurable", not_measurable);
    std::fs::write(&index_path, index.pretty() + "\n").map_err(|e| e.to_string())?;
    println!("recorded {} scenarios in {:.0}s -> {} ({} unstable)", queries.len(), started.elapsed().as_secs_f64(), out.display(), unstable.len());
    Ok(())
}
