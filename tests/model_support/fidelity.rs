//! The fixtures recorded from the real SDKs (`tests/fidelity/fixtures/`),
//! as the fidelity tests load them and hold the model to them: where they
//! are, the scenario the model runs for one, and the parts of a run that
//! the 1.0 and the subscriber fixtures record alike. Each test names the
//! aspect of a run it compares once, as an [`Aspect`]: how a recorded run
//! shows it and how the model's run does, side by side in one impl.

use std::path::{Path, PathBuf};

use a2a_lab::model::trace::Run;
use serde_json::Value;

/// One aspect of a run that a fidelity test holds the model to: read off a
/// recorded run of a fixture and off the model's run of the same scenario,
/// so that the two readings sit side by side and cannot drift.
pub trait Aspect: std::fmt::Debug + Sized {
    /// What a recorded run of `scenario` (the fixture's own) shows of it.
    fn recorded(run: &Value, scenario: &str) -> Self;
    /// What the model's run of `query` (the fixture's scenario under the
    /// model: [`model_query`]) shows of it.
    fn modelled(query: &str) -> Self;
}

/// Each recorded run of `fixture` held to `model`: a line for each run
/// that `agrees` does not accept, named `{label} run {n}` with both
/// readings.
pub fn runs_against<A: Aspect>(
    label: &str,
    scenario: &str,
    fixture: &Fixture,
    model: &A,
    agrees: impl Fn(&A, &A) -> bool,
) -> Vec<String> {
    let runs = fixture.json["runs"]
        .as_array()
        .expect("a fixture lists its runs");
    runs.iter()
        .enumerate()
        .filter_map(|(n, run)| {
            let want = A::recorded(run, scenario);
            (!agrees(&want, model))
                .then(|| format!("{label} run {n}:\n  recorded {want:?}\n  model    {model:?}"))
        })
        .collect()
}

/// Every SDK's recorded fixtures.
pub fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fidelity/fixtures")
}

/// One SDK's recorded fixtures (`python`, `js`).
pub fn fixture_dir(sdk: &str) -> PathBuf {
    fixtures_root().join(sdk)
}

/// A JSON file of recorded data; one that is missing or does not parse
/// fails the test, naming it.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A recorded fixture: its file and what it holds.
pub struct Fixture {
    pub path: PathBuf,
    pub json: Value,
}

impl Fixture {
    /// The file's name (`cancel-1.json`).
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    /// The file's name without `.json` (`cancel-1`).
    pub fn stem(&self) -> String {
        self.path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    /// The step the recorder's agent took between events; a fixture
    /// without it fails the test.
    pub fn step_ms(&self) -> u64 {
        self.json["step_ms"]
            .as_u64()
            .unwrap_or_else(|| panic!("{}: no step_ms", self.path.display()))
    }

    /// False when the recorder marked the scenario as not measurable.
    pub fn measurable(&self) -> bool {
        self.json["measurable"] != Value::Bool(false)
    }

    /// Whether every run of it gave the same outcome.
    pub fn stable(&self) -> bool {
        self.json["stable"] != Value::Bool(false)
    }
}

/// Every fixture file in `dir` but its index, by file name.
pub fn every(dir: &Path) -> Vec<Fixture> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != "index.json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| Fixture {
            json: read_json(&path),
            path,
        })
        .collect()
}

/// SPEC §14's combinations the model takes so far, each as the keys a
/// measured scenario names and the keys it does not: such a fixture is
/// held to the model like any other.
const MODELLED_COMBINATIONS: &[(&[&str], &[&str])] = &[
    // The shapes of agents on other stacks.
    (&["progress="], &[]),
    (&["result="], &[]),
    // Push across the follow-up turns of an interrupted task.
    (
        &["push=", "interrupt="],
        &["retry=", "restart=", "resubscribe=", "second_client="],
    ),
    // A retried message under a subscription or with a push config.
    (&["retry="], &["interrupt=", "restart="]),
    // A subscription across the follow-up turns of an interrupted task.
    (&["interrupt=", "resubscribe="], &["push="]),
    (&["interrupt=", "second_client="], &["push="]),
    // A webhook at the push sender's timeout.
    (&["push=", "webhook_delay_ms=4995"], &[]),
    (&["push=", "webhook_delay_ms=5005"], &[]),
    // Push under a restart.
    (&["push=", "restart="], &["interrupt="]),
    // Push beside a subscription.
    (&["push=", "resubscribe="], &["interrupt=", "restart="]),
    (&["push=", "second_client="], &["interrupt=", "restart="]),
];

