//! Fidelity recorder for a2a-rs: what does the real a2a-server-lf 0.5.3 do for the
//! lab's scenarios?
//!
//! The twin of tests/fidelity/python/recorder.py (`record`) and
//! tests/fidelity/js/recorder.mjs: it runs the BBS-1042 order-status agent
//! (`order-status-agent serve CONFIG`, the SDK's own `DefaultRequestHandler`,
//! `InMemoryTaskStore` and JSON-RPC router, in a child process on 127.0.0.1) and drives
//! it over raw HTTP (reqwest, no TLS) with the JSON-RPC 1.0 requests the SDK clients
//! send, streaming or blocking. Every scenario of SPEC §4 is run 3 times; the wire
//! events, how the call ended, GetTask, CancelTask, orphaned steps and executions are
//! written as JSON fixtures in the format of tests/fidelity/fixtures/python/*.json to
//! tests/fidelity/fixtures/rust/.
//!
//!     recorder [record] [--runs 3] [--only QUERY ...] [--out DIR] [--no-probes] [--watchdog S] [--list]
//!     recorder subscribe [--runs 3] [--only QUERY ...] [--out DIR] [--list]   (SPEC §9, §14: subscribe.rs)
//!     recorder push [--runs 3] [--only QUERY ...] [--out DIR] [--list]        (SPEC §12, §14: push.rs)

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use order_status::ojson::J;
use order_status::scenario::*;

mod push;
mod subscribe;

const RECORD_STEP_MS: u64 = 50; // the lab's default is 200; shortened so runs are quick
const WATCHDOG_S: f64 = 3.0; // open this long after the executor went quiet = "hung"
const PROBE_WATCHDOG_S: f64 = 8.0;
const TERMINAL: [&str; 4] = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"];

/// A matrix recorder's own keys (`push`, `subscribe`), each with its value.
pub type Extra = Vec<(String, String)>;

/// Splits a query into the lab's scenario (parse_scenario) and a matrix recorder's own
/// `keys`, each at its default unless the query sets it; a repeated own key is an error.
fn split_query(query: &str, keys: &[(&str, &str)]) -> Result<(Scenario, Extra), String> {
    let mut extra: Extra = keys.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut rest = Vec::new();
    let mut seen = Vec::new();
    if !(query.is_empty() || query == "defaults") {
        for pair in query.split('&') {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if let Some(slot) = extra.iter_mut().find(|(ek, _)| ek == k) {
                if seen.contains(&k) {
                    return Err(format!("repeated key {k:?}"));
                }
                seen.push(k);
                slot.1 = v.to_string();
            } else {
                rest.push(pair);
            }
        }
    }
    let joined = rest.join("&");
    Ok((parse_scenario(if joined.is_empty() { "defaults" } else { &joined })?, extra))
}

/// An own key's value ("" for a key the recorder does not have).
fn extra_get<'a>(extra: &'a [(String, String)], k: &str) -> &'a str {
    extra.iter().find(|(ek, _)| ek == k).map(|(_, v)| v.as_str()).unwrap_or("")
}

/// What a run with `interrupt` shows of its follow-up turns: each resume the side
/// channel logged (the state it resumed from, its receipt) and the states streamed.
fn set_resumes(run: &mut J, side: &[J], events: &[J]) {
    let resumes: Vec<J> = side
        .iter()
        .filter(|r| ev_is(r, "resume"))
        .map(|r| {
            J::obj()
                .with("from_state", r.get("from_state").cloned().unwrap_or(J::Null))
                .with("receipt", r.get("receipt").cloned().unwrap_or(J::Null))
        })
        .collect();
    run.set("resumed", !resumes.is_empty());
    run.set("resumes", resumes);
    run.set("states", events.iter().filter_map(|e| e.get("state").filter(|s| **s != J::Null).cloned()).collect::<Vec<_>>());
}

fn wall() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn default_out() -> PathBuf {
    let out = manifest_dir().join("../../fidelity/fixtures/rust");
    out.canonicalize().unwrap_or(out)
}

fn agent_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent().expect("bin dir").join("order-status-agent")
}

fn ms_since(t0: Instant) -> i64 {
    t0.elapsed().as_millis() as i64
}

