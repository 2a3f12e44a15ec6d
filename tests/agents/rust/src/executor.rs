//! The BBS-1042 order-status executor on a2a-rs.
//!
//! a2a-server-lf's `AgentExecutor::execute` returns a stream of events that the
//! handler drives (handler.rs `drive_execution`): it applies each event to the task
//! store, pushes it, publishes it to the streams, and stops polling, dropping the
//! stream, at the first terminal event or error. This executor is one such stream per
//! request (an `async_stream::stream!` generator): what the Python executor enqueues,
//! it yields, in the same order, with the same ids, texts and flags. Because the work
//! lives inside the stream, dropping it drops the awaiting steps at their current
//! await, as cancelling an asyncio task does; `work=to_thread|flag` run their steps on
//! a blocking thread that a drop cannot stop.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a::*;
use a2a_server::{AgentExecutor, ExecutorContext};
use futures::stream::{self, BoxStream};
use serde_json::{Value, json};

use crate::scenario::*;
use crate::side::SideChannel;

type Item = Result<StreamResponse, A2AError>;

/// Builds the events of one task.
#[derive(Clone)]
struct Events {
    task_id: String,
    context_id: String,
}

impl Events {
    fn status(&self, state: TaskState, message: Option<Message>) -> StreamResponse {
        // No timestamp: the handler stamps every status it applies or publishes
        // (handler.rs backfill_status_timestamp), as TaskUpdater does in a2a-sdk.
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            status: TaskStatus { state, message, timestamp: None },
            metadata: None,
        })
    }

    fn agent_message(&self, text: &str) -> Message {
        Message {
            message_id: uuid::Uuid::new_v4().to_string(),
            context_id: Some(self.context_id.clone()),
            task_id: Some(self.task_id.clone()),
            role: Role::Agent,
            parts: vec![Part::text(text)],
            metadata: None,
            extensions: None,
            reference_task_ids: None,
        }
    }

    fn submitted(&self, history: Option<Message>) -> StreamResponse {
        StreamResponse::Task(Task {
            id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            status: TaskStatus { state: TaskState::Submitted, message: None, timestamp: None },
            artifacts: None,
            history: history.map(|m| vec![m]),
            metadata: None,
        })
    }

    fn artifact(&self, id: &str, name: &str, texts: Vec<String>, append: bool, last: bool) -> StreamResponse {
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact: Artifact {
                artifact_id: id.to_string(),
                name: Some(name.to_string()),
                description: None,
                parts: texts.into_iter().map(Part::text).collect(),
                metadata: None,
                extensions: None,
            },
            // Omitted when false, as the 1.0 wire writes them.
            append: append.then_some(true),
            last_chunk: last.then_some(true),
            metadata: None,
        })
    }

    /// Chunk i of n: the first without flags (the handler rejects `append` on an
    /// artifact it does not hold, handler.rs apply_event_to_task), then `append`,
    /// the last `append` + `lastChunk`; with one chunk, `lastChunk` only.
    fn chunk(&self, i: usize, n: usize) -> StreamResponse {
        self.artifact(TRACKING_ID, TRACKING_NAME, vec![step_text(i, n)], i != 1, i == n)
    }

    fn whole_result(&self, n: usize) -> StreamResponse {
        self.artifact(TRACKING_ID, TRACKING_NAME, (1..=n).map(|i| step_text(i, n)).collect(), false, true)
    }

    fn receipt(&self) -> StreamResponse {
        self.artifact(RECEIPT_ID, RECEIPT_NAME, vec![RECEIPT_TEXT.to_string()], false, true)
    }
}

pub fn state_name(state: &TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "TASK_STATE_UNSPECIFIED",
        TaskState::Submitted => "TASK_STATE_SUBMITTED",
        TaskState::Working => "TASK_STATE_WORKING",
        TaskState::Completed => "TASK_STATE_COMPLETED",
        TaskState::Failed => "TASK_STATE_FAILED",
        TaskState::Canceled => "TASK_STATE_CANCELED",
        TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
        TaskState::Rejected => "TASK_STATE_REJECTED",
        TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
    }
}

