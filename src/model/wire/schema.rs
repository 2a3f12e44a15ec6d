//! The wire's schema (SPEC §13 `wire-shape`): what an event or answer
//! must hold to be read by any client of its wire version, each rule with
//! the section it rests on and what to fix. A2A 1.0 is the ProtoJSON form
//! of `a2a.proto` (REQUIRED fields, enum spellings, timestamps in UTC with
//! `Z`); A2A 0.3 is its JSON schema (`kind` tags, kebab-case states, its
//! `required` lists). A field the schema leaves optional is never a fault
//! when absent.
//!
//! One pass over borrowed fields: the capture reader runs it on every
//! event, so it allocates only for the faults it finds.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

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

/// Every object an A2A event may hold, read with all its fields optional:
/// the rules, not the reader, decide what must be there.
#[derive(Deserialize, Default)]
struct Obj<'a> {
    /// A JSON-RPC response's result: the event itself.
    #[serde(default, borrow)]
    result: Option<Box<Obj<'a>>>,
    #[serde(default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "taskId")]
    task_id: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "contextId")]
    context_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    status: Option<Box<Obj<'a>>>,
    #[serde(default, borrow)]
    state: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    message: Option<Box<Obj<'a>>>,
    #[serde(default, borrow, rename = "messageId")]
    message_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    role: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    parts: Option<Vec<Part<'a>>>,
    #[serde(default, borrow)]
    artifact: Option<Box<Obj<'a>>>,
    #[serde(default, borrow, rename = "artifactId")]
    artifact_id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    artifacts: Option<Vec<Obj<'a>>>,
    #[serde(default, borrow)]
    history: Option<Vec<Obj<'a>>>,
    #[serde(default, rename = "final")]
    last: Option<IgnoredAny>,
    #[serde(default, borrow)]
    task: Option<Box<Obj<'a>>>,
    #[serde(default, borrow, rename = "statusUpdate")]
    status_update: Option<Box<Obj<'a>>>,
    #[serde(default, borrow, rename = "artifactUpdate")]
    artifact_update: Option<Box<Obj<'a>>>,
}

/// A part: its content fields only (1.0 `text`/`raw`/`url`/`data`; 0.3
/// `kind` with `text`/`file`/`data`).
#[derive(Deserialize, Default)]
struct Part<'a> {
    #[serde(default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    text: Option<IgnoredAny>,
    #[serde(default)]
    raw: Option<IgnoredAny>,
    #[serde(default)]
    url: Option<IgnoredAny>,
    #[serde(default)]
    data: Option<IgnoredAny>,
    #[serde(default)]
    file: Option<IgnoredAny>,
}

/// The faults of one event or answer (a JSON-RPC response's result, or
/// the bare event) against `wire`'s schema, in the order met. JSON that
/// does not parse has none here: reading it is the event reader's to
/// refuse.
pub fn shape_faults(json: &[u8], wire: Wire, shape: Shape) -> Vec<ShapeFault> {
    let Ok(mut obj) = serde_json::from_slice::<Obj>(json) else {
        return Vec::new();
    };
    if let Some(result) = obj.result.take() {
        obj = *result;
    }
    let mut check = Check {
        wire,
        faults: Vec::new(),
    };
    match (wire, shape) {
        (_, Shape::Task) => check.task(&obj, "the task"),
        (Wire::V1_0, Shape::Event) => check.event_1_0(&obj),
        (Wire::V0_3, Shape::Event) => check.event_0_3(&obj),
    }
    check.faults
}

struct Check {
    wire: Wire,
    faults: Vec<ShapeFault>,
}

impl Check {
    fn fault(&mut self, rule: ShapeRule, detail: String) {
        self.faults.push(ShapeFault { rule, detail });
    }

    /// A field the schema requires: present and not null.
    fn required<T>(&mut self, field: Option<&T>, what: &str, name: &str) -> bool {
        if field.is_none() {
            self.fault(ShapeRule::Required, format!("{what} has no `{name}`"));
        }
        field.is_some()
    }

    /// A 0.3 object's `kind`, which must be `want`.
    fn kind(&mut self, obj: &Obj, what: &str, want: &str) {
        if self.wire != Wire::V0_3 {
            return;
        }
        match obj.kind.as_deref() {
            None => self.fault(ShapeRule::Kind, format!("{what} has no `kind`")),
            Some(kind) if kind != want => self.fault(
                ShapeRule::Kind,
                format!("{what} has `kind` {kind:?}, not {want:?}"),
            ),
            Some(_) => {}
        }
    }

    fn event_1_0(&mut self, obj: &Obj) {
        if let Some(task) = &obj.task {
            self.task(task, "the task");
        } else if let Some(update) = &obj.status_update {
            self.status_update(update);
        } else if let Some(update) = &obj.artifact_update {
            self.artifact_update(update);
        } else if let Some(message) = &obj.message {
            self.message(message, "the message");
        }
    }

    fn event_0_3(&mut self, obj: &Obj) {
        match obj.kind.as_deref() {
            Some("task") => self.task(obj, "the task"),
            Some("status-update") => self.status_update(obj),
            Some("artifact-update") => self.artifact_update(obj),
            Some("message") => self.message(obj, "the message"),
            Some(other) => self.fault(
                ShapeRule::Kind,
                format!("this event's `kind` {other:?} is none of task, status-update, artifact-update, message"),
            ),
            None => self.fault(ShapeRule::Kind, "this event has no `kind`".into()),
        }
    }

