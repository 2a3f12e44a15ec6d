//! Subscribers (SPEC §9) and the combinations of SPEC §14 on a2a-rs: the twin of
//! tests/fidelity/python/subscribe.py (`recorder subscribe`), same matrix, same
//! driving rules, same fixture fields, into tests/fidelity/fixtures/rust/subscribe/.
//!
//! a2a-server-lf 0.5.3 has no A2A 0.3 wire, so every `wire=0.3` scenario is written as
//! not measurable (with the source line), not run.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::*;

const MAX_SUBSCRIPTIONS: usize = 2;
const RECONNECT_FOR_S: f64 = 15.0;
const DEFAULT_EVENTS: usize = 6;
const ENDING_LAST: [(&str, usize); 5] = [("fail", 6), ("input", 6), ("auth", 6), ("return", 5), ("never", 5)];
/// Keys of this recorder: (name, default).
const SUB_KEYS: [(&str, &str); 5] =
    [("resubscribe", "none"), ("second_client", "none"), ("wire", "1.0"), ("progress", "0"), ("result", "chunks")];

pub const COMBOS: [&str; 24] = [
    "interrupt=input&resubscribe=2",
    "interrupt=input&resubscribe=3",
    "interrupt=input&second_client=2",
    "interrupt=input&second_client=3",
    "interrupt=auth&resubscribe=3",
    "interrupt=auth&second_client=3",
    "interrupt=both&resubscribe=3",
    "interrupt=both&second_client=3",
    "interrupt=input&resubscribe=3&wire=0.3",
    "interrupt=input&second_client=3&wire=0.3",
    "interrupt=auth&second_client=3&wire=0.3",
    "retry=on&second_client=2",
    "retry=on&second_client=3",
    "retry=on&resubscribe=3",
    "retry=on&second_client=2&wire=0.3",
    "progress=2&cancel=1",
    "result=last&cancel=1",
    "progress=2&result=last&cancel=1",
    "progress=2&resubscribe=3",
    "result=last&resubscribe=3",
    "progress=2&second_client=3",
    "result=last&second_client=3",
    "progress=2&cancel=1&wire=0.3",
    "result=last&resubscribe=3&wire=0.3",
];

pub fn matrix() -> Vec<String> {
    let mut m: Vec<String> = (1..=DEFAULT_EVENTS).map(|k| format!("resubscribe={k}")).collect();
    for (e, last) in ENDING_LAST {
        for k in [3, last] {
            m.push(format!("ending={e}&resubscribe={k}"));
        }
    }
    for s in ["memory", "database"] {
        for k in [3, 5] {
            m.push(format!("restart=2&store={s}&resubscribe={k}"));
        }
    }
    for q in ["cancel=1&resubscribe=3", "cancel=1&resubscribe=4", "cancel=2&resubscribe=3", "late=0&resubscribe=3",
        "late=0&resubscribe=6", "late=300&resubscribe=6"]
    {
        m.push(q.into());
    }
    m.extend((1..=DEFAULT_EVENTS).map(|k| format!("second_client={k}")));
    for q in ["ending=input&second_client=3", "ending=auth&second_client=3", "ending=return&second_client=3",
        "ending=never&second_client=3", "late=0&second_client=3", "cancel=1&second_client=3"]
    {
        m.push(q.into());
    }
    for q in MATRIX {
        m.push(if *q == "defaults" { "wire=0.3".to_string() } else { format!("{q}&wire=0.3") });
    }
    for q in ["resubscribe=3&wire=0.3", "resubscribe=6&wire=0.3", "second_client=3&wire=0.3", "second_client=6&wire=0.3",
        "ending=auth&resubscribe=6&wire=0.3", "restart=2&store=memory&resubscribe=5&wire=0.3",
        "restart=2&store=database&resubscribe=5&wire=0.3"]
    {
        m.push(q.into());
    }
    m.extend(COMBOS.iter().map(|s| s.to_string()));
    m
}

/// The lab's keys (parse_scenario) plus this recorder's; the shape keys go into the
/// scenario too, where the agent reads them.
pub fn parse_query(query: &str) -> Result<(Scenario, Extra), String> {
    let (mut cfg, extra) = split_query(query, &SUB_KEYS)?;
    let get = |k: &str| extra_get(&extra, k).to_string();
    for key in ["resubscribe", "second_client"] {
        let v = get(key);
        if v != "none" {
            if !v.parse::<usize>().is_ok_and(|k| k >= 1) {
                return Err(format!("{key} must be none or k >= 1"));
            }
            if cfg.get("client") != "stream" {
                return Err(format!("{key} needs client=stream"));
            }
        }
    }
    if !["1.0", "0.3"].contains(&get("wire").as_str()) {
        return Err("wire must be '1.0' or '0.3'".into());
    }
    if get("progress").parse::<usize>().is_err() {
        return Err("progress must be k >= 0".into());
    }
    if !["chunks", "last"].contains(&get("result").as_str()) {
        return Err("result must be chunks or last".into());
    }
    for k in ["progress", "result"] {
        let v = get(k);
        if SHAPE_DEFAULTS.iter().any(|(sk, sv)| *sk == k && *sv != v) {
            cfg.set(k, &v);
        }
    }
    Ok((cfg, extra))
}

// ---------------------------------------------------------------------------
// Events in the subscribe fixtures' form (subscribe.py norm_event)
// ---------------------------------------------------------------------------

fn texts(parts: &J) -> Vec<J> {
    parts.arr().iter().map(|p| p.get("text").cloned().unwrap_or(J::Null)).collect()
}

pub(super) fn norm_event(result: &J, terminal_seen: bool) -> J {
    let kind = kind_of(result);
    let empty = J::obj();
    let body = result.get(kind).unwrap_or(&empty);
    let state = if kind == "task" || kind == "statusUpdate" {
        body.at(&["status", "state"]).cloned().unwrap_or(J::Null)
    } else {
        J::Null
    };
    let is_art = kind == "artifactUpdate";
    let mut ev = J::obj()
        .with("kind", kind)
        .with("state", state)
        .with("artifact_id", if is_art { body.at(&["artifact", "artifactId"]).cloned().unwrap_or(J::Null) } else { J::Null })
        .with("append", is_art && body.get("append").is_some_and(J::truthy))
        .with("last_chunk", is_art && body.get("lastChunk").is_some_and(J::truthy))
        .with("after_terminal", terminal_seen);
    if let Some(f) = body.get("final") {
        ev.set("final", f);
    }
    if is_art {
        ev.set("parts", texts(body.at(&["artifact", "parts"]).unwrap_or(&J::Null)));
    }
    if kind == "task" {
        let arts = body.get("artifacts").map(|a| a.arr().to_vec()).unwrap_or_default();
        ev.set("artifacts", arts.len());
        ev.set("parts", arts.iter().flat_map(|a| texts(a.get("parts").unwrap_or(&J::Null))).collect::<Vec<_>>());
        ev.set("history", body.get("history").map_or(0, |h| h.arr().len()));
    }
    ev
}

