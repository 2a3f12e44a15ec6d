//! The ledger's decisions equal the seed's own runnable reference reducer
//! (seed 000).
//!
//! Always: the ledger is held to `tests/fixtures/seed_reducer.jsonl`, the
//! reference reducer's answers on 3,000 random sequences, which
//! `scripts/seed-fixture.mjs` regenerates from the seed. When the seed is
//! beside the repository (`../shared/seeds/000_*.txt`), the reference
//! reducer also runs live, by node, on sequences the fixture does not hold,
//! and the script must reproduce the committed fixture byte for byte. In a
//! clone with nothing beside it the live part says so once and passes.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use a2a_lab::model::evidence::seed_form::{reduce, SeedEvent, SeedOutcome};
use a2a_lab::model::state::TaskState;
use serde::Deserialize;

const FIXTURE: &str = "tests/fixtures/seed_reducer.jsonl";

/// One fixture line: a sequence and the reference reducer's answer to it.
#[derive(Deserialize)]
struct Case {
    events: Vec<SeedEvent>,
    outcome: SeedOutcome,
}

fn fixture_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fixture_cases() -> Vec<Case> {
    let text = fixture_text();
    let mut lines = text.lines();
    let header: serde_json::Value =
        serde_json::from_str(lines.next().expect("a header line")).unwrap();
    let cases: Vec<Case> = lines
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect();
    assert_eq!(
        header["cases"].as_u64(),
        Some(cases.len() as u64),
        "the header counts the cases"
    );
    cases
}

#[test]
fn ledger_decisions_equal_the_recorded_reference_reducer_decisions() {
    let cases = fixture_cases();
    let mut decided = 0;
    for case in &cases {
        assert_eq!(
            reduce(&case.events),
            case.outcome,
            "sequence {}",
            serde_json::to_string(&case.events).unwrap()
        );
        decided += case.events.len();
    }
    assert!(decided > 20_000, "only {decided} decisions compared");
}

#[test]
fn the_recorded_decisions_cover_every_state_receipts_duplicates_and_terminal_freezes() {
    let cases = fixture_cases();
    for state in TaskState::ALL.map(TaskState::kebab) {
        assert!(
            cases.iter().any(|c| c.outcome.status == state),
            "no sequence ends {state}"
        );
    }
    let reasons = |reason: &str| {
        cases
            .iter()
            .flat_map(|c| &c.outcome.rejected)
            .filter(|r| r.reason == reason)
            .count()
    };
    assert!(reasons("illegal-transition") > 100);
    assert!(reasons("authorization-receipt-required") > 100);
    // A resume out of auth-required that a receipt allowed.
    let resumed = cases.iter().any(|c| {
        c.events.windows(2).any(|w| {
            w[0].status == "auth-required"
                && w[1].status == "working"
                && w[1]
                    .authorization_receipt
                    .as_deref()
                    .is_some_and(|r| !r.is_empty())
                && c.outcome.accepted.contains(&w[0].id)
                && c.outcome.accepted.contains(&w[1].id)
        })
    });
    assert!(
        resumed,
        "no sequence resumes from auth-required with a receipt"
    );
    // Duplicates: an id that came again and was neither accepted nor rejected twice.
    let duplicates: usize = cases
        .iter()
        .map(|c| {
            let decided = c.outcome.accepted.len() + c.outcome.rejected.len();
            c.events.len() - decided
        })
        .sum();
    assert!(duplicates > 1000, "only {duplicates} duplicates");
    // Terminal freezes: a terminal sequence with events rejected after it.
    let frozen = cases
        .iter()
        .filter(|c| TaskState::from_kebab(&c.outcome.status).is_some_and(TaskState::is_terminal))
        .filter(|c| {
            let last = c.outcome.accepted.last();
            let after = c.events.iter().rposition(|e| Some(&e.id) == last);
            after.is_some_and(|at| {
                c.outcome
                    .rejected
                    .iter()
                    .any(|r| c.events[at + 1..].iter().any(|e| e.id == r.id))
            })
        })
        .count();
    assert!(frozen > 100, "only {frozen} terminal freezes");
}

