// End-to-end: SPEC §12's push notifications on the page, at desktop and
// phone width. Each POST the agent sent is a table row from the webhook
// with its answer, the timeline gives the webhook a lane, the push metrics
// show what the webhook was told, and the outcome says it from the
// webhook's owner's side, all as the CLI's export of the same scenario says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, tableRows, metric, OUT, useLab, cli } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
const lab = useLab();

const exported = (query) => JSON.parse(cli('trace', query));

for (const [name, viewport] of [['desktop', undefined], ['phone', PHONE]]) {
  test(`${name}: a webhook never told FAILED, row by row, lane and metrics`, async () => {
    const query = 'push=inline&ending=raise';
    const want = exported(query);
    const { page, log } = await open(lab.context, `${lab.server.url}?${query}`, viewport);
    const rows = await tableRows(page);
    assert.equal(rows.length, want.trace.length);
    const posts = want.trace.filter((r) => r.source === 'webhook');
    assert.ok(posts.length >= 2);
    const shown = rows.filter((r) => r[2] === 'webhook');
    assert.equal(shown.length, posts.length, 'every POST is a row from the webhook');
    assert.ok(shown.every((r) => / → 200$/.test(r[3])), `each with the webhook's answer: ${JSON.stringify(shown)}`);
    // The webhook's lane, last, holding its POSTs.
    const lanes = await page.$$eval('.timeline__lane text', (ts) => ts.map((t) => t.textContent));
    assert.equal(lanes.at(-1), 'webhook');
    // What the webhook was told, against the stream's end.
    assert.equal(await metric(page, 'push_last_state'), 'WORKING');
    assert.equal(await metric(page, 'final_state'), 'FAILED');
    assert.equal(await metric(page, 'pushes'), String(want.metrics.pushes));
    assert.match(await page.textContent('.outcome'), /webhook/i);
    if (viewport) {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `no sideways scroll at phone width (${overflow}px)`);
    }
    await page.screenshot({ path: `${OUT}/push-${name}.png`, fullPage: !viewport });
    assert.deepEqual(log.errors, []);
  });
}

test('a slow webhook holds a2a-sdk\'s stream and not @a2a-js/sdk\'s: the page shows the client\'s end', async () => {
  for (const [sdk, held] of [['python', true], ['js', false]]) {
    const query = `push=inline&webhook_delay_ms=2000&sdk=${sdk}`;
    const want = exported(query);
    const { page } = await open(lab.context, `${lab.server.url}?${query}`);
    const shownDone = await metric(page, 'client_done_ms');
    assert.equal(shownDone, String(want.metrics.client_done_ms), sdk);
    assert.equal(want.metrics.client_done_ms >= 2000, held, `${sdk}: the stream ${held ? 'waits' : 'does not wait'} for the webhook`);
    await page.close();
  }
});
