// End-to-end: SPEC §9's subscribers on the page. A reconnecting client and a
// second client: the table labels each row a client received or sent with
// that client, and the timeline gives the second client its own lane, both
// as the CLI's export of the same scenario says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, tableRows, OUT, useLab, cli } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
const lab = useLab();

/** The export's rows, with the client each one names (1 unless written). */
function exported(query) {
  return JSON.parse(cli('trace', query)).trace
    .map((r) => ({ ...r, client: r.client ?? 1 }));
}

/** The client label of every table row ('' for a row without one). */
async function clientLabels(page) {
  return page.$$eval('.event-table tbody tr', (trs) => trs.map((tr) => tr.querySelector('.event-table__client')?.textContent ?? ''));
}

/** Each timeline lane's label and centre line. */
async function lanes(page) {
  return page.$$eval('.timeline__lane', (gs) => gs.map((g) => ({
    label: g.querySelector('text').textContent,
    client: g.getAttribute('data-client'),
    y: Number(g.querySelector('line').getAttribute('y1')),
  })));
}

/** The centre line of each row's mark, by row index. */
async function markYs(page) {
  return page.$$eval('.timeline__marks .timeline__mark', (ps) => Object.fromEntries(ps.map((p) => {
    const b = p.getBBox();
    return [p.getAttribute('data-index'), b.y + b.height / 2];
  })));
}

test('resubscribe=3: every row client 1 received or sent says so, and the lanes stay one per source', async () => {
  const query = 'resubscribe=3';
  const rows = exported(query);
  const { page, log } = await open(lab.context, `${lab.server.url}?${query}`);
  assert.equal((await tableRows(page)).length, rows.length);
  const labels = await clientLabels(page);
  const labelled = rows.filter((r) => r.wire || r.source === 'client');
  assert.deepEqual(labels.filter(Boolean), labelled.map(() => 'client 1'));
  // The snapshot the subscription starts with is labelled like the events around it.
  const snapshot = rows.findIndex((r) => r.event.startsWith('Task snapshot'));
  assert.ok(snapshot > 0, 'the model sends a snapshot');
  assert.equal(labels[snapshot], 'client 1');
  const drawn = await lanes(page);
  assert.deepEqual(drawn.map((l) => l.label), ['executor', 'cancel()', 'handler', 'client', 'server']);
  // The drop and the SubscribeToTask call are marks in the client's lane.
  const ys = await markYs(page);
  const client = drawn.find((l) => l.label === 'client').y;
  const calls = rows.filter((r) => r.source === 'client');
  assert.ok(calls.length >= 2);
  for (const r of calls) assert.ok(Math.abs(ys[r.index] - client) < 1, `row ${r.index} is in the client lane`);
  await page.screenshot({ path: `${OUT}/desktop-resubscribe-3.png`, fullPage: true });
  const phone = await open(lab.context, `${lab.server.url}?${query}`, PHONE);
  await phone.page.screenshot({ path: `${OUT}/phone-resubscribe-3.png`, fullPage: true });
  assert.deepEqual([...log.errors, ...phone.log.errors], []);
});

test('second_client=2: the table labels client 2 and the timeline draws its lane', async () => {
  const query = 'second_client=2';
  const rows = exported(query);
  const { page, log } = await open(lab.context, `${lab.server.url}?${query}`);
  const labels = await clientLabels(page);
  assert.equal(labels.length, rows.length);
  for (const r of rows) {
    const expected = r.wire || r.source === 'client' || r.client !== 1 ? `client ${r.client}` : '';
    assert.equal(labels[r.index], expected, `row ${r.index}: ${r.event}`);
  }
  assert.equal(labels.filter((l) => l === 'client 2').length, rows.filter((r) => r.client === 2).length);
  const drawn = await lanes(page);
  assert.deepEqual(drawn.map((l) => l.label), ['executor', 'cancel()', 'handler', 'client 1', 'client 2', 'server']);
  const second = drawn.find((l) => l.client === '2').y;
  const ys = await markYs(page);
  for (const r of rows) {
    assert.equal(Math.abs(ys[r.index] - second) < 1, r.client === 2, `row ${r.index} (client ${r.client}) lane`);
  }
  await page.screenshot({ path: `${OUT}/desktop-second-client-2.png`, fullPage: true });
  const phone = await open(lab.context, `${lab.server.url}?${query}`, PHONE);
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `sideways scroll of ${overflow}px at 390px`);
  await phone.page.screenshot({ path: `${OUT}/phone-second-client-2.png`, fullPage: true });
  assert.deepEqual([...log.errors, ...phone.log.errors], []);
});

test('the subscriber keys are controls from the key table, disabled for a blocking client', async () => {
  const { page } = await open(lab.context, `${lab.server.url}?second_client=2`);
  assert.equal(await page.inputValue('#key-second_client'), '2');
  assert.equal(await page.inputValue('#key-resubscribe'), 'none');
  await page.fill('#key-resubscribe', '3');
  await page.press('#key-resubscribe', 'Tab');
  await page.waitForFunction(() => location.search.includes('resubscribe=3'));
  await page.fill('#key-resubscribe', '99');
  await page.press('#key-resubscribe', 'Tab');
  assert.match(await page.textContent('.lab-message--error'), /resubscribe: 99 is out of range \(1 – 6\)/);
  const block = await open(lab.context, `${lab.server.url}?client=block`);
  assert.ok(await block.page.$eval('#key-resubscribe', (e) => e.disabled));
  assert.ok(await block.page.$eval('#key-second_client', (e) => e.disabled));
});
