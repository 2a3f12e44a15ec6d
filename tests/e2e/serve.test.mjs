// End-to-end (issue 43): `a2a-lab serve` from a binary built with the
// `page` feature (scripts/test.sh builds it after trunk built the page)
// serves the same page as any host: the trace of a scenario from the URL,
// the pictures, and Import, at desktop and phone width, with no console
// error. The CLI with the page inside needs no toolchain to show it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { CLI, OUT, launch, open, tableRows } from './harness.mjs';

/** `a2a-lab serve --port 0` started; resolves to its URL and the process. */
function serveLab() {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI, ['serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    const heard = (chunk) => {
      said += chunk;
      const url = said.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (url) resolve({ url: url[0], child });
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', heard);
    child.on('exit', (code) => reject(new Error(`a2a-lab serve exited ${code}: ${said}`)));
  });
}

const running = [];
after(() => running.forEach((p) => p.kill()));

test('a2a-lab serve serves the page from inside the binary', async () => {
  const { url, child } = await serveLab();
  running.push(child);
  const context = await launch();
  try {
    const { page, log } = await open(context, `${url}?chunks=5&ending=never`);
    const rows = await tableRows(page);
    // The scenario from the URL, simulated in the browser: 5 chunks.
    assert.ok(rows.some((r) => r.join(' ').includes('artifact chunk 5/5')), JSON.stringify(rows));
    assert.ok(await page.isVisible('input[type=file]'), 'Import is there');
    await page.screenshot({ path: `${OUT}/serve-desktop.png` });
    const phone = await open(context, url, { width: 390, height: 844 });
    await phone.page.screenshot({ path: `${OUT}/serve-phone.png` });
    assert.deepEqual([...log.errors, ...phone.log.errors], []);
    // Only the binary answered: every request went to its own URL.
    assert.ok(log.requests.every((r) => r.startsWith(url) || r.startsWith('data:')), log.requests.join('\n'));
  } finally {
    await context.close();
  }
});