    fn task(&mut self, task: &Obj, what: &str) {
        self.kind(task, what, "task");
        self.required(task.id.as_ref(), what, "id");
        // contextId is REQUIRED on a Task in 0.3's schema, not in a2a.proto.
        if self.wire == Wire::V0_3 {
            self.required(task.context_id.as_ref(), what, "contextId");
        }
        if self.required(task.status.as_ref(), what, "status") {
            if let Some(status) = &task.status {
                self.status(status, what);
            }
        }
        for artifact in task.artifacts.iter().flatten() {
            self.artifact(artifact, "an artifact of the task");
        }
        for message in task.history.iter().flatten() {
            self.message(message, "a message of the task's history");
        }
    }

    fn status_update(&mut self, update: &Obj) {
        let what = "the status update";
        self.kind(update, what, "status-update");
        self.required(update.task_id.as_ref(), what, "taskId");
        self.required(update.context_id.as_ref(), what, "contextId");
        if self.wire == Wire::V0_3 {
            self.required(update.last.as_ref(), what, "final");
        }
        if self.required(update.status.as_ref(), what, "status") {
            if let Some(status) = &update.status {
                self.status(status, what);
            }
        }
    }

    fn artifact_update(&mut self, update: &Obj) {
        let what = "the artifact update";
        self.kind(update, what, "artifact-update");
        self.required(update.task_id.as_ref(), what, "taskId");
        self.required(update.context_id.as_ref(), what, "contextId");
        if self.required(update.artifact.as_ref(), what, "artifact") {
            if let Some(artifact) = &update.artifact {
                self.artifact(artifact, "its artifact");
            }
        }
    }

    fn status(&mut self, status: &Obj, what: &str) {
        match status.state.as_deref() {
            None => self.fault(
                ShapeRule::Required,
                format!("the status of {what} has no `state`"),
            ),
            Some(state) => {
                let known = match self.wire {
                    Wire::V1_0 => TaskState::from_wire(state).is_some(),
                    // 0.3 also has `unknown`.
                    Wire::V0_3 => TaskState::from_kebab(state).is_some() || state == "unknown",
                };
                if !known {
                    let how = match self.wire {
                        Wire::V1_0 => "TASK_STATE_SUBMITTED, TASK_STATE_WORKING, …",
                        Wire::V0_3 => "submitted, working, …",
                    };
                    self.fault(
                        ShapeRule::StateSpelling,
                        format!("{what} has state {state:?}, not one of {how}"),
                    );
                }
            }
        }
        if let (Wire::V1_0, Some(time)) = (self.wire, status.timestamp.as_deref()) {
            if !is_utc_z(time) {
                self.fault(
                    ShapeRule::Timestamp,
                    format!("{what} has timestamp {time:?}, not UTC with `Z`"),
                );
            }
        }
        if let Some(message) = &status.message {
            self.message(message, &format!("the status message of {what}"));
        }
    }

    fn message(&mut self, message: &Obj, what: &str) {
        self.kind(message, what, "message");
        self.required(message.message_id.as_ref(), what, "messageId");
        if let Some(role) = message.role.as_deref() {
            let known = match self.wire {
                Wire::V1_0 => matches!(role, "ROLE_USER" | "ROLE_AGENT"),
                Wire::V0_3 => matches!(role, "user" | "agent"),
            };
            if !known {
                let how = match self.wire {
                    Wire::V1_0 => "ROLE_USER or ROLE_AGENT",
                    Wire::V0_3 => "user or agent",
                };
                self.fault(
                    ShapeRule::RoleSpelling,
                    format!("{what} has role {role:?}, not {how}"),
                );
            }
        } else {
            self.required(None::<&()>, what, "role");
        }
        self.parts(message.parts.as_deref(), what);
    }

    fn artifact(&mut self, artifact: &Obj, what: &str) {
        self.required(artifact.artifact_id.as_ref(), what, "artifactId");
        self.parts(artifact.parts.as_deref(), what);
    }

    fn parts(&mut self, parts: Option<&[Part]>, what: &str) {
        let Some(parts) = parts else {
            self.required(None::<&()>, what, "parts");
            return;
        };
        // 1.0 marks `parts` REQUIRED, so it needs an entry (§5.7); 0.3's
        // schema requires only the field.
        if parts.is_empty() && self.wire == Wire::V1_0 {
            self.fault(ShapeRule::EmptyList, format!("{what} has no parts"));
        }
        for part in parts {
            self.part(part, what);
        }
    }

    fn part(&mut self, part: &Part, what: &str) {
        match self.wire {
            Wire::V1_0 => {
                let contents = [
                    part.text.is_some(),
                    part.raw.is_some(),
                    part.url.is_some(),
                    part.data.is_some(),
                ]
                .into_iter()
                .filter(|c| *c)
                .count();
                if contents != 1 {
                    self.fault(
                        ShapeRule::PartContent,
                        format!("a part of {what} carries {contents} of text, raw, url, data"),
                    );
                }
            }
            Wire::V0_3 => {
                let (field, present) = match part.kind.as_deref() {
                    Some("text") => ("text", part.text.is_some()),
                    Some("file") => ("file", part.file.is_some()),
                    Some("data") => ("data", part.data.is_some()),
                    Some(other) => {
                        let detail = format!(
                            "a part of {what} has `kind` {other:?}, not text, file or data"
                        );
                        self.fault(ShapeRule::Kind, detail);
                        return;
                    }
                    None => {
                        self.fault(ShapeRule::Kind, format!("a part of {what} has no `kind`"));
                        return;
                    }
                };
                if !present {
                    self.fault(
                        ShapeRule::PartContent,
                        format!("a {field} part of {what} has no `{field}`"),
                    );
                }
            }
        }
    }
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
