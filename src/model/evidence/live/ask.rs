//! What the page asks the relay to do with the agent: one call, named by
//! what it is for, never by a URL or a header. The relay turns it into a
//! request of the probe's own builder ([`Requests`]), so that the page
//! cannot aim the relay anywhere but the agent's interface.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::evidence::probe::request::{Method, Request, Requests};

/// The longest text or data part the page may send in one message, in
/// bytes (the relay's body limit is the hard one; this one is said).
pub const MAX_MESSAGE_BYTES: usize = 32 << 10;

/// One call the page asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum LiveAsk {
    /// A streaming message: a new task, or with `taskId` (and its
    /// `contextId`) the continuation of one (A2A 1.0 §3.4.3).
    Send {
        /// The text part, when not empty.
        #[serde(default)]
        text: String,
        /// A data part, when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
        /// The task continued.
        #[serde(default, rename = "taskId", skip_serializing_if = "Option::is_none")]
        task_id: Option<String>,
        /// The context continued.
        #[serde(default, rename = "contextId", skip_serializing_if = "Option::is_none")]
        context_id: Option<String>,
    },
    /// GetTask.
    Get {
        /// The task.
        #[serde(rename = "taskId")]
        task_id: String,
    },
    /// CancelTask.
    Cancel {
        /// The task.
        #[serde(rename = "taskId")]
        task_id: String,
    },
    /// SubscribeToTask (0.3: `tasks/resubscribe`).
    Subscribe {
        /// The task.
        #[serde(rename = "taskId")]
        task_id: String,
    },
    /// ListTasks (A2A 1.0; 0.3 has none): the agent's tasks, the session's
    /// or not. A struct variant, so that a field sent with it is refused
    /// as any other ask's unknown field is.
    List {},
}

impl LiveAsk {
    /// Reads an ask the page sent; the error says what is wrong with it.
    pub fn parse(bytes: &[u8]) -> Result<LiveAsk, String> {
        let ask: LiveAsk = serde_json::from_slice(bytes).map_err(|e| format!("a bad ask: {e}"))?;
        ask.checked()
    }

    /// The ask, unless it is one no agent should be sent.
    fn checked(self) -> Result<LiveAsk, String> {
        let blank = |id: &str| id.trim().is_empty();
        match &self {
            LiveAsk::Send {
                text,
                data,
                task_id,
                ..
            } => {
                if text.trim().is_empty() && data.is_none() {
                    return Err("a message needs a text or a data part".into());
                }
                let data_len = data.as_ref().map_or(0, |d| d.to_string().len());
                if text.len() + data_len > MAX_MESSAGE_BYTES {
                    return Err(format!(
                        "a message of at most {} KiB, please",
                        MAX_MESSAGE_BYTES >> 10
                    ));
                }
                if data.as_ref().is_some_and(|d| !d.is_object()) {
                    return Err("a data part is a JSON object".into());
                }
                if task_id.as_deref().is_some_and(blank) {
                    return Err("a continuation names its task".into());
                }
            }
            LiveAsk::Get { task_id }
            | LiveAsk::Cancel { task_id }
            | LiveAsk::Subscribe { task_id } => {
                if blank(task_id) {
                    return Err("which task? (taskId is empty)".into());
                }
            }
            LiveAsk::List {} => {}
        }
        Ok(self)
    }

    /// The request the relay sends for this ask, by the probe's builder;
    /// refused, with why, when the wire spoken has no such call.
    pub fn request(&self, requests: &mut Requests) -> Result<Request, String> {
        Ok(match self {
            LiveAsk::Send {
                text,
                data,
                task_id,
                context_id,
            } => requests.message(
                text,
                data.as_ref(),
                task_id.as_deref().map(|t| (t, context_id.as_deref())),
            ),
            LiveAsk::Get { task_id } => requests.on_task(Method::Get, task_id),
            LiveAsk::Cancel { task_id } => requests.on_task(Method::Cancel, task_id),
            LiveAsk::Subscribe { task_id } => requests.on_task(Method::Subscribe, task_id),
            LiveAsk::List {} => requests.list()?,
        })
    }
}
