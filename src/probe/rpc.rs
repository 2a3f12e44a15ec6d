//! The JSON-RPC calls a probe makes, in the wire it speaks. Reading the
//! answers is the model's (`model::wire::event`), and so is judging them
//! (`model::evidence::probe_judge`).

use serde_json::{json, Value};

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
}

impl Method {
    /// The method's name on `wire`.
    pub fn name(self, wire: Wire) -> &'static str {
        match (wire, self) {
            (Wire::V1_0, Method::Stream) => "SendStreamingMessage",
            (Wire::V1_0, Method::Get) => "GetTask",
            (Wire::V1_0, Method::Cancel) => "CancelTask",
            (Wire::V1_0, Method::Subscribe) => "SubscribeToTask",
            (Wire::V0_3, Method::Stream) => "message/stream",
            (Wire::V0_3, Method::Get) => "tasks/get",
            (Wire::V0_3, Method::Cancel) => "tasks/cancel",
            (Wire::V0_3, Method::Subscribe) => "tasks/resubscribe",
        }
    }
}

/// Builds the requests; ids count up from 1.
pub struct Requests {
    wire: Wire,
    next: u64,
    /// Tells message ids apart between runs without a clock or randomness
    /// in the model: the probe passes the time it started.
    salt: String,
}

impl Requests {
    /// Requests on `wire`; `salt` makes message ids unique to this run.
    pub fn new(wire: Wire, salt: String) -> Requests {
        Requests {
            wire,
            next: 0,
            salt,
        }
    }

    /// A streaming message saying `text`, starting a new task; with
    /// `push`, the push config sent with it (the webhook's URL and a
    /// token), as the wire spells it.
    pub fn send(&mut self, text: &str, push: Option<(&str, &str)>) -> Value {
        self.next += 1;
        let message_id = format!("a2a-lab-probe-{}-{}", self.salt, self.next);
        let message = match self.wire {
            Wire::V1_0 => json!({
                "messageId": message_id,
                "role": "ROLE_USER",
                "parts": [{"text": text}],
            }),
            Wire::V0_3 => json!({
                "kind": "message",
                "messageId": message_id,
                "role": "user",
                "parts": [{"kind": "text", "text": text}],
            }),
        };
        let mut params = json!({"message": message});
        if let Some((url, token)) = push {
            let config = json!({"url": url, "token": token});
            params["configuration"] = match self.wire {
                Wire::V1_0 => json!({"taskPushNotificationConfig": config}),
                Wire::V0_3 => json!({"pushNotificationConfig": config}),
            };
        }
        self.call(Method::Stream, params)
    }

    /// A call on the task `id`.
    pub fn on_task(&mut self, method: Method, id: &str) -> Value {
        self.next += 1;
        self.call(method, json!({"id": id}))
    }

    fn call(&self, method: Method, params: Value) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.next,
            "method": method.name(self.wire),
            "params": params,
        })
    }
}
