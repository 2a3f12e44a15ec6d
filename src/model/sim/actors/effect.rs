//! What an actor hands back to the world: effects as data, applied by the
//! world in order (an effect that reaches another actor is carried out,
//! with all it leads to, before the next one), and the read-only view an
//! actor gets of everything it does not own.

use super::post::Post;
use super::state::{Call, ClientId, Event, Payload, Stage};
use super::store::task::TaskSlot;
use super::Act;
use crate::model::ledger::LedgerEvent;
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::{CancelImpl, Scenario};
use crate::model::state::TaskState;
use crate::model::trace::{Entry, Source, StreamOutcome, StreamRole};

/// What an actor may read of the world while it handles an input.
pub(super) struct View<'a> {
    /// The virtual time.
    pub(super) now: u64,
    /// The scenario simulated.
    pub(super) sc: &'a Scenario,
    /// The SDK's behaviour, as data.
    pub(super) profile: &'static Profile,
    /// The task client 1 follows.
    pub(super) followed: usize,
    /// Where client 1's call stands.
    pub(super) client_call: Call,
    /// The record of the stream client 1 reads now.
    pub(super) client_stream: Option<usize>,
    /// The second client's subscription while it is open to receive: its
    /// task and the record of its stream.
    pub(super) second_open: Option<(usize, usize)>,
    /// Every task, as the store holds it. Empty in the view the store
    /// itself gets: it reads its own tasks, which it may be changing.
    pub(super) tasks: &'a [TaskSlot],
}

impl View<'_> {
    /// The stored state of the task client 1 follows (`None` once lost).
    pub(super) fn followed_state(&self) -> Option<TaskState> {
        self.tasks[self.followed].stored().map(|t| t.state)
    }

    /// The stream of the second client's subscription to `task`, while it
    /// is open to receive.
    pub(super) fn second_on(&self, task: usize) -> Option<usize> {
        self.second_open
            .filter(|&(on, _)| on == task)
            .map(|(_, stream)| stream)
    }
}

/// One thing an actor asks the world to do: write a row, schedule an act,
/// or hand an input to an actor (named below by the actor it reaches).
#[derive(Debug)]
pub(super) enum Effect {
    // ----- the world's records and agenda -----
    /// Write a row (the world numbers and stamps it).
    Row(Entry),
    /// Write a row a stream carried, and note it in the stream's record.
    RowOn(Option<usize>, Entry),
    /// Open a stream record for a client (the next in order).
    OpenStream(ClientId, StreamRole),
    /// Record how a stream ended.
    EndStream(Option<usize>, StreamOutcome),
    /// Schedule an act at a virtual time.
    Schedule(u64, Act),
    /// A client's new request at a virtual time, due after the server's
    /// work at that instant.
    Request(u64, Act),

    // ----- the executor -----
    /// `execute()` is called for a task.
    Start(usize),
    /// `execute()` returns.
    ExecuteReturns(usize),
    /// The client resumes the first execution after `stage`.
    Resume {
        stage: Stage,
        receipt: Option<String>,
    },
    /// The resumed execution's WORKING was decided (`refused` by the
    /// guard, or not).
    Resumed {
        exec: usize,
        stage: Stage,
        refused: bool,
    },
    /// `cancel()` (or the handler in its place) publishes `state` for the
    /// latest execution on the followed task.
    CancelStatus { source: Source, state: TaskState },
    /// A cancel stops the executions on the followed task, as the profile
    /// and the way the work runs say.
    StopExecutions,
    /// A step's output reached a closed bus: it was computed for nobody.
    OrphanedStep,
    /// The server process died: every execution with it.
    ProcessKilled,

    // ----- the handler -----
    /// An event for the handler to describe and send through the store
    /// and the streams; `resume` marks the resumed execution's WORKING,
    /// whose decision the executor waits for.
    Emit {
        exec: usize,
        task: usize,
        source: Source,
        payload: Payload,
        resume: Option<Stage>,
    },
    /// The store kept the event: hand it to the push sender (unless
    /// `pushed` already) and to the clients that read it.
    Deliver {
        event: Box<Event>,
        label: String,
        was_terminal: bool,
        status_change: bool,
        pushed: bool,
    },

    // ----- the store -----
    /// A request the task's ledger decides without the handler (a
    /// submission, a cancel request).
    Ledger(usize, LedgerEvent),
    /// An event to decide, store (or refuse, or orphan) and pass on.
    Store {
        event: Box<Event>,
        resend: bool,
        resume: Option<Stage>,
    },
    /// The SDK stops reading a task's events (its first final status,
    /// where the profile ends streams there).
    CloseBus(usize),
    /// A resumed call reads the first task's events again.
    ReopenBus(usize),
    /// A retried submission creates a new task.
    CreateTask,
    /// The process restarted: the store keeps or loses the tasks.
    StoreRestarts { assumed: bool },
    /// The SDK writes a status itself, past the queue: stored, never
    /// streamed or pushed.
    StoreSilently {
        task: usize,
        state: TaskState,
        label: String,
    },

    // ----- the webhook -----
    /// A POST reaches the webhook now.
    ToWebhook(Box<Post>),

    // ----- client 1 -----
    /// The first chunk (or none) went out: client 1 may retry now.
    MaybeRetry { task: usize },
    /// Client 1 follows this task from now on.
    Follow(usize),
    /// A client's call changed.
    SetCall(ClientId, Call),
    /// Client 1 received an event (a snapshot included).
    ClientReceived,
    /// A status changed on the followed task: a blocking call may return.
    StatusChanged,
    /// The cancel's status was written (or not): client 1 learns what
    /// CancelTask answers.
    CancelAnswered(CancelImpl),
    /// The queue closed: client 1's call ends (`label` says why).
    EndCall(String),
    /// A restart broke client 1's connection.
    BreakClient { assumed: bool },
    /// Client 1 subscribes again after its stream broke, if set to.
    ResubscribeAfterBreak,

    // ----- the second client -----
    /// The queue of `task` closed: the second client's subscription to it
    /// ends as the profile says.
    CloseSecond { task: usize, label: String },
    /// A restart broke the second client's subscription.
    BreakSecond,
    /// An event reached the second client.
    SecondReceived,
}
