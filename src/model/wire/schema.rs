//! The wire's schema (SPEC §13 `wire-shape`): what an event or answer
//! must hold to be read by any client of its wire version, each rule with
//! the section it rests on and what to fix. A2A 1.0 is the ProtoJSON form
//! of `a2a.proto` (REQUIRED fields, enum spellings, timestamps in UTC with
//! `Z`); A2A 0.3 is its JSON schema (`kind` tags, kebab-case states, its
//! `required` lists). A field the schema leaves optional is never a fault
//! when absent.
//!
//! The capture reader runs it on every event, the page's Import included.

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::event::{parse, RawEvent, RawPart, RawStatus};
use super::text::Loose;
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
/// refuse.
pub fn shape_faults(json: &[u8], wire: Wire, shape: Shape) -> Vec<ShapeFault> {
    match parse::<RawEvent>(json) {
        Ok(line) => faults_of(&line, wire, shape),
        Err(_) => Vec::new(),
    }
}

/// The faults of a line already read by the event reader: the schema is
/// held while the event is read once, and only the parts, a status's
/// message and a task's history (kept as their bytes for the event's
/// content id) are read again, as small typed slices.
pub fn faults_of(line: &RawEvent, wire: Wire, shape: Shape) -> Vec<ShapeFault> {
    let obj = line.result.as_deref().unwrap_or(line);
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

/// A message where it is not an event of its own (a status's message, an
/// entry of a task's history), read from its bytes.
#[derive(Deserialize, Default)]
struct NestedMessage<'a> {
    #[serde(default, borrow)]
    kind: Option<Loose<'a>>,
    #[serde(default, rename = "messageId")]
    message_id: Option<IgnoredAny>,
    #[serde(default, borrow)]
    role: Option<Loose<'a>>,
    #[serde(default, borrow)]
    parts: Option<&'a RawValue>,
}

/// What the schema reads of a message, wherever it sits.
struct MessageFields<'r> {
    kind: Option<&'r str>,
    message_id: bool,
    role: Option<&'r str>,
    parts: Option<&'r RawValue>,
}

impl<'r> MessageFields<'r> {
    fn of_event(e: &'r RawEvent) -> Self {
        MessageFields {
            kind: e.kind.as_deref(),
            message_id: e.message_id.is_some(),
            role: e.role.as_ref().map(Loose::text),
            parts: e.parts,
        }
    }

    fn of_message(m: &'r NestedMessage) -> Self {
        MessageFields {
            kind: m.kind.as_ref().map(Loose::text),
            message_id: m.message_id.is_some(),
            role: m.role.as_ref().map(Loose::text),
            parts: m.parts,
        }
    }
}

/// Each entry of a list read from its bytes, handed to `f` as it is read
/// (no list is built: every event's parts pass through here); false when
/// the bytes are no list of such entries.
fn each<'a, T: Deserialize<'a>>(raw: &'a RawValue, f: impl FnMut(T)) -> bool {
    use serde::de::{Deserializer, SeqAccess, Visitor};
    struct Each<F, T>(F, std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>, F: FnMut(T)> Visitor<'de> for Each<F, T> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
            while let Some(entry) = seq.next_element::<T>()? {
                (self.0)(entry);
            }
            Ok(())
        }
    }
    let mut read = serde_json::Deserializer::from_str(raw.get());
    (&mut read)
        .deserialize_seq(Each(f, std::marker::PhantomData))
        .is_ok()
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

/// Whether an event holds a field the schema names (present, not null).
fn event_has(e: &RawEvent, name: &str) -> bool {
    match name {
        "id" => e.id.is_some(),
        "taskId" => e.task_id.is_some(),
        "contextId" => e.context_id.is_some(),
        "final" => e.final_flag.is_some(),
        "messageId" => e.message_id.is_some(),
        _ => false,
    }
}

impl Check {
    fn fault(&mut self, rule: ShapeRule, detail: String) {
        self.faults.push(ShapeFault { rule, detail });
    }

    /// A field the schema requires: a fault when it is absent (or null).
    fn required(&mut self, present: bool, what: &str, name: &str) -> bool {
        if !present {
            self.fault(ShapeRule::Required, format!("{what} has no `{name}`"));
        }
        present
    }

    /// An object's `kind` (0.3) and its plain required fields.
    fn object(
        &mut self,
        kind: Option<&str>,
        has: impl Fn(&str) -> bool,
        object: Object,
        what: &str,
    ) {
        if let (Wire::V0_3, Some(want)) = (self.wire, object.kind()) {
            match kind {
                None => self.fault(ShapeRule::Kind, format!("{what} has no `kind`")),
                Some(kind) if kind != want => self.fault(
                    ShapeRule::Kind,
                    format!("{what} has `kind` `{kind}`, not `{want}`"),
                ),
                Some(_) => {}
            }
        }
        for name in object.required(self.wire) {
            self.required(has(name), what, name);
        }
    }

    fn event_1_0(&mut self, e: &RawEvent) {
        if let Some(task) = e.task.as_deref() {
            self.task(task);
        } else if let Some(update) = e.status_update.as_deref() {
            self.status_update(update);
        } else if let Some(update) = e.artifact_update.as_deref() {
            self.artifact_update(update);
        } else if let Some(message) = e.message() {
            self.message(&MessageFields::of_event(message), "the message");
        }
    }

