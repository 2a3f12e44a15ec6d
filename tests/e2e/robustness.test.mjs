// Hostile input, foreign requests, random use and accessibility, in
// headless Chromium against the release bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { open, metric, ROOT, cli, useLab } from './harness.mjs';

const lab = useLab();

test('the page declares a CSP without inline scripts and makes no request to another origin', async () => {
  const { page, log } = await open(lab.context, `${lab.server.url}?late=0&sdk=js`);
  const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.equal(await page.$$eval('script:not([src])', (s) => s.length), 0, 'no inline script');
  await page.click('button:text-is("Show all")');
  assert.ok(log.requests.length >= 4);
  assert.deepEqual(log.requests.filter((u) => !u.startsWith(lab.server.origin)), []);
  assert.deepEqual(log.errors, []);
});

test('imported strings are rendered as text, never as HTML', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  await page.evaluate(() => { window.__pwned = 0; });
  const hostile = JSON.stringify([
    { task: { id: '<img src=x onerror="window.__pwned=1">', contextId: 'javascript:alert(1)', status: { state: 'TASK_STATE_SUBMITTED' } } },
    { statusUpdate: { taskId: 't', contextId: 'c', status: { state: '<img src=x onerror="window.__pwned=2">' } } },
    { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: '<script>window.__pwned=3</script>', parts: [{ text: 'javascript:alert(1)' }] } } },
  ]);
  await page.setInputFiles('input[type=file]', { name: 'hostile.json', mimeType: 'application/json', buffer: Buffer.from(hostile) });
  await page.waitForSelector('.lab-message');
  const message = await page.textContent('.lab-message');
  assert.match(message, /onerror/, 'shown as text');
  assert.equal(await page.evaluate(() => window.__pwned), 0);
  assert.equal(await page.$$eval('.lab-message img, .lab-message script, .lab-message a', (e) => e.length), 0);
  const exported = cli('trace', '');
  const hostileExport = exported.replace('"chunks": "3"', '"chunks": "<img src=x onerror=\\"window.__pwned=4\\">"');
  await page.setInputFiles('input[type=file]', { name: 'h.json', mimeType: 'application/json', buffer: Buffer.from(hostileExport) });
  await page.waitForFunction(() => document.querySelector('.lab-message')?.textContent.includes('Nothing was changed'));
  assert.equal(await page.evaluate(() => window.__pwned), 0);
  assert.deepEqual(log.errors, []);
});

