//! The wire's schema (SPEC §13 `wire-shape`): what an event or answer
//! must hold to be read by any client of its wire version, each rule with
//! the section it rests on and what to fix. A2A 1.0 is the ProtoJSON form
//! of `a2a.proto` (REQUIRED fields, enum spellings, timestamps in UTC with
//! `Z`); A2A 0.3 is its JSON schema (`kind` tags, kebab-case states, its
//! `required` lists). A field the schema leaves optional is never a fault
//! when absent.
//!
//! The capture reader runs it on every event, the page's Import included.

use serde_json::Value;

use super::Wire;
use crate::model::state::TaskState;

/// A rule of a wire version's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeRule {
    /// A field the schema requires is absent (or null).
    Required,
    /// A list the schema requires holds no entry (1.0: a REQUIRED repeated
    /// field).
    EmptyList,
    /// A task state not spelled as the wire spells the eight.
    StateSpelling,
    /// A message role not spelled as the wire spells it.
    RoleSpelling,
    /// A timestamp that is not ISO 8601 in UTC with `Z` (1.0).
    Timestamp,
    /// A 0.3 object without its `kind`, or with another one.
    Kind,
    /// A part that carries no content, or more than one.
    PartContent,
}

impl ShapeRule {
    /// The section of the wire version's specification the rule rests on.
    pub fn cites(self, wire: Wire) -> &'static str {
        match (wire, self) {
            (Wire::V1_0, ShapeRule::Required | ShapeRule::EmptyList) => {
                "A2A 1.0 §5.7 (a2a.proto REQUIRED fields)"
            }
            (Wire::V1_0, ShapeRule::StateSpelling) => "A2A 1.0 §4.1.3 (TaskState)",
            (Wire::V1_0, ShapeRule::RoleSpelling) => "A2A 1.0 §4.1.5 (Role)",
            (Wire::V1_0, ShapeRule::Timestamp) => "A2A 1.0 §5.6.1 (Timestamps)",
            (Wire::V1_0, ShapeRule::Kind) => "A2A 1.0 §3.2.3 (Stream Response)",
            (Wire::V1_0, ShapeRule::PartContent) => "A2A 1.0 §4.1.6 (Part)",
            (Wire::V0_3, ShapeRule::Required | ShapeRule::EmptyList) => {
                "A2A 0.3 §6 (the JSON schema's required fields)"
            }
            (Wire::V0_3, ShapeRule::StateSpelling) => "A2A 0.3 §6.3 (TaskState)",
            (Wire::V0_3, ShapeRule::RoleSpelling) => "A2A 0.3 §6.4 (Message)",
            (Wire::V0_3, ShapeRule::Timestamp) => "A2A 0.3 §6.2 (TaskStatus)",
            (Wire::V0_3, ShapeRule::Kind) => "A2A 0.3 §7.2.1 (kind)",
            (Wire::V0_3, ShapeRule::PartContent) => "A2A 0.3 §6.5 (Part)",
        }
    }

    /// What to fix, in a sentence.
    pub fn fix(self) -> &'static str {
        match self {
            ShapeRule::Required => "send every field the schema requires",
            ShapeRule::EmptyList => "give every required list at least one entry",
            ShapeRule::StateSpelling => "spell task states as the wire version does",
            ShapeRule::RoleSpelling => "spell message roles as the wire version does",
            ShapeRule::Timestamp => {
                "write timestamps in UTC with a `Z` (e.g. 2026-11-02T10:00:00.000Z)"
            }
            ShapeRule::Kind => "tag every 0.3 object with its `kind`",
            ShapeRule::PartContent => "give every part exactly one content",
        }
    }
}

/// One fault of an event against its wire's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeFault {
    /// The rule broken.
    pub rule: ShapeRule,
    /// What is wrong, in words a person reads ("this event has no `kind`").
    pub detail: String,
}

/// What an answer is, and so which schema object it must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A stream event (1.0: a StreamResponse wrapper; 0.3: a `kind`-tagged
    /// object).
    Event,
    /// A Task, as GetTask and CancelTask answer it (1.0: bare, no wrapper).
    Task,
}

