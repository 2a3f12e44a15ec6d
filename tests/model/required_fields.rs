//! A required field removed is a `wire-shape` finding, never the end of
//! the capture (SPEC §13). Every recorded stream of both SDKs, on both
//! wires, has each field that a2a.proto marks REQUIRED (1.0) or that the
//! 0.3 JSON schema lists as `required` removed from each event in turn.
//! The reader must then still read the whole capture, find `wire-shape`
//! at that event, and judge a second task read after it exactly as it
//! judges that task alone.
#![cfg(not(target_arch = "wasm32"))]

use crate::model_support;

use model_support::read_capture;
use std::path::Path;

use a2a_lab::model::evidence::capture::{CaptureReport, TaskSummary};
use a2a_lab::model::evidence::finding::FindingCode;
use serde_json::Value;

/// The fields each object must hold, in the spec's words: a2a.proto's
/// `(google.api.field_behavior) = REQUIRED` for 1.0; the 0.3 JSON schema's
/// `required` lists (which add `kind`, and `contextId` and `final` where
/// 1.0 has none).
fn required(object: &str, v03: bool) -> &'static [&'static str] {
    match (object, v03) {
        ("Task", false) => &["id", "status"],
        ("Task", true) => &["id", "contextId", "status", "kind"],
        ("TaskStatus", _) => &["state"],
        ("TaskStatusUpdateEvent", false) => &["taskId", "contextId", "status"],
        ("TaskStatusUpdateEvent", true) => &["taskId", "contextId", "status", "final", "kind"],
        ("TaskArtifactUpdateEvent", false) => &["taskId", "contextId", "artifact"],
        ("TaskArtifactUpdateEvent", true) => &["taskId", "contextId", "artifact", "kind"],
        ("Message", false) => &["messageId", "role", "parts"],
        ("Message", true) => &["messageId", "role", "parts", "kind"],
        ("Artifact", _) => &["artifactId", "parts"],
        // 1.0: a part's content is a oneof the part must carry one of;
        // 0.3: a part's `kind`.
        ("Part", false) => &["text"],
        ("Part", true) => &["kind"],
        _ => &[],
    }
}

/// Every required field present in `value` (an object of kind `object`),
/// as a path of keys and list indexes from the event.
fn required_paths(
    value: &Value,
    object: &str,
    v03: bool,
    at: &[PathStep],
    out: &mut Vec<Vec<PathStep>>,
) {
    let Some(map) = value.as_object() else { return };
    for name in required(object, v03) {
        if map.contains_key(*name) {
            out.push([at, &[PathStep::Key(name)]].concat());
        }
    }
    let nested: &[(&str, &str)] = match object {
        "Task" => &[
            ("status", "TaskStatus"),
            ("artifacts", "Artifact"),
            ("history", "Message"),
        ],
        "TaskStatusUpdateEvent" => &[("status", "TaskStatus")],
        "TaskArtifactUpdateEvent" => &[("artifact", "Artifact")],
        "TaskStatus" => &[("message", "Message")],
        "Message" | "Artifact" => &[("parts", "Part")],
        _ => &[],
    };
    for (field, kind) in nested {
        match map.get(*field) {
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let here = [at, &[PathStep::Key(field), PathStep::Index(i)]].concat();
                    required_paths(item, kind, v03, &here, out);
                }
            }
            Some(item) => {
                let here = [at, &[PathStep::Key(field)]].concat();
                required_paths(item, kind, v03, &here, out);
            }
            None => {}
        }
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(&'static str),
    Index(usize),
}

/// The event inside a JSON-RPC response, with its object's name, and the
/// path to it from the response.
fn event_of(response: &Value, v03: bool) -> Option<(Vec<PathStep>, &'static str)> {
    let result = response.get("result")?;
    if v03 {
        let kind = match result.get("kind")?.as_str()? {
            "task" => "Task",
            "status-update" => "TaskStatusUpdateEvent",
            "artifact-update" => "TaskArtifactUpdateEvent",
            "message" => "Message",
            _ => return None,
        };
        return Some((vec![PathStep::Key("result")], kind));
    }
    for (wrapper, kind) in [
        ("task", "Task"),
        ("statusUpdate", "TaskStatusUpdateEvent"),
        ("artifactUpdate", "TaskArtifactUpdateEvent"),
        ("message", "Message"),
    ] {
        if result.get(wrapper).is_some() {
            return Some((vec![PathStep::Key("result"), PathStep::Key(wrapper)], kind));
        }
    }
    None
}

