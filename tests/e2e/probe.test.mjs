// End-to-end: Import shows a probe.json (SPEC §10) probe by probe. The file
// is what `a2a-lab probe --wire 0.3 --out` wrote against the a2a-sdk 1.3.0
// order-status agent with an artifact after complete()
// (tests/fixtures/probe/); choosing a probe fills the table, the timeline
// and the state diagram with what its calls received.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, tableRows, OUT, ROOT, useLab } from './harness.mjs';

const FILE = `${ROOT}tests/fixtures/probe/python-0.3-late-artifact.json`;

const lab = useLab();

test('a probe.json lists every probe and shows each one as a trace', async () => {
  const report = JSON.parse(readFileSync(FILE, 'utf8'));
  const { page, log } = await open(lab.context, lab.server.url);
  await page.setInputFiles('input[type=file]', { name: 'probe.json', mimeType: 'application/json', buffer: readFileSync(FILE) });
  await page.waitForSelector('.capture__tasks');
  assert.match(await page.textContent('.capture__summary'), /probe of .* on the A2A 0\.3 wire: 2 of 6 probes/);
  const probes = await page.$$eval('.capture__tasks tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  assert.deepEqual(probes.map((p) => [p[0], p[1]]), report.probes.map((p) => [p.name, p.outcome]));
  // The first probe, the stream, is shown: its events and its finding.
  let rows = await tableRows(page);
  assert.equal(rows.length, 7, JSON.stringify(rows));
  assert.ok(rows.some((r) => r[4] === 'after-terminal'), JSON.stringify(rows));
  assert.match(await page.textContent('.capture__findings'), /after-terminal/);
  assert.match(await page.textContent('.capture__advice'), /terminal-state guard/);
  // The resubscribe probe: the dropped stream and the subscription, one task.
  await page.click('.capture__pick:text-is("resubscribe")');
  await page.waitForFunction(() => document.querySelector('.capture__title')?.textContent.includes('resubscribe'));
  rows = await tableRows(page);
  assert.equal(rows.length, 8, JSON.stringify(rows));
  assert.equal(rows.filter((r) => r[4] === 'after-terminal').length, 1);
  assert.ok(await page.$('.timeline__svg'), 'the timeline is shown');
  assert.ok(await page.$('.diagram__svg'), 'the state diagram is shown');
  await page.screenshot({ path: `${OUT}/probe-import.png`, fullPage: true });
  // A clean probe has no findings.
  await page.click('.capture__pick:text-is("cancel-terminal")');
  await page.waitForFunction(() => document.querySelector('.capture__title')?.textContent.includes('cancel-terminal'));
  assert.equal(await page.$$eval('.capture__findings li', (li) => li.length), 0);
  // Back to the simulation.
  await page.click('.capture__back');
  await page.waitForFunction(() => !document.querySelector('.capture__tasks'));
  assert.deepEqual(log.errors, []);
});

test('on a phone, the probe list fits the width', async () => {
  const { page, log } = await open(lab.context, lab.server.url, { width: 390, height: 844 });
  await page.setInputFiles('input[type=file]', { name: 'probe.json', mimeType: 'application/json', buffer: readFileSync(FILE) });
  await page.waitForSelector('.capture__tasks');
  await page.click('.capture__pick:text-is("resubscribe")');
  await page.waitForFunction(() => document.querySelector('.capture__title')?.textContent.includes('resubscribe'));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  await page.screenshot({ path: `${OUT}/probe-import-phone.png`, fullPage: true });
  assert.deepEqual(log.errors, []);
});

test('a probe over REST opens on its stream; its card probe is listed with its summary', async () => {
  const file = `${ROOT}tests/fixtures/probe/rest-python-1.0-late-artifact.json`;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(report.probes[0].name, 'card');
  const { page, log } = await open(lab.context, lab.server.url);
  await page.setInputFiles('input[type=file]', { name: 'probe.json', mimeType: 'application/json', buffer: readFileSync(file) });
  await page.waitForSelector('.capture__tasks');
  assert.match(await page.textContent('.capture__summary'), /on the A2A 1\.0 wire over HTTP\+JSON: 2 of 7 probes/);
  await page.waitForFunction(() => document.querySelector('.capture__title')?.textContent.includes('stream'));
  let rows = await tableRows(page);
  assert.equal(rows.length, 7, JSON.stringify(rows));
  await page.click('.capture__pick:text-is("card")');
  await page.waitForFunction(() => document.querySelector('.capture__title')?.textContent.includes('card'));
  const cells = await page.$$eval('.capture__tasks tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  assert.deepEqual(cells[0].slice(0, 3), ['card', 'clean', 'an A2A 1.0 card with every required field']);
  // It made no call: nothing is shown as a trace (not the simulation's).
  await page.waitForFunction(() => document.querySelectorAll('.event-table tbody tr').length === 0);
  assert.deepEqual(await tableRows(page), []);
  await page.screenshot({ path: `${OUT}/probe-rest-card.png`, fullPage: true });
  assert.deepEqual(log.errors, []);
});

test('a probe over gRPC opens on its stream, ended by the status it stands for', async () => {
  // `a2a-lab probe --binding grpc --out` on a2a-sdk's agent whose execute()
  // raises: its stream's messages as ProtoJSON, then status UNKNOWN, kept as
  // the -32603 error event it stands for (tests/agents/ANSWERS.md, "gRPC").
  const file = `${ROOT}tests/fixtures/probe/grpc-python-1.0-raise.json`;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(report.agent.binding, 'grpc');
  const { page, log } = await open(lab.context, lab.server.url, { width: 390, height: 844 });
  await page.setInputFiles('input[type=file]', { name: 'probe.json', mimeType: 'application/json', buffer: readFileSync(file) });
  await page.waitForSelector('.capture__tasks');
  assert.match(await page.textContent('.capture__summary'), /on the A2A 1\.0 wire over GRPC: 3 of 7 probes/);
  await page.waitForFunction(() => document.querySelector('.capture__title')?.textContent.includes('stream'));
  const rows = await tableRows(page);
  assert.equal(rows.length, 5, JSON.stringify(rows));
  assert.match(await page.textContent('.capture__findings'), /missing-terminal/);
  assert.match(await page.textContent('.capture__findings'), /gRPC UNKNOWN/);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  await page.screenshot({ path: `${OUT}/probe-grpc-phone.png`, fullPage: true });
  assert.deepEqual(log.errors, []);
});

test('a probe with --webhook shows the pushes the webhook received, task by task', async () => {
  const file = `${ROOT}tests/fixtures/probe/push-python-1.0-none.json`;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const push = report.probes.find((p) => p.name === 'push');
  const posts = push.calls[0].split('\n\n').filter((e) => e.startsWith('data: '));
  assert.ok(posts.length >= 8, `${posts.length} POSTs kept`);
  const { page, log } = await open(lab.context, lab.server.url, { width: 390, height: 844 });
  await page.setInputFiles('input[type=file]', { name: 'probe.json', mimeType: 'application/json', buffer: readFileSync(file) });
  await page.waitForSelector('.capture__tasks');
  await page.click('.capture__pick:text-is("push")');
  await page.waitForFunction(() => document.querySelector('.capture__title')?.textContent.includes('push'));
  await page.waitForFunction(() => document.querySelectorAll('.event-table tbody tr').length > 0);
  const rows = await tableRows(page);
  // The first task's POSTs: its task, its statuses and artifact chunks, one row each.
  assert.ok(rows.length >= 5, JSON.stringify(rows));
  assert.ok(rows.some((r) => r.join(' ').includes('COMPLETED')), JSON.stringify(rows));
  assert.match(await page.textContent('.capture__findings'), /push-stalls-stream/);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  await page.screenshot({ path: `${OUT}/probe-push-phone.png`, fullPage: true });
  assert.deepEqual(log.errors, []);
});
