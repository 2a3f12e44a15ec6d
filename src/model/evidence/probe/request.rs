//! The calls a probe makes, in the wire and binding it speaks (JSON-RPC,
//! or REST as [`crate::model::wire::rest`] lays it out). Reading the
//! answers is the model's (`model::wire::event`), and so is judging them
//! (`model::evidence::probe::judge`).

use serde_json::{json, Value};

use crate::model::wire::card::Endpoint;
use crate::model::wire::rest::{Binding, RestCall};
use crate::model::wire::Wire;

/// The calls of SPEC §10, by wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// SendStreamingMessage (0.3: `message/stream`).
    Stream,
    /// GetTask (0.3: `tasks/get`).
    Get,
    /// CancelTask (0.3: `tasks/cancel`).
    Cancel,
    /// SubscribeToTask (0.3: `tasks/resubscribe`).
    Subscribe,
    /// ListTasks: A2A 1.0 only ([`LIST_TASKS`]); 0.3 has none, and the
    /// builder refuses it there ([`Requests::list`]).
    List,
}

/// ListTasks' name on 1.0, on every binding; a capture's reader tells its
/// answer from a stream's events by the request kept before it.
pub const LIST_TASKS: &str = "ListTasks";

/// Why `wire` cannot list tasks, when it cannot: A2A's changelog adds
/// `tasks/list` in the release after 0.3.0, and a2a-sdk's 0.3 REST
/// answers `GET /v1/tasks` 404 (tests/agents/ANSWERS.md).
pub fn no_list(wire: Wire) -> Option<String> {
    match wire {
        Wire::V1_0 => None,
        Wire::V0_3 => Some("A2A 0.3 has no ListTasks (it came with 1.0)".into()),
    }
}

impl Method {
    /// The method's name on `wire`.
    pub fn name(self, wire: Wire) -> &'static str {
        match (wire, self) {
            (Wire::V1_0, Method::Stream) => "SendStreamingMessage",
            (Wire::V1_0, Method::Get) => "GetTask",
            (Wire::V1_0, Method::Cancel) => "CancelTask",
            (Wire::V1_0, Method::Subscribe) => "SubscribeToTask",
            // Never sent on 0.3 (see [`no_list`]); named for messages.
            (_, Method::List) => LIST_TASKS,
            (Wire::V0_3, Method::Stream) => "message/stream",
            (Wire::V0_3, Method::Get) => "tasks/get",
            (Wire::V0_3, Method::Cancel) => "tasks/cancel",
            (Wire::V0_3, Method::Subscribe) => "tasks/resubscribe",
        }
    }
}

/// One request of a probe: where it goes, what it carries.
#[derive(Debug, Clone)]
pub struct Request {
    /// The call.
    pub method: Method,
    /// Where it is sent.
    pub url: String,
    /// The JSON body POSTed; `None` for a GET.
    pub body: Option<Value>,
    /// The JSON-RPC id its answers must echo (none on REST).
    pub id: Option<u64>,
    /// The binding it is sent in.
    pub binding: Binding,
    /// The wire it is spoken in.
    pub wire: Wire,
}

impl Request {
    /// A message with the push config sent with it (SPEC §12): the
    /// webhook's URL and the token it expects, as the wire spells it.
    pub fn push_to(&mut self, url: &str, token: &str) {
        let Some(body) = self.body.as_mut() else {
            return;
        };
        let config = json!({"url": url, "token": token});
        let params = match self.binding {
            Binding::JsonRpc => &mut body["params"],
            Binding::Rest | Binding::Grpc => body,
        };
        params["configuration"] = match self.wire {
            Wire::V1_0 => json!({"taskPushNotificationConfig": config}),
            Wire::V0_3 => json!({"pushNotificationConfig": config}),
        };
    }

    /// The call's name, for messages.
    pub fn name(&self) -> &'static str {
        self.method.name(self.wire)
    }
}

impl Method {
    /// The REST call it is.
    fn rest(self) -> RestCall {
        match self {
            Method::Stream => RestCall::Stream,
            Method::Get => RestCall::Get,
            Method::Cancel => RestCall::Cancel,
            Method::Subscribe => RestCall::Subscribe,
            Method::List => RestCall::List,
        }
    }
}

/// Builds the requests for one endpoint, in its wire and binding;
/// JSON-RPC ids count up from 1.
pub struct Requests {
    wire: Wire,
    binding: Binding,
    url: String,
    next: u64,
    /// Tells message ids apart between runs without a clock or randomness
    /// in the model: the probe passes the time it started.
    salt: String,
}

