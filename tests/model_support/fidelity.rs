//! The fixtures recorded from the real SDKs (`tests/fidelity/fixtures/`),
//! as the fidelity tests load them and hold the model to them: where they
//! are, the scenario the model runs for one, and the parts of a run that
//! the 1.0 and the subscriber fixtures record alike. Each test names the
//! aspect of a run it compares once, as an [`Aspect`]: how a recorded run
//! shows it and how the model's run does, side by side in one impl.

use std::path::{Path, PathBuf};

use a2a_lab::model::trace::Run;

use super::recorded::{
    read_recorded, FixtureIndex, GetTaskSettled, IndexEntry, RecordedRun, Recording,
};

/// One aspect of a run that a fidelity test holds the model to: read off a
/// recorded run of a fixture and off the model's run of the same scenario,
/// so that the two readings sit side by side and cannot drift.
pub trait Aspect: std::fmt::Debug + Sized {
    /// What a recorded run of `scenario` (the fixture's own) shows of it.
    fn recorded(run: &RecordedRun, scenario: &str) -> Self;
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
    fixture
        .recording
        .runs
        .iter()
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

/// A recorded fixture: its file and what it holds.
pub struct Fixture {
    /// Where it is, to name it when it fails a test.
    pub path: PathBuf,
    /// What the recorder wrote, read as typed records.
    pub recording: Recording,
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

    /// The step the recorder's agent took between events.
    pub fn step_ms(&self) -> u64 {
        self.recording.step_ms
    }

    /// False when the recorder marked the scenario as not measurable.
    pub fn measurable(&self) -> bool {
        self.recording.measurable != Some(false)
    }

    /// Whether every run of it gave the same outcome.
    pub fn stable(&self) -> bool {
        self.recording.stable != Some(false)
    }
}

/// The fixture in `path`; one that does not read as a recording fails the
/// test, naming it.
pub fn fixture(path: PathBuf) -> Fixture {
    Fixture {
        recording: read_recorded(&path),
        path,
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
    paths.into_iter().map(fixture).collect()
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
    let index: FixtureIndex = read_recorded(&dir.join("index.json"));
    let not_yet: Vec<&str> = index
        .combinations
        .iter()
        .filter(|e| !modelled_combination(&e.scenario))
        .map(|e| e.file.as_str())
        .collect();
    every(dir)
        .into_iter()
        .filter(|f| !not_yet.contains(&f.file_name().as_str()))
        .collect()
}

/// The combinations `dir/index.json` lists that the model is held to, in
/// its order, each with the scenario the index names it by.
pub fn combinations(dir: &Path) -> Vec<(String, Fixture)> {
    entries(dir, |index| index.combinations)
        .into_iter()
        .filter(|(scenario, _)| modelled_combination(scenario))
        .collect()
}

/// The fixtures `dir/index.json` lists, in its order, each with the
/// scenario the index names it by.
pub fn listed(dir: &Path) -> Vec<(String, Fixture)> {
    entries(dir, |index| index.scenarios)
}

/// The recorders' measurements of the SDKs' own client timeouts in
/// `dir/index.json` (`probes`): a scenario each, with runs like the rest.
pub fn timeout_fixtures(dir: &Path) -> Vec<(String, Fixture)> {
    entries(dir, |index| index.probes)
}

/// The fixtures of one list of `dir/index.json`.
fn entries(dir: &Path, list: fn(FixtureIndex) -> Vec<IndexEntry>) -> Vec<(String, Fixture)> {
    list(read_recorded(&dir.join("index.json")))
        .into_iter()
        .map(|entry| (entry.scenario, fixture(dir.join(entry.file))))
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
    pub fn of_recorded(run: &RecordedRun) -> Settled {
        let get_task = match &run.get_task_settled {
            GetTaskSettled::Said(s) => s.clone(),
            GetTaskSettled::Task(g) => format!("{} with {}", g.state, g.artifacts),
        };
        Settled {
            stream: run.stream.clone(),
            get_task,
            cancel_result: run.cancel_result.clone(),
            orphaned_steps: run
                .orphaned_steps
                .expect("a run that records its orphaned steps"),
            executions: run.executions,
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