/// Logs the end of an execute() stream, however it ends: `execute_dropped` when the
/// handler dropped the stream before it finished (it does so right after a terminal
/// event, an error, or a cancel that made the task terminal), then `execute_end`.
/// A drop also sets the task's flag, as the Python executor does on CancelledError.
struct EndGuard {
    side: SideChannel,
    flag: Arc<AtomicBool>,
    done: bool,
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        if !self.done {
            self.side.log("execute_dropped", &[]);
            self.flag.store(true, Ordering::SeqCst);
        }
        self.side.log("execute_end", &[]);
    }
}

pub struct OrderStatusExecutor {
    sc: Arc<Scenario>,
    step: Duration,
    side: SideChannel,
    flags: Arc<Mutex<HashMap<String, Arc<AtomicBool>>>>,
}

impl OrderStatusExecutor {
    pub fn new(sc: Scenario, step: Duration, side: SideChannel) -> Self {
        OrderStatusExecutor { sc: Arc::new(sc), step, side, flags: Arc::default() }
    }

    fn flag(&self, task_id: &str) -> Arc<AtomicBool> {
        let mut flags = self.flags.lock().unwrap_or_else(|e| e.into_inner());
        flags.entry(task_id.to_string()).or_default().clone()
    }
}

impl AgentExecutor for OrderStatusExecutor {
    fn execute(&self, ctx: ExecutorContext) -> BoxStream<'static, Item> {
        let sc = self.sc.clone();
        let step = self.step;
        let side = self.side.clone();
        let flag = self.flag(&ctx.task_id);
        let n = sc.chunks();
        let progress: usize = sc.get("progress").parse().unwrap_or(0);
        let result_last = sc.get("result") == "last";
        let ev = Events { task_id: ctx.task_id.clone(), context_id: ctx.context_id.clone() };
        let stored_state = ctx.stored_task.as_ref().map(|t| t.status.state.clone());
        let message = ctx.message.clone();