/// Whether the model is held to the combination `scenario` yet.
fn modelled_combination(scenario: &str) -> bool {
    MODELLED_COMBINATIONS.iter().any(|(with, without)| {
        with.iter().all(|key| scenario.contains(key))
            && !without.iter().any(|key| scenario.contains(key))
    })
}

/// The fixtures of `dir` the model is held to: all but the ones the
/// recorders list under `combinations` that the model does not take yet
/// (SPEC §14's combinations, measured and not yet modelled).
pub fn modelled(dir: &Path) -> Vec<Fixture> {
    let index = read_json(&dir.join("index.json"));
    let not_yet: Vec<&str> = index["combinations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| !e["scenario"].as_str().is_some_and(modelled_combination))
        .filter_map(|e| e["file"].as_str())
        .collect();
    every(dir)
        .into_iter()
        .filter(|f| !not_yet.contains(&f.file_name().as_str()))
        .collect()
}

/// The combinations `dir/index.json` lists that the model is held to, in
/// its order, each with the scenario the index names it by.
pub fn combinations(dir: &Path) -> Vec<(String, Fixture)> {
    entries(dir, "combinations")
        .into_iter()
        .filter(|(scenario, _)| modelled_combination(scenario))
        .collect()
}

/// The fixtures `dir/index.json` lists, in its order, each with the
/// scenario the index names it by.
pub fn listed(dir: &Path) -> Vec<(String, Fixture)> {
    entries(dir, "scenarios")
}

/// The recorders' measurements of the SDKs' own client timeouts in
/// `dir/index.json` (`probes`): a scenario each, with runs like the rest.
pub fn timeout_fixtures(dir: &Path) -> Vec<(String, Fixture)> {
    entries(dir, "probes")
}

/// The fixtures of one list of `dir/index.json`.
fn entries(dir: &Path, list: &str) -> Vec<(String, Fixture)> {
    let index = read_json(&dir.join("index.json"));
    index[list]
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| {
            let path = dir.join(entry["file"].as_str().unwrap());
            let scenario = entry["scenario"].as_str().unwrap().to_string();
            (
                scenario,
                Fixture {
                    json: read_json(&path),
                    path,
                },
            )
        })
        .collect()
}

/// The query the model runs a recorded scenario under: the recorded keys
/// (`defaults` is none), the SDK's profile, and the recorder's step when
/// the comparison times events.
pub fn model_query(recorded: &str, sdk: &str, step_ms: Option<u64>) -> String {
    let mut keys = Vec::new();
    if !recorded.is_empty() && recorded != "defaults" {
        keys.push(recorded.to_string());
    }
    keys.push(format!("sdk={sdk}"));
    if let Some(step) = step_ms {
        keys.push(format!("step_ms={step}"));
    }
    keys.join("&")
}

/// A value as the export spells it (`timed_out`, `not_cancelable`), the
/// spelling the recorders write.
pub fn spelled<T: serde::Serialize>(value: &T) -> Option<String> {
    serde_json::to_value(value).ok()?.as_str().map(String::from)
}

/// How a run settled, as the 1.0 and the subscriber fixtures both record
/// it and as both tests compare it with the model: how client 1's last
/// stream ended, GetTask once the task settled (`STATE with N` artifacts,
/// or `lost`), the cancel result, the orphaned steps and the executions.
#[derive(Debug, PartialEq)]
pub struct Settled {
    pub stream: Option<String>,
    pub get_task: String,
    pub cancel_result: Option<String>,
    pub orphaned_steps: u64,
    pub executions: u64,
}

impl Settled {
    /// What the recorder wrote for one run of a fixture.
    pub fn of_recorded(run: &Value) -> Settled {
        let get_task = match &run["get_task_settled"] {
            Value::String(s) => s.clone(),
            g => format!("{} with {}", g["state"].as_str().unwrap(), g["artifacts"]),
        };
        Settled {
            stream: run["stream"].as_str().map(String::from),
            get_task,
            cancel_result: run["cancel_result"].as_str().map(String::from),
            orphaned_steps: run["orphaned_steps"].as_u64().unwrap(),
            executions: run["executions"].as_u64().unwrap(),
        }
    }

    /// What the model's run of the same scenario says.
    pub fn of_model(run: &Run) -> Settled {
        let m = &run.trace.metrics;
        let get_task = match (&m.final_state, m.get_task_artifacts) {
            (Some(state), Some(n)) => format!("{} with {n}", state.wire()),
            _ => "lost".to_string(),
        };
        Settled {
            stream: spelled(&m.stream),
            get_task,
            cancel_result: spelled(&m.cancel_result),
            orphaned_steps: u64::from(m.orphaned_steps),
            executions: u64::from(m.executions),
        }
    }
}