/// The faults of one event or answer (a JSON-RPC response's result, or
/// the bare event) against `wire`'s schema, in the order met. JSON that
/// does not parse has none here: reading it is the event reader's to
/// refuse. The JSON is walked as a `Value`, whose reader the page already
/// carries, so the schema costs its bundle only the rules.
pub fn shape_faults(json: &[u8], wire: Wire, shape: Shape) -> Vec<ShapeFault> {
    // From text, as the page's other readers parse: one instance of the
    // JSON reader in its bundle.
    let Some(value) = std::str::from_utf8(json)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
    else {
        return Vec::new();
    };
    let obj = value.get("result").unwrap_or(&value);
    let mut check = Check {
        wire,
        faults: Vec::new(),
    };
    match (wire, shape) {
        (_, Shape::Task) => check.task(obj),
        (Wire::V1_0, Shape::Event) => check.event_1_0(obj),
        (Wire::V0_3, Shape::Event) => check.event_0_3(obj),
    }
    check.faults
}

struct Check {
    wire: Wire,
    faults: Vec<ShapeFault>,
}

/// A field, when present and not null.
fn field<'v>(obj: &'v Value, name: &str) -> Option<&'v Value> {
    obj.get(name).filter(|v| !v.is_null())
}

/// A text field's text (empty when it is not text).
fn text<'v>(obj: &'v Value, name: &str) -> Option<&'v str> {
    field(obj, name).map(|v| v.as_str().unwrap_or_default())
}

/// What each object of the schema is, for the rules that differ by it.
#[derive(Clone, Copy, PartialEq)]
enum Object {
    Task,
    StatusUpdate,
    ArtifactUpdate,
    Message,
    Artifact,
}

impl Object {
    /// Its 0.3 `kind` (an artifact has none).
    fn kind(self) -> Option<&'static str> {
        match self {
            Object::Task => Some("task"),
            Object::StatusUpdate => Some("status-update"),
            Object::ArtifactUpdate => Some("artifact-update"),
            Object::Message => Some("message"),
            Object::Artifact => None,
        }
    }

    /// The fields the wire requires of it (a2a.proto REQUIRED; 0.3's JSON
    /// schema `required`), but the status, parts and role, which are
    /// checked with what they hold.
    fn required(self, wire: Wire) -> &'static [&'static str] {
        match (self, wire) {
            (Object::Task, Wire::V1_0) => &["id"],
            (Object::Task, Wire::V0_3) => &["id", "contextId"],
            (Object::StatusUpdate, Wire::V1_0) => &["taskId", "contextId"],
            (Object::StatusUpdate, Wire::V0_3) => &["taskId", "contextId", "final"],
            (Object::ArtifactUpdate, _) => &["taskId", "contextId"],
            (Object::Message, _) => &["messageId"],
            (Object::Artifact, _) => &["artifactId"],
        }
    }
}

impl Check {
    fn fault(&mut self, rule: ShapeRule, detail: String) {
        self.faults.push(ShapeFault { rule, detail });
    }

