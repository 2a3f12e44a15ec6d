// The split page (issue 45): the first view loads alone, the rest of the
// simulation's page once it shows; Import (with the capture's views),
// "Open as a scenario" and Compare load on first use,
// saying so on a slow link while the rest of the page answers; a chunk
// that does not arrive is said, with a Retry that fetches it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { open, metric, DIST, OUT, ROOT, useLab } from './harness.mjs';
import { splitPoints } from '../../scripts/split-points.mjs';

const lab = useLab();
const CHUNK = /\/(split_\w+|chunk_\d+)\.wasm$/;
const CAPTURE = `${ROOT}tests/fidelity/captures/python/v1.0_late-0.sse`;
/** The files a split point loads: its own and those it shares. */
const points = splitPoints(readFileSync(`${DIST}/__wasm_split.js`, 'utf8'));
const filesOf = (point) => [...points].filter(([, by]) => by.includes(point)).map(([file]) => file).sort();
const chunks = (log) => log.requests.filter((u) => CHUNK.test(u)).map((u) => u.split('/').pop());

/** Slow 4G (as Chromium's DevTools define it) from now on. */
async function slowLink(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) * 0.9, uploadThroughput: (750e3 / 8) * 0.9,
  });
}

/** Waits until the import's status line starts with `text`. */
async function importSays(page, text) {
  await page.waitForFunction((t) => document.querySelector('.import__label')?.textContent.startsWith(t), text);
}

test('the first view loads alone; Compare loads when A is first pinned, on a slow link, while input goes on', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  // The first view fetches no chunk but the rest of the simulation's page
  // (what carries over, the ledger, Export), once it shows.
  await page.waitForSelector('.ledger-panel__card', { state: 'attached' });
  assert.deepEqual([...new Set(chunks(log))].sort(), filesOf('rest'));
  await slowLink(page);
  await page.click('button:text-is("Pin as A (compare)")');
  assert.equal(await page.textContent('.deferred[role=status]'), 'Loading compare…');
  await page.selectOption('#key-ending', 'never');
  assert.equal(await metric(page, 'hung_streams'), '1');
  await page.waitForSelector('.compare__summary', { timeout: 20000 });
  for (const file of filesOf('compare')) assert.ok(chunks(log).includes(file), `${file} not loaded: ${chunks(log)}`);
  assert.ok(!chunks(log).includes('split_import.wasm'), 'Import loaded before it was used');
  assert.deepEqual(log.errors, []);
});

test('Import, the capture it shows and Open as a scenario load on first use on a slow link', async () => {
  const { page, log } = await open(lab.context, lab.server.url, { width: 390, height: 844 });
  await slowLink(page);
  await page.setInputFiles('input[type=file]', CAPTURE);
  await importSays(page, 'Loading the importer for v1.0_late-0.sse…');
  await page.waitForSelector('.capture__open', { timeout: 20000 });
  assert.ok(chunks(log).some((c) => c.startsWith('split_import')), chunks(log).join());
  assert.ok(!chunks(log).some((c) => c.startsWith('split_compare')), 'Compare loaded before it was used');
  await page.click('.capture__open');
  await page.waitForSelector('.deferred:text("Loading compare…")');
  await page.waitForSelector('.compare__side', { timeout: 20000 });
  await page.screenshot({ path: `${OUT}/lazy-open-as-scenario-phone.png`, fullPage: true });
  assert.deepEqual(log.errors, []);
});

test('a chunk that does not load is said with a Retry that loads it, and the lab keeps working', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  const refuse = (route) => route.abort('connectionrefused');

  await page.route(/split_compare\.wasm$/, refuse);
  await page.click('button:text-is("Pin as A (compare)")');
  const failed = await page.waitForSelector('.deferred--failed[role=alert]');
  assert.match(await failed.textContent(), /^Compare could not be loaded: .*The rest of the lab works\./);
  await failed.screenshot({ path: `${OUT}/lazy-chunk-failed.png` });
  await page.selectOption('#key-ending', 'never');
  assert.equal(await metric(page, 'hung_streams'), '1');
  await page.unroute(/split_compare\.wasm$/, refuse);
  await page.click('.deferred__retry');
  await page.waitForSelector('.compare__summary');
  assert.equal(await page.$('.deferred--failed'), null);

  await page.route(/split_import\.wasm$/, refuse);
  await page.setInputFiles('input[type=file]', CAPTURE);
  await importSays(page, 'Import could not load its reader: ');
  assert.equal(await page.$('.capture'), null, 'an import without its reader changed the page');
  await page.unroute(/split_import\.wasm$/, refuse);
  await page.click('.import__retry');
  await page.waitForSelector('.capture__open');
  assert.equal(await page.$('.import'), null, 'the import status stayed after the retry');

  // What the page logged is the two refused fetches and nothing else.
  assert.ok(log.errors.length > 0 && log.errors.every((e) => /ERR_CONNECTION_REFUSED|Failed to fetch|TypeError/.test(e)), log.errors.join('\n'));
});

const FIRST_VIEW = /a2a-lifecycle-lab_bg\.wasm$/;

test('until the first view\'s module is in, the page says the lab is loading; the line goes when the lab shows', async () => {
  const page = await lab.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  // The module held back until the loading line has been read.
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(FIRST_VIEW, async (route) => { await held; await route.continue(); });
  await page.goto(lab.server.url);
  const line = await page.waitForSelector('#lab-boot[role=status]');
  assert.equal(await line.textContent(), 'Loading the lab…');
  assert.ok(await line.isVisible(), 'the loading line is not shown');
  await page.screenshot({ path: `${OUT}/lazy-first-view-loading-phone.png` });
  release();
  await page.waitForSelector('.event-table tbody tr');
  assert.equal(await page.$('#lab-boot'), null, 'the loading line stayed beside the lab');
  await page.close();
});

test('a first view\'s module that does not arrive is said, with a Retry that loads the lab', async () => {
  const page = await lab.context.newPage();
  const refuse = (route) => route.abort('connectionrefused');
  await page.route(FIRST_VIEW, refuse);
  await page.goto(lab.server.url);
  const failed = await page.waitForSelector('#lab-boot.lab-boot--failed[role=alert]');
  assert.match(await failed.textContent(), /^The lab could not load \(.+\)\. Check the connection, then try again\.Retry$/);
  await failed.screenshot({ path: `${OUT}/lazy-first-view-failed.png` });
  await page.unroute(FIRST_VIEW, refuse);
  await page.click('.lab-boot__retry');
  await page.waitForSelector('.event-table tbody tr');
  assert.equal(await page.$('#lab-boot'), null);
  await page.close();
});
