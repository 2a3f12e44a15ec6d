//! A2A 0.3 wire events, as both SDKs' 0.3 compatibility modes write them
//! (measured: tests/fidelity/captures/*/v0.3_*): flat objects tagged
//! `kind` (`task`, `status-update`, `artifact-update`, `message`),
//! kebab-case states, parts tagged `kind: "text"`, roles `user`/`agent`,
//! `final` on every status update, and `append` and `lastChunk` written
//! out even when false. The simulator writes 1.0 events ([`super::v10`]);
//! a scenario on the 0.3 wire has each one translated here.

use serde_json::{Map, Value};

use crate::model::state::TaskState;

/// The 1.0 `event` as the 0.3 wire carries it. A status update is `final`
/// only at a terminal state: both SDKs write `final: false` at
/// input-required and auth-required too (measured). A value that is not
/// one of the four 1.0 events is returned unchanged.
pub fn to_v03(event: &Value) -> Value {
    let Some((key, body)) = event.as_object().and_then(|m| m.iter().next()) else {
        return event.clone();
    };
    let Some(body) = body.as_object() else {
        return event.clone();
    };
    let mut out = Map::new();
    match key.as_str() {
        "task" => {
            out.insert("kind".into(), "task".into());
            for (k, v) in body {
                let v = match k.as_str() {
                    "status" => status(v),
                    "history" => each(v, message),
                    "artifacts" => each(v, artifact_v03),
                    _ => v.clone(),
                };
                out.insert(k.clone(), v);
            }
        }
        "statusUpdate" => {
            out.insert("kind".into(), "status-update".into());
            for (k, v) in body {
                out.insert(k.clone(), if k == "status" { status(v) } else { v.clone() });
            }
            let state = body
                .get("status")
                .and_then(|s| s.get("state"))
                .and_then(Value::as_str)
                .and_then(TaskState::from_wire);
            out.insert(
                "final".into(),
                Value::Bool(state.is_some_and(TaskState::is_terminal)),
            );
        }
        "artifactUpdate" => {
            out.insert("kind".into(), "artifact-update".into());
            for (k, v) in body {
                out.insert(
                    k.clone(),
                    if k == "artifact" {
                        artifact_v03(v)
                    } else {
                        v.clone()
                    },
                );
            }
            for flag in ["append", "lastChunk"] {
                out.entry(flag).or_insert(Value::Bool(false));
            }
        }
        "message" => return message(&Value::Object(body.clone())),
        _ => return event.clone(),
    }
    Value::Object(out)
}

/// `{"state": "TASK_STATE_WORKING", …}` → `{"state": "working", …}`.
fn status(status: &Value) -> Value {
    let mut out = status.clone();
    if let Some(state) = out
        .get("state")
        .and_then(Value::as_str)
        .and_then(TaskState::from_wire)
    {
        out["state"] = state.kebab().into();
    }
    if let Some(said) = status.get("message") {
        out["message"] = message(said);
    }
    out
}

fn each(list: &Value, f: fn(&Value) -> Value) -> Value {
    match list.as_array() {
        Some(items) => Value::Array(items.iter().map(f).collect()),
        None => list.clone(),
    }
}

/// A message: `kind`, the 0.3 role, tagged parts.
fn message(message: &Value) -> Value {
    let mut out = Map::new();
    out.insert("kind".into(), "message".into());
    if let Some(body) = message.as_object() {
        for (k, v) in body {
            let v = match k.as_str() {
                "role" => match v.as_str() {
                    Some("ROLE_USER") => "user".into(),
                    Some("ROLE_AGENT") => "agent".into(),
                    _ => v.clone(),
                },
                "parts" => each(v, part),
                _ => v.clone(),
            };
            out.insert(k.clone(), v);
        }
    }
    Value::Object(out)
}

fn artifact_v03(artifact: &Value) -> Value {
    let mut out = artifact.clone();
    if let Some(parts) = artifact.get("parts") {
        out["parts"] = each(parts, part);
    }
    out
}

/// `{"text": …}` → `{"kind": "text", "text": …}`.
fn part(part: &Value) -> Value {
    let mut out = part.clone();
    if let Some(map) = out.as_object_mut() {
        if map.contains_key("text") {
            map.insert("kind".into(), "text".into());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_event_kind_is_written_as_the_0_3_wire_writes_it() {
        let status = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "x"}}});
        assert_eq!(
            to_v03(&status),
            json!({"kind": "status-update", "taskId": "t", "contextId": "c",
                   "status": {"state": "completed", "timestamp": "x"}, "final": true})
        );
        let chunk = json!({"artifactUpdate": {"taskId": "t", "append": true,
            "artifact": {"artifactId": "a", "parts": [{"text": "p"}]}}});
        assert_eq!(
            to_v03(&chunk),
            json!({"kind": "artifact-update", "taskId": "t", "append": true, "lastChunk": false,
                   "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "p"}]}})
        );
        let task = json!({"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"},
            "history": [{"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "q"}]}]}});
        assert_eq!(
            to_v03(&task),
            json!({"kind": "task", "id": "t", "status": {"state": "submitted"},
                   "history": [{"kind": "message", "messageId": "m", "role": "user",
                                "parts": [{"kind": "text", "text": "q"}]}]})
        );
        let working = json!({"statusUpdate": {"status": {"state": "TASK_STATE_WORKING"}}});
        assert_eq!(to_v03(&working)["final"], json!(false));
        assert_eq!(to_v03(&json!(7)), json!(7));
    }
}