impl Requests {
    /// Requests to `endpoint`; `salt` makes message ids unique to this run.
    pub fn new(endpoint: &Endpoint, salt: String) -> Requests {
        Requests {
            wire: endpoint.wire,
            binding: endpoint.binding,
            url: endpoint.url.clone(),
            next: 0,
            salt,
        }
    }

    /// A streaming message saying `text`, starting a new task; with
    /// `push`, the push config sent with it (the webhook's URL and a
    /// token), as the wire spells it.
    pub fn send(&mut self, text: &str, push: Option<(&str, &str)>) -> Request {
        let mut request = self.message(text, None, None);
        if let Some((url, token)) = push {
            request.push_to(url, token);
        }
        request
    }

    /// A streaming message of a text part (when `text` is not blank) and
    /// a `data` part; with `task`, the continuation of that task in its
    /// context (A2A 1.0 §3.4.3), else a new task.
    pub fn message(
        &mut self,
        text: &str,
        data: Option<&Value>,
        task: Option<(&str, Option<&str>)>,
    ) -> Request {
        self.next += 1;
        let message_id = format!("a2a-lab-probe-{}-{}", self.salt, self.next);
        let mut parts = Vec::new();
        let (mut message, v1) = match self.wire {
            Wire::V1_0 => (json!({"messageId": message_id, "role": "ROLE_USER"}), true),
            Wire::V0_3 => (
                json!({"kind": "message", "messageId": message_id, "role": "user"}),
                false,
            ),
        };
        if !text.trim().is_empty() || data.is_none() {
            parts.push(match v1 {
                true => json!({"text": text}),
                false => json!({"kind": "text", "text": text}),
            });
        }
        if let Some(data) = data {
            parts.push(match v1 {
                true => json!({"data": data}),
                false => json!({"kind": "data", "data": data}),
            });
        }
        message["parts"] = Value::Array(parts);
        if let Some((task, context)) = task {
            message["taskId"] = json!(task);
            if let Some(context) = context {
                message["contextId"] = json!(context);
            }
        }
        self.request(Method::Stream, "", json!({"message": message}))
    }

    /// A call on the task `id`.
    pub fn on_task(&mut self, method: Method, id: &str) -> Request {
        self.next += 1;
        self.request(method, id, json!({"id": id}))
    }

    /// ListTasks with no filter (the agent's first page: at most 50 tasks
    /// unless it says otherwise, A2A 1.0 `ListTasksRequest`); refused on
    /// a wire that has none, with why.
    pub fn list(&mut self) -> Result<Request, String> {
        if let Some(why) = no_list(self.wire) {
            return Err(why);
        }
        self.next += 1;
        Ok(self.request(Method::List, "", json!({})))
    }

    /// The request: on JSON-RPC, `params` in an envelope POSTed to the
    /// endpoint; on gRPC, `params` as the method's request message; on REST, the call's path on the task, the message (a
    /// `SendMessageRequest`, as `params` is) POSTed, a GET for a task or
    /// the list, an empty object POSTed for the others.
    fn request(&self, method: Method, task: &str, params: Value) -> Request {
        match self.binding {
            Binding::JsonRpc => Request {
                method,
                url: self.url.clone(),
                body: Some(json!({
                    "jsonrpc": "2.0",
                    "id": self.next,
                    "method": method.name(self.wire),
                    "params": params,
                })),
                id: Some(self.next),
                binding: self.binding,
                wire: self.wire,
            },
            // The request message in its ProtoJSON form (`SendMessageRequest`,
            // `GetTaskRequest`, …: `{"message"}` or `{"id"}`, as `params`
            // is), which the gRPC caller encodes; `url` is the interface's.
            Binding::Grpc => Request {
                method,
                url: self.url.clone(),
                body: Some(params),
                id: None,
                binding: self.binding,
                wire: self.wire,
            },
            Binding::Rest => {
                let call = method.rest();
                let body = match call {
                    RestCall::Stream => Some(params),
                    RestCall::Get | RestCall::List => None,
                    RestCall::Cancel | RestCall::Subscribe => Some(json!({})),
                };
                Request {
                    method,
                    url: call.url(&self.url, task),
                    body,
                    id: None,
                    binding: self.binding,
                    wire: self.wire,
                }
            }
        }
    }
}
