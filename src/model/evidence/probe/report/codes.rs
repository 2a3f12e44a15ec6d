//! The probes (SPEC §10, §12) and the codes of their findings, each with
//! the advice it gives.

use serde::Serialize;

use crate::model::evidence::finding::FindingCode;

/// The six probes of SPEC §10, and `push` (SPEC §12, with `--webhook`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Probe {
    /// The agent card: the fields its protocol version requires.
    Card,
    /// A streaming message, read to its end.
    Stream,
    /// GetTask after it.
    Get,
    /// A new task, CancelTask once it shows it is running.
    Cancel,
    /// CancelTask on the finished task.
    CancelTerminal,
    /// A new task, its stream dropped, then SubscribeToTask.
    Resubscribe,
    /// SubscribeToTask on the finished task.
    SubscribeTerminal,
    /// What the webhook was POSTed about the `stream` and `cancel` tasks,
    /// and a task streamed while the webhook answers slowly.
    Push,
}

impl Probe {
    /// Every probe, in the order they run.
    pub const ALL: [Probe; 8] = [
        Probe::Card,
        Probe::Stream,
        Probe::Get,
        Probe::Cancel,
        Probe::CancelTerminal,
        Probe::Resubscribe,
        Probe::SubscribeTerminal,
        Probe::Push,
    ];

    /// Its name, as reports and `probe.json` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Probe::Card => "card",
            Probe::Stream => "stream",
            Probe::Get => "get",
            Probe::Cancel => "cancel",
            Probe::CancelTerminal => "cancel-terminal",
            Probe::Resubscribe => "resubscribe",
            Probe::SubscribeTerminal => "subscribe-terminal",
            Probe::Push => "push",
        }
    }

    /// The probe named `text`, if it is one.
    pub fn parse(text: &str) -> Option<Probe> {
        Probe::ALL.into_iter().find(|p| p.name() == text)
    }
}

impl std::fmt::Display for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that a table's column width applies.
        f.pad(self.name())
    }
}

impl Serialize for Probe {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Probe {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Probe, D::Error> {
        let text = String::deserialize(d)?;
        Probe::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a probe")))
    }
}

/// What a probe can find: a stream finding of SPEC §8 (or a webhook log's
/// of SPEC §12), or one of the probe's own (SPEC §10, §12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeCode {
    /// A finding of the capture reader on what a probe received.
    Stream(FindingCode),
    /// A wait ran out: a stream that did not close, a call that did not
    /// answer.
    Hung,
    /// GetTask disagrees with what was streamed.
    GetTaskMismatch,
    /// A task canceled mid-stream did not end CANCELED with nothing after.
    CancelNotCanceled,
    /// CancelTask on a finished task did not fail with -32002.
    CancelTerminalAccepted,
    /// SubscribeToTask on a finished task did not fail.
    SubscribeTerminalAccepted,
    /// A slow webhook held up the stream of its task.
    PushStallsStream,
    /// An event in one task's stream or subscription names another task.
    ForeignTask,
    /// A field the card's protocol version requires is missing, of the
    /// wrong type, or an empty list where one entry is needed.
    CardField,
    /// A JSON-RPC answer that is not JSON-RPC 2.0 for its request.
    RpcEnvelope,
    /// An event's `contextId` differs from its task's.
    ContextMismatch,
    /// An answer that cannot be read: not JSON, not JSON-RPC, an HTTP
    /// error status, an SSE line that is not an event (SPEC §13).
    UnreadableAnswer,
    /// The same probe meant something else over another binding of the
    /// same agent (`--binding all`, SPEC §16; A2A 1.0 §5.1).
    BindingMismatch,
}

/// The stream codes a `probe.json` may hold, for reading one back.
const STREAM_CODES: [FindingCode; 10] = [
    FindingCode::WireShape,
    FindingCode::AfterTerminal,
    FindingCode::MissingTerminal,
    FindingCode::ConflictingCoordinate,
    FindingCode::IllegalTransition,
    FindingCode::Duplicate,
    FindingCode::ArtifactGap,
    FindingCode::PushMissingTerminal,
    FindingCode::PushedAfterTerminal,
    FindingCode::PushDuplicate,
];

