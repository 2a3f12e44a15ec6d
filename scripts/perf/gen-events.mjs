// The JavaScript twin of `generated(i, seed)` in src/ui/bench.rs: the same
// deterministic seed-form ledger events, bit for bit (u32 arithmetic with
// Math.imul and >>> 0). Usable in the page and in node.
//
//   node scripts/perf/gen-events.mjs [N=1000000] [SEED=42] [OUT=/tmp/a2a-lab-events-1m.json]
//
// writes N events as a compact JSON array, one event per line, the form
// `a2a-lab reduce` and `node scripts/perf/js-reducer.mjs` read.

const STATUSES = ['working', 'input-required', 'working', 'auth-required', 'working', 'completed', 'failed', 'bogus'];

/** The i-th generated event for `seed` (both u32). */
export function generated(i, seed) {
  let x = (Math.imul(i, 2654435761) ^ seed) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  x = Math.imul(x, 0x5bd1e995) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  // Rare terminal and bogus statuses keep most events legal moves.
  const status = x % 1000 === 0 ? STATUSES[5 + (Math.floor(x / 1000) % 3)] : STATUSES[x % 5];
  const id = x % 17 === 0 && i > 0 ? i - 1 : i;
  const event = { id: `e${id}`, status };
  if (x % 3 === 0) event.authorizationReceipt = 'authz:7';
  return event;
}

/** Events 0..n for `seed`. */
export function generate(n, seed) {
  const events = new Array(n);
  for (let i = 0; i < n; i++) events[i] = generated(i, seed);
  return events;
}

/** Writes `n` events for `seed` to `path` as a JSON array; returns its byte size. */
export async function writeEventsFile(path, n = 1_000_000, seed = 42) {
  const { openSync, writeSync, closeSync, statSync } = await import('node:fs');
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, '[');
    const BATCH = 10_000;
    for (let from = 0; from < n; from += BATCH) {
      const lines = [];
      for (let i = from; i < Math.min(n, from + BATCH); i++) lines.push(JSON.stringify(generated(i, seed)));
      writeSync(fd, (from > 0 ? ',\n' : '\n') + lines.join(',\n'));
    }
    writeSync(fd, '\n]\n');
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

const isMain = typeof process !== 'undefined' && process.argv?.[1]
  && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href;
if (isMain) {
  const n = Number(process.argv[2] ?? 1_000_000);
  const seed = Number(process.argv[3] ?? 42);
  const out = process.argv[4] ?? '/tmp/a2a-lab-events-1m.json';
  const bytes = await writeEventsFile(out, n, seed);
  console.log(`${out}: ${n} events, seed ${seed}, ${bytes} bytes`);
}
