// End-to-end: the lab as a documentation page embeds it, in the README's
// 720x480 frame with embed=1. The reader must see the playback controls and
// the trace rows without scrolling, and be able to play the trace there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { open, OUT, ROOT, useLab } from './harness.mjs';

const FRAME = { width: 720, height: 480 };

const lab = useLab();

/** Trace rows whose box lies wholly inside both the viewport and the table's scroll box. */
async function visibleRows(page) {
  return page.evaluate(() => {
    const box = document.querySelector('.event-table__scroll').getBoundingClientRect();
    const head = document.querySelector('.event-table thead').getBoundingClientRect();
    return [...document.querySelectorAll('.event-table tbody tr')].filter((tr) => {
      const r = tr.getBoundingClientRect();
      return r.height > 0 && r.top >= Math.max(0, box.top, head.bottom - 1) && r.bottom <= Math.min(innerHeight, box.bottom) + 0.5;
    }).length;
  });
}

/** The element's box lies wholly inside the viewport. */
async function inView(page, selector) {
  return page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
  });
}

for (const [name, query] of [['defaults', ''], ['late artifact', 'late=0'], ['cancel in to_thread', 'cancel=1&work=to_thread']]) {
  test(`embed 720x480, ${name}: playback and at least five trace rows without scrolling`, async () => {
    const { page, log } = await open(lab.context, `${lab.server.url}?${query}${query ? '&' : ''}embed=1`, FRAME);
    assert.equal(await page.evaluate(() => scrollY), 0);
    for (const button of ['Start trace', 'Next step', 'Show all']) {
      assert.ok(await inView(page, `.playback button:text-is("${button}")`), `${button} is in view`);
    }
    assert.ok(await inView(page, '.playback input[type=range]'), 'the slider is in view');
    assert.ok(await inView(page, '.outcome'), 'the outcome sentence is in view');
    const rows = await visibleRows(page);
    assert.ok(rows >= 5, `${rows} trace rows visible without scrolling`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `sideways scroll of ${overflow}px`);
    // The strip tells this scenario's story; the full set is one click away.
    const strip = await page.$$eval('.metrics__strip [data-strip]', (l) => l.map((e) => e.dataset.strip));
    assert.ok(strip.includes('events_delivered') && strip.includes('final_state'), `strip: ${strip}`);
    if (query) assert.ok(strip.length > 2, `a changed metric joins the strip: ${strip}`);
    else assert.equal(strip.length, 2, `the defaults change nothing: ${strip}`);
    await page.screenshot({ path: `${OUT}/embed-${name.replaceAll(' ', '-')}.png` });
    await page.click('.metrics__toggle');
    const card = await page.waitForSelector('[data-metric="orphaned_steps"]');
    assert.ok(await card.evaluate((e) => e.getBoundingClientRect().height > 0));
    assert.deepEqual(log.errors, []);
    await page.close();
  });
}

test('embed 720x480: Start trace, Next step and the slider work in the frame', async () => {
  const { page } = await open(lab.context, `${lab.server.url}?late=0&embed=1&step=1`, FRAME);
  const count = () => page.$$eval('.event-table tbody tr', (t) => t.length);
  assert.equal(await count(), 1);
  await page.click('.playback button:text-is("Next step")');
  assert.equal(await count(), 2);
  await page.$eval('.playback input[type=range]', (el) => { el.value = '5'; el.dispatchEvent(new Event('input', { bubbles: true })); });
  assert.equal(await count(), 5);
  assert.ok(await visibleRows(page) >= 5, 'five revealed rows are in view');
  await page.click('.playback button:text-is("Start trace")');
  assert.equal(await page.textContent('.playback__start'), 'Pause');
  const total = await page.$eval('.playback input[type=range]', (e) => Number(e.max));
  await page.waitForFunction((n) => document.querySelectorAll('.event-table tbody tr').length === n, total, { timeout: 15000 });
  assert.equal(await page.evaluate(() => scrollY), 0, 'playing the trace does not scroll the frame');
  await page.close();
});

test('embed 720x480 and phone: axe finds nothing serious; the pictures stay reachable', async () => {
  const axe = await readFile(`${ROOT}node_modules/axe-core/axe.min.js`, 'utf8');
  for (const [query, viewport] of [['cancel=1&work=to_thread&embed=1', FRAME], ['late=0', { width: 390, height: 844 }]]) {
    const { page } = await open(lab.context, `${lab.server.url}?${query}`, viewport);
    await page.evaluate(axe);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v) => ['serious', 'critical'].includes(v.impact));
    assert.deepEqual(bad.map((v) => v.id), [], `?${query}`);
    for (const picture of ['.timeline', '.diagram']) {
      assert.ok(await page.$eval(picture, (e) => e.getBoundingClientRect().height > 0), `${picture} is on the page`);
    }
    await page.close();
  }
});

test('phone 390x844: the trace table starts on the first screen', async () => {
  const { page } = await open(lab.context, `${lab.server.url}?cancel=1&work=to_thread`, { width: 390, height: 844 });
  const top = await page.$eval('.event-table', (e) => e.getBoundingClientRect().top);
  assert.ok(top < 844, `the table starts at ${top}px`);
  assert.ok(await visibleRows(page) >= 1, 'a trace row is on the first screen');
  await page.screenshot({ path: `${OUT}/phone-first-screen.png` });
  await page.close();
});