    /// A field the schema requires: present and not null.
    fn required<'v>(&mut self, obj: &'v Value, what: &str, name: &str) -> Option<&'v Value> {
        let found = field(obj, name);
        if found.is_none() {
            self.fault(ShapeRule::Required, format!("{what} has no `{name}`"));
        }
        found
    }

    /// An object's `kind` (0.3) and its plain required fields.
    fn object(&mut self, obj: &Value, object: Object, what: &str) {
        if let (Wire::V0_3, Some(want)) = (self.wire, object.kind()) {
            match text(obj, "kind") {
                None => self.fault(ShapeRule::Kind, format!("{what} has no `kind`")),
                Some(kind) if kind != want => self.fault(
                    ShapeRule::Kind,
                    format!("{what} has `kind` `{kind}`, not `{want}`"),
                ),
                Some(_) => {}
            }
        }
        for name in object.required(self.wire) {
            self.required(obj, what, name);
        }
    }

    fn event_1_0(&mut self, obj: &Value) {
        if let Some(task) = field(obj, "task") {
            self.task(task);
        } else if let Some(update) = field(obj, "statusUpdate") {
            self.status_update(update);
        } else if let Some(update) = field(obj, "artifactUpdate") {
            self.artifact_update(update);
        } else if let Some(message) = field(obj, "message") {
            self.message(message, "the message");
        }
    }

    fn event_0_3(&mut self, obj: &Value) {
        match text(obj, "kind") {
            Some("task") => self.task(obj),
            Some("status-update") => self.status_update(obj),
            Some("artifact-update") => self.artifact_update(obj),
            Some("message") => self.message(obj, "the message"),
            Some(other) => self.fault(
                ShapeRule::Kind,
                format!("this event has `kind` `{other}`, none of task, status-update, artifact-update, message"),
            ),
            None => self.fault(ShapeRule::Kind, "this event has no `kind`".into()),
        }
    }

    fn task(&mut self, task: &Value) {
        let what = "the task";
        self.object(task, Object::Task, what);
        if let Some(status) = self.required(task, what, "status") {
            self.status(status, what);
        }
        for artifact in list(task, "artifacts") {
            self.artifact(artifact, "an artifact of the task");
        }
        for message in list(task, "history") {
            self.message(message, "a message of the task's history");
        }
    }

    fn status_update(&mut self, update: &Value) {
        let what = "the status update";
        self.object(update, Object::StatusUpdate, what);
        if let Some(status) = self.required(update, what, "status") {
            self.status(status, what);
        }
    }

    fn artifact_update(&mut self, update: &Value) {
        let what = "the artifact update";
        self.object(update, Object::ArtifactUpdate, what);
        if let Some(artifact) = self.required(update, what, "artifact") {
            self.artifact(artifact, "its artifact");
        }
    }

    fn status(&mut self, status: &Value, what: &str) {
        let (v10, how) = match self.wire {
            Wire::V1_0 => (true, "TASK_STATE_SUBMITTED, TASK_STATE_WORKING, …"),
            Wire::V0_3 => (false, "submitted, working, …"),
        };
        match text(status, "state") {
            None => self.fault(
                ShapeRule::Required,
                format!("the status of {what} has no `state`"),
            ),
            // 0.3 also has `unknown`.
            Some(state)
                if (v10 && TaskState::from_wire(state).is_none())
                    || (!v10 && TaskState::from_kebab(state).is_none() && state != "unknown") =>
            {
                self.fault(
                    ShapeRule::StateSpelling,
                    format!("{what} has state `{state}`, not one of {how}"),
                );
            }
            Some(_) => {}
        }
        match text(status, "timestamp") {
            Some(time) if v10 && !is_utc_z(time) => self.fault(
                ShapeRule::Timestamp,
                format!("{what} has timestamp `{time}`, not UTC with `Z`"),
            ),
            _ => {}
        }
        if let Some(message) = field(status, "message") {
            self.message(message, &format!("the status message of {what}"));
        }
    }

    fn message(&mut self, message: &Value, what: &str) {
        self.object(message, Object::Message, what);
        let roles = match self.wire {
            Wire::V1_0 => ["ROLE_USER", "ROLE_AGENT"],
            Wire::V0_3 => ["user", "agent"],
        };
        match text(message, "role") {
            None => self.fault(ShapeRule::Required, format!("{what} has no `role`")),
            Some(role) if !roles.contains(&role) => self.fault(
                ShapeRule::RoleSpelling,
                format!("{what} has role `{role}`, not {} or {}", roles[0], roles[1]),
            ),
            Some(_) => {}
        }
        self.parts(message, what);
    }

    fn artifact(&mut self, artifact: &Value, what: &str) {
        self.object(artifact, Object::Artifact, what);
        self.parts(artifact, what);
    }

    fn parts(&mut self, obj: &Value, what: &str) {
        let Some(parts) = self.required(obj, what, "parts") else {
            return;
        };
        let parts = parts.as_array().map(Vec::as_slice).unwrap_or_default();
        // 1.0 marks `parts` REQUIRED, so it needs an entry (§5.7); 0.3's
        // schema requires only the field.
        if parts.is_empty() && self.wire == Wire::V1_0 {
            self.fault(ShapeRule::EmptyList, format!("{what} has no parts"));
        }
        for part in parts {
            self.part(part, what);
        }
    }

    /// A part's content: 1.0, exactly one of text, raw, url, data; 0.3, the
    /// field its `kind` names.
    fn part(&mut self, part: &Value, what: &str) {
        let (rule, detail) = match (self.wire, text(part, "kind")) {
            (Wire::V1_0, _) => {
                let contents = ["text", "raw", "url", "data"]
                    .into_iter()
                    .filter(|c| field(part, c).is_some())
                    .count();
                if contents == 1 {
                    return;
                }
                let how = format!("carries {contents} of text, raw, url, data");
                (ShapeRule::PartContent, how)
            }
            (Wire::V0_3, Some(kind @ ("text" | "file" | "data"))) => {
                if field(part, kind).is_some() {
                    return;
                }
                (
                    ShapeRule::PartContent,
                    format!("of kind {kind} has no `{kind}`"),
                )
            }
            (Wire::V0_3, Some(other)) => (
                ShapeRule::Kind,
                format!("has `kind` `{other}`, not text, file or data"),
            ),
            (Wire::V0_3, None) => (ShapeRule::Kind, "has no `kind`".to_string()),
        };
        self.fault(rule, format!("a part of {what} {detail}"));
    }
}

