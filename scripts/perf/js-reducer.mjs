// An idiomatic, linear JavaScript reducer with exactly the decisions of the
// seed's reference reducer (/work/shared/seeds/000_*.txt) and of
// `a2a-lab reduce`: the same allowlist, terminal freeze, authorization
// receipt rule and duplicate handling, but one Set of seen ids and arrays
// that grow in place instead of copying the state per event.
//
//   node scripts/perf/js-reducer.mjs FILE     # prints {"status","sequence","accepted","rejected"}
//
// The same module runs in the page (it imports nothing at load time).

export const STATES = ['submitted', 'working', 'input-required', 'auth-required', 'completed', 'failed', 'canceled', 'rejected'];
const ENDINGS = ['completed', 'failed', 'canceled', 'rejected'];

// Application allowlist; terminal states have no entry, so they never move.
const ALLOWED = new Map([
  ['submitted', new Set(['working', 'input-required', 'auth-required', ...ENDINGS])],
  ['working', new Set(['input-required', 'auth-required', ...ENDINGS])],
  ['input-required', new Set(['working', 'auth-required', ...ENDINGS])],
  ['auth-required', new Set(['working', 'input-required', ...ENDINGS])],
]);

/** A fresh task in `submitted`, as the seed's `start()`. */
export function start() {
  return { status: 'submitted', sequence: 0, seen: new Set(), accepted: [], rejected: [] };
}

/** Decides one event in place. A seen id is a lookup hit and changes nothing. */
export function apply(task, event) {
  const { id, status } = event;
  if (task.seen.has(id)) return task;
  task.seen.add(id);
  if (!ALLOWED.get(task.status)?.has(status)) {
    task.rejected.push({ id, reason: 'illegal-transition' });
  } else if (task.status === 'auth-required' && !event.authorizationReceipt) {
    task.rejected.push({ id, reason: 'authorization-receipt-required' });
  } else {
    task.status = status;
    task.sequence += 1;
    task.accepted.push(id);
  }
  return task;
}

/** Reduces events in order from `start()`; the answer `a2a-lab reduce` prints. */
export function reduce(events) {
  const task = start();
  for (const event of events) apply(task, event);
  const { status, sequence, accepted, rejected } = task;
  return { status, sequence, accepted, rejected };
}

const isMain = typeof process !== 'undefined' && process.argv?.[1]
  && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { readFileSync } = await import('node:fs');
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/perf/js-reducer.mjs FILE');
    process.exit(2);
  }
  const events = JSON.parse(readFileSync(file, 'utf8'));
  process.stdout.write(JSON.stringify(reduce(events)) + '\n');
}