        Box::pin(async_stream::stream! {
            side.log("execute_start", &[
                ("task_id", json!(ev.task_id)),
                ("current_state", json!(stored_state.as_ref().map(state_name))),
            ]);
            let mut guard = EndGuard { side: side.clone(), flag: flag.clone(), done: false };
            let interrupt = sc.get("interrupt").to_string();
            // A new task, or a follow-up to an interrupted one. For a blocking
            // SendMessage the handler hands even a new task's SUBMITTED snapshot to
            // the executor (handler.rs start_execution, include_task_snapshot_in_context),
            // so SUBMITTED counts as new.
            let is_new = matches!(stored_state, None | Some(TaskState::Submitted));
            if is_new {
                yield Ok(ev.submitted(message.clone()));
                yield Ok(ev.status(TaskState::Working, None));
                if interrupt == "auth" || interrupt == "both" {
                    side.log("ask", &[("what", json!("auth"))]);
                    yield Ok(ev.status(TaskState::AuthRequired, Some(ev.agent_message(AUTH_TEXT))));
                    guard.done = true;
                    return;
                }
                if interrupt == "input" {
                    side.log("ask", &[("what", json!("input"))]);
                    yield Ok(ev.status(TaskState::InputRequired, Some(ev.agent_message(INPUT_TEXT))));
                    guard.done = true;
                    return;
                }
            } else {
                let receipt = message
                    .as_ref()
                    .and_then(|m| m.metadata.as_ref())
                    .and_then(|m| m.get("authorizationReceipt"))
                    .cloned()
                    .unwrap_or(Value::Null);
                side.log("resume", &[
                    ("from_state", json!(stored_state.as_ref().map(state_name))),
                    ("receipt", receipt),
                ]);
                yield Ok(ev.status(TaskState::Working, None));
                if stored_state == Some(TaskState::AuthRequired) && interrupt == "both" {
                    side.log("ask", &[("what", json!("input"))]);
                    yield Ok(ev.status(TaskState::InputRequired, Some(ev.agent_message(INPUT_TEXT))));
                    guard.done = true;
                    return;
                }
            }

            // The courier steps.
            let work = sc.get("work").to_string();
            if work == "await" {
                for i in 1..=n {
                    for j in 1..=progress {
                        side.log("enqueue_progress", &[("i", json!(i)), ("j", json!(j))]);
                        yield Ok(ev.status(TaskState::Working, Some(ev.agent_message(&progress_text(i, n, j, progress)))));
                    }
                    tokio::time::sleep(step).await;
                    side.log("work_done", &[("i", json!(i))]);
                    if !result_last {
                        side.log("enqueue_chunk", &[("i", json!(i))]);
                        yield Ok(ev.chunk(i, n));
                        side.log("enqueued_chunk", &[("i", json!(i))]);
                    }
                }
            } else if n > 0 {
                // to_thread / flag: one blocking call does every step and hands each
                // one back through a channel; `flag` checks the task's flag before
                // each step (set by cancel() and when the handler drops this stream).
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<usize>();
                let check_flag = work == "flag";
                let thread_flag = flag.clone();
                let thread_side = side.clone();
                let worker = tokio::task::spawn_blocking(move || {
                    for i in 1..=n {
                        if check_flag && thread_flag.load(Ordering::SeqCst) {
                            thread_side.log("flag_seen", &[("before_step", json!(i))]);
                            return;
                        }
                        std::thread::sleep(step);
                        thread_side.log("work_done", &[("i", json!(i))]);
                        let _ = tx.send(i);
                    }
                    thread_side.log("thread_done", &[]);
                });
                for step_no in 1..=n {
                    for j in 1..=progress {
                        side.log("enqueue_progress", &[("i", json!(step_no)), ("j", json!(j))]);
                        yield Ok(ev.status(TaskState::Working, Some(ev.agent_message(&progress_text(step_no, n, j, progress)))));
                    }
                    let Some(i) = rx.recv().await else {
                        // the thread stopped on the flag: return without an ending
                        side.log("handoff_closed", &[("before_step", json!(step_no))]);
                        guard.done = true;
                        return;
                    };
                    if !result_last {
                        side.log("enqueue_chunk", &[("i", json!(i))]);
                        yield Ok(ev.chunk(i, n));
                        side.log("enqueued_chunk", &[("i", json!(i))]);
                    }
                }
                let _ = worker.await;
            }
            if result_last && n > 0 {
                side.log("enqueue_result", &[("parts", json!(n))]);
                yield Ok(ev.whole_result(n));
                side.log("enqueued_result", &[]);
            }

            let ending = sc.get("ending").to_string();
            side.log("ending", &[("ending", json!(ending))]);
            match ending.as_str() {
                "complete" => yield Ok(ev.status(TaskState::Completed, None)),
                "fail" => yield Ok(ev.status(TaskState::Failed, None)),
                "input" => yield Ok(ev.status(TaskState::InputRequired, None)),
                "auth" => yield Ok(ev.status(TaskState::AuthRequired, None)),
                "never" => {
                    side.log("awaiting_forever", &[]);
                    futures::future::pending::<()>().await;
                }
                "raise" => {
                    // An executor's failure is an error item on its stream (the trait
                    // has no other way to fail).
                    side.log("execute_raised", &[("error", json!(RAISE_TEXT))]);
                    guard.done = true;
                    yield Err(A2AError::internal(RAISE_TEXT));
                    return;
                }
                _ => {} // return: no final status
            }
            side.log("ended", &[("ending", json!(ending))]);

            let late = sc.get("late").to_string();
            if late != "off" {
                let late_ms: u64 = late.parse().unwrap_or(0);
                if late_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(late_ms)).await;
                }
                side.log("enqueue_late", &[]);
                yield Ok(ev.receipt());
                side.log("enqueued_late", &[]);
            }
            guard.done = true;
        })
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Item> {
        let imp = self.sc.get("cancel_impl").to_string();
        self.side.log("cancel_called", &[("impl", json!(imp)), ("task_id", json!(ctx.task_id))]);
        let ev = Events { task_id: ctx.task_id.clone(), context_id: ctx.context_id.clone() };
        let events: BoxStream<'static, Item> = match imp.as_str() {
            "write" => {
                self.flag(&ctx.task_id).store(true, Ordering::SeqCst);
                // Logged before the handler takes the event: it stops polling the
                // cancel stream at its terminal event (handler.rs cancel_task).
                self.side.log("cancel_wrote_canceled", &[]);
                Box::pin(stream::iter([Ok(ev.status(TaskState::Canceled, None))]))
            }
            // cancel() fails: the stream's only item is an error.
            "raise" => Box::pin(stream::iter([Err(A2AError::internal("cancel is not supported"))])),
            _ => Box::pin(stream::empty::<Item>()), // noop: writes nothing
        };
        events
    }
}