test('every class of bad input gets a message naming it and changes nothing', async () => {
  const { page, log } = await open(lab.context, `${lab.server.url}?late=0`);
  const cases = [
    ['malformed.json', '{"format": ', /malformed JSON/],
    ['version.json', JSON.stringify({ format: 'a2a-lifecycle-lab/trace', version: 7 }), /version 7/],
    ['types.json', cli('trace', '').replace('"chunks": "3"', '"chunks": true'), /chunks/],
    ['deep.json', '['.repeat(5000) + ']'.repeat(5000), /nested deeper/],
    ['binary.bin', '\u0000\u0001\u0002\uFFFD', /A2A event|export|SSE/],
    // An object that is no event of either wire (an event missing its
    // fields is read: its task's wire-shape finding).
    ['unknown.json', '[{"hello":1}]', /event 0: not an A2A 1\.0 event/],
    // Nothing checked is never "clean": input without an A2A event is refused by name.
    ['empty.sse', '', /no A2A events in empty\.sse/],
    ['blanks.jsonl', '\n\n  \r\n', /no A2A events in blanks\.jsonl/],
    ['pings.sse', ': ping\n\n: ping\n\n', /no A2A events in pings\.sse/],
    ['no-event.json', '[]', /no A2A events in no-event\.json/],
  ];
  for (const [name, body, pattern] of cases) {
    await page.setInputFiles('input[type=file]', { name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await page.waitForFunction((n) => document.querySelector('.lab-message--error')?.textContent.includes('Nothing was changed'), name);
    assert.match(await page.textContent('.lab-message--error'), pattern, name);
    assert.equal(await metric(page, 'events_after_terminal'), '1', `${name} kept the scenario`);
    await page.click('.lab-message__close');
  }
  assert.deepEqual(log.errors, []);
});

test('a few hundred random control changes, clicks and keys: no error, export equals the CLI', async () => {
  const { page, log } = await open(lab.context, lab.server.url);
  let seed = 42;
  const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const selects = await page.$$eval('.controls select:not([disabled])', (s) => s.map((e) => e.id));
  const inputs = ['#key-chunks', '#key-cancel', '#key-late', '#key-restart', '#key-timeout_ms', '#key-dup'];
  const values = ['0', '1', '2', '3', '5', 'none', 'off', 'x', '-1', '400', ''];
  const keys = ['ArrowRight', 'ArrowLeft', 'Home', 'End', ' '];
  for (let i = 0; i < 250; i++) {
    const what = rand(4);
    if (what === 0) {
      const id = selects[rand(selects.length)];
      const disabled = await page.$eval(`#${id}`, (e) => e.disabled);
      if (!disabled) {
        const options = await page.$$eval(`#${id} option`, (o) => o.map((e) => e.value).filter((v) => v !== ''));
        await page.selectOption(`#${id}`, options[rand(options.length)]);
      }
    } else if (what === 1) {
      const sel = inputs[rand(inputs.length)];
      if (!(await page.$eval(sel, (e) => e.disabled))) {
        await page.fill(sel, values[rand(values.length)]);
        await page.press(sel, 'Tab');
      }
    } else if (what === 2) {
      await page.click(['button:text-is("Next step")', 'button:text-is("Show all")', '.playback__start'][rand(3)]);
    } else {
      await page.locator('body').press(keys[rand(keys.length)]);
    }
  }
  if ((await page.textContent('.playback__start')) === 'Pause') await page.click('.playback__start');
  const query = await page.evaluate(() => new URLSearchParams(location.search));
  const params = new URLSearchParams(await page.evaluate(() => location.search));
  params.delete('step');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:text-is("Export JSON")')]);
  const text = await readFile(await download.path(), 'utf8');
  assert.equal(text, cli('trace', params.toString()), `final inputs ${params}`);
  assert.deepEqual(log.errors, [], `console errors after random use (${query})`);
});

test('axe-core finds no serious or critical violations on every view', async () => {
  const axe = await readFile(`${ROOT}node_modules/axe-core/axe.min.js`, 'utf8');
  for (const [query, viewport] of [
    ['', { width: 1280, height: 900 }],
    ['ending=never&cancel=3&guard=on', { width: 1280, height: 900 }],
    ['preset=drill', { width: 1280, height: 900 }],
    ['late=0&embed=1', { width: 720, height: 480 }],
    ['late=0', { width: 390, height: 844 }],
  ]) {
    const { page } = await open(lab.context, `${lab.server.url}?${query}`, viewport);
    if (query === '') await page.click('button:text-is("Python vs JS")');
    await page.evaluate(axe);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v) => ['serious', 'critical'].includes(v.impact));
    assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target).join(' | ')}`), [], `view ?${query}`);
    await page.close();
  }
});

test('keyboard: every control is reachable by Tab and shows a visible focus ring', async () => {
  const { page } = await open(lab.context, lab.server.url);
  const reached = new Set();
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const info = await page.evaluate(() => {
      const el = document.activeElement;
      const style = getComputedStyle(el);
      return { id: el.id || el.textContent.trim().slice(0, 20), outline: style.outlineStyle, width: style.outlineWidth };
    });
    reached.add(info.id);
    if (info.id.startsWith('key-')) assert.notEqual(info.outline, 'none', `${info.id} has no focus ring`);
  }
  for (const id of ['key-chunks', 'key-ending', 'key-guard', 'Export JSON', 'Start trace']) {
    assert.ok(reached.has(id), `${id} not reachable by Tab`);
  }
});
