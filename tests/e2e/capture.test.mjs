// End-to-end: the page's Import reads captures of real traffic (SPEC §8): a
// multi-task A2A 0.3 capture shows a task list, and the chosen task's events
// fill the table, the timeline and the state diagram; a big capture is read
// in slices behind a progress bar; files dropped on the page are imported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, tableRows, OUT, useLab, cli } from './harness.mjs';
import { generateCapture } from '../../scripts/perf/gen-capture.mjs';

const lab = useLab();

/** The events a streaming client of the simulated agent received (A2A 1.0). */
function stream(query) {
  const trace = JSON.parse(cli('trace', query)).trace;
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
  if (key === 'task') {
    // Its history as 0.3 writes messages: tagged, a kebab-case role, tagged parts.
    const history = (out.history || []).map((m) => ({ ...m, kind: 'message', role: 'user', parts: m.parts.map((p) => ({ kind: 'text', ...p })) }));
    return { ...out, kind: 'task', status: { state: STATES[inner.status.state] }, history };
  }
  if (key === 'statusUpdate') {
    const state = STATES[inner.status.state];
    return { ...out, kind: 'status-update', status: { ...out.status, state }, final: !['submitted', 'working'].includes(state) };
  }
  out.artifact.parts = out.artifact.parts.map((p) => ({ kind: 'text', ...p }));
  return { ...out, kind: 'artifact-update' };
}