/// tests/agents defects shared-state / shared-queue: the common bug of an executor
/// that keeps the current request's task on itself. The handler has one executor for
/// all requests, so when a second request starts while the first is still working,
/// every later event of the first is built from the second's ids (shared-state) or
/// also goes to the second's stream (shared-queue). Here each request's stream is fed
/// by a spawned task through a channel (the SDK example's shape for long work), and the
/// "queue" kept on the executor is the latest request's sender. Alone it streams
/// exactly what defect none streams (the default scenario only).
pub struct SharedStateExecutor {
    current: Arc<Mutex<Option<Current>>>,
    queue_mode: bool,
    step: Duration,
    n: usize,
    side: SideChannel,
}

#[derive(Clone)]
struct Current {
    task_id: String,
    context_id: String,
    // Weak: the executor must not keep a finished request's stream open.
    queue: tokio::sync::mpsc::WeakUnboundedSender<Item>,
}

impl SharedStateExecutor {
    pub fn new(queue_mode: bool, n: usize, step: Duration, side: SideChannel) -> Self {
        SharedStateExecutor { current: Arc::default(), queue_mode, step, n, side }
    }
}

impl AgentExecutor for SharedStateExecutor {
    fn execute(&self, ctx: ExecutorContext) -> BoxStream<'static, Item> {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Item>();
        {
            let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
            *cur = Some(Current {
                task_id: ctx.task_id.clone(),
                context_id: ctx.context_id.clone(),
                queue: tx.downgrade(),
            });
        }
        let current = self.current.clone();
        let queue_mode = self.queue_mode;
        let (step, n, side) = (self.step, self.n, self.side.clone());
        let own = ctx.task_id.clone();
        let own_context = ctx.context_id.clone();
        let message = ctx.message.clone();
        tokio::spawn(async move {
            side.log("execute_start", &[
                ("task_id", json!(own)),
                ("current_state", Value::Null),
                ("message_id", json!(message.as_ref().map(|m| m.message_id.clone()))),
            ]);
            // built afresh for every event from what is on the executor now
            let now = || current.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let send = |make: &dyn Fn(&Events) -> StreamResponse| {
                let Some(cur) = now() else { return };
                let events = Events { task_id: cur.task_id.clone(), context_id: cur.context_id.clone() };
                let item = Ok(make(&events));
                if queue_mode {
                    if let Some(q) = cur.queue.upgrade() {
                        let _ = q.send(item);
                    }
                } else {
                    let _ = tx.send(item);
                }
            };
            {
                let cur = now();
                let events = match &cur {
                    Some(c) => Events { task_id: c.task_id.clone(), context_id: c.context_id.clone() },
                    None => Events { task_id: own.clone(), context_id: own_context.clone() },
                };
                let _ = tx.send(Ok(events.submitted(message.clone())));
            }
            send(&|e| e.status(TaskState::Working, None));
            for i in 1..=n {
                tokio::time::sleep(step).await;
                let as_task = now().map(|c| c.task_id).unwrap_or_default();
                side.log("work_done", &[("i", json!(i)), ("own", json!(own)), ("as_task", json!(as_task))]);
                side.log("enqueue_chunk", &[("i", json!(i))]);
                send(&|e| e.chunk(i, n));
                side.log("enqueued_chunk", &[("i", json!(i))]);
            }
            let as_task = now().map(|c| c.task_id).unwrap_or_default();
            side.log("ending", &[("ending", json!("complete")), ("own", json!(own)), ("as_task", json!(as_task))]);
            send(&|e| e.status(TaskState::Completed, None));
            side.log("ended", &[("ending", json!("complete")), ("own", json!(own))]);
            side.log("execute_end", &[("own", json!(own))]);
        });
        Box::pin(async_stream::stream! {
            while let Some(item) = rx.recv().await {
                yield item;
            }
        })
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Item> {
        self.side.log("cancel_called", &[("impl", json!("write")), ("task_id", json!(ctx.task_id))]);
        let ev = Events { task_id: ctx.task_id.clone(), context_id: ctx.context_id.clone() };
        Box::pin(stream::iter([Ok(ev.status(TaskState::Canceled, None))]))
    }
}
