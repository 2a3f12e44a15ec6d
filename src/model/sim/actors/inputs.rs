//! Every actor's inputs, one enum per actor, and [`To`], a message
//! addressed to one of them. An actor names another only through these
//! types, so no actor's file imports a sibling: adding an input is an edit
//! here and in the actor that handles it, never in the world.

use super::push::post::{Post, Reply};
use super::state::{CallState, ClientId, Event, Interruption, Payload};
use crate::model::ledger::LedgerEvent;
use crate::model::sim::scenario::CancelImpl;
use crate::model::state::TaskState;
use crate::model::trace::Source;

/// A message to one actor: the input it handles next.
#[derive(Debug)]
pub(super) enum To {
    /// The agent's `execute()` and `cancel()`.
    Executor(ExecutorIn),
    /// The SDK's request handler.
    Handler(HandlerIn),
    /// The SDK's event queue and the consumer reading it.
    Queue(QueueIn),
    /// The task store and its ledgers.
    Store(StoreIn),
    /// The SDK's push sender.
    Push(PushIn),
    /// The client's webhook.
    Webhook(WebhookIn),
    /// Client 1.
    Client(ClientIn),
    /// The second client.
    Second(SecondIn),
    /// The server process.
    Server(ServerIn),
}

/// What the executor is told.
#[derive(Debug)]
pub(super) enum ExecutorIn {
    /// `execute()` is called for a task.
    Start(usize),
    /// Lookup step `step` of execution `exec` is due.
    Step { exec: usize, step: u32 },
    /// The ending of execution `exec` is due.
    Ending { exec: usize },
    /// The late artifact of execution `exec` is due.
    Late { exec: usize },
    /// `execute()` returns.
    Returns(usize),
    /// The client resumes the first execution after `stage`.
    Resume {
        stage: Interruption,
        receipt: Option<String>,
    },
    /// The resumed execution's WORKING was decided (`refused` by the
    /// guard, or not).
    Resumed {
        exec: usize,
        stage: Interruption,
        refused: bool,
    },
    /// `cancel()` (or the handler in its place) publishes `state` for the
    /// latest execution on the followed task.
    CancelStatus { source: Source, state: TaskState },
    /// A cancel stops the executions on the followed task, as the profile
    /// and the way the work runs say.
    Stop,
    /// A step's output reached a closed bus: it was computed for nobody.
    OrphanedStep,
    /// The server process died: every execution with it.
    Killed,
}

/// What the request handler is told.
#[derive(Debug)]
pub(super) enum HandlerIn {
    /// An event to describe and send through the store and the streams;
    /// `resume` marks the resumed execution's WORKING, whose decision the
    /// executor waits for.
    Emit {
        exec: usize,
        task: usize,
        source: Source,
        payload: Payload,
        resume: Option<Interruption>,
    },
    /// Hand an event the store kept to the clients that read it.
    Deliver(Delivery),
    /// Client 1 took a delivered event in: `dup=k` may break its stream
    /// now.
    MaybeBreak,
}

/// An event the store kept, on its way to the push sender and the
/// clients.
#[derive(Debug)]
pub(super) struct Delivery {
    pub(super) event: Box<Event>,
    /// What its row says.
    pub(super) label: String,
    /// The task had ended before it.
    pub(super) was_terminal: bool,
    /// It changed the task's state.
    pub(super) status_change: bool,
    /// The server repeats it on client 1's reconnected stream (`dup`):
    /// a fault of that one connection, so neither pushed nor streamed to
    /// another client.
    pub(super) resend: bool,
}

/// What the SDK's event queue is told. The consumer reading it takes
/// what reaches it in order, and while it awaits a POST's answer (SPEC
/// §12) what reaches it waits.
#[derive(Debug)]
pub(super) enum QueueIn {
    /// Something the consumer does in its turn: passed on now, or once it
    /// goes on.
    Consume(Box<To>),
    /// `execute()` of execution `exec` returned: the queue closes once the
    /// consumer has caught up.
    Return { exec: usize },
    /// The consumer awaits a POST's answer; the message is what it does
    /// first when it goes on.
    Hold(Box<To>),
    /// The POST was answered: the consumer goes on.
    Release,
    /// The consumer goes on with the next thing that waits, unless it is
    /// held again.
    Next,
    /// The server process was killed: nothing waits any more.
    Killed,
}

/// What the store is told.
#[derive(Debug)]
pub(super) enum StoreIn {
    /// A request the task's ledger decides without the handler (a
    /// submission, a cancel request).
    Ledger(usize, LedgerEvent),
    /// An event to decide, store (or refuse, or orphan) and pass on.
    Decide {
        event: Box<Event>,
        resend: bool,
        resume: Option<Interruption>,
    },
    /// The SDK stops reading a task's events (its first final status,
    /// where the profile ends streams there).
    CloseBus(usize),
    /// A resumed call reads the first task's events again.
    ReopenBus(usize),
    /// A retried submission creates a new task.
    CreateTask,
    /// A blocking call on `task` returned at AUTH_REQUIRED with its event
    /// loop left running.
    CallLoopLeft(usize),
    /// The process restarted: the store keeps or loses the tasks.
    Restarted { assumed: bool },
    /// The SDK writes a status itself, past the queue: stored, never
    /// streamed or pushed.
    StoreSilently {
        task: usize,
        state: TaskState,
        label: String,
    },
}