fn remove(value: &mut Value, path: &[PathStep]) {
    let (last, parents) = path.split_last().unwrap();
    let mut at = value;
    for step in parents {
        at = match step {
            PathStep::Key(k) => at.get_mut(*k).unwrap(),
            PathStep::Index(i) => at.get_mut(*i).unwrap(),
        };
    }
    match last {
        PathStep::Key(k) => at.as_object_mut().unwrap().remove(*k),
        PathStep::Index(_) => unreachable!("a required field is a key"),
    };
}

fn get<'v>(value: &'v Value, path: &[PathStep]) -> &'v Value {
    path.iter().fold(value, |at, step| match step {
        PathStep::Key(k) => &at[*k],
        PathStep::Index(i) => &at[*i],
    })
}

/// Each recorded SSE stream's events, as JSON.
fn streams() -> Vec<(String, bool, Vec<Value>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fidelity/captures");
    let mut out = Vec::new();
    for sdk in ["python", "js"] {
        let mut names: Vec<_> = std::fs::read_dir(root.join(sdk))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".sse"))
            .collect();
        names.sort();
        for name in names {
            let text = std::fs::read_to_string(root.join(sdk).join(&name)).unwrap();
            let events: Vec<Value> = text
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| serde_json::from_str(d.trim()).unwrap())
                .collect();
            out.push((format!("{sdk}/{name}"), name.starts_with("v0.3"), events));
        }
    }
    out
}

fn lines(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

fn summary<'r>(report: &'r CaptureReport, id: &str) -> &'r TaskSummary {
    report.tasks.iter().find(|t| t.id == id).unwrap()
}

/// The task a stream's first event names.
fn task_id(events: &[Value]) -> String {
    let first = &events[0]["result"];
    let inner = ["task", "statusUpdate", "artifactUpdate"]
        .iter()
        .map(|w| &first[*w])
        .find(|v| v.is_object())
        .unwrap_or(first);
    let task = inner["kind"] == "task" || first["task"].is_object();
    let id = if task { &inner["id"] } else { &inner["taskId"] };
    id.as_str().unwrap().to_string()
}

#[test]
fn every_required_field_removed_from_any_recorded_event_is_a_wire_shape_finding() {
    let streams = streams();
    assert!(streams.len() >= 40, "{} streams", streams.len());
    let mut removals = 0;
    for (i, (name, v03, events)) in streams.iter().enumerate() {
        // A second task after the broken one (another task, on the same
        // wire): judged as when it is read alone.
        let (other_name, _, other) = streams
            .iter()
            .cycle()
            .skip(i + 1)
            .find(|(_, w, e)| w == v03 && task_id(e) != task_id(events))
            .unwrap();
        let other_id = task_id(other);
        let alone = read_capture(&[lines(other).as_bytes()], None).unwrap();
        let other_alone = summary(&alone, &other_id).clone();
        for (at, event) in events.iter().enumerate() {
            let Some((base, object)) = event_of(event, *v03) else {
                continue;
            };
            let mut paths = Vec::new();
            required_paths(get(event, &base), object, *v03, &base, &mut paths);
            for path in paths {
                removals += 1;
                let mut broken = events.clone();
                remove(&mut broken[at], &path);
                let text = lines(&broken) + &lines(other);
                let said = format!("{name}, event {at}, without {path:?}");
                let report = read_capture(&[text.as_bytes()], None)
                    .unwrap_or_else(|e| panic!("{said}: the capture was not read: {e}"));
                assert!(
                    report
                        .findings
                        .iter()
                        .any(|f| f.code == FindingCode::WireShape && f.index == at),
                    "{said}: no wire-shape at event {at}: {:?}",
                    report.findings
                );
                assert_eq!(
                    summary(&report, &other_id),
                    &other_alone,
                    "{said}: {other_name}, read after it, was judged otherwise"
                );
            }
        }
    }
    assert!(removals > 500, "{removals} removals");
}