impl ProbeCode {
    /// The kebab-case code.
    pub fn code(self) -> &'static str {
        match self {
            ProbeCode::Stream(code) => code.code(),
            ProbeCode::Hung => "hung",
            ProbeCode::GetTaskMismatch => "get-task-mismatch",
            ProbeCode::CancelNotCanceled => "cancel-not-canceled",
            ProbeCode::CancelTerminalAccepted => "cancel-terminal-accepted",
            ProbeCode::SubscribeTerminalAccepted => "subscribe-terminal-accepted",
            ProbeCode::PushStallsStream => "push-stalls-stream",
            ProbeCode::ForeignTask => "foreign-task",
            ProbeCode::CardField => "card-field",
            ProbeCode::RpcEnvelope => "rpc-envelope",
            ProbeCode::ContextMismatch => "context-mismatch",
            ProbeCode::UnreadableAnswer => "unreadable-answer",
            ProbeCode::BindingMismatch => "binding-mismatch",
        }
    }

    /// The code spelled `text`, if it is one.
    pub fn parse(text: &str) -> Option<ProbeCode> {
        [
            ProbeCode::Hung,
            ProbeCode::GetTaskMismatch,
            ProbeCode::CancelNotCanceled,
            ProbeCode::CancelTerminalAccepted,
            ProbeCode::SubscribeTerminalAccepted,
            ProbeCode::PushStallsStream,
            ProbeCode::ForeignTask,
            ProbeCode::CardField,
            ProbeCode::RpcEnvelope,
            ProbeCode::ContextMismatch,
            ProbeCode::UnreadableAnswer,
            ProbeCode::BindingMismatch,
        ]
        .into_iter()
        .chain(STREAM_CODES.map(ProbeCode::Stream))
        .find(|c| c.code() == text)
    }

    /// What to fix, in a sentence, for the README's table and the page.
    pub fn advice(self) -> &'static str {
        match self {
            ProbeCode::Stream(code) => code.advice(),
            ProbeCode::Hung => {
                "A wait ran out: make execute() end with a final status on every path, and give \
                 blocking work a way to stop."
            }
            ProbeCode::GetTaskMismatch => {
                "GetTask disagrees with the stream: store every status and artifact you stream, \
                 and stream everything you store."
            }
            ProbeCode::CancelNotCanceled => {
                "A canceled task must end CANCELED: make cancel() write the canceled status and \
                 not raise, and stop the work it cancels."
            }
            ProbeCode::CancelTerminalAccepted => {
                "A finished task cannot be canceled: answer CancelTask with -32002 \
                 (TaskNotCancelableError)."
            }
            ProbeCode::SubscribeTerminalAccepted => {
                "A finished task has nothing to subscribe to: answer SubscribeToTask with an \
                 error (-32004 in A2A 1.0)."
            }
            ProbeCode::PushStallsStream => {
                "A slow webhook held up the task's stream: send push notifications off the path \
                 that delivers events (a queue or a background task with its own timeout), so a \
                 webhook's answer time never delays a client."
            }
            ProbeCode::ForeignTask => {
                "A task's stream carried another task's event: keep per-task data on the task \
                 (its context, its event queue), never on the executor, which serves every task \
                 at once."
            }
            ProbeCode::CardField => {
                "Complete the agent card: every field its protocol version requires, of the \
                 right type, with at least one skill and one input and output mode."
            }
            ProbeCode::RpcEnvelope => {
                "Answer in JSON-RPC 2.0: `\"jsonrpc\": \"2.0\"`, the request's `id` echoed, one \
                 of `result` and `error`, an integer error `code`."
            }
            ProbeCode::ContextMismatch => {
                "Write every event of a task with the task's own contextId, kept on the task, \
                 not on the executor."
            }
            ProbeCode::UnreadableAnswer => {
                "An answer could not be read: answer every call with JSON-RPC 2.0 (or the REST \
                 binding's JSON), stream each event as one `data:` line of JSON, and never answer \
                 a valid call with an HTTP error."
            }
            ProbeCode::BindingMismatch => {
                "Serve every binding from one request handler, each error in its form (A2A 1.0 §5.4)."
            }
        }
    }
}

impl std::fmt::Display for ProbeCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for ProbeCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}
