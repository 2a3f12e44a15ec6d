// End-to-end: the page's Import reads captures of real traffic (SPEC §8): a
// multi-task A2A 0.3 capture shows a task list, and the chosen task's events
// fill the table, the timeline and the state diagram.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { serve, launch, open, tableRows } from './harness.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIST = process.env.DIST || `${ROOT}dist`;
const CLI = process.env.A2A_LAB_CLI || `${ROOT}target/debug/a2a-lab`;
const OUT = `${ROOT}tests/e2e/out`;
mkdirSync(OUT, { recursive: true });

let server, context;
before(async () => { server = await serve(DIST); context = await launch(); });
after(async () => { await context?.close(); server?.close(); });

/** The events a streaming client of the simulated agent received (A2A 1.0). */
function stream(query) {
  const trace = JSON.parse(execFileSync(CLI, ['trace', query], { encoding: 'utf8' })).trace;
  return trace.filter((r) => r.wire).map((r) => r.wire);
}

const STATES = {
  TASK_STATE_SUBMITTED: 'submitted', TASK_STATE_WORKING: 'working', TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled', TASK_STATE_FAILED: 'failed', TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required', TASK_STATE_REJECTED: 'rejected',
};

/** A 1.0 event as the SDKs' 0.3 compatibility mode writes it, for task `id`. */
function to03(event, id) {
  const [key, inner] = Object.entries(event)[0];
  const out = JSON.parse(JSON.stringify(inner).replaceAll('task-bbs-1042', id));
  if (key === 'task') return { ...out, kind: 'task', status: { state: STATES[inner.status.state] } };
  if (key === 'statusUpdate') {
    const state = STATES[inner.status.state];
    return { ...out, kind: 'status-update', status: { ...out.status, state }, final: !['submitted', 'working'].includes(state) };
  }
  out.artifact.parts = out.artifact.parts.map((p) => ({ kind: 'text', ...p }));
  return { ...out, kind: 'artifact-update' };
}

const sse = (events) => events.map((e) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: e })}\n\n`).join('');

test('a multi-task A2A 0.3 capture shows a task list and each task in the views', async () => {
  const { page, log } = await open(context, server.url);
  const a = stream('late=0').map((e) => to03(e, 'task-a'));
  const b = stream('cancel=1').map((e) => to03(e, 'task-b'));
  const interleaved = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i]) interleaved.push(a[i]);
    if (b[i]) interleaved.push(b[i]);
  }
  await page.setInputFiles('input[type=file]', { name: 'capture.sse', mimeType: 'text/event-stream', buffer: Buffer.from(sse(interleaved)) });
  await page.waitForSelector('.capture__tasks');
  assert.match(await page.textContent('.capture__summary'), /0\.3 wire/);
  const tasks = await page.$$eval('.capture__tasks tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  assert.deepEqual(tasks, [['task-a', String(a.length), 'completed', '1'], ['task-b', String(b.length), 'canceled', '0']]);
  // The first task's events fill the table; its late artifact is after-terminal.
  let rows = await tableRows(page);
  assert.equal(rows.length, a.length);
  assert.ok(rows.some((r) => r[4] === 'after-terminal'), JSON.stringify(rows));
  assert.match(await page.textContent('.capture__findings'), /after-terminal/);
  await page.screenshot({ path: `${OUT}/capture-task-list.png`, fullPage: true });
  // Choosing the second task shows its events and its path in the diagram.
  await page.click('.capture__pick:text-is("task-b")');
  await page.waitForFunction((n) => document.querySelectorAll('.event-table tbody tr').length === n, b.length);
  rows = await tableRows(page);
  assert.equal(rows.at(-1)[5], 'CANCELED');
  assert.ok(await page.$('.diagram__svg'), 'the state diagram is shown');
  assert.ok(await page.$('.timeline__svg'), 'the timeline is shown');
  // Back to the simulation.
  await page.click('.capture__back');
  await page.waitForFunction(() => !document.querySelector('.capture__tasks'));
  assert.equal((await tableRows(page)).length, JSON.parse(execFileSync(CLI, ['trace', ''], { encoding: 'utf8' })).trace.length);
  assert.deepEqual(log.errors, []);
});

test('a dropped stream and its resubscription, imported as two files, are one clean session', async () => {
  const { page } = await open(context, server.url);
  const events = stream('');
  const dropped = events.slice(0, 3);
  const snapshot = JSON.parse(JSON.stringify(events[0]));
  snapshot.task.status = { state: 'TASK_STATE_WORKING' };
  snapshot.task.artifacts = [{ artifactId: 'BBS-1042-tracking', name: 'courier-tracking', parts: events[2].artifactUpdate.artifact.parts }];
  const resubscribed = [snapshot, ...events.slice(3)];
  await page.setInputFiles('input[type=file]', [
    { name: 'dropped.sse', mimeType: 'text/event-stream', buffer: Buffer.from(sse(dropped)) },
    { name: 'resubscribed.sse', mimeType: 'text/event-stream', buffer: Buffer.from(sse(resubscribed)) },
  ]);
  await page.waitForSelector('.capture__tasks');
  const cells = await page.$$eval('.capture__tasks tbody tr td', (tds) => tds.map((t) => t.textContent.trim()));
  assert.deepEqual(cells, ['task-bbs-1042', String(dropped.length + resubscribed.length), 'TASK_STATE_COMPLETED', '0']);
  assert.match(await page.textContent('.lab-message'), /nothing broken/);
});
