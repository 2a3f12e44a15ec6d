//! The probe's recorded runs of the real agents
//! (`tests/fixtures/probe/records/`, recorded by
//! `tests/agents/record-probe.sh`) and their findings, as the judge's, the
//! gate's and the live probe's tests read them.

use std::path::Path;

use a2a_lab::model::evidence::probe::judge::Judged;
use a2a_lab::model::evidence::probe::records::ProbeRecords;
use a2a_lab::model::evidence::probe::report::Probe;

/// The records of a run kept in `path`; one that is missing or does not
/// read back fails the test, naming it.
pub fn read_records(path: &Path) -> ProbeRecords {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The recorded run `name` (`python-1.0-late-artifact`).
pub fn records(name: &str) -> ProbeRecords {
    read_records(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/probe/records")
            .join(format!("{name}.json")),
    )
}

/// `probe:code` for every finding of the judged probes, in order.
pub fn found(judged: &[(Probe, Judged)]) -> Vec<String> {
    judged
        .iter()
        .flat_map(|(probe, j)| {
            j.found
                .iter()
                .map(move |(code, _)| format!("{probe}:{code}"))
        })
        .collect()
}