fn uuid_re_mask(s: &str) -> String {
    // [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} -> <id>
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let shape = [8, 4, 4, 4, 12];
    'outer: while i < b.len() {
        let mut j = i;
        let mut ok = true;
        for (g, len) in shape.iter().enumerate() {
            for _ in 0..*len {
                if j < b.len() && (b[j].is_ascii_digit() || (b'a'..=b'f').contains(&b[j])) {
                    j += 1;
                } else {
                    ok = false;
                    break;
                }
            }
            if !ok {
                break;
            }
            if g < 4 {
                if j < b.len() && b[j] == b'-' {
                    j += 1;
                } else {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            out.push_str("<id>");
            i = j;
            continue 'outer;
        }
        let c = s[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

// ---------------------------------------------------------------------------
// The server child
// ---------------------------------------------------------------------------

struct ServerProc {
    log_path: PathBuf,
    port: u16,
    child: Option<Child>,
}

impl ServerProc {
    fn start(conf: String, log_path: PathBuf, port: u16) -> Result<ServerProc, String> {
        use std::os::unix::process::CommandExt;
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&log_path).map_err(|e| e.to_string())?;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(agent_bin())
            .arg("serve")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", agent_bin().display()))?;
        Ok(ServerProc { log_path, port, child: Some(child) })
    }

    async fn wait_ready(&mut self, client: &reqwest::Client) -> Result<(), String> {
        let url = format!("http://127.0.0.1:{}/.well-known/agent-card.json", self.port);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    let log = std::fs::read_to_string(&self.log_path).unwrap_or_default();
                    return Err(format!("server exited ({status}): {log}"));
                }
            }
            if let Ok(r) = client.get(&url).timeout(Duration::from_millis(500)).send().await {
                if r.status().as_u16() == 200 {
                    return Ok(());
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Err("server did not become ready".into())
    }

    /// SIGKILL, by the child's own PID.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for ServerProc {
    fn drop(&mut self) {
        self.kill();
    }
}

// ---------------------------------------------------------------------------
// The client: raw JSON-RPC over HTTP, every response body kept byte for byte
// ---------------------------------------------------------------------------

struct Exchange {
    method: String,
    raw: Mutex<Vec<u8>>,
    status: Mutex<Option<u16>>,
    content_type: Mutex<String>,
}

impl Exchange {
    fn raw(&self) -> Vec<u8> {
        self.raw.lock().unwrap().clone()
    }
    fn content_type(&self) -> String {
        self.content_type.lock().unwrap().clone()
    }
}

#[derive(Clone)]
struct Http {
    client: reqwest::Client,
    url: String,
    exchanges: Arc<Mutex<Vec<Arc<Exchange>>>>,
}

fn err_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(&format!(" (cause: {c})"));
        src = c.source();
    }
    s
}

/// The complete SSE events of `buf` (LF or CRLF), removed from it: (event, data).
fn take_sse_events(buf: &mut String) -> Vec<(String, Option<String>)> {
    let norm = buf.replace("\r\n", "\n");
    let Some(end) = norm.rfind("\n\n") else {
        *buf = norm;
        return Vec::new();
    };
    let (done, rest) = norm.split_at(end + 2);
    let events = parse_sse(done);
    *buf = rest.to_string();
    events
}

/// W3C SSE: (event name, joined data lines) per dispatched event.
fn parse_sse(text: &str) -> Vec<(String, Option<String>)> {
    let text = text.replace("\r\n", "\n");
    let mut out = Vec::new();
    let mut event = "message".to_string();
    let mut data: Vec<String> = Vec::new();
    for line in text.split('\n') {
        if line.is_empty() {
            if !data.is_empty() {
                out.push((event.clone(), Some(data.join("\n"))));
            }
            event = "message".into();
            data.clear();
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (key, val) = line.split_once(':').unwrap_or((line, ""));
        let val = val.strip_prefix(' ').unwrap_or(val);
        match key {
            "event" => event = val.to_string(),
            "data" => data.push(val.to_string()),
            _ => {}
        }
    }
    out
}

enum Read {
    Done,
    Dropped,
}

impl Http {
    fn new(port: u16) -> Http {
        Http {
            client: reqwest::Client::builder().build().expect("reqwest client"),
            url: format!("http://127.0.0.1:{port}/"),
            exchanges: Arc::default(),
        }
    }

    fn count(&self) -> usize {
        self.exchanges.lock().unwrap().len()
    }

    fn exchange(&self, i: usize) -> Option<Arc<Exchange>> {
        self.exchanges.lock().unwrap().get(i).cloned()
    }

    fn all(&self) -> Vec<Arc<Exchange>> {
        self.exchanges.lock().unwrap().clone()
    }

    /// One JSON-RPC call. For an SSE answer, `on_event` sees each JSON-RPC `result`
    /// as it arrives; returning false drops the connection there.
    async fn call(
        &self,
        method: &str,
        params: J,
        stream: bool,
        on_event: &mut (dyn FnMut(&J) -> bool + Send),
    ) -> Result<Read, String> {
        let ex = Arc::new(Exchange {
            method: method.to_string(),
            raw: Mutex::default(),
            status: Mutex::default(),
            content_type: Mutex::default(),
        });
        self.exchanges.lock().unwrap().push(ex.clone());
        let body = J::obj()
            .with("jsonrpc", "2.0")
            .with("id", uuid::Uuid::new_v4().to_string())
            .with("method", method)
            .with("params", params)
            .tight();
        let mut rb = self
            .client
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("A2A-Version", "1.0")
            .body(body);
        if stream {
            rb = rb.header("Accept", "text/event-stream");
        }
        let mut resp = rb.send().await.map_err(|e| err_text(&e))?;
        *ex.status.lock().unwrap() = Some(resp.status().as_u16());
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        *ex.content_type.lock().unwrap() = ct.clone();
        let sse = ct.contains("text/event-stream");
        let mut buf = String::new();
        loop {
            match resp.chunk().await {
                Ok(Some(bytes)) => {
                    ex.raw.lock().unwrap().extend_from_slice(&bytes);
                    if sse {
                        buf.push_str(&String::from_utf8_lossy(&bytes));
                        for (_, data) in take_sse_events(&mut buf) {
                            let Some(data) = data else { continue };
                            let Ok(obj) = J::parse(&data) else { continue };
                            if let Some(result) = obj.get("result") {
                                if !on_event(result) {
                                    return Ok(Read::Dropped);
                                }
                            }
                        }
                    }
                }
                Ok(None) => return Ok(Read::Done),
                Err(e) => return Err(err_text(&e)),
            }
        }
    }

    /// A unary call: the parsed body, or why there is none.
    async fn unary(&self, method: &str, params: J, timeout: Duration) -> (Option<J>, Option<String>, Option<u16>) {
        let n = self.count();
        let got = tokio::time::timeout(timeout, self.call(method, params, false, &mut |_| true)).await;
        let ex = self.exchange(n);
        let status = ex.as_ref().and_then(|e| *e.status.lock().unwrap());
        match got {
            Err(_) => (None, Some("timeout".into()), status),
            Ok(Err(e)) => (None, Some(e), status),
            Ok(Ok(_)) => {
                let raw = ex.map(|e| e.raw()).unwrap_or_default();
                match J::parse(&String::from_utf8_lossy(&raw)) {
                    Ok(j) => (Some(j), None, status),
                    Err(e) => (None, Some(format!("not JSON: {e}")), status),
                }
            }
        }
    }
}

fn message(message_id: &str, task_id: Option<&str>, context_id: Option<&str>, text: &str, metadata: Option<J>) -> J {
    let mut m = J::obj()
        .with("messageId", message_id)
        .with("role", "ROLE_USER")
        .with("parts", vec![J::obj().with("text", text)]);
    if let Some(t) = task_id {
        m.set("taskId", t);
    }
    if let Some(c) = context_id {
        m.set("contextId", c);
    }
    if let Some(md) = metadata {
        m.set("metadata", md);
    }
    m
}

/// The client's follow-up to an interrupted task (recorder.py follow_up).
fn follow_up(state: Option<&str>) -> Option<(&'static str, Option<J>)> {
    match state {
        Some("TASK_STATE_AUTH_REQUIRED") => {
            Some(("Signed in (authz:7).", Some(J::obj().with("authorizationReceipt", "authz:7"))))
        }
        Some("TASK_STATE_INPUT_REQUIRED") => Some(("Home, please.", None)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Normalizing what came back (recorder.py normalize, task_summary, ...)
// ---------------------------------------------------------------------------

fn kind_of(r: &J) -> &'static str {
    ["task", "statusUpdate", "artifactUpdate", "message"]
        .into_iter()
        .find(|k| r.get(k).is_some())
        .unwrap_or("unknown")
}

fn normalize(results: &[J]) -> Vec<J> {
    let mut out = Vec::new();
    let mut terminal_seen = false;
    for r in results {
        let k = kind_of(r);
        let empty = J::obj();
        let body = r.get(k).unwrap_or(&empty);
        let state = if k == "task" || k == "statusUpdate" {
            body.at(&["status", "state"]).and_then(J::str).map(str::to_string)
        } else {
            None
        };
        let art = if k == "artifactUpdate" {
            body.at(&["artifact", "artifactId"]).and_then(J::str).map(str::to_string)
        } else {
            None
        };
        let flag = |name: &str| k == "artifactUpdate" && body.get(name).is_some_and(J::truthy);
        out.push(
            J::obj()
                .with("kind", k)
                .with("state", state.clone())
                .with("artifact_id", art)
                .with("append", flag("append"))
                .with("last_chunk", flag("lastChunk"))
                .with("after_terminal", terminal_seen),
        );
        if state.as_deref().is_some_and(|s| TERMINAL.contains(&s)) {
            terminal_seen = true;
        }
    }
    out
}

fn parts_count(task: &J) -> usize {
    task.get("artifacts").map(|a| a.arr().iter().map(|x| x.get("parts").map_or(0, |p| p.arr().len())).sum()).unwrap_or(0)
}

fn task_summary(task: &J) -> J {
    let arts = task.get("artifacts").map(|a| a.arr().to_vec()).unwrap_or_default();
    J::obj()
        .with("state", task.at(&["status", "state"]).cloned().unwrap_or(J::Null))
        .with("artifacts", arts.len())
        .with("artifact_ids", arts.iter().map(|a| a.get("artifactId").cloned().unwrap_or(J::Null)).collect::<Vec<_>>())
        .with("parts", parts_count(task))
        .with("history", task.get("history").map_or(0, |h| h.arr().len()))
}

fn describe_outcome(run: &J) -> String {
    let ev = run.get("events").map(|e| e.arr().to_vec()).unwrap_or_default();
    let seq: Vec<String> = ev
        .iter()
        .map(|e| {
            let mut s = e.get("kind").and_then(J::str).unwrap_or("").to_string();
            if let Some(st) = e.get("state").and_then(J::str) {
                s.push_str(&format!("({})", st.trim_start_matches("TASK_STATE_")));
            }
            if let Some(a) = e.get("artifact_id").and_then(J::str) {
                s.push('[');
                s.push_str(a);
                if e.get("append").is_some_and(J::truthy) {
                    s.push_str(" +append");
                }
                if e.get("last_chunk").is_some_and(J::truthy) {
                    s.push_str(" +last");
                }
                s.push(']');
            }
            if e.get("after_terminal").is_some_and(J::truthy) {
                s.push_str(" !after-terminal");
            }
            s
        })
        .collect();
    format!("{} events: {}", ev.len(), seq.join(", "))
}

const STABLE_KEYS: [&str; 15] = [
    "events", "stream", "call", "blocking_result_artifacts", "blocking_result_state", "blocking_result_parts",
    "get_task_after", "get_task_settled", "cancel_result", "cancel_error_code", "orphaned_steps", "executions",
    "distinct_tasks", "resumed", "states",
];

fn outcome_key(run: &J) -> String {
    let mut o = J::obj();
    for k in STABLE_KEYS {
        let mut v = run.get(k).cloned().unwrap_or(J::Null);
        if k.starts_with("get_task") && v.is_obj() {
            v = J::obj()
                .with("state", v.get("state").cloned().unwrap_or(J::Null))
                .with("artifacts", v.get("artifacts").cloned().unwrap_or(J::Null));
        }
        o.set(k, v);
    }
    o.compact()
}

// ---------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------

struct Outcome {
    end: String,
    error: Option<String>,
}

struct Run {
    cfg: Scenario,
    watchdog_s: f64,
    side_path: String,
    log_path: PathBuf,
    port: u16,
    notes: Mutex<Vec<String>>,
    server: Mutex<Option<ServerProc>>,
    task_id: Mutex<Option<String>>,
    context_id: Mutex<Option<String>>,
    t0: Mutex<Instant>,
    t0_wall: Mutex<f64>,
    http: Http,
    /// push notifications on in the agent (the push recorder)
    push: bool,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(0)
}

fn read_side(path: &str) -> Vec<J> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().filter(|l| !l.trim().is_empty()).filter_map(|l| J::parse(l).ok()).collect())
        .unwrap_or_default()
}

fn ev_is(r: &J, ev: &str) -> bool {
    r.get("ev").and_then(J::str) == Some(ev)
}

impl Run {
    fn new(cfg: Scenario, workdir: &Path, watchdog_s: f64) -> Run {
        let port = free_port();
        Run {
            cfg,
            watchdog_s,
            side_path: workdir.join("side.jsonl").to_string_lossy().into_owned(),
            log_path: workdir.join("server.log"),
            port,
            notes: Mutex::default(),
            server: Mutex::default(),
            task_id: Mutex::default(),
            context_id: Mutex::default(),
            t0: Mutex::new(Instant::now()),
            t0_wall: Mutex::new(wall()),
            http: Http::new(port),
            push: false,
        }
    }

    fn t0(&self) -> Instant {
        *self.t0.lock().unwrap()
    }

    fn note(&self, s: impl Into<String>) {
        self.notes.lock().unwrap().push(s.into());
    }

    fn server_conf(&self) -> String {
        J::obj()
            .with("scenario", J::Obj(self.cfg.0.iter().map(|(k, v)| (k.clone(), J::from(v))).collect()))
            .with("step_ms", RECORD_STEP_MS)
            .with("side", self.side_path.as_str())
            .with("db", self.log_path.with_file_name("tasks.sqlite").to_string_lossy().into_owned())
            .with("port", self.port as u64)
            .with("push", if self.push { J::Bool(true) } else { J::Null })
            .compact()
    }

    async fn start_server(&self) -> Result<(), String> {
        let mut s = ServerProc::start(self.server_conf(), self.log_path.clone(), self.port)?;
        s.wait_ready(&self.http.client).await?;
        *self.server.lock().unwrap() = Some(s);
        Ok(())
    }

    fn kill_server(&self) {
        if let Some(mut s) = self.server.lock().unwrap().take() {
            s.kill();
        }
    }

    async fn wait_side(&self, pred: impl Fn(&J) -> bool, timeout: Duration) -> Option<J> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(r) = read_side(&self.side_path).into_iter().find(|r| pred(r)) {
                return Some(r);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        None
    }

    fn task_id(&self) -> Option<String> {
        self.task_id.lock().unwrap().clone()
    }

    fn task_id_from_side(&self) -> Option<String> {
        read_side(&self.side_path)
            .into_iter()
            .find(|r| ev_is(r, "execute_start"))
            .and_then(|r| r.get("task_id").and_then(J::str).map(str::to_string))
    }

    /// Waits until chunk k was enqueued (k=0: the executor started), then half a step.
    async fn trigger_after_chunk(&self, k: usize) -> bool {
        let rec = if k == 0 {
            let r = self.wait_side(|r| ev_is(r, "execute_start"), Duration::from_secs(10)).await;
            if r.is_some() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            r
        } else if self.cfg.get("result") == "last" {
            self.wait_side(|r| ev_is(r, "enqueued_result"), Duration::from_secs(10)).await
        } else {
            self.wait_side(
                |r| ev_is(r, "enqueued_chunk") && r.get("i").and_then(J::i64) == Some(k as i64),
                Duration::from_secs(10),
            )
            .await
        };
        if rec.is_none() {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(RECORD_STEP_MS / 2)).await;
        true
    }

    /// Runs a reading future under the watchdog: still open `watchdog_s` after the
    /// executor went quiet (its last side-channel record) = "hung".
    async fn watched<F>(&self, fut: F) -> Result<Result<Read, String>, ()>
    where
        F: std::future::Future<Output = Result<Read, String>>,
    {
        tokio::pin!(fut);
        let start = Instant::now();
        loop {
            tokio::select! {
                r = &mut fut => return Ok(r),
                _ = tokio::time::sleep(Duration::from_millis(50)) => {
                    let last = read_side(&self.side_path)
                        .iter()
                        .filter_map(|r| r.get("t").and_then(J::f64))
                        .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))))
                        .unwrap_or_else(wall);
                    if wall() - last > self.watchdog_s && start.elapsed().as_secs_f64() > self.watchdog_s {
                        return Err(());
                    }
                }
            }
        }
    }

    /// One SendMessage / SendStreamingMessage call under the watchdog (and, with
    /// `timeout_ms`, under the client's deadline for the whole call, as the JS recorder
    /// gives its client: a2a-client-lf's reqwest client has no timeout of its own).
    async fn consume(&self, msg: J, stop_after_chunk: bool) -> Outcome {
        let stream = self.cfg.get("client") == "stream";
        let deadline = match self.cfg.get("timeout_ms") {
            "none" => None,
            t => t.parse::<u64>().ok().map(Duration::from_millis),
        };
        let params = J::obj().with("message", msg);
        let body = async {
            let n = self.http.count();
            let mut on_event = |r: &J| {
                if let Some(t) = r.get("task") {
                    let mut tid = self.task_id.lock().unwrap();
                    if tid.is_none() {
                        *tid = t.get("id").and_then(J::str).map(str::to_string);
                        *self.context_id.lock().unwrap() = t.get("contextId").and_then(J::str).map(str::to_string);
                    }
                }
                !(stop_after_chunk && r.get("artifactUpdate").is_some())
            };
            let method = if stream { "SendStreamingMessage" } else { "SendMessage" };
            let got = self.http.call(method, params.clone(), stream, &mut on_event).await;
            if !stream && got.is_ok() {
                if let Some(ex) = self.http.exchange(n) {
                    if let Ok(obj) = J::parse(&String::from_utf8_lossy(&ex.raw())) {
                        if let Some(r) = obj.get("result") {
                            on_event(r);
                        }
                    }
                }
            }
            got
        };
        let timed = async {
            match deadline {
                None => body.await,
                Some(d) => match tokio::time::timeout(d, body).await {
                    Ok(r) => r,
                    Err(_) => Err(format!("timed_out: the client's deadline of {} ms ran out", d.as_millis())),
                },
            }
        };
        let done = if stream { "closed" } else { "returned" };
        match self.watched(timed).await {
            Err(()) => Outcome { end: "hung".into(), error: None },
            Ok(Ok(Read::Done)) => Outcome { end: done.into(), error: None },
            Ok(Ok(Read::Dropped)) => Outcome { end: "dropped_by_client".into(), error: None },
            Ok(Err(e)) if e.starts_with("timed_out: ") => {
                Outcome { end: "timed_out".into(), error: Some(e.trim_start_matches("timed_out: ").to_string()) }
            }
            Ok(Err(e)) => Outcome { end: done.into(), error: Some(e) },
        }
    }

    /// GetTask: (summary | "lost" | {error, code}, the raw result or error).
    async fn get_task(&self, task_id: Option<&str>) -> (J, J) {
        let Some(tid) = task_id else {
            return (J::obj().with("error", "no task id known"), J::Null);
        };
        let (obj, err, _) = self.http.unary("GetTask", J::obj().with("id", tid), Duration::from_secs(5)).await;
        let Some(obj) = obj else {
            return (J::obj().with("error", err.unwrap_or_default()).with("code", J::Null), J::Null);
        };
        if let Some(e) = obj.get("error") {
            let code = e.get("code").and_then(J::i64);
            if code == Some(-32001) {
                return (J::from("lost"), J::obj().with("error", e));
            }
            return (
                J::obj().with("error", e.get("message").cloned().unwrap_or(J::Null)).with("code", code),
                J::obj().with("error", e),
            );
        }
        match obj.get("result") {
            Some(r) => (task_summary(r), r.clone()),
            None => (J::obj().with("error", "no result").with("code", J::Null), J::Null),
        }
    }

    async fn cancel_task(&self, task_id: Option<String>) -> J {
        let mut out = J::obj().with("sent_at_ms", ms_since(self.t0()));
        let Some(tid) = task_id else {
            return out.with("result", "error").with("message", "no task id known");
        };
        let (obj, err, status) = self.http.unary("CancelTask", J::obj().with("id", tid), Duration::from_secs(10)).await;
        match obj {
            None if err.as_deref() == Some("timeout") => {
                out = out.with("result", "hung").with("code", J::Null).with("message", "CancelTask did not answer in 10 s");
            }
            None => {
                out = out.with("result", "error").with("code", J::Null).with("message", err);
            }
            Some(obj) => {
                if let Some(res) = obj.get("result") {
                    let st = res.at(&["status", "state"]).and_then(J::str).map(str::to_string);
                    out = out
                        .with("result", if st.as_deref() == Some("TASK_STATE_CANCELED") { "canceled" } else { "returned" })
                        .with("returned_state", st)
                        .with("code", J::Null)
                        .with("message", J::Null)
                        .with("wire", res);
                } else {
                    let e = obj.get("error").cloned().unwrap_or(J::Null);
                    let code = e.get("code").and_then(J::i64);
                    out = out
                        .with("result", if code == Some(-32002) { "not_cancelable" } else { "error" })
                        .with("code", code)
                        .with("message", e.get("message").cloned().unwrap_or(J::Null))
                        .with("wire_error", e);
                }
            }
        }
        out.with("http_status", status.map(|s| s as u64)).with("answered_at_ms", ms_since(self.t0()))
    }

    async fn restart_after_chunk(self: Arc<Self>, k: usize) -> J {
        if !self.trigger_after_chunk(k).await {
            return J::obj().with("done", false);
        }
        self.kill_server();
        let mut info = J::obj().with("killed_at_ms", ms_since(self.t0()));
        if let Err(e) = self.start_server().await {
            self.note(format!("restart failed: {e}"));
            return info.with("done", false);
        }
        info.set("back_at_ms", ms_since(self.t0()));
        info.with("done", true)
    }

    async fn settle(&self) {
        let n = self.cfg.chunks() as f64;
        let late = self.cfg.get("late").parse::<f64>().unwrap_or(0.0);
        let s = ((n * RECORD_STEP_MS as f64 + late) / 1000.0 + 0.4).max(0.6);
        tokio::time::sleep(Duration::from_secs_f64(s)).await;
    }

    async fn execute(self: Arc<Self>) -> Result<J, String> {
        let cfg = self.cfg.clone();
        self.start_server().await?;
        let message_id = format!("msg-{}", uuid::Uuid::new_v4());
        let req = message(&message_id, None, None, USER_TEXT, None);
        *self.t0.lock().unwrap() = Instant::now();
        *self.t0_wall.lock().unwrap() = wall();

        let mut side_tasks: Vec<tokio::task::JoinHandle<()>> = Vec::new();
        let cancel_info: Arc<Mutex<Option<J>>> = Arc::default();
        if cfg.get("cancel") != "none" {
            let k: usize = cfg.get("cancel").parse().unwrap_or(0);
            let me = self.clone();
            let slot = cancel_info.clone();
            side_tasks.push(tokio::spawn(async move {
                if !me.trigger_after_chunk(k).await {
                    *slot.lock().unwrap() = Some(J::obj().with("result", "not_sent"));
                    return;
                }
                let tid = me.task_id().or_else(|| me.task_id_from_side());
                let got = me.cancel_task(tid).await;
                *slot.lock().unwrap() = Some(got);
            }));
        }
        let restart_task = if cfg.get("restart") != "none" {
            let k: usize = cfg.get("restart").parse().unwrap_or(0);
            Some(tokio::spawn(self.clone().restart_after_chunk(k)))
        } else {
            None
        };
        if let Some(t) = cfg.get("timeout_ms").parse::<u64>().ok() {
            self.note(format!(
                "timeout_ms={t}: the client's own deadline for the whole call (as the JS recorder's \
                 AbortSignal.timeout); a2a-client-lf's default reqwest client has no timeout of its own"
            ));
        }
        if cfg.get("cancel") != "none" && cfg.get("work") == "await" {
            self.note(
                "work=await: the handler polls the executor's stream only between events, so a cancel \
                 stops the awaiting steps when the step in progress yields its chunk (handler.rs drive_execution)",
            );
        }

        let mut attempts: Vec<J> = Vec::new();
        let outcome;
        if cfg.get("retry") == "on" {
            let first = self.consume(req.clone(), true).await;
            attempts.push(J::obj().with("task_id", self.task_id()).with("end", first.end.as_str()));
            *self.task_id.lock().unwrap() = None;
            outcome = self.consume(message(&message_id, None, None, USER_TEXT, None), false).await;
            attempts.push(J::obj().with("task_id", self.task_id()).with("end", outcome.end.as_str()));
            self.note(format!(
                "retry: attempt 1 dropped by the client after chunk 1, then the identical request \
                 (same messageId {message_id}) was sent again"
            ));
        } else if cfg.get("interrupt") != "none" {
            let mut out = self.consume(req.clone(), false).await;
            attempts.push(J::obj().with("task_id", self.task_id()).with("end", out.end.as_str()));
            for _ in 0..3 {
                let (got, _) = self.get_task(self.task_id().as_deref()).await;
                let st = got.get("state").and_then(J::str).map(str::to_string);
                let Some((text, metadata)) = follow_up(st.as_deref()) else { break };
                let tid = self.task_id();
                let cid = self.context_id.lock().unwrap().clone();
                let follow = message(&format!("msg-{}", uuid::Uuid::new_v4()), tid.as_deref(), cid.as_deref(), text, metadata);
                out = self.consume(follow, false).await;
                attempts.push(
                    J::obj().with("task_id", self.task_id()).with("end", out.end.as_str()).with("resumed_from", st),
                );
            }
            outcome = out;
        } else {
            outcome = self.consume(req.clone(), false).await;
        }
        let call_end_ms = ms_since(self.t0());

        if self.task_id().is_none() {
            *self.task_id.lock().unwrap() = self.task_id_from_side();
        }
        let mut restart_info = None;
        let mut restart_handle = restart_task;
        if let Some(h) = restart_handle.as_mut() {
            // GetTask "right after" means: as soon as the fresh server answers
            if let Ok(Ok(info)) = tokio::time::timeout(Duration::from_secs(30), h).await {
                restart_info = Some(info);
            }
        }
        let (get_after, _) = self.get_task(self.task_id().as_deref()).await;
        for t in side_tasks {
            if tokio::time::timeout(Duration::from_secs(15), t).await.is_err() {
                self.note("side task failed: timeout");
            }
        }
        self.settle().await;
        let (get_settled, settled_wire) = self.get_task(self.task_id().as_deref()).await;

        // --- wire: the exact results the client received ---------------------
        let mut wire: Vec<J> = Vec::new();
        let mut wire_errors: Vec<J> = Vec::new();
        let mut sse_raw: Option<String> = None;
        for ex in self.http.all() {
            if ex.method != "SendStreamingMessage" && ex.method != "SendMessage" {
                continue;
            }
            let raw = ex.raw();
            if ex.content_type().contains("text/event-stream") {
                let text = String::from_utf8_lossy(&raw).into_owned();
                sse_raw = Some(sse_raw.unwrap_or_default() + &text);
                for (event, data) in parse_sse(&text) {
                    let data = data.unwrap_or_default();
                    match J::parse(&data) {
                        Ok(obj) if obj.get("result").is_some() => wire.push(obj.get("result").unwrap().clone()),
                        Ok(obj) => wire_errors.push(J::obj().with("event", event).with("data", obj)),
                        Err(_) => wire_errors.push(J::obj().with("event", event).with("data", data)),
                    }
                }
            } else {
                let text = String::from_utf8_lossy(&raw).into_owned();
                match J::parse(&text) {
                    Ok(obj) if obj.get("result").is_some() => wire.push(obj.get("result").unwrap().clone()),
                    Ok(obj) => wire_errors.push(J::obj().with("event", J::Null).with("data", obj)),
                    Err(_) if !raw.is_empty() => wire_errors.push(J::obj().with("event", J::Null).with("data", text)),
                    Err(_) => {}
                }
            }
        }
        let events = normalize(&wire);

        let side = read_side(&self.side_path);
        let executions = side.iter().filter(|r| ev_is(r, "execute_start")).count();
        let mut done_steps: Vec<i64> = side.iter().filter(|r| ev_is(r, "work_done")).filter_map(|r| r.get("i").and_then(J::i64)).collect();
        done_steps.sort();
        done_steps.dedup();
        let mut enqueued: Vec<i64> = side.iter().filter(|r| ev_is(r, "enqueued_chunk")).filter_map(|r| r.get("i").and_then(J::i64)).collect();
        enqueued.sort();
        enqueued.dedup();
        // a step whose work finished but whose chunk never reached the client or the
        // store is orphaned
        let mut delivered: Vec<String> = Vec::new();
        let mut add_parts = |artifact: &J| {
            for p in artifact.get("parts").map(|p| p.arr().to_vec()).unwrap_or_default() {
                if let Some(t) = p.get("text").and_then(J::str) {
                    delivered.push(t.to_string());
                }
            }
        };
        for r in &wire {
            if let Some(a) = r.at(&["artifactUpdate", "artifact"]) {
                add_parts(a);
            }
            if let Some(t) = r.get("task") {
                for a in t.get("artifacts").map(|a| a.arr().to_vec()).unwrap_or_default() {
                    add_parts(&a);
                }
            }
        }
        for a in settled_wire.get("artifacts").map(|a| a.arr().to_vec()).unwrap_or_default() {
            add_parts(&a);
        }
        let n = cfg.chunks();
        let mut orphaned: Vec<i64> =
            done_steps.iter().copied().filter(|i| !delivered.contains(&step_text(*i as usize, n))).collect();
        if cfg.get("restart") != "none" {
            // steps done before the kill that were never delivered died with the
            // process: lost, not orphaned
            if !orphaned.is_empty() {
                self.note(format!("steps lost with the killed process: {orphaned:?}"));
            }
            orphaned.clear();
        }

        let is_stream = cfg.get("client") == "stream";
        let cancel = cancel_info.lock().unwrap().clone();
        let mut run = J::obj()
            .with("events", events.clone())
            .with("wire", wire.clone())
            .with("stream", if is_stream { J::from(outcome.end.as_str()) } else { J::Null })
            .with("call", if is_stream { J::Null } else { J::from(outcome.end.as_str()) })
            .with("end_error", outcome.error.clone())
            .with("blocking_result_artifacts", J::Null)
            .with("blocking_result_state", J::Null)
            .with("blocking_result_parts", J::Null)
            .with("get_task_after", get_after)
            .with("get_task_settled", get_settled)
            .with("get_task_settled_wire", settled_wire)
            .with("cancel_result", J::Null)
            .with("cancel_error_code", J::Null)
            .with("cancel", J::Null)
            .with("orphaned_steps", orphaned.len())
            .with("orphaned_step_numbers", orphaned.iter().map(|i| J::from(*i)).collect::<Vec<_>>())
            .with("executions", executions)
            .with("steps_done", done_steps.iter().map(|i| J::from(*i)).collect::<Vec<_>>())
            .with("chunks_enqueued", enqueued.iter().map(|i| J::from(*i)).collect::<Vec<_>>())
            .with("call_end_ms", call_end_ms);
        if !is_stream {
            if let Some(last) = wire.iter().filter_map(|r| r.get("task")).last() {
                run.set("blocking_result_artifacts", last.get("artifacts").map_or(0, |a| a.arr().len()));
                run.set("blocking_result_state", last.at(&["status", "state"]).cloned().unwrap_or(J::Null));
                run.set("blocking_result_parts", parts_count(last));
            }
        }
        if let Some(c) = cancel {
            run.set("cancel_result", c.get("result").cloned().unwrap_or(J::Null));
            run.set("cancel_error_code", c.get("code").cloned().unwrap_or(J::Null));
            run.set("cancel", c);
        }
        if let Some(r) = restart_info {
            run.set("restart", r);
        } else if cfg.get("restart") != "none" {
            run.set("restart", J::obj().with("done", false));
        }
        if !wire_errors.is_empty() {
            run.set("wire_errors", wire_errors);
        }
        if !attempts.is_empty() {
            let mut ids: Vec<String> = Vec::new();
            for a in &attempts {
                if let Some(t) = a.get("task_id").and_then(J::str) {
                    if !ids.iter().any(|i| i == t) {
                        ids.push(t.to_string());
                    }
                }
            }
            run.set("attempts", attempts.clone());
            run.set("distinct_tasks", ids.len());
            if cfg.get("retry") == "on" {
                if let Some(first) = attempts[0].get("task_id").and_then(J::str) {
                    let (first_after, _) = self.get_task(Some(first)).await;
                    run.set("first_attempt_task_settled", first_after);
                }
            }
        }
        if cfg.get("interrupt") != "none" {
            set_resumes(&mut run, &side, &events);
        }
        let t0_wall = *self.t0_wall.lock().unwrap();
        run.set("side_channel", side_records(&side, t0_wall));
        run.set("server_log", server_log_lines(&self.log_path).into_iter().take(30).map(J::from).collect::<Vec<_>>());
        run.set("notes", self.notes.lock().unwrap().join("; "));
        run.set("_sse_raw", sse_raw);
        self.kill_server();
        Ok(run)
    }
}

