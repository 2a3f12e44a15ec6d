//! The export of SPEC §5: inputs, metrics, trace and ledger as one JSON
//! document, byte-identical for the same inputs in the browser and the CLI.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ledger::{LedgerPanel, TaskLedger};
use crate::model::sim::profile::Profile;
use crate::model::sim::scenario::Scenario;
use crate::model::sim::simulate;
use crate::model::trace::Run;
use crate::model::trace::{Metrics, Row};

/// The `format` field.
pub const FORMAT: &str = "a2a-lifecycle-lab/trace";
/// The `version` field.
pub const VERSION: u32 = 1;

/// Who wrote the export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generator {
    /// Always `a2a-lifecycle-lab`.
    pub name: String,
    /// The lab's version.
    pub version: String,
    /// Whose behaviour the model follows.
    pub model: String,
}

/// The ledger section: each task's ledger and its operator panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LedgerSection {
    /// Ledger records, one per task.
    pub tasks: Vec<TaskLedger>,
    /// The operator's view of each at the end of the trace.
    pub panels: Vec<LedgerPanel>,
}

/// The whole export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Export {
    /// [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Who wrote it.
    pub generator: Generator,
    /// Every scenario key with its value (SPEC §9's subscriber keys only
    /// when set, so exports made before them keep their bytes).
    pub inputs: Value,
    /// The metrics.
    pub metrics: Metrics,
    /// The rows.
    pub trace: Vec<Row>,
    /// The ledgers.
    pub ledger: LedgerSection,
}

impl Export {
    /// The export of a finished run.
    pub fn of(scenario: &Scenario, run: &Run) -> Export {
        let end = run.trace.rows.last().map_or(0, |r| r.t_ms);
        Export {
            format: FORMAT.into(),
            version: VERSION,
            generator: Generator {
                name: "a2a-lifecycle-lab".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                model: Profile::of(scenario.sdk).name.into(),
            },
            inputs: scenario.to_inputs(),
            metrics: run.trace.metrics.clone(),
            trace: run.trace.rows.clone(),
            ledger: LedgerSection {
                panels: run.ledgers.iter().map(|l| l.panel(end)).collect(),
                tasks: run.ledgers.clone(),
            },
        }
    }

    /// Pretty JSON with a trailing newline: the bytes the page downloads and
    /// the CLI prints.
    pub fn to_json(&self) -> String {
        pretty_json(self)
    }
}

/// Pretty JSON with a trailing newline: how every document the lab prints
/// or downloads is written.
pub fn pretty_json(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Simulates `scenario` and returns its export JSON.
pub fn export_json(scenario: &Scenario) -> String {
    Export::of(scenario, &simulate(scenario)).to_json()
}

/// The largest file the lab reads (import, `check`, `reduce` input).
pub const MAX_FILE_BYTES: usize = 50 * 1024 * 1024;