    fn event_0_3(&mut self, e: &RawEvent) {
        match e.kind.as_deref() {
            Some("task") => self.task(e),
            Some("status-update") => self.status_update(e),
            Some("artifact-update") => self.artifact_update(e),
            Some("message") => self.message(&MessageFields::of_event(e), "the message"),
            Some(other) => self.fault(
                ShapeRule::Kind,
                format!("this event has `kind` `{other}`, none of task, status-update, artifact-update, message"),
            ),
            None => self.fault(ShapeRule::Kind, "this event has no `kind`".into()),
        }
    }

    fn task(&mut self, task: &RawEvent) {
        let what = "the task";
        self.object(
            task.kind.as_deref(),
            |n| event_has(task, n),
            Object::Task,
            what,
        );
        if self.required(task.status.is_some(), what, "status") {
            self.status(task.status.as_ref(), what);
        }
        for artifact in task.artifacts.iter().flatten() {
            let what = "an artifact of the task";
            let has = |_: &str| artifact.artifact_id.is_some();
            self.object(None, has, Object::Artifact, what);
            self.parts(artifact.parts.as_deref(), what);
        }
        if let Some(history) = task.history {
            each(history, |message: NestedMessage| {
                let what = "a message of the task's history";
                self.message(&MessageFields::of_message(&message), what);
            });
        }
    }

    fn status_update(&mut self, update: &RawEvent) {
        let what = "the status update";
        let has = |n: &str| event_has(update, n);
        self.object(update.kind.as_deref(), has, Object::StatusUpdate, what);
        if self.required(update.status.is_some(), what, "status") {
            self.status(update.status.as_ref(), what);
        }
    }

    fn artifact_update(&mut self, update: &RawEvent) {
        let what = "the artifact update";
        let has = |n: &str| event_has(update, n);
        self.object(update.kind.as_deref(), has, Object::ArtifactUpdate, what);
        let Some(artifact) = &update.artifact else {
            self.required(false, what, "artifact");
            return;
        };
        let what = "its artifact";
        let has = |_: &str| artifact.artifact_id.is_some();
        self.object(None, has, Object::Artifact, what);
        self.raw_parts(artifact.parts, what);
    }

    fn status(&mut self, status: Option<&RawStatus>, what: &str) {
        let Some(status) = status else { return };
        let (v10, how) = match self.wire {
            Wire::V1_0 => (true, "TASK_STATE_SUBMITTED, TASK_STATE_WORKING, …"),
            Wire::V0_3 => (false, "submitted, working, …"),
        };
        match status.state.as_ref().map(Loose::text) {
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
        match status.timestamp.as_deref() {
            Some(time) if v10 && !is_utc_z(time) => self.fault(
                ShapeRule::Timestamp,
                format!("{what} has timestamp `{time}`, not UTC with `Z`"),
            ),
            _ => {}
        }
        if let Some(raw) = status.message {
            let message: NestedMessage = serde_json::from_str(raw.get()).unwrap_or_default();
            let what = format!("the status message of {what}");
            self.message(&MessageFields::of_message(&message), &what);
        }
    }

    fn message(&mut self, message: &MessageFields, what: &str) {
        let has = |n: &str| n == "messageId" && message.message_id;
        self.object(message.kind, has, Object::Message, what);
        let roles = match self.wire {
            Wire::V1_0 => ["ROLE_USER", "ROLE_AGENT"],
            Wire::V0_3 => ["user", "agent"],
        };
        match message.role {
            None => self.fault(ShapeRule::Required, format!("{what} has no `role`")),
            Some(role) if !roles.contains(&role) => self.fault(
                ShapeRule::RoleSpelling,
                format!("{what} has role `{role}`, not {} or {}", roles[0], roles[1]),
            ),
            Some(_) => {}
        }
        self.raw_parts(message.parts, what);
    }

    /// A list of parts as sent: each read and checked as it is met.
    fn raw_parts(&mut self, parts: Option<&RawValue>, what: &str) {
        let Some(raw) = parts else {
            self.required(false, what, "parts");
            return;
        };
        let mut count = 0;
        each(raw, |part: RawPart| {
            count += 1;
            self.part(&part, what);
        });
        self.no_parts(count, what);
    }

    /// 1.0 marks `parts` REQUIRED, so it needs an entry (§5.7); 0.3's
    /// schema requires only the field.
    fn no_parts(&mut self, count: usize, what: &str) {
        if count == 0 && self.wire == Wire::V1_0 {
            self.fault(ShapeRule::EmptyList, format!("{what} has no parts"));
        }
    }

    /// A list of parts: required, with an entry on 1.0, each part whole.
    fn parts(&mut self, parts: Option<&[RawPart]>, what: &str) {
        if !self.required(parts.is_some(), what, "parts") {
            return;
        }
        let parts = parts.unwrap_or_default();
        for part in parts {
            self.part(part, what);
        }
        self.no_parts(parts.len(), what);
    }

    /// A part's content: 1.0, exactly one of text, raw, url, data; 0.3, the
    /// field its `kind` names.
    fn part(&mut self, part: &RawPart, what: &str) {
        let (rule, detail) = match (self.wire, part.kind.as_ref().map(Loose::text)) {
            (Wire::V1_0, _) => {
                let contents = [&part.text, &part.raw, &part.url, &part.data]
                    .into_iter()
                    .filter(|c| c.is_some())
                    .count();
                if contents == 1 {
                    return;
                }
                let how = format!("carries {contents} of text, raw, url, data");
                (ShapeRule::PartContent, how)
            }
            (Wire::V0_3, Some(kind @ ("text" | "file" | "data"))) => {
                let content = match kind {
                    "text" => &part.text,
                    "file" => &part.file,
                    _ => &part.data,
                };
                if content.is_some() {
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
