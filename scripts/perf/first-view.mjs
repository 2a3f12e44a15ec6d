// What a reader on a phone feels (issue 45): the release bundle served
// gzipped from 127.0.0.1, opened in headless Chromium at a phone viewport
// on slow 4G (1.6 Mbps down, 750 kbps up, 150 ms round trip) with the CPU
// 4x slower, each run with a cold cache (a fresh browser profile):
//   - the time from navigation to the first row of the trace table, for
//     the default page and for the embed (`?embed=1`);
//   - the time to the first paint with text (the page's "Loading the
//     lab…" line, until the lab replaces it);
//   - the bytes transferred before that row (gzip, as sent);
//   - the time from a click on Import JSON until its file chooser opens,
//     and until a small capture chosen at once is shown (Import's chunk
//     loads on first use).
// Prints a Markdown table (median, then min–max, of --runs runs).
//
//   trunk build --release && node scripts/perf/first-view.mjs [--dist dist] [--runs 5] [--fast]
//
// --fast leaves the link and the CPU unthrottled (the same page on a fast
// machine, to tell the network's share from the bundle's). Not a test: it
// exits 0 unless it cannot start.

import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { serve, launch } from '../../tests/e2e/harness.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Slow 4G as Chromium's DevTools and Lighthouse define it. */
const SLOW_4G = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8) * 0.9, uploadThroughput: (750e3 / 8) * 0.9 };
const CPU_SLOWDOWN = 4;
const PHONE = { width: 390, height: 844 };
/** A small capture (7 events), read once Import's chunk is in. */
const CAPTURE = join(ROOT, 'tests/fidelity/captures/python/v1.0_late-0.sse');

function options(argv) {
  const o = { dist: join(ROOT, 'dist'), runs: 5, fast: false };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--dist') o.dist = argv[++i];
    else if (k === '--runs') o.runs = Math.max(1, Number(argv[++i]));
    else if (k === '--fast') o.fast = true;
    else throw new Error(`unknown option ${k} (see the comment at the top of ${import.meta.url})`);
  }
  if (!existsSync(join(o.dist, 'index.html'))) throw new Error(`${o.dist}/index.html missing: run trunk build --release first`);
  return o;
}

/** One cold run: a fresh profile (`launch` makes one each time), the
 * throttles, the page until its first row. */
async function run(url, o) {
  const context = await launch();
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.setViewportSize(PHONE);
    // The moment the first row is in the DOM, on the page's own clock
    // (from navigation start).
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (document.querySelector('.event-table tbody tr')) {
          window.__firstRow = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    if (!o.fast) {
      await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    }
    const finished = [];
    cdp.on('Network.loadingFinished', (e) => finished.push(e.encodedDataLength));
    await page.goto(url);
    await page.waitForFunction(() => window.__firstRow !== undefined, null, { timeout: 60_000 });
    const firstRow = await page.evaluate(() => window.__firstRow);
    // A paint is timed once it has happened: on a page with nothing to say
    // before its lab, that is the first row's own frame, just after the row.
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, null, { timeout: 10_000 });
    const firstPaint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0].startTime);
    const bytes = finished.reduce((a, b) => a + b, 0);
    let importMs = null;
    let importedMs = null;
    // Import JSON is a label over a file input; a file chosen at once (the
    // worst case: a person choosing takes longer, while Import's chunk
    // loads) is read and shown once the chunk is in.
    const button = page.locator('.toolbar__import');
    if (await button.count()) {
      const t0 = Date.now();
      const chooser = page.waitForEvent('filechooser', { timeout: 30_000 });
      await button.click();
      await (await chooser).setFiles(CAPTURE);
      importMs = Date.now() - t0;
      await page.waitForSelector('.capture__summary', { timeout: 60_000 });
      importedMs = Date.now() - t0;
    }
    return { firstRow, firstPaint, bytes, importMs, importedMs };
  } finally {
    await context.close();
  }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const spread = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const kb = (b) => `${(b / 1000).toFixed(1)} kB`;

const o = options(process.argv);
const server = await serve(o.dist, undefined, { gzip: true });
const rows = [];
try {
  for (const [name, query] of [['default page', ''], ['embed', '?embed=1']]) {
    const runs = [];
    for (let i = 0; i < o.runs; i++) runs.push(await run(server.url + query, o));
    const imports = runs.map((r) => r.importMs).filter((x) => x !== null);
    const imported = runs.map((r) => r.importedMs).filter((x) => x !== null);
    const ms = (x) => `${Math.round(x)} ms`;
    rows.push(`| ${name} | ${spread(runs.map((r) => r.firstRow), seconds)} | ${spread(runs.map((r) => r.firstPaint), seconds)} | ${spread(runs.map((r) => r.bytes), kb)} | ${imports.length ? spread(imports, ms) : '(no Import)'} | ${imported.length ? spread(imported, ms) : '(no Import)'} |`);
  }
} finally {
  server.close();
}
const link = o.fast ? 'no throttling' : 'slow 4G (1.6 Mbps, 150 ms), CPU 4x slower';
console.log(`${link}, ${PHONE.width}x${PHONE.height}, cold cache, median (min–max) of ${o.runs}\n`);
console.log('| page | navigation to the first trace row | to the first text painted | transferred before the row | Import JSON clicked to its file chooser | clicked to the capture shown |');
console.log('|---|---|---|---|---|---|');
console.log(rows.join('\n'));
