// End-to-end: the release bundle in headless Chromium, driven as a person
// would, compared with the CLI over the same model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { open, tableRows, metric, OUT, cli, useLab } from './harness.mjs';

const lab = useLab();

test('defaults: the table shows the model trace and 6 events delivered', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  const expected = JSON.parse(cli('trace', ''));
  const rows = await tableRows(page);
  assert.equal(rows.length, expected.trace.length);
  assert.deepEqual(rows.map((r) => r[3]), expected.trace.map((r) => r.event));
  assert.equal(await metric(page, 'events_delivered'), String(expected.metrics.events_delivered));
  assert.equal(await metric(page, 'final_state'), 'COMPLETED');
  await page.screenshot({ path: `${OUT}/desktop-defaults.png`, fullPage: true });
  assert.deepEqual(log.errors, []);
  assert.ok(log.requests.every((u) => u.startsWith(lab.server.origin)), `foreign request: ${log.requests}`);
});

test('a control recomputes the trace and the URL carries the scenario', async () => {
  const { page } = await open(lab.context, lab.server.url);
  await page.selectOption('#key-ending', 'never');
  await page.waitForFunction(() => location.search.includes('ending=never'));
  assert.equal(await metric(page, 'hung_streams'), '1');
  await page.fill('#key-cancel', '3');
  await page.press('#key-cancel', 'Tab');
  await page.waitForFunction(() => location.search.includes('cancel=3'));
  assert.equal(await metric(page, 'final_state'), 'CANCELED');
  assert.equal(await metric(page, 'cancel_result'), 'canceled');
  // The change against the defaults is shown.
  const delta = await page.$eval('[data-metric="final_state"] .metric__delta', (e) => e.textContent);
  assert.equal(delta, 'was COMPLETED');
});

