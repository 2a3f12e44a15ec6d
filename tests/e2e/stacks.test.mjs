// End-to-end: captures kept from agents on other stacks (SPEC §13), as a
// user imports them: google-adk's progress updates are shown as progress
// and judged clean; fasta2a's timestamps without a zone are a wire-shape
// finding that cites its section; an error answer alone is read and said.
// At desktop and phone width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, tableRows, OUT, ROOT, useLab } from './harness.mjs';

const lab = useLab();
const raw = (name) => readFileSync(`${ROOT}tests/agents/answers/raw/${name}`);

for (const [width, height, label] of [[1280, 900, 'desktop'], [390, 844, 'phone']]) {
  test(`a google-adk stream imported at ${label} width shows its progress and no finding`, async () => {
    const { page, log } = await open(lab.context, lab.server.url, { width, height });
    await page.setInputFiles('input[type=file]', { name: 'adk-stream.sse', mimeType: 'text/event-stream', buffer: raw('adk-stream.sse') });
    await page.waitForSelector('.capture__tasks');
    const tasks = await page.$$eval('.capture__tasks tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
    assert.equal(tasks.length, 1);
    assert.equal(tasks[0][2], 'TASK_STATE_COMPLETED');
    assert.equal(tasks[0][3], '0', 'no finding');
    const rows = await tableRows(page);
    const progress = rows.filter((r) => r[3].includes('(progress)'));
    assert.ok(progress.length >= 2, JSON.stringify(rows));
    assert.ok(progress.every((r) => r[4] === 'delivered'), JSON.stringify(progress));
    await page.screenshot({ path: `${OUT}/stacks-adk-${label}.png`, fullPage: true });
    assert.deepEqual(log.errors, []);
  });
}

test('a fasta2a stream imported is found breaking the wire shape, with the section it cites', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  await page.setInputFiles('input[type=file]', { name: 'fasta2a-stream.sse', mimeType: 'text/event-stream', buffer: raw('fasta2a-stream.sse') });
  await page.waitForSelector('.capture__findings');
  const findings = await page.textContent('.capture__findings');
  assert.match(findings, /wire-shape/);
  assert.match(findings, /§5\.6\.1/);
  await page.screenshot({ path: `${OUT}/stacks-fasta2a.png`, fullPage: true });
  assert.deepEqual(log.errors, []);
});

test('an error answer alone is imported and said, not refused', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  const error = '{"jsonrpc":"2.0","id":3,"error":{"code":-32004,"message":"Task is in terminal state"}}\n';
  await page.setInputFiles('input[type=file]', { name: 'subscribe.json', mimeType: 'application/json', buffer: Buffer.from(error) });
  await page.waitForSelector('.capture__summary');
  assert.match(await page.textContent('.capture__summary'), /1 JSON-RPC error\(s\)/);
  assert.equal(await page.$('.lab-message--error'), null);
  assert.deepEqual(log.errors, []);
});