/// The entries of a list field (none when absent or not a list).
fn list<'v>(obj: &'v Value, name: &str) -> &'v [Value] {
    field(obj, name)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// ISO 8601 date and time in UTC with `Z` (A2A 1.0 §5.6.1):
/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
pub fn is_utc_z(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range)
            .is_some_and(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
    };
    let fixed = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !fixed || !matches!(b[b.len() - 1], b'Z' | b'z') {
        return false;
    }
    match &b[19..b.len() - 1] {
        [] => true,
        [b'.', rest @ ..] => !rest.is_empty() && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(json: &str, wire: Wire) -> Vec<ShapeRule> {
        shape_faults(json.as_bytes(), wire, Shape::Event)
            .into_iter()
            .map(|f| f.rule)
            .collect()
    }

    #[test]
    fn utc_with_z_only() {
        assert!(is_utc_z("2026-11-02T10:00:00.000Z"));
        assert!(is_utc_z("2026-11-02T10:00:00Z"));
        assert!(is_utc_z("2026-11-02T10:00:00.123456Z"));
        assert!(!is_utc_z("2026-11-02T10:00:00.123456"));
        assert!(!is_utc_z("2026-11-02T10:00:00+00:00"));
        assert!(!is_utc_z("2026-11-02 10:00:00Z"));
        assert!(!is_utc_z("2026-11-02T10:00:00.Z"));
    }

    #[test]
    fn a_clean_1_0_stream_event_has_no_fault() {
        let event = r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-02T10:00:00.000Z","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"Looking up"}]}}}}"#;
        assert_eq!(rules(event, Wire::V1_0), []);
    }

    #[test]
    fn each_1_0_rule_is_found_with_its_section() {
        let naive = r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-02T10:00:00.123456"}}}"#;
        assert_eq!(rules(naive, Wire::V1_0), [ShapeRule::Timestamp]);
        assert_eq!(
            ShapeRule::Timestamp.cites(Wire::V1_0),
            "A2A 1.0 §5.6.1 (Timestamps)"
        );
        let thin = r#"{"artifactUpdate":{"taskId":"t","artifact":{"parts":[]}}}"#;
        assert_eq!(
            rules(thin, Wire::V1_0),
            [
                ShapeRule::Required,
                ShapeRule::Required,
                ShapeRule::EmptyList
            ]
        );
        let role = r#"{"message":{"messageId":"m","role":"agent","parts":[{"text":"x"}]}}"#;
        assert_eq!(rules(role, Wire::V1_0), [ShapeRule::RoleSpelling]);
        let state = r#"{"task":{"id":"t","status":{"state":"working"}}}"#;
        assert_eq!(rules(state, Wire::V1_0), [ShapeRule::StateSpelling]);
    }

    #[test]
    fn a_0_3_event_is_held_to_the_0_3_schema() {
        let clean = r#"{"kind":"status-update","taskId":"t","contextId":"c","final":false,"status":{"state":"working","timestamp":"2026-11-02T10:00:00.123456"}}"#;
        assert_eq!(rules(clean, Wire::V0_3), []);
        let no_final =
            r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"}}"#;
        assert_eq!(rules(no_final, Wire::V0_3), [ShapeRule::Required]);
        let part = r#"{"kind":"message","messageId":"m","role":"agent","parts":[{"text":"x"}]}"#;
        let faults = shape_faults(part.as_bytes(), Wire::V0_3, Shape::Event);
        assert_eq!(faults[0].detail, "a part of the message has no `kind`");
        // An empty list is allowed where 0.3 requires only the field.
        let empty = r#"{"kind":"message","messageId":"m","role":"agent","parts":[]}"#;
        assert_eq!(rules(empty, Wire::V0_3), []);
    }

    #[test]
    fn a_task_answer_is_held_to_the_task_object() {
        let task = r#"{"id":"t","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"x"}]}]}"#;
        assert!(shape_faults(task.as_bytes(), Wire::V1_0, Shape::Task).is_empty());
        let bad = r#"{"status":{"state":"TASK_STATE_COMPLETED"}}"#;
        let faults = shape_faults(bad.as_bytes(), Wire::V1_0, Shape::Task);
        assert_eq!(faults[0].detail, "the task has no `id`");
    }
}
