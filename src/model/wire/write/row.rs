//! A row's wire JSON. The simulator keeps each event as what it is made of
//! (task, state, time, artifacts) and writes its JSON only when something
//! asks for it: an export, a comparison, a test. The page's first view
//! shows rows but never their JSON, so neither the writers nor a JSON tree
//! per row are on its path (issue 45). A row read back from a file keeps
//! the JSON it was read with.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};

use super::v03::to_v03;
use super::v10::{self, Chunk, StoredArtifact};
use crate::model::state::TaskState;
use crate::model::wire::Wire;

/// Whose task an event names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskRef {
    /// The n-th task a scenario creates ([`v10::task_id`]).
    Nth(usize),
    /// A preset's task, by id, in the context `ctx-{id}`.
    Named(&'static str),
}

/// An A2A 1.0 event the simulated agent sends, as what it is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimEvent {
    /// `{"task": …}` as the executor first enqueues task `n`.
    Submitted(usize),
    /// `{"task": …}` for task `n` as stored ([`v10::task_snapshot`]).
    Snapshot {
        /// Which task.
        task: usize,
        /// Its state.
        state: TaskState,
        /// Virtual time of its status.
        t_ms: u64,
        /// Its artifacts.
        artifacts: Vec<StoredArtifact>,
    },
    /// `{"statusUpdate": …}`, with the agent's progress message (its id and
    /// text) where it reports progress.
    Status {
        /// Whose.
        task: TaskRef,
        /// The state it tells.
        state: TaskState,
        /// Virtual time.
        t_ms: u64,
        /// The progress message's id and text.
        progress: Option<(String, String)>,
    },
    /// `{"artifactUpdate": …}` for one chunk.
    Artifact {
        /// Whose.
        task: TaskRef,
        /// The chunk.
        chunk: Chunk,
    },
}

impl SimEvent {
    /// The event's A2A 1.0 JSON.
    pub fn json(&self) -> Value {
        match self {
            SimEvent::Submitted(n) => v10::task_submitted(*n),
            SimEvent::Snapshot {
                task,
                state,
                t_ms,
                artifacts,
            } => v10::task_snapshot(*task, *state, *t_ms, artifacts),
            SimEvent::Status {
                task,
                state,
                t_ms,
                progress,
            } => {
                let n = task.nth();
                let v = match progress {
                    Some((id, text)) => v10::progress_update(n, *state, *t_ms, id, text),
                    None => v10::status_update(n, *state, *t_ms),
                };
                retarget(v, "statusUpdate", task)
            }
            SimEvent::Artifact { task, chunk } => retarget(
                v10::artifact_update(task.nth(), chunk),
                "artifactUpdate",
                task,
            ),
        }
    }

    /// Its kind as the wire `on` names it: the 1.0 event's one key, or the
    /// 0.3 event's `kind`.
    pub fn kind(&self, on: Wire) -> &'static str {
        match (self, on) {
            (SimEvent::Submitted(_) | SimEvent::Snapshot { .. }, _) => "task",
            (SimEvent::Status { .. }, Wire::V1_0) => "statusUpdate",
            (SimEvent::Status { .. }, Wire::V0_3) => "status-update",
            (SimEvent::Artifact { .. }, Wire::V1_0) => "artifactUpdate",
            (SimEvent::Artifact { .. }, Wire::V0_3) => "artifact-update",
        }
    }
}

impl TaskRef {
    /// The task the writers are asked for; a named task is written as the
    /// first and then renamed.
    fn nth(&self) -> usize {
        match self {
            TaskRef::Nth(n) => *n,
            TaskRef::Named(_) => 0,
        }
    }
}

/// Points a written event at a preset's own task and context.
fn retarget(mut v: Value, key: &str, task: &TaskRef) -> Value {
    if let TaskRef::Named(id) = task {
        if let Some(inner) = v.get_mut(key).and_then(Value::as_object_mut) {
            inner.insert("taskId".into(), json!(id));
            inner.insert("contextId".into(), json!(format!("ctx-{id}")));
        }
    }
    v
}

/// What a row carries of the wire (SPEC §4's `wire` column).
#[derive(Debug, Clone)]
pub enum RowWire {
    /// An event the simulator sent, written on `on`: the 0.3 wire has
    /// the 1.0 event translated ([`to_v03`]).
    Sim {
        /// The event.
        event: SimEvent,
        /// The wire it is written on.
        on: Wire,
    },
    /// JSON as read back from a file.
    Json(Value),
}

impl RowWire {
    /// An event the simulator sent, on the 1.0 wire.
    pub fn sim(event: SimEvent) -> RowWire {
        RowWire::Sim {
            event,
            on: Wire::V1_0,
        }
    }

