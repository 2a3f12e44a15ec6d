// End-to-end (issue 33): a task of an imported capture, opened as the
// scenario that explains it, sits beside its simulation as A; toggling the
// guard shows the fix on the task's own events. At desktop and phone width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, OUT, ROOT, useLab, cli } from './harness.mjs';

const lab = useLab();
const CAPTURE = `${ROOT}tests/fixtures/captures/doctor/after-terminal.jsonl`;

/** What `a2a-lab check` prints of a capture (it exits 1 on a finding). */
function check(path) {
  try { return cli('check', path); } catch (e) { return e.stdout; }
}

/** Each side's events and which of them are marked as differing. */
async function sides(page) {
  return page.$$eval('.compare__trace', (lists) => lists.map((ol) => [...ol.children].map((li) => ({
    text: li.textContent.trim(),
    differs: li.classList.contains('compare__row--diverged'),
  }))));
}

for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
  test(`a captured task opens as its scenario beside it, and the guard shows on its events (${name})`, async () => {
    const { page, log } = await open(lab.context, lab.server.url, viewport);
    await page.setInputFiles('input[type=file]', { name: 'after-terminal.jsonl', mimeType: 'application/x-ndjson', buffer: readFileSync(CAPTURE) });
    await page.waitForSelector('.capture__scenario');
    // The line `check` prints for the task, and the button beside it.
    const line = check(CAPTURE).split('\n').find((l) => l.includes('scenario: ?')).trim();
    assert.equal((await page.textContent('.capture__scenario')).replace('Open as a scenario', '').trim(), line);
    const query = line.match(/\?(\S+)/)[1];
    await page.click('.capture__open');
    await page.waitForSelector('.compare__trace');
    // The simulation is shown, its URL the scenario's; the task is A.
    const params = new URLSearchParams(await page.evaluate(() => location.search));
    params.delete('step');
    assert.equal(params.toString(), query);
    assert.equal(await page.$('.capture__tasks'), null, 'the capture panel gives way to the simulation');
    assert.match(await page.textContent('.compare__summary'), /^The scenario reproduces task 99787fcaad22be7b: its 11 events/);
    let [a, b] = await sides(page);
    assert.equal(a.length, 11);
    assert.deepEqual(a.map((r) => r.text), b.map((r) => r.text), 'the two sides agree event for event');
    assert.match(a[10].text, /^11 · artifact last 1 · after-terminal$/);
    assert.ok(a.every((r) => !r.differs));
    await page.screenshot({ path: `${OUT}/explain-${name}.png`, fullPage: true });
    // One toggle: the guard drops the late artifact in B; A stays as captured.
    // On a phone the controls are folded away until asked for.
    if (!(await page.isVisible('#key-guard'))) await page.click('summary:has-text("Scenario controls")');
    await page.selectOption('#key-guard', 'on');
    await page.waitForFunction(() => document.querySelector('.compare__summary')?.textContent.startsWith('1 of 11'));
    [a, b] = await sides(page);
    assert.deepEqual(a.map((r) => r.differs), b.map((r) => r.differs));
    assert.deepEqual(a.flatMap((r, i) => (r.differs ? [i] : [])), [10]);
    assert.match(b[10].text, /^11 · not sent · dropped-by-guard$/);
    assert.equal(await page.getAttribute('[aria-label="B: the scenario"]', 'aria-label'), 'B: the scenario');
    assert.match(await page.textContent('.compare'), /B: \?chunks=7&late=0&guard=on&wire=0\.3, simulated/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `no sideways scroll (${overflow}px)`);
    await page.screenshot({ path: `${OUT}/explain-guard-${name}.png`, fullPage: true });
    // Unpinning leaves the scenario shown.
    await page.click('button:text-is("Unpin A")');
    await page.waitForFunction(() => !document.querySelector('.compare'));
    assert.deepEqual(log.errors, []);
    await page.close();
  });
}
