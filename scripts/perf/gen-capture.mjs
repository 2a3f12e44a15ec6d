// A deterministic capture of A2A 0.3 traffic for `a2a-lab check` and
// `a2a-doctor lifecycle` (scripts/perf/capture-bench.sh): TASKS tasks of
// 10 events each, one JSON-RPC response per line (JSON Lines), or the same
// events as an SSE body with --sse.
//
//   node scripts/perf/gen-capture.mjs [TASKS=100000] [SEED=42] [OUT=/tmp/a2a-capture-1m.jsonl] [--sse] [--late]
//
// Each task, on the 0.3 wire (flat events tagged `kind`, kebab-case states):
//   1 `task` submitted (with the user's message in `history`),
//   1 `status-update` working (final false),
//   7 `artifact-update` chunks of one artifact: the first with neither
//     `append` nor `lastChunk`, the middle ones `append`, the last one
//     `append` + `lastChunk` (SPEC §1),
//   1 `status-update` completed with final true.
// 50 tasks are open at a time: a window of 50 slots, each step one slot
// drawn by a seeded generator (u32 arithmetic, Math.imul and >>> 0) sends
// its task's next event, and a finished task's slot takes the next task.
// Every task is legal and finished, so both tools call the capture clean.
// With --late each task gets an 11th event, a receipt artifact after its
// completed status (an `after-terminal` finding in every task, as an
// executor that emits after `complete()` sends it: SPEC §4 `late`).
// The JSON-RPC `id` is the task's request (one message/stream per task).

const CHUNKS = 7;
const EVENTS_PER_TASK = 3 + CHUNKS;
const WINDOW = 50;
const STEPS = ['looking up the order', 'label printed', 'picked up by the courier', 'at the sorting hub',
  'on the delivery van', 'two stops away', 'delivered to the front desk'];
const BASE_MS = Date.UTC(2026, 10, 2, 10, 0, 0);

/** A u32 mix of (a, b): the same finaliser as gen-events.mjs. */
function mix(a, b) {
  let x = (Math.imul(a, 2654435761) ^ b) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  x = Math.imul(x, 0x5bd1e995) >>> 0;
  return (x ^ (x >>> 15)) >>> 0;
}

const hex8 = (x) => x.toString(16).padStart(8, '0');

/** A 16-hex-digit id for task `t`, salted by `salt` and `seed` (short, so a line averages about 200 bytes). */
function hexId(t, salt, seed) {
  const a = mix(t, seed ^ salt);
  return hex8(a) + hex8(mix(a, t));
}

/** Event `k` (0..9, 10 the late receipt) of task `t`, as the 0.3 `result` object. */
export function taskEvent(t, k, seed, ms) {
  const taskId = hexId(t, 0x7a5c, seed);
  const contextId = `ctx-${hexId(t, 0xc0de, seed).slice(0, 8)}`;
  const order = `BBS-${1042 + t}`;
  const timestamp = new Date(BASE_MS + ms).toISOString();
  if (k === 0) {
    return {
      kind: 'task', id: taskId, contextId,
      status: { state: 'submitted', timestamp },
      history: [{ kind: 'message', messageId: `msg-${hexId(t, 0x3e55, seed).slice(0, 8)}`, role: 'user',
        parts: [{ kind: 'text', text: `Where is my order ${order}?` }] }],
    };
  }
  if (k === 1) {
    return { kind: 'status-update', taskId, contextId, status: { state: 'working', timestamp }, final: false };
  }
  if (k === EVENTS_PER_TASK - 1) {
    return { kind: 'status-update', taskId, contextId, status: { state: 'completed', timestamp }, final: true };
  }
  if (k === EVENTS_PER_TASK) {
    return {
      kind: 'artifact-update', taskId, contextId, lastChunk: true,
      artifact: { artifactId: `${order}-receipt`, parts: [{ kind: 'text', text: `receipt for ${order}` }] },
    };
  }
  const chunk = k - 2;
  const event = {
    kind: 'artifact-update', taskId, contextId,
    artifact: { artifactId: `${order}-tracking`, parts: [{ kind: 'text', text: `step ${chunk + 1}/${CHUNKS}: ${STEPS[chunk]}` }] },
  };
  if (chunk > 0) event.append = true;
  if (chunk === CHUNKS - 1) event.lastChunk = true;
  return event;
}

/**
 * Calls `emit(line)` for every event of the capture, in capture order:
 * `tasks` tasks, WINDOW open at a time, interleaved by `seed`.
 */
export function generateCapture(tasks, seed, emit, sse = false, late = false) {
  const events = EVENTS_PER_TASK + (late ? 1 : 0);
  const slots = []; // [task, next event]
  let nextTask = 0;
  while (slots.length < WINDOW && nextTask < tasks) slots.push([nextTask++, 0]);
  let step = 0;
  while (slots.length > 0) {
    const at = mix(step, seed) % slots.length;
    const slot = slots[at];
    const [t, k] = slot;
    const response = { jsonrpc: '2.0', id: t + 1, result: taskEvent(t, k, seed, step) };
    const json = JSON.stringify(response);
    emit(sse ? `data: ${json}\n\n` : `${json}\n`);
    step++;
    if (k + 1 === events) {
      if (nextTask < tasks) slots[at] = [nextTask++, 0];
      else slots.splice(at, 1);
    } else {
      slot[1] = k + 1;
    }
  }
  return step;
}

/** Writes the capture to `path`; returns { events, bytes }. */
export async function writeCaptureFile(path, tasks = 100_000, seed = 42, sse = false, late = false) {
  const { openSync, writeSync, closeSync, statSync } = await import('node:fs');
  const fd = openSync(path, 'w');
  let pending = [];
  let size = 0;
  let events = 0;
  try {
    events = generateCapture(tasks, seed, (text) => {
      pending.push(text);
      size += text.length;
      if (size >= 1 << 20) {
        writeSync(fd, pending.join(''));
        pending = [];
        size = 0;
      }
    }, sse, late);
    if (pending.length) writeSync(fd, pending.join(''));
  } finally {
    closeSync(fd);
  }
  return { events, bytes: statSync(path).size };
}

const isMain = typeof process !== 'undefined' && process.argv?.[1]
  && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href;
if (isMain) {
  const args = process.argv.slice(2);
  const sse = args.includes('--sse');
  const late = args.includes('--late');
  const positional = args.filter((a) => a !== '--sse' && a !== '--late');
  const tasks = Number(positional[0] ?? 100_000);
  const seed = Number(positional[1] ?? 42);
  const out = positional[2] ?? (sse ? '/tmp/a2a-capture-1m.sse' : '/tmp/a2a-capture-1m.jsonl');
  if (!Number.isInteger(tasks) || tasks < 0 || !Number.isInteger(seed)) {
    console.error('usage: node scripts/perf/gen-capture.mjs [TASKS=100000] [SEED=42] [OUT] [--sse] [--late]');
    process.exit(2);
  }
  const { events, bytes } = await writeCaptureFile(out, tasks, seed, sse, late);
  console.log(`${out}: ${tasks} tasks, ${events} events, seed ${seed}, ${sse ? 'SSE' : 'JSON Lines'}${late ? ', a late artifact in each task' : ''}, ${bytes} bytes`);
}