    /// The JSON the row carries.
    pub fn json(&self) -> Cow<'_, Value> {
        match self {
            RowWire::Sim { event, on } => Cow::Owned(match on {
                Wire::V1_0 => event.json(),
                Wire::V0_3 => to_v03(&event.json()),
            }),
            RowWire::Json(v) => Cow::Borrowed(v),
        }
    }

    /// The same event written on the 0.3 wire. JSON read back stays as
    /// it was read: it already is on its wire.
    pub fn on_v03(self) -> RowWire {
        match self {
            RowWire::Sim { event, .. } => RowWire::Sim {
                event,
                on: Wire::V0_3,
            },
            read @ RowWire::Json(_) => read,
        }
    }

    /// How many artifact parts a task it carries holds (0 for any other
    /// event).
    pub fn task_parts(&self) -> usize {
        match self {
            RowWire::Sim {
                event: SimEvent::Snapshot { artifacts, .. },
                ..
            } => artifacts.iter().map(|a| a.parts.len()).sum(),
            RowWire::Sim { .. } => 0,
            RowWire::Json(w) => {
                let task = w.get("task").unwrap_or(w);
                task["artifacts"].as_array().map_or(0, |a| {
                    a.iter()
                        .map(|x| x["parts"].as_array().map_or(0, Vec::len))
                        .sum()
                })
            }
        }
    }
}

impl PartialEq for RowWire {
    /// Equal when they write the same JSON.
    fn eq(&self, other: &RowWire) -> bool {
        match (self, other) {
            (RowWire::Sim { event: a, on: x }, RowWire::Sim { event: b, on: y }) => {
                (a, x) == (b, y)
            }
            (RowWire::Json(a), RowWire::Json(b)) => a == b,
            _ => self.json() == other.json(),
        }
    }
}

impl Serialize for RowWire {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for RowWire {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RowWire, D::Error> {
        Value::deserialize(d).map(RowWire::Json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk() -> Chunk {
        Chunk {
            artifact_id: "a".into(),
            name: "a".into(),
            parts: vec!["x".into()],
            append: false,
            last_chunk: true,
        }
    }

    #[test]
    fn a_named_task_is_written_under_its_own_ids() {
        let v = SimEvent::Artifact {
            task: TaskRef::Named("T-42"),
            chunk: chunk(),
        }
        .json();
        assert_eq!(v["artifactUpdate"]["taskId"], "T-42");
        assert_eq!(v["artifactUpdate"]["contextId"], "ctx-T-42");
        let first = SimEvent::Artifact {
            task: TaskRef::Nth(0),
            chunk: chunk(),
        }
        .json();
        assert_eq!(first["artifactUpdate"]["taskId"], v10::TASK_ID);
    }

    #[test]
    fn a_sim_row_and_its_json_read_back_are_equal() {
        let sim = RowWire::sim(SimEvent::Status {
            task: TaskRef::Nth(1),
            state: TaskState::Completed,
            t_ms: 40,
            progress: None,
        })
        .on_v03();
        let text = serde_json::to_string(&sim).expect("writes");
        let back: RowWire = serde_json::from_str(&text).expect("reads");
        assert!(matches!(back, RowWire::Json(_)));
        assert_eq!(back, sim);
        assert_eq!(back.json()["kind"], "status-update");
        assert_eq!(back.json()["final"], true);
        let other = RowWire::sim(SimEvent::Submitted(0));
        assert_ne!(back, other);
    }

    #[test]
    fn the_kind_follows_the_wire() {
        let e = SimEvent::Artifact {
            task: TaskRef::Nth(0),
            chunk: chunk(),
        };
        assert_eq!(e.kind(Wire::V1_0), "artifactUpdate");
        assert_eq!(e.kind(Wire::V0_3), "artifact-update");
        let on03 = RowWire::sim(e).on_v03();
        assert_eq!(on03.json()["kind"], "artifact-update");
    }

    #[test]
    fn task_parts_count_a_snapshot_s_parts_written_or_read() {
        let snap = RowWire::sim(SimEvent::Snapshot {
            task: 0,
            state: TaskState::Working,
            t_ms: 0,
            artifacts: vec![StoredArtifact {
                artifact_id: "a".into(),
                name: "a".into(),
                parts: vec!["1".into(), "2".into()],
            }],
        });
        assert_eq!(snap.task_parts(), 2);
        assert_eq!(RowWire::Json(snap.json().into_owned()).task_parts(), 2);
        let on03 = snap.clone().on_v03();
        assert_eq!(RowWire::Json(on03.json().into_owned()).task_parts(), 2);
        assert_eq!(RowWire::Json(on03.json().into_owned()).on_v03(), on03);
    }
}
