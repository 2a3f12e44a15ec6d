//! Differential test: the ledger's decisions equal the seed's own runnable
//! reference reducer (seed 000), run by node, on hundreds of random
//! sequences of seed-form events. It fails, naming what is missing, where
//! node or the seed is not present.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use a2a_lab::model::evidence::seed_form::{reduce, SeedEvent, SeedOutcome};

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
fn ledger_decisions_equal_the_seeds_reference_reducer_on_random_sequences() {
    // A differential test that skipped itself would prove nothing in the
    // run that skipped it: missing inputs fail it, with what is missing.
    let seed_path = seed_file().expect(
        "the seed's reference reducer, ../shared/seeds/000_*.txt beside the repository, is missing",
    );
    assert!(
        Command::new("node").arg("--version").output().is_ok(),
        "node is not installed: it runs the seed's reference reducer (scripts/install.sh installs it)"
    );
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