/// The side channel as a fixture keeps it: without `t` and `pid`, `ms` relative to
/// the client's send.
fn side_records(side: &[J], t0_wall: f64) -> Vec<J> {
    side.iter()
        .map(|r| {
            let t = r.get("t").and_then(J::f64).unwrap_or(t0_wall);
            let mut o = J::obj();
            if let J::Obj(pairs) = r {
                for (k, v) in pairs {
                    if k != "t" && k != "pid" {
                        o.set(k, v);
                    }
                }
            }
            o.with("ms", ((t - t0_wall) * 1000.0).round() as i64)
        })
        .collect()
}

/// The server's WARN/ERROR lines (tracing's `WARN` written `WARNING`, as the other
/// recorders' logs spell it), ids masked.
fn server_log_lines(path: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(path).unwrap_or_default();
    log.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let line = if let Some(rest) = t.strip_prefix("WARN ") {
                format!("WARNING {rest}")
            } else if t.starts_with("ERROR ") {
                t.to_string()
            } else {
                return None;
            };
            Some(uuid_re_mask(&line))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Scenarios, fixtures, index
// ---------------------------------------------------------------------------

fn rustc_version() -> String {
    Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().trim_start_matches("rustc ").to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn package_versions() -> J {
    let lock = std::fs::read_to_string(manifest_dir().join("Cargo.lock")).unwrap_or_default();
    let mut out = J::obj();
    for want in ["a2a-lf", "a2a-server-lf", "a2a-pb", "axum", "hyper", "tokio", "serde_json", "reqwest"] {
        let mut name = None;
        for line in lock.lines() {
            if let Some(n) = line.strip_prefix("name = \"") {
                name = Some(n.trim_end_matches('"').to_string());
            } else if let Some(v) = line.strip_prefix("version = \"") {
                if name.as_deref() == Some(want) {
                    out.set(want, v.trim_end_matches('"'));
                    break;
                }
            }
        }
    }
    out
}

fn inputs_of(cfg: &Scenario) -> J {
    J::Obj(DEFAULTS.iter().map(|(k, _)| (k.to_string(), J::from(cfg.get(k)))).collect())
}

async fn record_scenario(query: &str, runs: usize, watchdog_s: f64, rustc: &str) -> Result<J, String> {
    let cfg = parse_scenario(query)?;
    let base = J::obj()
        .with("sdk", order_status::SDK)
        .with("rustc", rustc)
        .with("scenario", query)
        .with("inputs", inputs_of(&cfg))
        .with("step_ms", RECORD_STEP_MS)
        .with("watchdog_ms", (watchdog_s * 1000.0).round() as i64);
    if cfg.get("store") == "database" {
        return Ok(base
            .with("measurable", false)
            .with("stable", J::Null)
            .with("summary", "not measurable: a2a-server-lf 0.5.3 has no database task store")
            .with(
                "note",
                "a2a-server-lf 0.5.3 ships only InMemoryTaskStore (src/task_store/mod.rs: `pub use \
                 inmemory::InMemoryTaskStore`); a database store is the TaskStore trait \
                 (src/task_store/store.rs), implemented by the agent's author. store=database has no SDK \
                 counterpart to measure.",
            )
            .with("runs", Vec::<J>::new()));
    }
    let mut results: Vec<J> = Vec::new();
    for i in 0..runs {
        let dir = std::env::temp_dir().join(format!("a2a-fidelity-rs-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let run = Arc::new(Run::new(cfg.clone(), &dir, watchdog_s));
        let got = run.clone().execute().await;
        run.kill_server();
        let log = std::fs::read_to_string(&run.log_path).unwrap_or_default();
        let _ = std::fs::remove_dir_all(&dir);
        match got {
            Ok(r) => results.push(r),
            Err(e) => {
                let tail: String = log.chars().rev().take(3000).collect::<Vec<_>>().into_iter().rev().collect();
                return Err(format!("{query} run {} failed: {e}\n{tail}", i + 1));
            }
        }
    }
    let keys: Vec<String> = results.iter().map(outcome_key).collect();
    let stable = keys.iter().all(|k| *k == keys[0]);
    for (j, r) in results.iter_mut().enumerate() {
        let raw = r.remove("_sse_raw");
        if j == 0 {
            if let Some(raw @ J::Str(_)) = raw {
                r.set("sse_raw", raw);
            }
        }
    }
    let summary = describe_outcome(&results[0]);
    Ok(base.with("measurable", true).with("stable", stable).with("summary", summary).with("runs", results))
}

struct Args {
    cmd: String,
    runs: usize,
    only: Vec<String>,
    out: PathBuf,
    probes: bool,
    watchdog: f64,
    list: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        cmd: "record".into(),
        runs: 3,
        only: Vec::new(),
        out: PathBuf::new(),
        probes: true,
        watchdog: WATCHDOG_S,
        list: false,
    };
    let mut it = std::env::args().skip(1).peekable();
    if let Some(cmd) = it.next_if(|c| c == "record" || c == "subscribe" || c == "push") {
        a.cmd = cmd;
    }
    while let Some(arg) = it.next() {
        let mut val = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--runs" => a.runs = val("--runs")?.parse().map_err(|_| "bad --runs")?,
            "--only" => a.only.push(val("--only")?),
            "--out" => a.out = PathBuf::from(val("--out")?),
            "--watchdog" => a.watchdog = val("--watchdog")?.parse().map_err(|_| "bad --watchdog")?,
            "--probes" => a.probes = true,
            "--no-probes" => a.probes = false,
            "--list" => a.list = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(a)
}

#[tokio::main]
async fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("recorder: {e}\nusage: recorder [record|subscribe|push] [--runs N] [--only QUERY ...] [--out DIR] [--no-probes] [--watchdog S] [--list]");
            std::process::exit(2);
        }
    };
    if args.list {
        match args.cmd.as_str() {
            "subscribe" => println!("{}", subscribe::matrix().join("\n")),
            "push" => println!("{}", push::matrix().join("\n")),
            _ => println!("{}", MATRIX.join("\n")),
        }
        return;
    }
    let got = match args.cmd.as_str() {
        "subscribe" => {
            let out = (!args.out.as_os_str().is_empty()).then(|| args.out.clone());
            subscribe::record(args.runs, args.only.clone(), out).await
        }
        "push" => {
            let out = (!args.out.as_os_str().is_empty()).then(|| args.out.clone());
            push::record(args.runs, args.only.clone(), out).await
        }
        _ => record(args).await,
    };
    if let Err(e) = got {
        eprintln!("recorder: {e}");
        std::process::exit(1);
    }
}

async fn record(args: Args) -> Result<(), String> {
    let out = if args.out.as_os_str().is_empty() { default_out() } else { args.out.clone() };
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let queries: Vec<String> =
        if args.only.is_empty() { MATRIX.iter().map(|s| s.to_string()).collect() } else { args.only.clone() };
    for q in &queries {
        parse_scenario(q).map_err(|e| format!("{q}: {e}"))?;
    }
    let rustc = rustc_version();
    let index_path = out.join("index.json");
    let old = if !args.only.is_empty() {
        std::fs::read_to_string(&index_path).ok().and_then(|s| J::parse(&s).ok())
    } else {
        None
    };
    let mut entries: Vec<(String, J)> = old
        .as_ref()
        .and_then(|o| o.get("scenarios"))
        .map(|s| s.arr().iter().filter_map(|e| Some((e.get("scenario")?.str()?.to_string(), e.clone()))).collect())
        .unwrap_or_default();
    let mut probe_entries: Vec<J> = old.as_ref().and_then(|o| o.get("probes")).map(|p| p.arr().to_vec()).unwrap_or_default();
    let started = Instant::now();
    for q in &queries {
        let t = Instant::now();
        let fx = record_scenario(q, args.runs, args.watchdog, &rustc).await?;
        let name = format!("{}.json", file_stem(q));
        std::fs::write(out.join(&name), fx.pretty() + "\n").map_err(|e| e.to_string())?;
        let mut entry = J::obj()
            .with("scenario", q.as_str())
            .with("file", name.as_str())
            .with("stable", fx.get("stable").cloned().unwrap_or(J::Null))
            .with("summary", fx.get("summary").cloned().unwrap_or(J::Null));
        if fx.get("measurable") == Some(&J::Bool(false)) {
            entry.set("measurable", false);
        }
        entries.retain(|(s, _)| s != q);
        entries.push((q.clone(), entry));
        println!(
            "[{:5.1}s] {q}: stable={} {}",
            t.elapsed().as_secs_f64(),
            fx.get("stable").map(J::compact).unwrap_or_default(),
            fx.get("summary").and_then(J::str).unwrap_or("")
        );
    }
    if args.probes && args.only.is_empty() {
        std::fs::create_dir_all(out.join("probes")).map_err(|e| e.to_string())?;
        let probes = [
            ("probe-sdk-default-client-timeout_stream", "ending=never"),
            ("probe-sdk-default-client-timeout_block", "ending=never&client=block"),
        ];
        for (pname, scenario) in probes {
            let t = Instant::now();
            let about = format!(
                "{scenario} with a client without a timeout of its own (as a2a-client-lf's \
                 default_reqwest_client: reqwest::Client::builder() with no timeout) and a watchdog of \
                 {PROBE_WATCHDOG_S} s: does anything end the call?"
            );
            let mut fx = record_scenario(scenario, 1, PROBE_WATCHDOG_S, &rustc).await?;
            fx.set("probe", pname);
            fx.set("about", about.as_str());
            let name = format!("probes/{pname}.json");
            std::fs::write(out.join(&name), fx.pretty() + "\n").map_err(|e| e.to_string())?;
            let r = fx.get("runs").and_then(|r| r.arr().first()).cloned().unwrap_or(J::obj());
            let entry = J::obj()
                .with("name", pname)
                .with("scenario", scenario)
                .with("file", name.as_str())
                .with("about", about.as_str())
                .with("stream", r.get("stream").cloned().unwrap_or(J::Null))
                .with("call", r.get("call").cloned().unwrap_or(J::Null))
                .with("end_error", r.get("end_error").cloned().unwrap_or(J::Null))
                .with("call_end_ms", r.get("call_end_ms").cloned().unwrap_or(J::Null));
            probe_entries.retain(|e| e.get("name").and_then(J::str) != Some(pname));
            probe_entries.push(entry);
            let end = r.get("stream").filter(|e| **e != J::Null).or(r.get("call")).map(J::compact).unwrap_or_default();
            println!("[{:5.1}s] probe {pname}: {end}", t.elapsed().as_secs_f64());
        }
    }
    let order = |q: &str| MATRIX.iter().position(|m| *m == q).unwrap_or(1000);
    entries.sort_by_key(|(q, _)| order(q.as_str()));
    let defaults = J::Obj(DEFAULTS.iter().map(|(k, v)| (k.to_string(), J::from(*v))).collect());
    let index = J::obj()
        .with("sdk", order_status::SDK)
        .with("rustc", rustc.as_str())
        .with("packages", package_versions())
        .with("handler", "a2a_server::DefaultRequestHandler (a2a-server-lf 0.5.3), no other handler exists")
        .with("store", "InMemoryTaskStore (the only store a2a-server-lf 0.5.3 ships; store=database is not measurable)")
        .with(
            "transport",
            "JSON-RPC over HTTP (SSE for streaming), a2a_server::jsonrpc::jsonrpc_router + agent_card_router on \
             axum 0.8, 127.0.0.1; raw reqwest client (no TLS) sending A2A-Version: 1.0",
        )
        .with("wire", "A2A 1.0 ProtoJSON: one key of task/statusUpdate/artifactUpdate/message, TASK_STATE_* states, no kind/final")
        .with("step_ms", RECORD_STEP_MS)
        .with("watchdog_ms", (args.watchdog * 1000.0).round() as i64)
        .with("runs_per_scenario", args.runs)
        .with("defaults", defaults)
        .with("scenarios", entries.into_iter().map(|(_, e)| e).collect::<Vec<_>>())
        .with("probes", probe_entries);
    std::fs::write(&index_path, index.pretty() + "\n").map_err(|e| e.to_string())?;
    println!("recorded {} scenarios in {:.0}s -> {}", queries.len(), started.elapsed().as_secs_f64(), out.display());
    Ok(())
}
