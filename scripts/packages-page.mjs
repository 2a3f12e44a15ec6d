// Opens the lab that `a2a-lab serve` answers at URL (argv[2]) in headless
// Chromium, through the end-to-end tests' harness, and fails unless the page
// ran its WebAssembly: the trace of a scenario from the URL shown, the .wasm
// fetched from the binary itself, no console error. Given the URL that
// `serve --agent` prints (`/?live=TOKEN`), it fails unless the Live view
// connects (every doctor step holds) and a message sent as a new task is
// shown to its end. scripts/packages-test.sh runs it on the binary that the
// wheel installed.
import assert from 'node:assert/strict';
import { launch, open, tableRows } from '../tests/e2e/harness.mjs';

const url = process.argv[2];
assert.match(url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/(\?live=[0-9a-f]+)?$/, 'usage: packages-page.mjs http://127.0.0.1:PORT/[?live=TOKEN]');
const base = url.replace(/\?.*$/, '');
const context = await launch();
try {
  if (url.includes('?live=')) {
    const { page, log } = await open(context, url);
    await page.waitForSelector('.live__steps', { timeout: 20000 });
    const steps = await page.$$eval('.live__step', (li) => li.map((l) => l.className));
    assert.ok(steps.length === 4 && steps.every((c) => /--(ok|warn)/.test(c)), JSON.stringify(steps));
    await page.click('button:text-is("Send as a new task")');
    await page.waitForFunction(() => /COMPLETED/.test(document.querySelector('.live__task')?.textContent || ''), null, { timeout: 20000 });
    const rows = await tableRows(page);
    assert.ok(rows.some((r) => r.join(' ').includes('COMPLETED')), JSON.stringify(rows));
    const wasm = log.requests.filter((r) => r.endsWith('.wasm'));
    assert.ok(wasm.includes(`${base}split_live.wasm`) && wasm.every((r) => r.startsWith(base)), `the .wasm fetched: ${wasm.join(', ')}`);
    assert.deepEqual(log.errors, []);
    console.log(`Live ran in Chromium from ${base}: the doctor's ${steps.length} steps held, a task shown to COMPLETED in ${rows.length} trace rows`);
  } else {
    const { page, log } = await open(context, `${url}?chunks=5&ending=never`);
    const rows = await tableRows(page);
    assert.ok(rows.some((r) => r.join(' ').includes('artifact chunk 5/5')), JSON.stringify(rows));
    // The first view's module, and the chunks the page loads once it shows
    // (docs/architecture.md, "The page's first view and its chunks"): every
    // one from the binary itself.
    const wasm = log.requests.filter((r) => r.endsWith('.wasm'));
    assert.ok(wasm[0] === `${url}a2a-lifecycle-lab_bg.wasm` && wasm.every((r) => r.startsWith(url)), `the .wasm fetched: ${wasm.join(', ')}`);
    await page.waitForSelector('.ledger-panel__card', { state: 'attached' });
    assert.ok(log.requests.every((r) => r.startsWith(url) || r.startsWith('data:')), log.requests.join('\n'));
    assert.deepEqual(log.errors, []);
    console.log(`the lab ran in Chromium from ${url}: ${rows.length} trace rows, ${wasm.map((r) => r.slice(url.length)).join(', ')} loaded`);
  }
} finally {
  await context.close();
}