const sse = (events) => events.map((e) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: e })}\n\n`).join('');

test('a multi-task A2A 0.3 capture shows a task list and each task in the views', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
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
  // The scenario controls say they do not apply to the import.
  assert.match(await page.textContent('.controls__imported'), /do not apply to the import/);
  assert.equal(await page.getAttribute('.controls__form', 'aria-describedby'), 'controls-imported');
  // Back to the simulation.
  await page.click('.capture__back');
  await page.waitForFunction(() => !document.querySelector('.capture__tasks'));
  assert.equal(await page.$('.controls__imported'), null, 'the note goes with the import');
  assert.equal((await tableRows(page)).length, JSON.parse(cli('trace', '')).trace.length);
  assert.deepEqual(log.errors, []);
});

test('a dropped stream and its resubscription, imported as two files, are one clean session', async () => {
  const { page } = await open(lab.context, lab.server.url);
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

/** The capture of `tasks` generated tasks (10 events each, 0.3 JSON-RPC lines), as bytes. */
function generated(tasks, seed) {
  const lines = [];
  generateCapture(tasks, seed, (line) => lines.push(line));
  return Buffer.from(lines.join(''));
}

test('a multi-MB capture is read in slices behind a labelled progress bar, and judged as the CLI judges it', async () => {
  const bytes = generated(2000, 7);
  assert.ok(bytes.length > 4 * 1024 * 1024, `${bytes.length} bytes`);
  const dir = mkdtempSync(`${OUT}/capture-`);
  writeFileSync(`${dir}/big.jsonl`, bytes);
  const checked = JSON.parse(cli('check', '--json', `${dir}/big.jsonl`));
  for (const [width, height, name] of [[1280, 900, 'desktop'], [390, 844, 'phone']]) {
    const { page, log } = await open(lab.context, lab.server.url, { width, height });
    // Each slice of the file is handed over a little later than the browser
    // would, so that the progress can be seen and photographed; the page
    // itself is unchanged.
    await page.evaluate(() => {
      const arrayBuffer = Blob.prototype.arrayBuffer;
      Blob.prototype.arrayBuffer = function () {
        return new Promise((ok) => setTimeout(ok, 150)).then(() => arrayBuffer.call(this));
      };
      window.seen = [];
      new MutationObserver(() => {
        const bar = document.querySelector('progress');
        if (bar) window.seen.push({ value: bar.value, max: bar.max, label: bar.labels[0]?.textContent, status: bar.closest('.import').querySelector('[role=status]')?.textContent });
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await page.setInputFiles('input[type=file]', { name: 'big.jsonl', mimeType: 'application/json', buffer: bytes });
    await page.waitForFunction(() => document.querySelector('progress')?.value > 0);
    await page.screenshot({ path: `${OUT}/capture-import-progress-${name}.png` });
    await page.waitForSelector('.capture__tasks');
    await page.screenshot({ path: `${OUT}/capture-import-result-${name}.png` });
    const seen = await page.evaluate(() => window.seen);
    const values = [...new Set(seen.map((s) => s.value))];
    assert.ok(values.length >= 4, `the bar moved slice by slice: ${values}`);
    assert.deepEqual(values, [...values].sort((a, b) => a - b), 'never backwards');
    assert.ok(seen.every((s) => s.max === bytes.length), 'max is the file size');
    // Until Import's chunk is in, the bar says it loads the importer.
    const loading = 'Loading the importer for big.jsonl…';
    assert.ok(seen.every((s) => (s.label === 'Reading big.jsonl (file 1 of 1)' || (s.label === loading && s.value === 0)) && s.status === s.label), JSON.stringify(seen));
    assert.ok(seen.some((s) => s.label === 'Reading big.jsonl (file 1 of 1)'), 'the bar never said what it read');
    assert.equal(await page.$('progress'), null, 'the bar goes once read');
    // The result is the CLI's.
    assert.match(await page.textContent('.capture__summary'), /0\.3 wire: 20000 events, 2000 task\(s\), 0 finding\(s\)/);
    assert.match(await page.textContent('.lab-message'), /nothing broken/);
    const listed = await page.$$eval('.capture__tasks tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
    assert.equal(listed.length, 200, 'a long list starts short');
    assert.deepEqual(listed, checked.tasks.slice(0, 200).map((t) => [t.id, String(t.events), t.final_state, String(t.findings)]));
    await page.click('.capture__more button');
    await page.waitForFunction(() => document.querySelectorAll('.capture__tasks tbody tr').length === 2000);
    assert.deepEqual(log.errors, []);
    await page.close();
  }
  rmSync(dir, { recursive: true });
});

test('files dropped on the page are imported in order as one capture; the drop zone is announced and takes no focus', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  const events = stream('');
  const dropped = sse(events.slice(0, 3));
  const snapshot = JSON.parse(JSON.stringify(events[0]));
  snapshot.task.status = { state: 'TASK_STATE_WORKING' };
  snapshot.task.artifacts = [{ artifactId: 'BBS-1042-tracking', name: 'courier-tracking', parts: events[2].artifactUpdate.artifact.parts }];
  const resubscribed = sse([snapshot, ...events.slice(3)]);
  const drag = (type, files) => page.evaluate(([type, files]) => {
    const data = new DataTransfer();
    for (const [name, text] of files) data.items.add(new File([text], name, { type: 'text/event-stream' }));
    const event = new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data });
    document.querySelector('.event-table').dispatchEvent(event);
    return event.defaultPrevented;
  }, [type, files]);
  const files = [['dropped.sse', dropped], ['resubscribed.sse', resubscribed]];
  await page.focus('.event-table__scroll');
  await page.evaluate(() => { window.focusedBefore = document.activeElement; });
  assert.equal(await drag('dragenter', files), true, 'the page takes files');
  assert.equal(await drag('dragover', files), true);
  assert.ok(await page.isVisible('.dropzone'), 'the drop zone shows');
  assert.match(await page.textContent('[role=status]:has-text("drop them")'), /drop them to import them, in order, as one capture/);
  assert.equal(await page.$$eval('.dropzone, .dropzone *', (els) => els.filter((e) => e.tabIndex >= 0 || e.matches('button, a, input')).length), 0, 'nothing in it to focus');
  assert.equal(await page.getAttribute('.dropzone', 'aria-hidden'), 'true');
  assert.ok(await page.evaluate(() => document.activeElement === window.focusedBefore), 'focus stays where it was');
  await page.screenshot({ path: `${OUT}/capture-drop-zone.png` });
  assert.equal(await drag('drop', files), true);
  await page.waitForSelector('.capture__tasks');
  assert.ok(!(await page.isVisible('.dropzone')), 'the drop zone goes');
  const cells = await page.$$eval('.capture__tasks tbody tr td', (tds) => tds.map((t) => t.textContent.trim()));
  // The dropped stream's three events, then the snapshot and the rest.
  assert.deepEqual(cells, ['task-bbs-1042', String(events.length + 1), 'TASK_STATE_COMPLETED', '0']);
  assert.match(await page.textContent('.lab-message'), /nothing broken/);
  assert.equal((await tableRows(page)).length, events.length + 1);
  // The other order is another session: the snapshot first, then the
  // dropped stream's events after the task completed.
  await drag('dragenter', files.toReversed());
  await drag('drop', files.toReversed());
  await page.waitForFunction(() => /after-terminal/.test(document.querySelector('.lab-message')?.textContent));
  // A drag of text, not files, is left to the browser.
  for (const type of ['dragenter', 'dragover', 'drop']) {
    assert.equal(await page.evaluate((type) => {
      const data = new DataTransfer();
      data.setData('text/plain', 'hello');
      const event = new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data });
      document.querySelector('#key-chunks').dispatchEvent(event);
      return event.defaultPrevented;
    }, type), false, type);
  }
  assert.deepEqual(log.errors, []);
});

test('Cancel stops an import under way and changes nothing; the next import runs', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  await page.evaluate(() => {
    const arrayBuffer = Blob.prototype.arrayBuffer;
    Blob.prototype.arrayBuffer = function () {
      return new Promise((ok) => setTimeout(ok, 200)).then(() => arrayBuffer.call(this));
    };
  });
  const rows = (await tableRows(page)).length;
  await page.setInputFiles('input[type=file]', { name: 'big.jsonl', mimeType: 'application/json', buffer: generated(2000, 7) });
  await page.waitForFunction(() => document.querySelector('progress')?.value > 0);
  await page.click('.import__cancel');
  assert.equal(await page.$('progress'), null);
  assert.match(await page.textContent('.lab-message'), /Import canceled\. Nothing was changed\./);
  await page.waitForTimeout(1500);
  assert.equal(await page.$('.capture__tasks'), null, 'the cancelled import never lands');
  assert.equal((await tableRows(page)).length, rows);
  await page.setInputFiles('input[type=file]', { name: 'small.sse', mimeType: 'text/event-stream', buffer: Buffer.from(sse(stream(''))) });
  await page.waitForSelector('.capture__tasks');
  assert.match(await page.textContent('.capture__summary'), /1 task\(s\)/);
  await page.waitForTimeout(1500);
  assert.match(await page.textContent('.capture__summary'), /1 task\(s\)/, 'still the second import');
  assert.deepEqual(log.errors, []);
});
