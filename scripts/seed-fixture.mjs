// Regenerates tests/fixtures/seed_reducer.jsonl: the decisions the seed's
// runnable reference reducer (seed 000, `../shared/seeds/000_*.txt` beside
// the repository) makes on a few thousand random event sequences.
//
// The reducer is cut out of the seed's text and run here; none of its code
// is copied into the repository, only its answers, so `cargo test` holds the
// ledger to them in a clone that has nothing beside it.
//
//   node scripts/seed-fixture.mjs            writes the fixture
//   node scripts/seed-fixture.mjs --stdout   prints it (tests/seed_differential.rs
//                                            compares this with the committed file)
//   node scripts/seed-fixture.mjs --seed-file PATH
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
};

function seedFile() {
  const given = flag("--seed-file");
  if (given) return given;
  const dir = join(root, "..", "shared", "seeds");
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const name = names.find((n) => n.startsWith("000_"));
  return name && join(dir, name);
}

const path = seedFile();
if (!path) {
  console.error("the seed's reference reducer (../shared/seeds/000_*.txt beside the repository) is missing: nothing to regenerate from");
  process.exit(2);
}
const seed = readFileSync(path, "utf8");
const start = seed.indexOf("const concreteStates=");
const end = seed.indexOf("let resumed=", start);
if (start < 0 || end < 0) {
  console.error(`${path} does not hold the reference reducer (concreteStates ... let resumed=)`);
  process.exit(2);
}
// The seed's definitions (concreteStates, terminal, allowed, reduce, start),
// evaluated as they are written there.
const { reduce, start: fresh } = new Function(`${seed.slice(start, end)}\nreturn { reduce, start };`)();

// xorshift64*: the same generator as tests/seed_differential.rs, so a case
// can be found again from the generator's seed.
const MASK = (1n << 64n) - 1n;
class Rng {
  constructor(seed) { this.s = BigInt(seed) & MASK; }
  next() {
    let s = this.s;
    s ^= s >> 12n;
    s = (s ^ (s << 25n)) & MASK;
    s ^= s >> 27n;
    this.s = s;
    return (s * 0x2545F4914F6CDD1Dn) & MASK;
  }
  below(n) { return Number(this.next() % BigInt(n)); }
}

// The eight states, a status outside them, a wire spelling the seed does not
// take, and `working` twice, since most real transitions go through it.
const STATUSES = ["submitted", "working", "input-required", "auth-required", "completed", "failed",
  "canceled", "rejected", "paused", "TASK_STATE_WORKING", "working"];
const GENERATOR_SEED = "0x5eed00000a2a0023";
const COUNT = 3000;

function randomSequence(rng) {
  const len = rng.below(16);
  const events = [];
  for (let i = 0; i < len; i++) {
    // A small id pool makes duplicates common.
    const event = { id: `e${rng.below(10)}`, status: STATUSES[rng.below(STATUSES.length)] };
    const receipt = rng.below(4);
    if (receipt === 0) event.authorizationReceipt = `authz:${rng.below(9)}`;
    else if (receipt === 1) event.authorizationReceipt = "";
    events.push(event);
  }
  return events;
}

const rng = new Rng(GENERATOR_SEED);
const lines = [JSON.stringify({
  fixture: "seed 000 reference reducer decisions",
  generator: "xorshift64* (scripts/seed-fixture.mjs)",
  seed: GENERATOR_SEED,
  cases: COUNT,
})];
for (let i = 0; i < COUNT; i++) {
  const events = randomSequence(rng);
  let state = fresh();
  for (const event of events) state = reduce(state, event);
  const outcome = { status: state.status, sequence: state.sequence, accepted: state.accepted, rejected: state.rejected };
  lines.push(JSON.stringify({ events, outcome }));
}
const text = lines.join("\n") + "\n";
if (args.includes("--stdout")) process.stdout.write(text);
else {
  const out = join(root, "tests", "fixtures", "seed_reducer.jsonl");
  writeFileSync(out, text);
  console.error(`wrote ${COUNT} cases to ${out}`);
}