fn state_of(ev: &J) -> Option<&str> {
    ev.get("state").and_then(J::str)
}

pub(super) fn events_of(results: &[J]) -> Vec<J> {
    let mut out = Vec::new();
    let mut seen = false;
    for r in results {
        let ev = norm_event(r, seen);
        seen = seen || state_of(&ev).is_some_and(|s| TERMINAL.contains(&s));
        out.push(ev);
    }
    out
}

/// The JSON-RPC error of a body: a JSON answer, or an SSE event holding one.
fn rpc_error_in(raw: &[u8], content_type: &str) -> J {
    let text = String::from_utf8_lossy(raw);
    let items: Vec<J> = if content_type.contains("text/event-stream") {
        parse_sse(&text).into_iter().filter_map(|(_, d)| J::parse(&d?).ok()).collect()
    } else {
        J::parse(&text).ok().into_iter().collect()
    };
    for it in items {
        if let Some(e) = it.get("error").filter(|e| e.is_obj()) {
            return J::obj()
                .with("code", e.get("code").cloned().unwrap_or(J::Null))
                .with("message", e.get("message").cloned().unwrap_or(J::Null))
                .with("data", e.get("data").cloned().unwrap_or(J::Null));
        }
    }
    J::Null
}

fn results_in(raw: &[u8], content_type: &str) -> Vec<J> {
    let text = String::from_utf8_lossy(raw);
    if content_type.contains("text/event-stream") {
        return parse_sse(&text)
            .into_iter()
            .filter_map(|(_, d)| J::parse(&d?).ok())
            .filter_map(|o| o.get("result").cloned())
            .collect();
    }
    J::parse(&text).ok().and_then(|o| o.get("result").cloned()).into_iter().collect()
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

#[derive(Clone, Default)]
struct StreamRec {
    client: u8,
    role: String,
    method: String,
    started_ms: i64,
    ended_ms: i64,
    http_status: Option<u16>,
    content_type: String,
    results: Vec<J>,
    event_ms: Vec<i64>,
    raw: Vec<u8>,
    end: String,
    end_error: Option<String>,
    rpc_error: J,
    buffered_after_drop: usize,
    connect_attempts: usize,
    after_event: Option<usize>,
    dropped_wall: Option<f64>,
    no_response: bool,
}

#[derive(Clone, Copy)]
enum DropRule {
    Never,
    After(usize),
    FirstArtifact,
}

type Hook = Arc<dyn Fn(&J, usize) + Send + Sync>;

pub(super) struct SubRun {
    run: Arc<Run>,
    extra: Vec<(String, String)>,
    push: Option<Arc<super::push::PushCtx>>,
    more_side_tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    c2: Http,
    // client 1's first stream: how many events it delivered, and the task it is on
    first_count: watch::Sender<usize>,
    first_task: Mutex<Option<String>>,
}

impl SubRun {
    pub(super) fn new(run: Arc<Run>, extra: Vec<(String, String)>, push: Option<Arc<super::push::PushCtx>>) -> Arc<SubRun> {
        let (tx, _) = watch::channel(0usize);
        Arc::new(SubRun {
            c2: Http::new(run.port),
            run,
            extra,
            push,
            more_side_tasks: Mutex::default(),
            first_count: tx,
            first_task: Mutex::default(),
        })
    }

    fn ms(&self) -> i64 {
        ms_since(self.run.t0())
    }

    fn note_task(&self, result: &J) {
        if let Some(t) = result.get("task") {
            let mut tid = self.run.task_id.lock().unwrap();
            if tid.is_none() {
                *tid = t.get("id").and_then(J::str).map(str::to_string);
                *self.run.context_id.lock().unwrap() = t.get("contextId").and_then(J::str).map(str::to_string);
            }
        }
    }

    /// One SendStreamingMessage / SendMessage / SubscribeToTask under the watchdog (and
    /// the client's deadline, `timeout_ms`), delivering events one by one.
    async fn call(&self, client: u8, role: &str, method: &str, params: J, drop: DropRule, hooks: Vec<Hook>) -> StreamRec {
        let http = if client == 1 { self.run.http.clone() } else { self.c2.clone() };
        let rec = Arc::new(Mutex::new(StreamRec {
            client,
            role: role.into(),
            method: method.into(),
            started_ms: self.ms(),
            connect_attempts: 1,
            ..Default::default()
        }));
        let n_before = http.count();
        let stream = method != "SendMessage";
        let mut params = params;
        if method != "SubscribeToTask" {
            if let Some(c) = self.push.as_ref().and_then(|p| p.inline_for(client, role)) {
                params.set("configuration", J::obj().with("taskPushNotificationConfig", c));
            }
        }
        let deadline = match self.run.cfg.get("timeout_ms") {
            "none" => None,
            t => t.parse::<u64>().ok().map(Duration::from_millis),
        };
        let rec2 = rec.clone();
        let body = async {
            let mut deliver = |r: &J| -> bool {
                let count = {
                    let mut g = rec2.lock().unwrap();
                    g.results.push(r.clone());
                    g.event_ms.push(ms_since(self.run.t0()));
                    g.results.len()
                };
                if client == 1 {
                    self.note_task(r);
                }
                for h in &hooks {
                    h(r, count);
                }
                let stop = match drop {
                    DropRule::Never => false,
                    DropRule::After(k) => count >= k,
                    DropRule::FirstArtifact => r.get("artifactUpdate").is_some(),
                };
                if stop {
                    rec2.lock().unwrap().dropped_wall = Some(wall());
                }
                !stop
            };
            let got = http.call(method, params.clone(), stream, &mut deliver).await;
            if !stream && got.is_ok() {
                if let Some(ex) = http.exchange(n_before) {
                    for r in results_in(&ex.raw(), &ex.content_type()) {
                        deliver(&r);
                    }
                }
            }
            got
        };
        let timed = async {
            match deadline {
                None => body.await,
                Some(d) => tokio::time::timeout(d, body)
                    .await
                    .unwrap_or_else(|_| Err(format!("timed_out: the client's deadline of {} ms ran out", d.as_millis()))),
            }
        };
        let watched = self.run.watched(timed).await;
        let mut r = rec.lock().unwrap().clone();
        if let Some(ex) = http.exchange(n_before) {
            r.raw = ex.raw();
            r.http_status = *ex.status.lock().unwrap();
            r.content_type = ex.content_type();
        }
        r.rpc_error = rpc_error_in(&r.raw, &r.content_type);
        let (mut end, error) = match watched {
            Err(()) => ("hung".to_string(), None),
            Ok(Ok(Read::Done)) => ("closed".to_string(), None),
            Ok(Ok(Read::Dropped)) => ("dropped_by_client".to_string(), None),
            Ok(Err(e)) => ("closed".to_string(), Some(e)),
        };
        if end == "dropped_by_client" {
            r.buffered_after_drop = results_in(&r.raw, &r.content_type).len().saturating_sub(r.results.len());
        }
        if end == "closed" {
            if let Some(e) = &error {
                end = if r.rpc_error != J::Null {
                    "error".into()
                } else if e.starts_with("timed_out: ") {
                    "timed_out".into()
                } else {
                    "broken".into()
                };
                r.no_response = r.http_status.is_none() && r.raw.is_empty();
            } else if r.rpc_error != J::Null {
                end = "error".into();
            }
        }
        if end == "closed" && method == "SendMessage" {
            end = "returned".into();
        }
        r.end = end;
        r.end_error = error.map(|e| e.trim_start_matches("timed_out: ").to_string());
        r.ended_ms = self.ms();
        r
    }

    async fn subscribe(&self, client: u8, role: &str, task_id: Option<String>, hooks: Vec<Hook>) -> StreamRec {
        let deadline = Instant::now() + Duration::from_secs_f64(RECONNECT_FOR_S);
        let mut attempts = 0;
        loop {
            attempts += 1;
            let tid = task_id.clone().or_else(|| self.run.task_id());
            let mut rec = self
                .call(client, role, "SubscribeToTask", J::obj().with("id", tid), DropRule::Never, hooks.clone())
                .await;
            if !(rec.end == "broken" && rec.no_response) || Instant::now() > deadline {
                rec.connect_attempts = attempts;
                return rec;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn message(&self, message_id: &str, task_id: Option<&str>, text: &str, metadata: Option<J>) -> J {
        let cid = if task_id.is_some() { self.run.context_id.lock().unwrap().clone() } else { None };
        J::obj().with("message", message(message_id, task_id, cid.as_deref(), text, metadata))
    }

    fn first_stream_hook(self: &Arc<Self>) -> Hook {
        let me = self.clone();
        Arc::new(move |_r: &J, count: usize| {
            {
                let mut ft = me.first_task.lock().unwrap();
                if ft.is_none() {
                    *ft = me.run.task_id();
                }
            }
            let _ = me.first_count.send(count);
            // push=after:k: the client creates the config right after its event k
            if let Some(p) = me.push.clone() {
                if p.after() == Some(count) {
                    let run = me.run.clone();
                    let h = tokio::spawn(async move {
                        let got = super::push::set_config(&run, &p).await;
                        *p.config_set.lock().unwrap() = Some(got);
                    });
                    me.more_side_tasks.lock().unwrap().push(h);
                }
            }
        })
    }

    /// Runs the scenario; `on_t0` gets the moment the client's call starts (the push
    /// receiver's clock).
    pub(super) async fn execute_with(self: Arc<Self>, on_t0: impl FnOnce(Instant)) -> Result<J, String> {
        let run = self.run.clone();
        let cfg = run.cfg.clone();
        run.start_server().await?;
        *run.t0.lock().unwrap() = Instant::now();
        on_t0(run.t0());
        *run.t0_wall.lock().unwrap() = wall();
        let streams: Arc<Mutex<Vec<StreamRec>>> = Arc::default();
        let mut attempts: Vec<J> = Vec::new();

        // faults: cancel=k and restart=k, beside the client
        let cancel_info: Arc<Mutex<Option<J>>> = Arc::default();
        let mut side_tasks = Vec::new();
        if cfg.get("cancel") != "none" {
            let k: usize = cfg.get("cancel").parse().unwrap_or(0);
            let (me, slot) = (run.clone(), cancel_info.clone());
            side_tasks.push(tokio::spawn(async move {
                if !me.trigger_after_chunk(k).await {
                    *slot.lock().unwrap() = Some(J::obj().with("result", "not_sent"));
                    return;
                }
                let tid = me.task_id().or_else(|| me.task_id_from_side());
                *slot.lock().unwrap() = Some(me.cancel_task(tid).await);
            }));
        }
        let mut restart_task = (cfg.get("restart") != "none")
            .then(|| tokio::spawn(run.clone().restart_after_chunk(cfg.get("restart").parse().unwrap_or(0))));

        // second_client=k: client 2 subscribes once client 1's first stream delivered event k
        let first_done = Arc::new(tokio::sync::Notify::new());
        let first_done_flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let second_opened = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let second_skipped: Arc<Mutex<Option<String>>> = Arc::default();
        let second_k: Option<usize> = extra_get(&self.extra, "second_client").parse().ok();
        let second_task = second_k.map(|k| {
            let me = self.clone();
            let (fd, fdf, opened, skipped, streams) =
                (first_done.clone(), first_done_flag.clone(), second_opened.clone(), second_skipped.clone(), streams.clone());
            tokio::spawn(async move {
                let mut rx = me.first_count.subscribe();
                let reached = async {
                    loop {
                        if *rx.borrow_and_update() >= k {
                            return true;
                        }
                        if rx.changed().await.is_err() {
                            return false;
                        }
                    }
                };
                let done = async {
                    loop {
                        if fdf.load(std::sync::atomic::Ordering::SeqCst) {
                            return;
                        }
                        tokio::select! {
                            _ = fd.notified() => {}
                            _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                        }
                    }
                };
                let ok = tokio::select! { r = reached => r, _ = done => *me.first_count.borrow() >= k };
                if !ok {
                    *skipped.lock().unwrap() = Some(format!(
                        "the first stream ended after {} events, before event {k}",
                        *me.first_count.borrow()
                    ));
                    opened.store(true, std::sync::atomic::Ordering::SeqCst);
                    return;
                }
                let o2 = opened.clone();
                let hook: Hook = Arc::new(move |_r, _c| o2.store(true, std::sync::atomic::Ordering::SeqCst));
                let tid = me.first_task.lock().unwrap().clone();
                let mut rec = me.subscribe(2, "second_client", tid, vec![hook]).await;
                rec.after_event = Some(k);
                streams.lock().unwrap().push(rec);
                opened.store(true, std::sync::atomic::Ordering::SeqCst);
            })
        });
        if let Ok(t) = cfg.get("timeout_ms").parse::<u64>() {
            run.note(format!("timeout_ms={t}: the client's own deadline for the whole call (as the JS recorder's)"));
        }

        let send = if cfg.get("client") == "stream" { "SendStreamingMessage" } else { "SendMessage" };
        let message_id = format!("msg-{}", uuid::Uuid::new_v4());
        let resub: Option<usize> = extra_get(&self.extra, "resubscribe").parse().ok();
        let mark_first_done = || {
            first_done_flag.store(true, std::sync::atomic::Ordering::SeqCst);
            first_done.notify_waiters();
        };
        let drop_rule = |k: Option<usize>| k.map_or(DropRule::Never, DropRule::After);

        if cfg.get("retry") == "on" {
            let a1 = self
                .call(1, "send", send, self.message(&message_id, None, USER_TEXT, None), DropRule::FirstArtifact, vec![self.first_stream_hook()])
                .await;
            attempts.push(J::obj().with("task_id", run.task_id()).with("end", a1.end.as_str()));
            streams.lock().unwrap().push(a1);
            mark_first_done();
            *run.task_id.lock().unwrap() = None;
            let a2 = self.call(1, "retry", send, self.message(&message_id, None, USER_TEXT, None), drop_rule(resub), vec![]).await;
            attempts.push(J::obj().with("task_id", run.task_id()).with("end", a2.end.as_str()));
            let a2c = a2.clone();
            streams.lock().unwrap().push(a2);
            run.note(format!(
                "retry: attempt 1 dropped by the client after its first artifact event, then the identical request \
                 (same messageId {message_id}) was sent again"
            ));
            if resub.is_some() {
                self.resubscribing(&a2c, "resent stream", resub, &streams).await;
            }
        } else if cfg.get("interrupt") != "none"
            && (self.push.is_some() || cfg.get("client") == "stream" || second_k.is_some() || resub.is_some())
        {
            self.turns(send, &message_id, resub, second_k, &second_opened, &streams, &mut attempts, &mark_first_done).await;
        } else if cfg.get("interrupt") != "none" {
            let rec = self.call(1, "send", send, self.message(&message_id, None, USER_TEXT, None), DropRule::Never, vec![self.first_stream_hook()]).await;
            attempts.push(J::obj().with("task_id", run.task_id()).with("end", rec.end.as_str()));
            streams.lock().unwrap().push(rec);
            for _ in 0..3 {
                let (got, _) = run.get_task(run.task_id().as_deref()).await;
                let st = got.get("state").and_then(J::str).map(str::to_string);
                let Some((text, md)) = follow_up(st.as_deref()) else { break };
                let tid = run.task_id();
                let follow = self.message(&format!("msg-{}", uuid::Uuid::new_v4()), tid.as_deref(), text, md);
                let rec = self.call(1, "resume", send, follow, DropRule::Never, vec![]).await;
                attempts.push(J::obj().with("task_id", run.task_id()).with("end", rec.end.as_str()).with("resumed_from", st));
                streams.lock().unwrap().push(rec);
            }
        } else {
            let rec = self
                .call(1, "send", send, self.message(&message_id, None, USER_TEXT, None), drop_rule(resub), vec![self.first_stream_hook()])
                .await;
            let recc = rec.clone();
            streams.lock().unwrap().push(rec);
            mark_first_done();
            if resub.is_some() {
                self.resubscribing(&recc, "first stream", resub, &streams).await;
            }
        }
        mark_first_done();
        let call_end_ms = self.ms();

        if run.task_id().is_none() {
            *run.task_id.lock().unwrap() = run.task_id_from_side();
        }
        let mut restart_info = None;
        if let Some(h) = restart_task.as_mut() {
            if let Ok(Ok(info)) = tokio::time::timeout(Duration::from_secs(30), h).await {
                restart_info = Some(info);
            }
        }
        let (get_after, _) = run.get_task(run.task_id().as_deref()).await;
        for t in side_tasks.into_iter().chain(second_task) {
            if tokio::time::timeout(Duration::from_secs(20), t).await.is_err() {
                run.note("side task failed: timeout");
            }
        }
        let more: Vec<_> = self.more_side_tasks.lock().unwrap().drain(..).collect();
        for t in more {
            if tokio::time::timeout(Duration::from_secs(20), t).await.is_err() {
                run.note("side task failed: timeout");
            }
        }
        run.settle().await;
        if let Some(p) = &self.push {
            // the executor's own end, then the webhook's quiet
            p.receiver.wait_quiet().await;
        }
        let (get_settled, settled_wire) = run.get_task(run.task_id().as_deref()).await;
        let first_attempt = if cfg.get("retry") == "on" {
            match attempts.first().and_then(|a| a.get("task_id")).and_then(J::str) {
                Some(t) => Some(run.get_task(Some(t)).await.0),
                None => None,
            }
        } else {
            None
        };
        run.kill_server();
        if let Some(s) = second_skipped.lock().unwrap().clone() {
            run.note(format!("second_client: {s}"));
        }
        let streams = streams.lock().unwrap().clone();
        let cancel = cancel_info.lock().unwrap().clone();
        Ok(self.assemble(streams, get_after, get_settled, settled_wire, cancel, restart_info, attempts, first_attempt, call_end_ms))
    }

    async fn resubscribing(&self, rec: &StreamRec, which: &str, resub: Option<usize>, streams: &Arc<Mutex<Vec<StreamRec>>>) {
        let mut subs = 0;
        let mut last_end = rec.end.clone();
        // the client re-subscribes after its own drop and after a stream the server broke
        // (a restart); never after a stream the server closed
        while subs < MAX_SUBSCRIPTIONS && (last_end == "dropped_by_client" || last_end == "broken") {
            if self.run.task_id().is_none() {
                *self.run.task_id.lock().unwrap() = self.run.task_id_from_side();
            }
            subs += 1;
            let s = self.subscribe(1, "resubscribe", None, vec![]).await;
            last_end = s.end.clone();
            streams.lock().unwrap().push(s);
        }
        if rec.end != "dropped_by_client" {
            self.run.note(format!(
                "resubscribe={}: the {which} ended ({}) after {} events, before event {}",
                resub.unwrap_or(0),
                rec.end,
                rec.results.len(),
                resub.unwrap_or(0)
            ));
        }
    }

    /// interrupt=* with a streaming client or a subscriber: every turn's stream is read in
    /// the background and left open; the follow-up is sent once GetTask shows the task
    /// interrupted (and, with a subscriber, once it has its first event).
    #[allow(clippy::too_many_arguments)]
    async fn turns(
        self: &Arc<Self>,
        send: &str,
        message_id: &str,
        resub: Option<usize>,
        second_k: Option<usize>,
        second_opened: &Arc<std::sync::atomic::AtomicBool>,
        streams: &Arc<Mutex<Vec<StreamRec>>>,
        attempts: &mut Vec<J>,
        mark_first_done: &dyn Fn(),
    ) {
        let run = self.run.clone();
        let watching = |n: Arc<tokio::sync::Notify>| -> Hook {
            Arc::new(move |r: &J, _c| {
                let ev = norm_event(r, false);
                let st = state_of(&ev).unwrap_or("");
                if TERMINAL.contains(&st) || st == "TASK_STATE_INPUT_REQUIRED" || st == "TASK_STATE_AUTH_REQUIRED" {
                    n.notify_one();
                }
            })
        };
        let mut calls: Vec<(tokio::task::JoinHandle<StreamRec>, Option<String>)> = Vec::new();
        let ev1 = Arc::new(tokio::sync::Notify::new());
        let me = self.clone();
        let params = self.message(message_id, None, USER_TEXT, None);
        let hooks = vec![self.first_stream_hook(), watching(ev1.clone())];
        let send_s = send.to_string();
        let t1 = tokio::spawn(async move { me.call(1, "send", &send_s, params, resub.map_or(DropRule::Never, DropRule::After), hooks).await });
        let mut sub_task = None;
        if resub.is_some() {
            let rec = t1.await.unwrap_or_default();
            mark_first_done();
            if rec.end == "dropped_by_client" {
                if run.task_id().is_none() {
                    *run.task_id.lock().unwrap() = run.task_id_from_side();
                }
                let opened = Arc::new(tokio::sync::Notify::new());
                let o2 = opened.clone();
                let me = self.clone();
                let hook: Hook = Arc::new(move |_r, _c| o2.notify_one());
                let h = tokio::spawn(async move { me.subscribe(1, "resubscribe", None, vec![hook]).await });
                // its first event, or its end, at most 5 s
                let until = Instant::now() + Duration::from_secs(5);
                while !h.is_finished() && Instant::now() < until {
                    if tokio::time::timeout(Duration::from_millis(10), opened.notified()).await.is_ok() {
                        break;
                    }
                }
                sub_task = Some(h);
            } else {
                run.note(format!(
                    "resubscribe={}: the first stream ended ({}) after {} events, before event {}",
                    resub.unwrap_or(0),
                    rec.end,
                    rec.results.len(),
                    resub.unwrap_or(0)
                ));
            }
            calls.push((tokio::spawn(async move { rec }), None));
        } else {
            wait_until(&ev1, &t1, 10).await;
            calls.push((t1, None));
        }
        for _ in 0..3 {
            if let Some(k) = second_k {
                // a second client that is subscribing: the follow-up waits for its
                // first event (or its end)
                if *self.first_count.borrow() >= k {
                    let until = Instant::now() + Duration::from_secs(5);
                    while !second_opened.load(std::sync::atomic::Ordering::SeqCst) && Instant::now() < until {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            }
            let mut st = None;
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                let tid = run.task_id().or_else(|| run.task_id_from_side());
                let (got, _) = run.get_task(tid.as_deref()).await;
                st = got.get("state").and_then(J::str).map(str::to_string);
                let s = st.as_deref().unwrap_or("");
                if TERMINAL.contains(&s) || s == "TASK_STATE_INPUT_REQUIRED" || s == "TASK_STATE_AUTH_REQUIRED" {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            let Some((text, md)) = follow_up(st.as_deref()) else { break };
            let tid = run.task_id();
            let follow = self.message(&format!("msg-{}", uuid::Uuid::new_v4()), tid.as_deref(), text, md);
            let ev = Arc::new(tokio::sync::Notify::new());
            let me = self.clone();
            let hooks = vec![watching(ev.clone())];
            let send_s = send.to_string();
            let t = tokio::spawn(async move { me.call(1, "resume", &send_s, follow, DropRule::Never, hooks).await });
            wait_until(&ev, &t, 10).await;
            calls.push((t, st));
        }
        for (t, resumed_from) in calls {
            let rec = t.await.unwrap_or_default();
            let mut a = J::obj().with("task_id", run.task_id()).with("end", rec.end.as_str());
            if let Some(r) = resumed_from {
                a.set("resumed_from", r);
            }
            attempts.push(a);
            streams.lock().unwrap().push(rec);
        }
        mark_first_done();
        if let Some(h) = sub_task {
            if let Ok(rec) = h.await {
                streams.lock().unwrap().push(rec);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        &self,
        mut streams: Vec<StreamRec>,
        get_after: J,
        get_settled: J,
        settled_wire: J,
        cancel: Option<J>,
        restart_info: Option<J>,
        attempts: Vec<J>,
        first_attempt: Option<J>,
        call_end_ms: i64,
    ) -> J {
        let run = &self.run;
        let cfg = &run.cfg;
        let side = read_side(&run.side_path);
        let is_stream = cfg.get("client") == "stream";
        streams.sort_by_key(|s| (s.started_ms, s.client));
        let mut out_streams = Vec::new();
        for s in &streams {
            let evs: Vec<J> = events_of(&s.results)
                .into_iter()
                .zip(&s.event_ms)
                .map(|(e, t)| e.with("ms", *t))
                .collect();
            let mut o = J::obj()
                .with("client", s.client as u64)
                .with("role", s.role.as_str())
                .with("method", s.method.as_str())
                .with("started_ms", s.started_ms)
                .with("ended_ms", s.ended_ms)
                .with("http_status", s.http_status.map(|h| h as u64))
                .with("content_type", s.content_type.as_str());
            if let Some(k) = s.after_event {
                o.set("after_event", k);
            }
            o.set("events", evs);
            o.set("end", s.end.as_str());
            o.set("end_error", s.end_error.clone());
            o.set("rpc_error", s.rpc_error.clone());
            if s.buffered_after_drop > 0 {
                o.set("buffered_after_drop", s.buffered_after_drop);
            }
            if s.connect_attempts > 1 {
                o.set("connect_attempts", s.connect_attempts);
            }
            o.set("wire", s.results.clone());
            o.set("_raw", String::from_utf8_lossy(&s.raw).into_owned());
            out_streams.push(o);
        }
        let c1: Vec<&StreamRec> = streams.iter().filter(|s| s.client == 1).collect();
        let wire1: Vec<J> = c1.iter().flat_map(|s| s.results.clone()).collect();
        let events = events_of(&wire1);
        let last1 = c1.last();
        let top_end = last1.map(|l| {
            let mut e = match l.end.as_str() {
                "broken" | "error" => "closed".to_string(),
                other => other.to_string(),
            };
            if !is_stream && e == "closed" {
                e = "returned".into();
            }
            e
        });
        let mut delivered: Vec<String> = Vec::new();
        for s in &streams {
            for r in &s.results {
                let ev = norm_event(r, false);
                for p in ev.get("parts").map(|p| p.arr().to_vec()).unwrap_or_default() {
                    if let Some(t) = p.str() {
                        delivered.push(t.to_string());
                    }
                }
            }
        }
        for a in settled_wire.get("artifacts").map(|a| a.arr().to_vec()).unwrap_or_default() {
            for p in texts(a.get("parts").unwrap_or(&J::Null)) {
                if let Some(t) = p.str() {
                    delivered.push(t.to_string());
                }
            }
        }
        let n = cfg.chunks();
        let mut done_steps: Vec<i64> = side.iter().filter(|r| ev_is(r, "work_done")).filter_map(|r| r.get("i").and_then(J::i64)).collect();
        done_steps.sort();
        done_steps.dedup();
        let mut orphaned: Vec<i64> = done_steps.iter().copied().filter(|i| !delivered.contains(&step_text(*i as usize, n))).collect();
        if cfg.get("restart") != "none" {
            if !orphaned.is_empty() {
                run.note(format!("steps lost with the killed process: {orphaned:?}"));
            }
            orphaned.clear();
        }
        let mut enqueued: Vec<i64> = side.iter().filter(|r| ev_is(r, "enqueued_chunk")).filter_map(|r| r.get("i").and_then(J::i64)).collect();
        enqueued.sort();
        enqueued.dedup();
        let end_j = J::from(top_end.clone());
        let mut out = J::obj()
            .with("streams", out_streams)
            .with("events", events.clone())
            .with("stream", if is_stream { end_j.clone() } else { J::Null })
            .with("call", if is_stream { J::Null } else { end_j })
            .with("end_error", last1.and_then(|l| l.end_error.clone()))
            .with("blocking_result_artifacts", J::Null)
            .with("blocking_result_state", J::Null)
            .with("blocking_result_parts", J::Null)
            .with("get_task_after", get_after)
            .with("get_task_settled", get_settled)
            .with("get_task_settled_wire", settled_wire)
            .with("cancel_result", cancel.as_ref().and_then(|c| c.get("result").cloned()))
            .with("cancel_error_code", cancel.as_ref().and_then(|c| c.get("code").cloned()))
            .with("cancel", cancel.clone())
            .with("orphaned_steps", orphaned.len())
            .with("orphaned_step_numbers", orphaned.iter().map(|i| J::from(*i)).collect::<Vec<_>>())
            .with("executions", side.iter().filter(|r| ev_is(r, "execute_start")).count())
            .with("steps_done", done_steps.iter().map(|i| J::from(*i)).collect::<Vec<_>>())
            .with("chunks_enqueued", enqueued.iter().map(|i| J::from(*i)).collect::<Vec<_>>())
            .with("call_end_ms", call_end_ms);
        if !is_stream {
            if let Some(last) = wire1.iter().filter_map(|r| r.get("task")).last() {
                out.set("blocking_result_artifacts", last.get("artifacts").map_or(0, |a| a.arr().len()));
                out.set("blocking_result_state", last.at(&["status", "state"]).cloned().unwrap_or(J::Null));
                out.set("blocking_result_parts", parts_count(last));
            }
        }
        if let Some(r) = restart_info {
            out.set("restart", r);
        }
        if !attempts.is_empty() {
            let mut ids: Vec<String> = Vec::new();
            for a in &attempts {
                if let Some(t) = a.get("task_id").and_then(J::str) {
                    if !ids.iter().any(|i| i == t) {
                        ids.push(t.into());
                    }
                }
            }
            out.set("attempts", attempts.clone());
            out.set("distinct_tasks", ids.len());
            if let Some(f) = first_attempt {
                out.set("first_attempt_task_settled", f);
            }
        }
        if cfg.get("interrupt") != "none" {
            set_resumes(&mut out, &side, &events);
        }
        let t0_wall = *run.t0_wall.lock().unwrap();
        if extra_get(&self.extra, "resubscribe") != "none" {
            if let Some(d) = streams.iter().find(|s| s.client == 1 && s.dropped_wall.is_some()) {
                out.set("executor_after_drop", executor_after(&side, d.dropped_wall.unwrap(), t0_wall));
            }
        }
        out.set("side_channel", side_records(&side, t0_wall));
        out.set("server_log", server_log_lines(&run.log_path).into_iter().take(30).map(J::from).collect::<Vec<_>>());
        out.set("notes", run.notes.lock().unwrap().join("; "));
        out
    }
}

/// Until `ev` is notified or `task` has ended, at most `secs`.
async fn wait_until<T>(ev: &tokio::sync::Notify, task: &tokio::task::JoinHandle<T>, secs: u64) {
    let until = Instant::now() + Duration::from_secs(secs);
    while !task.is_finished() && Instant::now() < until {
        if tokio::time::timeout(Duration::from_millis(10), ev.notified()).await.is_ok() {
            return;
        }
    }
}

/// What the executor did after client 1 dropped its stream. `cancelled`: the handler
/// dropped the executor's stream before the executor reached its ending (this agent's
/// `execute_dropped` with no `ending` before it; the handler also drops it right after
/// every terminal event, which is no cancellation).
fn executor_after(side: &[J], dropped_wall: f64, t0_wall: f64) -> J {
    let t = |r: &J| r.get("t").and_then(J::f64).unwrap_or(0.0);
    let cut_short = side
        .iter()
        .position(|r| ev_is(r, "execute_dropped") && t(r) > dropped_wall)
        .is_some_and(|i| !side[..i].iter().any(|r| ev_is(r, "ending")));
    let before: Vec<&J> = side.iter().filter(|r| t(r) <= dropped_wall).collect();
    let after: Vec<&J> = side.iter().filter(|r| t(r) > dropped_wall).collect();
    let finished_before = before.iter().any(|r| ev_is(r, "execute_end"));
    let work = after.iter().any(|r| {
        ["work_done", "enqueued_chunk", "ending", "ended", "enqueued_late"].iter().any(|e| ev_is(r, e))
    });
    J::obj()
        .with("dropped_at_ms", ((dropped_wall - t0_wall) * 1000.0).round() as i64)
        .with("executor_finished_before_drop", finished_before)
        .with("kept_running", !finished_before && work)
        .with("cancelled", cut_short || after.iter().any(|r| ev_is(r, "execute_cancelled")))
        .with(
            "after_drop",
            after
                .iter()
                .map(|r| {
                    let ev = r.get("ev").and_then(J::str).unwrap_or("").to_string();
                    match r.get("i") {
                        Some(i) => J::from(format!("{ev} {}", i.compact())),
                        None => J::from(ev),
                    }
                })
                .collect::<Vec<_>>(),
        )
}

pub(super) fn stream_key(s: &J) -> J {
    J::obj()
        .with("client", s.get("client").cloned().unwrap_or(J::Null))
        .with("role", s.get("role").cloned().unwrap_or(J::Null))
        .with("method", s.get("method").cloned().unwrap_or(J::Null))
        .with("after_event", s.get("after_event").cloned().unwrap_or(J::Null))
        .with(
            "events",
            s.get("events")
                .map(|e| e.arr().iter().map(|ev| { let mut ev = ev.clone(); ev.remove("ms"); ev }).collect::<Vec<_>>())
                .unwrap_or_default(),
        )
        .with("end", s.get("end").cloned().unwrap_or(J::Null))
        .with("rpc_error_code", s.at(&["rpc_error", "code"]).cloned().unwrap_or(J::Null))
}

fn sub_outcome_key(run: &J) -> String {
    let mut k = outcome_key(run);
    let streams: Vec<J> = run.get("streams").map(|s| s.arr().iter().map(stream_key).collect()).unwrap_or_default();
    let ead = run.get("executor_after_drop").map(|e| {
        J::Arr(vec![
            e.get("executor_finished_before_drop").cloned().unwrap_or(J::Null),
            e.get("kept_running").cloned().unwrap_or(J::Null),
        ])
    });
    k.push_str(&J::Arr(streams).compact());
    k.push_str(&J::from(ead).compact());
    k
}

pub(super) fn short_event(e: &J) -> String {
    let kind = e.get("kind").and_then(J::str).unwrap_or("");
    let mut s = match kind {
        "task" => "T".to_string(),
        "statusUpdate" => "S".into(),
        "artifactUpdate" => "A".into(),
        "message" => "M".into(),
        k => k.into(),
    };
    if let Some(st) = state_of(e) {
        s.push(':');
        s.push_str(st.trim_start_matches("TASK_STATE_"));
    }
    if kind == "task" {
        let n = e.get("parts").map_or(0, |p| p.arr().len());
        if n > 0 {
            s.push_str(&format!("[{n} parts]"));
        }
    }
    if kind == "artifactUpdate" {
        let a = e.get("artifact_id").and_then(J::str).unwrap_or("None");
        if a != TRACKING_ID {
            s.push_str(&format!("({a})"));
        }
    }
    if e.get("final") == Some(&J::Bool(true)) {
        s.push('^');
    }
    if e.get("after_terminal").is_some_and(J::truthy) {
        s.push('!');
    }
    s
}

fn describe(run: &J) -> String {
    let mut out = Vec::new();
    for s in run.get("streams").map(|s| s.arr().to_vec()).unwrap_or_default() {
        let evs: Vec<String> = s.get("events").map(|e| e.arr().iter().map(short_event).collect()).unwrap_or_default();
        let ev = if evs.is_empty() { "(none)".to_string() } else { evs.join(" ") };
        let mut end = s.get("end").and_then(J::str).unwrap_or("").to_string();
        if let Some(c) = s.at(&["rpc_error", "code"]).filter(|c| **c != J::Null) {
            end.push_str(&format!(" {}", c.compact()));
        }
        out.push(format!(
            "c{} {}: {ev} -> {end}",
            s.get("client").map(J::compact).unwrap_or_default(),
            s.get("role").and_then(J::str).unwrap_or("")
        ));
    }
    let g = run.get("get_task_settled").cloned().unwrap_or(J::Null);
    out.push(match &g {
        J::Str(s) => format!("GetTask {s}"),
        _ => format!(
            "GetTask {}/{}",
            g.get("state").and_then(J::str).unwrap_or("None").trim_start_matches("TASK_STATE_"),
            g.get("artifacts").map(J::compact).unwrap_or("None".into())
        ),
    });
    if let Some(e) = run.get("executor_after_drop") {
        let phrase = if e.get("executor_finished_before_drop").is_some_and(J::truthy) {
            "had finished before the drop".to_string()
        } else if e.get("kept_running").is_some_and(J::truthy) {
            format!("kept running after the drop{}", if e.get("cancelled").is_some_and(J::truthy) { " until cancelled" } else { "" })
        } else if e.get("cancelled").is_some_and(J::truthy) {
            "was cancelled after the drop".into()
        } else {
            "did nothing after the drop".into()
        };
        out.push(format!("executor {phrase}"));
    }
    out.join("; ")
}

fn fixture_head(query: &str, cfg: &Scenario, extra: &[(String, String)], rustc: &str) -> J {
    let mut inputs = inputs_of(cfg);
    for (k, v) in extra {
        let late_default = SHAPE_DEFAULTS.iter().find(|(sk, _)| sk == k).map(|(_, d)| *d);
        if late_default.is_none_or(|d| d != v.as_str()) {
            inputs.set(k, v.as_str());
        }
    }
    J::obj()
        .with("sdk", order_status::SDK)
        .with("rustc", rustc)
        .with("scenario", query)
        .with("inputs", inputs)
        .with("step_ms", RECORD_STEP_MS)
        .with("watchdog_ms", (WATCHDOG_S * 1000.0).round() as i64)
}

const NO_03: &str = "a2a-server-lf 0.5.3 has no A2A 0.3 wire: its JSON-RPC binding answers a request without \
                     an A2A-Version header (which A2A reads as 0.3) or with 0.3 with -32009 VersionNotSupportedError \
                     (src/jsonrpc.rs check_a2a_version), and it has no 0.3 method names (message/stream, \
                     tasks/resubscribe: -32601). Nothing to measure.";
const NO_DB: &str = "a2a-server-lf 0.5.3 ships only InMemoryTaskStore (src/task_store/mod.rs); store=database has \
                     no SDK counterpart. Nothing to measure.";

async fn record_one(query: &str, runs: usize, rustc: &str) -> Result<J, String> {
    let (cfg, extra) = parse_query(query)?;
    let head = fixture_head(query, &cfg, &extra, rustc);
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
    let mut results = Vec::new();
    for i in 0..runs {
        let dir = std::env::temp_dir().join(format!("a2a-subscribe-rs-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let run = Arc::new(Run::new(cfg.clone(), &dir, WATCHDOG_S));
        let sub = SubRun::new(run.clone(), extra.clone(), None);
        let got = sub.execute_with(|_| {}).await;
        run.kill_server();
        let _ = std::fs::remove_dir_all(&dir);
        results.push(got.map_err(|e| format!("{query} run {} failed: {e}", i + 1))?);
    }
    let keys: Vec<String> = results.iter().map(sub_outcome_key).collect();
    let stable = keys.iter().all(|k| *k == keys[0]);
    let mut variants: Vec<(String, usize, String)> = Vec::new();
    for (k, r) in keys.iter().zip(&results) {
        match variants.iter_mut().find(|(vk, _, _)| vk == k) {
            Some(v) => v.1 += 1,
            None => variants.push((k.clone(), 1, describe(r))),
        }
    }
    for (j, r) in results.iter_mut().enumerate() {
        if let J::Obj(pairs) = r {
            for (k, v) in pairs.iter_mut() {
                if k == "streams" {
                    if let J::Arr(ss) = v {
                        for s in ss.iter_mut() {
                            let raw = s.remove("_raw");
                            if j == 0 {
                                s.set("raw", raw.unwrap_or(J::Null));
                            }
                        }
                    }
                }
            }
        }
    }
    let summary = describe(&results[0]);
    let mut fx = head.with("measurable", true).with("stable", stable).with("summary", summary).with("runs", results);
    if !stable {
        fx.set(
            "variants",
            variants.into_iter().map(|(_, n, s)| J::obj().with("runs", n).with("summary", s)).collect::<Vec<_>>(),
        );
    }
    Ok(fx)
}

pub async fn record(runs: usize, only: Vec<String>, out: Option<PathBuf>) -> Result<(), String> {
    let out = out.unwrap_or_else(|| default_out().join("subscribe"));
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let all = matrix();
    let queries = if only.is_empty() { all.clone() } else { only.clone() };
    for q in &queries {
        parse_query(q).map_err(|e| format!("{q}: {e}"))?;
    }
    let rustc = rustc_version();
    let index_path = out.join("index.json");
    let old = if !only.is_empty() { std::fs::read_to_string(&index_path).ok().and_then(|s| J::parse(&s).ok()) } else { None };
    let list = |name: &str| -> Vec<J> { old.as_ref().and_then(|o| o.get(name)).map(|l| l.arr().to_vec()).unwrap_or_default() };
    let (mut scenarios, mut unstable, mut combinations, mut not_measurable) =
        (list("scenarios"), list("unstable"), list("combinations"), list("not_measurable"));
    let started = Instant::now();
    for q in &queries {
        let t = Instant::now();
        let fx = record_one(q, runs, &rustc).await?;
        let name = format!("{}.json", file_stem(q));
        std::fs::write(out.join(&name), fx.pretty() + "\n").map_err(|e| e.to_string())?;
        for l in [&mut scenarios, &mut unstable, &mut combinations, &mut not_measurable] {
            l.retain(|e| e.get("scenario").and_then(J::str) != Some(q.as_str()));
        }
        let stable = fx.get("stable").cloned().unwrap_or(J::Null);
        let summary = fx.get("summary").cloned().unwrap_or(J::Null);
        if fx.get("measurable") == Some(&J::Bool(false)) {
            not_measurable.push(J::obj().with("scenario", q.as_str()).with("file", name.as_str()));
        } else if COMBOS.contains(&q.as_str()) {
            let mut e = J::obj().with("scenario", q.as_str()).with("file", name.as_str()).with("stable", stable.clone()).with("summary", summary.clone());
            if let Some(v) = fx.get("variants") {
                e.set("variants", v);
            }
            combinations.push(e);
        } else if stable == J::Bool(true) {
            scenarios.push(J::obj().with("scenario", q.as_str()).with("file", name.as_str()).with("summary", summary.clone()));
        } else {
            // kept, not dropped: every run is in the file, marked stable: false
            unstable.push(
                J::obj()
                    .with("scenario", q.as_str())
                    .with("file", name.as_str())
                    .with("runs", runs)
                    .with("variants", fx.get("variants").cloned().unwrap_or(J::Null)),
            );
        }
        println!("[{:5.1}s] {q}: stable={} {}", t.elapsed().as_secs_f64(), stable.compact(), summary.str().unwrap_or(""));
    }
    let order = |e: &J| all.iter().position(|m| Some(m.as_str()) == e.get("scenario").and_then(J::str)).unwrap_or(10_000);
    for l in [&mut scenarios, &mut unstable, &mut combinations, &mut not_measurable] {
        l.sort_by_key(|e| order(e));
    }
    let counts = format!("{} stable, {} unstable, {} combinations, {} not measurable", scenarios.len(), unstable.len(), combinations.len(), not_measurable.len());
    let index = J::obj()
        .with("sdk", order_status::SDK)
        .with("rustc", rustc.as_str())
        .with("packages", package_versions())
        .with("handler", "a2a_server::DefaultRequestHandler (a2a-server-lf 0.5.3)")
        .with(
            "wire_1.0",
            "raw JSON-RPC over reqwest (no TLS), A2A-Version: 1.0 (SendStreamingMessage / SendMessage / SubscribeToTask / \
             GetTask / CancelTask), bodies kept byte for byte; a second client is its own reqwest client",
        )
        .with("wire_0.3", NO_03)
        .with(
            "keys",
            J::obj()
                .with("resubscribe", "k: client 1 drops its stream right after delivered event k and calls SubscribeToTask on the task; it subscribes again when a stream is broken by the server going away (a restart; refused connections retried until the fresh server answers), at most 2 subscriptions, never after a stream the server closed")
                .with("second_client", "k: after client 1 received event k, a second client calls SubscribeToTask and reads its stream while client 1 reads on")
                .with("wire", "1.0 only (see wire_0.3)"),
        )
        .with("step_ms", RECORD_STEP_MS)
        .with("watchdog_ms", (WATCHDOG_S * 1000.0).round() as i64)
        .with("runs_per_scenario", runs)
        .with("scenarios", scenarios)
        .with("unstable", unstable)
        .with("combinations", combinations)
        .with("not_measurable", not_measurable);
    std::fs::write(&index_path, index.pretty() + "\n").map_err(|e| e.to_string())?;
    println!("recorded {} scenarios in {:.0}s -> {} ({counts})", queries.len(), started.elapsed().as_secs_f64(), out.display());
    Ok(())
}