/// What the push sender is told.
#[derive(Debug)]
pub(super) enum PushIn {
    /// The handler processed an event: POSTs for it join the queue, then
    /// the delivery goes on (or waits for their answer).
    Event(Delivery),
    /// The next POST about `task` leaves.
    Send { task: usize },
    /// The webhook met a POST with an answer.
    Answered(Box<Post>, Reply),
    /// The POST out about `task` was answered (or timed out): the next
    /// may leave.
    Done { task: usize },
    /// A follow-up turn repeated the inline config (`push_followup=repeat`).
    ConfigRepeated,
    /// A blocking call returned at AUTH_REQUIRED, its event loop left
    /// running.
    CallLoopLeft,
    /// The server process was killed: the POSTs still waiting are lost
    /// with it (one already out still reaches the webhook).
    Killed,
}

/// What the webhook is told.
#[derive(Debug)]
pub(super) enum WebhookIn {
    /// A POST reaches it now.
    Receive(Box<Post>),
}

/// What client 1 is told.
#[derive(Debug)]
pub(super) enum ClientIn {
    /// A streaming client's request opens its stream.
    Open,
    /// Time to resume the interrupted task after `stage`.
    Resume { stage: Interruption },
    /// Time to send CancelTask.
    Cancel,
    /// Its timeout for call number `call` is due.
    Timeout { call: u32 },
    /// Time to call SubscribeToTask.
    Subscribe,
    /// The first chunk (or none) went out: it may retry now.
    MaybeRetry { task: usize },
    /// It follows this task from now on.
    Follow(usize),
    /// Its call changed.
    SetCall(CallState),
    /// It received an event of `task` (a snapshot included).
    Received { task: usize },
    /// A status changed on the followed task: a blocking call may return.
    StatusChanged,
    /// The cancel's status was written (or not): it learns what CancelTask
    /// answers.
    CancelAnswered(CancelImpl),
    /// The queue closed: its call ends (`label` says why; `error`: the
    /// JSON-RPC error event that ends its stream, where one does).
    EndCall {
        label: String,
        error: Option<crate::model::wire::RpcCode>,
    },
    /// A restart broke its connection.
    Broken { assumed: bool },
    /// It subscribes again after its stream broke, if set to.
    ResubscribeAfterBreak,
    /// A resumed `execute()` published `task` again.
    Republished { task: usize },
}

/// What the second client is told.
#[derive(Debug)]
pub(super) enum SecondIn {
    /// Its timeout is due.
    Timeout,
    /// Time to call SubscribeToTask on `task` (the one whose event
    /// client 1 had just received).
    Subscribe { task: usize },
    /// Its subscription's call changed.
    SetCall(CallState),
    /// The queue of `task` closed: its subscription to it ends as the
    /// profile says.
    Closed { task: usize, label: String },
    /// A restart broke its subscription.
    Broken,
    /// An event reached it.
    Received,
    /// Client 1 resumed `task` for another turn: a subscription left open
    /// at the interruption receives again.
    Resumed { task: usize },
}

/// What the server process is told.
#[derive(Debug)]
pub(super) enum ServerIn {
    /// The process is killed and starts fresh.
    Restart,
}

macro_rules! addressed {
    ($($input:ident => $actor:ident),+ $(,)?) => {$(
        impl From<$input> for To {
            fn from(input: $input) -> To {
                To::$actor(input)
            }
        }
    )+};
}

addressed! {
    ExecutorIn => Executor,
    HandlerIn => Handler,
    QueueIn => Queue,
    StoreIn => Store,
    PushIn => Push,
    WebhookIn => Webhook,
    ClientIn => Client,
    SecondIn => Second,
    ServerIn => Server,
}

/// Either client's timeout (`call`: which of client 1's calls set it).
pub(super) fn timeout(client: ClientId, call: u32) -> To {
    match client {
        ClientId::First => ClientIn::Timeout { call }.into(),
        ClientId::Second => SecondIn::Timeout.into(),
    }
}

impl ClientIn {
    /// The queue closed and the call's stream closed with it.
    pub(super) fn end_call(label: impl Into<String>) -> ClientIn {
        ClientIn::EndCall {
            label: label.into(),
            error: None,
        }
    }

    /// The queue closed and a JSON-RPC error event with `code` ended the
    /// call's stream.
    pub(super) fn end_call_by_error(
        label: impl Into<String>,
        code: crate::model::wire::RpcCode,
    ) -> ClientIn {
        ClientIn::EndCall {
            label: label.into(),
            error: Some(code),
        }
    }
}

/// Either client's call changed.
pub(super) fn set_call(client: ClientId, call: CallState) -> To {
    match client {
        ClientId::First => ClientIn::SetCall(call).into(),
        ClientId::Second => SecondIn::SetCall(call).into(),
    }
}