/// The seed file, beside the repository as `../shared/seeds/000_*.txt`.
fn seed_file() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds");
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("000_"))
        })
}

/// The seed file when it is beside the repository; otherwise says once
/// (this test binary's one live test) that the live differential did not run.
fn seed_or_say() -> Option<PathBuf> {
    let found = seed_file();
    if found.is_none() {
        // Straight to stderr, past the test harness's capture, so that a
        // passing run still says what it did not do.
        let _ = writeln!(
            std::io::stderr(),
            "seed_differential: ../shared/seeds/000_*.txt is not beside the repository; \
             the ledger was held to the recorded decisions ({FIXTURE}) only"
        );
    }
    found
}

/// The reference reducer's definitions, cut out of the seed's text.
fn reference_reducer(seed: &str) -> String {
    let start = seed
        .find("const concreteStates=")
        .expect("the seed defines concreteStates");
    let end = seed[start..]
        .find("let resumed=")
        .expect("the seed's proof follows its reducer")
        + start;
    seed[start..end].to_string()
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const STATUSES: [&str; 11] = [
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "failed",
    "canceled",
    "rejected",
    "paused",
    "TASK_STATE_WORKING",
    "working",
];

fn random_sequence(rng: &mut Rng) -> Vec<SeedEvent> {
    let len = rng.below(16) as usize;
    (0..len)
        .map(|_| SeedEvent {
            // A small id pool makes duplicates common.
            id: format!("e{}", rng.below(10)),
            status: STATUSES[rng.below(STATUSES.len() as u64) as usize].to_string(),
            authorization_receipt: match rng.below(4) {
                0 => Some(format!("authz:{}", rng.below(9))),
                1 => Some(String::new()),
                _ => None,
            },
        })
        .collect()
}

#[test]
fn live_ledger_decisions_equal_the_seeds_reference_reducer_when_the_seed_is_beside() {
    let Some(seed_path) = seed_or_say() else {
        return;
    };
    assert!(
        Command::new("node").arg("--version").output().is_ok(),
        "node is not installed: it runs the seed's reference reducer (scripts/install.sh installs it)"
    );

    // The committed fixture is what the seed decides today.
    let regenerated = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/seed-fixture.mjs"))
        .args(["--stdout", "--seed-file"])
        .arg(&seed_path)
        .output()
        .unwrap();
    assert!(
        regenerated.status.success(),
        "scripts/seed-fixture.mjs failed: {}",
        String::from_utf8_lossy(&regenerated.stderr)
    );
    assert!(
        regenerated.stdout == fixture_text().as_bytes(),
        "{FIXTURE} differs from what the seed decides: run node scripts/seed-fixture.mjs"
    );

    // Fresh sequences, from another generator seed than the fixture's.
    let seed = std::fs::read_to_string(&seed_path).unwrap();
    let harness = format!(
        "{}\nlet input='';process.stdin.on('data',d=>input+=d).on('end',()=>{{\
         const out=JSON.parse(input).map(seq=>{{let s=start();for(const e of seq)s=reduce(s,e);\
         return {{status:s.status,sequence:s.sequence,accepted:s.accepted,rejected:s.rejected}};}});\
         process.stdout.write(JSON.stringify(out));}});\n",
        reference_reducer(&seed)
    );
    let mut rng = Rng(0x5eed_0000_a2a1);
    let sequences: Vec<Vec<SeedEvent>> = (0..400).map(|_| random_sequence(&mut rng)).collect();
    let mut child = Command::new("node")
        .args(["--input-type=module", "-e", &harness])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&sequences).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reference: Vec<SeedOutcome> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(reference.len(), sequences.len());
    let mut decided = 0;
    for (seq, expected) in sequences.iter().zip(&reference) {
        assert_eq!(
            &reduce(seq),
            expected,
            "sequence {}",
            serde_json::to_string(seq).unwrap()
        );
        decided += seq.len();
    }
    assert!(decided > 2000, "only {decided} decisions compared");
}