test('any two SDKs compare: each pair pins A, sets B and says why each metric differs', async () => {
  const { page, log } = await open(lab.context, `${lab.server.url}?late=0`);
  assert.match(await page.textContent('.lab-header__sub'), /a2a-sdk, @a2a-js\/sdk and a2a-rs/);
  const pairs = await page.$$eval('.compare__sdks button', (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(pairs, ['Python vs JS', 'Python vs Rust', 'JS vs Rust']);
  await page.click('button:text-is("Python vs Rust")');
  await page.waitForFunction(() => location.search.includes('sdk=rust'));
  const why = await page.$$eval('.compare__why li', (lis) => lis.map((li) => li.textContent));
  assert.ok(why.length > 0, 'no reason given');
  assert.ok(why.some((w) => w.startsWith('a2a-sdk delivers and stores') && w.includes('; a2a-rs stops reading execute()')), why.join('\n'));
  await page.screenshot({ path: `${OUT}/desktop-python-vs-rust.png`, fullPage: true });
  // Both drop a late artifact, each its own way: the same metrics.
  await page.click('button:text-is("JS vs Rust")');
  await page.waitForFunction(() => document.querySelector('.compare__metrics thead')?.textContent.includes('A: late=0&sdk=js'));
  assert.equal(await page.textContent('.compare__summary'), 'A and B give the same metrics.');
  assert.deepEqual(log.errors, []);
});

test('a bad value is an inline message and the lab keeps working', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  await page.fill('#key-chunks', '99999');
  await page.press('#key-chunks', 'Tab');
  const msg = await page.textContent('.lab-message--error');
  assert.match(msg, /chunks/);
  assert.equal(await metric(page, 'events_delivered'), '6');
  assert.deepEqual(log.errors, []);
});

test('a bad URL parameter is reported and the defaults are shown', async () => {
  const { page, log } = await open(lab.context, `${lab.server.url}?chunks=abc&ending=never`);
  assert.match(await page.textContent('.lab-message--error'), /chunks/);
  assert.equal(await metric(page, 'events_delivered'), '6');
  assert.deepEqual(log.errors, []);
});

test('playback: Start trace, Next step, slider, Show all, keyboard, Reset', async () => {
  const { page } = await open(lab.context, `${lab.server.url}?late=0&step=2`);
  assert.equal((await tableRows(page)).length, 2);
  await page.click('button:text-is("Next step")');
  assert.equal((await tableRows(page)).length, 3);
  await page.waitForFunction(() => location.search.includes('step=3'));
  await page.click('button:text-is("Show all")');
  const all = (await tableRows(page)).length;
  await page.keyboard.press('Home');
  assert.equal((await tableRows(page)).length, 0);
  await page.keyboard.press('ArrowRight');
  assert.equal((await tableRows(page)).length, 1);
  await page.click('button:text-is("Start trace")');
  assert.equal(await page.textContent('.playback__start'), 'Pause');
  await page.waitForFunction((n) => document.querySelectorAll('.event-table tbody tr').length === n, all, { timeout: 10000 });
  assert.equal(await page.textContent('.playback__start'), 'Start trace');
  await page.$eval('.playback input[type=range]', (el) => { el.value = '4'; el.dispatchEvent(new Event('input', { bubbles: true })); });
  assert.equal((await tableRows(page)).length, 4);
  assert.equal(await page.$eval('.event-table__row--current td', (td) => td.textContent), '3');
  await page.click('button:text-is("Reset")');
  await page.waitForFunction(() => location.search === '');
  assert.equal(await metric(page, 'events_delivered'), '6');
});

test('Export JSON downloads exactly what the CLI prints, on both wires', async () => {
  for (const [query, file] of [
    ['ending=never&cancel=3&guard=on', 'a2a-lab-ending-never_cancel-3_guard-on.json'],
    ['late=0&sdk=js&wire=0.3', 'a2a-lab-late-0_sdk-js_wire-0.3.json'],
  ]) {
    const { page } = await open(lab.context, `${lab.server.url}?${query}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:text-is("Export JSON")')]);
    assert.equal(download.suggestedFilename(), file);
    const text = await readFile(await download.path(), 'utf8');
    assert.equal(text, cli('trace', query), query);
    await page.close();
  }
});

test('Import JSON restores an export, reads a capture and refuses a bad file', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  const exported = cli('trace', 'late=0&client=block');
  await page.setInputFiles('input[type=file]', { name: 'e.json', mimeType: 'application/json', buffer: Buffer.from(exported) });
  await page.waitForFunction(() => location.search.includes('late=0'));
  assert.match(await page.textContent('.lab-message'), /matches/);
  assert.equal(await metric(page, 'blocking_result_artifacts'), '1');
  // A capture of wire events is shown instead of the simulation.
  const raw = JSON.parse(cli('trace', 'late=0')).trace.filter((r) => r.wire).map((r) => r.wire);
  await page.setInputFiles('input[type=file]', { name: 'raw.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(raw)) });
  await page.waitForFunction(() => document.querySelector('.lab-message')?.textContent.includes('after-terminal'));
  assert.ok(await page.$('.capture__tasks'), 'the capture is shown');
  await page.setInputFiles('input[type=file]', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "a2a-lifecycle-lab/trace", "version": 9') });
  await page.waitForFunction(() => document.querySelector('.lab-message')?.textContent.includes('Nothing was changed'));
  assert.ok(await page.$('.capture__tasks'), 'a bad file leaves the capture shown');
  await page.click('.capture__back');
  assert.equal(await metric(page, 'blocking_result_artifacts'), '1', 'the imported scenario is kept');
  assert.deepEqual(log.errors, []);
});

test('embed mode hides the chrome and fits a 720x480 frame; phone width has no sideways scroll', async () => {
  const { page } = await open(lab.context, `${lab.server.url}?ending=return&embed=1`, { width: 720, height: 480 });
  assert.equal(await page.$('.lab-header'), null);
  assert.ok(await page.$('.lab--embed'));
  await page.screenshot({ path: `${OUT}/embed-720x480.png` });
  const phone = await open(lab.context, `${lab.server.url}?late=0`, { width: 390, height: 844 });
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `sideways scroll of ${overflow}px at 390px`);
  await phone.page.screenshot({ path: `${OUT}/phone-390.png`, fullPage: true });
});

test('embedded in an iframe, the lab tells the parent page its height', async () => {
  const page = await lab.context.newPage();
  // The parent is a page of the same site, with the lab in an iframe.
  await page.goto(lab.server.url);
  await page.evaluate((src) => {
    document.body.innerHTML = '';
    window.heights = [];
    window.addEventListener('message', (e) => { if (e.data && e.data.type === 'a2a-lab:height') window.heights.push(e.data.height); });
    const frame = document.createElement('iframe');
    frame.src = src; frame.width = '720'; frame.height = '480';
    document.body.appendChild(frame);
  }, `${lab.server.url}?late=0&embed=1`);
  await page.waitForFunction(() => window.heights.length > 0, null, { timeout: 10000 });
  const height = await page.evaluate(() => window.heights.at(-1));
  assert.ok(height > 200, `posted height ${height}`);
  // What is drawn after the first view (the pictures, the panels below the
  // trace from their chunk) and a folded panel opened are in the height
  // the lab last told.
  const frame = page.frames().find((f) => f.url().includes('embed=1'));
  const toldWhole = async (what) => {
    const whole = await frame.evaluate(() => document.documentElement.scrollHeight);
    await page.waitForFunction((h) => window.heights.at(-1) === h, whole, { timeout: 10000 }).catch(() => {});
    const told = await page.evaluate(() => window.heights.at(-1));
    assert.equal(told, whole, `${what}: the frame's document is ${whole}px high; the lab last told ${told}px`);
    return told;
  };
  await frame.waitForSelector('.pictures .timeline');
  await frame.waitForSelector('.ledger-panel', { state: 'attached' });
  const drawn = await toldWhole('drawn');
  await frame.click('.metrics__toggle');
  await frame.waitForSelector('[data-metric="orphaned_steps"]');
  assert.ok(await toldWhole('the full metrics opened') > drawn, 'the full metrics make the frame taller');
  await page.close();
});

test('each select control takes each of its values and the URL and the CLI agree', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  const ids = await page.$$eval('.controls select', (s) => s.map((e) => e.id));
  let checked = 0;
  for (const id of ids) {
    const key = id.replace('key-', '');
    const values = await page.$$eval(`#${id} option`, (o) => o.map((e) => e.value).filter((v) => v !== ''));
    for (const value of values) {
      await page.click('.playback__reset');
      // The control's value at the defaults (a key newer than the export
      // format is not in a default export's inputs).
      const initial = await page.$eval(`#${id}`, (e) => e.value);
      // Keys that apply only with another key get it first.
      const needs = { work: 'cancel=1', cancel_impl: 'cancel=1', store: 'restart=1', receipt: 'interrupt=auth', conflict: 'dup=4', webhook: 'push=inline', push_auth: 'push=inline', push_followup: 'push=inline&interrupt=input' }[key];
      for (const need of needs ? needs.split('&') : []) {
        const [k, v] = need.split('=');
        const tag = await page.$eval(`#key-${k}`, (e) => e.tagName);
        if (tag === 'SELECT') await page.selectOption(`#key-${k}`, v);
        else { await page.fill(`#key-${k}`, v); await page.press(`#key-${k}`, 'Tab'); }
      }
      await page.selectOption(`#${id}`, value);
      const params = new URLSearchParams(await page.evaluate(() => location.search));
      params.delete('step');
      const expected = JSON.parse(cli('trace', params.toString())).metrics.events_delivered;
      assert.equal(await metric(page, 'events_delivered'), String(expected), `${key}=${value} (${params})`);
      if (key !== 'preset') assert.equal(params.get(key) ?? '', value === initial ? '' : value, `${key}=${value} in the URL`);
      checked++;
    }
  }
  assert.ok(checked >= 30, `${checked} control values checked`);
  assert.deepEqual(log.errors, []);
});
