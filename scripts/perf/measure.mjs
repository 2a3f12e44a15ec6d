// Measures the performance budgets of the issue and prints one table:
// the bundle, the page in headless Chromium (first render, a control
// change, a 10,000-row trace, memory), the ledger in WebAssembly against a
// JavaScript reducer in the same page, `a2a-lab reduce` against node on a
// 1,000,000-event file, and the criterion results already on disk.
//
// Not a test: it always exits 0 unless it cannot start at all. A failing
// measurement prints "error: …" in its row and the rest still runs.
//
//   PATH=$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH trunk build --release --features bench-exports --dist /tmp/perf-dist
//   cargo build --release --bin a2a-lab
//   node scripts/perf/measure.mjs --dist /tmp/perf-dist [--md /tmp/perf.md] [--json /tmp/perf.json]
//
// Options: --dist DIR (default dist), --cli PATH (default
// target/release/a2a-lab), --events FILE (default /tmp/a2a-lab-events-1m.json,
// generated when missing), --n N (in-page benchmark events, default
// 1000000), --reps R (repetitions for the heavier measurements, default 5),
// --skip page,cli,bench,criterion (comma-separated groups to leave out).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync,
  rmSync, statSync, writeFileSync,
} from 'node:fs';
import { cpus, freemem, loadavg, totalmem, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

import { serve, launch } from '../../tests/e2e/harness.mjs';
import { writeEventsFile } from './gen-events.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const HERE = new URL('./', import.meta.url).pathname;

// ---------------------------------------------------------------- options

function options(argv) {
  const o = {
    dist: join(ROOT, 'dist'), cli: join(ROOT, 'target/release/a2a-lab'), events: '/tmp/a2a-lab-events-1m.json',
    n: 1_000_000, reps: 5, seed: 42, skip: new Set(), md: null, json: null,
  };
  for (let i = 2; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    const take = () => { i++; if (v === undefined) throw new Error(`${k} needs a value`); return v; };
    if (k === '--dist') o.dist = take();
    else if (k === '--cli') o.cli = take();
    else if (k === '--events') o.events = take();
    else if (k === '--n') o.n = Number(take());
    else if (k === '--reps') o.reps = Math.max(1, Number(take()));
    else if (k === '--seed') o.seed = Number(take());
    else if (k === '--skip') o.skip = new Set(take().split(','));
    else if (k === '--md') o.md = take();
    else if (k === '--json') o.json = take();
    else if (k === '--help' || k === '-h') {
      console.log(readFileSync(new URL(import.meta.url)).toString().split('\n').filter((l) => l.startsWith('//')).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown option ${k}`);
  }
  return o;
}

// ---------------------------------------------------------------- table

const rows = [];
/** One table row. `result`: pass | aim missed | over budget | info | error. */
function row(metric, budget, measured, result = 'info') {
  rows.push({ metric, budget, measured, result });
  console.error(`  ${metric}: ${measured} [${result}]`);
}
function errorRow(metric, budget, e) {
  row(metric, budget, `error: ${String(e?.message ?? e).split('\n')[0].slice(0, 160)}`, 'error');
}
/** Runs one group of measurements; an exception becomes an error row. */
async function group(name, metric, budget, fn) {
  console.error(`# ${name}`);
  try { await fn(); } catch (e) { errorRow(metric, budget, e); }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => (x >= 100 ? `${x.toFixed(0)} ms` : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`);
const kB = (b) => `${(b / 1024).toFixed(1)} kB`;
const MiB = (b) => `${(b / 1048576).toFixed(1)} MiB`;
const verdict = (ok, hard) => (ok ? 'pass' : hard ? 'over budget' : 'aim missed');
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const spread = (xs) => `min ${ms(Math.min(...xs))}, mean ${ms(mean(xs))}, max ${ms(Math.max(...xs))}, n=${xs.length}`;

function printTable() {
  const head = ['metric', 'budget / aim', 'measured', 'result'];
  const body = rows.map((r) => [r.metric, r.budget, r.measured, r.result]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const b of body) console.log(line(b));
}

function markdownTable() {
  const esc = (s) => s.replaceAll('|', '\\|');
  const out = ['| metric | budget / aim | measured | result |', '|---|---|---|---|'];
  for (const r of rows) out.push(`| ${esc(r.metric)} | ${esc(r.budget)} | ${esc(r.measured)} | ${esc(r.result)} |`);
  return out.join('\n');
}

// ---------------------------------------------------------------- machine

function machine(chromiumVersion, loadAtStart) {
  const sh = (cmd, args) => { try { return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd(); } catch { return '?'; } };
  const cpu = (() => {
    try { return readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? cpus()[0]?.model; } catch { return cpus()[0]?.model; }
  })();
  return {
    date: new Date().toISOString(),
    nproc: sh('nproc', []),
    cpu,
    memory: sh('free', ['-h']),
    total_memory: MiB(totalmem()), free_memory: MiB(freemem()),
    kernel: sh('uname', ['-sr']),
    load: loadavg().map((x) => x.toFixed(2)).join(' '),
    load_start: loadAtStart.map((x) => x.toFixed(2)).join(' '),
    node: process.version,
    chromium: chromiumVersion ?? '?',
    commit: sh('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']),
    dirty: sh('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no']).length > 0,
  };
}

// ---------------------------------------------------------------- bundle

function bundle(dist) {
  const BUDGET = 250 * 1024; // as scripts/bundle-size.mjs (CI)
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const raw = readFileSync(path);
        files.push({ name: relative(dist, path), raw: raw.length, gz: gzipSync(raw, { level: 9 }).length });
      }
    }
  };
  walk(dist);
  if (files.length === 0) throw new Error(`${dist} is empty: build first`);
  files.sort((a, b) => b.gz - a.gz);
  const total = files.reduce((s, f) => s + f.gz, 0);
  row('bundle: whole transfer, gzip -9', '≤ 250 kB', `${kB(total)} (${files.length} files, ${kB(files.reduce((s, f) => s + f.raw, 0))} raw)`, verdict(total <= BUDGET, true));
  for (const f of files) {
    row(`bundle: ${f.name}`, '', `${kB(f.gz)} gzip (${(100 * f.gz / total).toFixed(1)} %), ${kB(f.raw)} raw`);
  }
}

// ---------------------------------------------------------------- page

/** A copy of the bundle plus the perf modules, so the page can import them (CSP: 'self'). */
function stage(dist) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-perf-stage-'));
  cpSync(dist, dir, { recursive: true });
  mkdirSync(join(dir, 'perf'));
  // As .js: the harness's server gives .js the JavaScript MIME type modules need.
  for (const f of ['gen-events', 'js-reducer']) copyFileSync(join(HERE, `${f}.mjs`), join(dir, 'perf', `${f}.js`));
  return dir;
}

async function newPage(context, { noCache = false } = {}) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const cdp = await context.newCDPSession(page);
  if (noCache) {
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  }
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { page, cdp, errors };
}

// In-page helpers, installed before the page's own scripts run.
function installProbes() {
  const perf = (window.__perf = {});
  const mo = new MutationObserver(() => {
    if (perf.firstRow === undefined && document.querySelector('.event-table tbody tr')) {
      perf.firstRow = performance.now();
      mo.disconnect();
      // The frame that shows it: rAF runs before paint; a task posted from
      // it runs after that frame's rendering.
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => { perf.firstRowFrame = performance.now(); };
        ch.port2.postMessage(0);
      });
    }
  });
  mo.observe(document, { childList: true, subtree: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') perf.fcp = e.startTime;
  }).observe({ type: 'paint', buffered: true });
}

async function firstRender(context, url, reps) {
  const dom = [], frame = [], fcp = [];
  for (let r = 0; r < reps; r++) {
    const { page, errors } = await newPage(context, { noCache: true });
    await page.addInitScript(installProbes);
    await page.goto(url);
    await page.waitForFunction(() => window.__perf?.firstRowFrame !== undefined, null, { timeout: 30000 });
    // The paint entry arrives when the compositor presents the frame, later.
    await page.waitForFunction(() => window.__perf.fcp !== undefined, null, { timeout: 3000 }).catch(() => {});
    const t = await page.evaluate(() => ({
      dom: window.__perf.firstRow,
      frame: window.__perf.firstRowFrame,
      fcp: window.__perf.fcp ?? NaN,
    }));
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    dom.push(t.dom); frame.push(t.frame); fcp.push(t.fcp);
    await page.close();
  }
  const m = median(frame);
  row('page: first render of the defaults (navigation start → frame showing the first table row, cache off)', '≤ 300 ms',
    `${ms(m)} (${spread(frame)}; rows in DOM at ${ms(median(dom))}; first-contentful-paint entry ${ms(median(fcp))})`, verdict(m <= 300));
}

async function controlChange(context, url, reps) {
  const { page, errors } = await newPage(context);
  await page.goto(url);
  await page.waitForSelector('.event-table tbody tr');
  const res = await page.evaluate(async ({ reps }) => {
    // Waits for every microtask the event queued (Leptos updates the DOM in microtasks).
    const settle = () => new Promise((r) => { const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); });
    const metric = () => document.querySelector('[data-metric="final_state"] .metric__value')?.textContent;
    const sel = document.querySelector('#key-ending');
    const work = [], frames = [], layout = [];
    for (let k = 0; k < reps; k++) {
      const to = k % 2 === 0 ? 'fail' : 'complete';
      const before = metric();
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))); // start right after a frame
      const t0 = performance.now();
      sel.value = to;
      sel.dispatchEvent(new Event('change', { bubbles: true }));
      await settle();
      const tj = performance.now();
      void document.body.offsetHeight; // style + layout of the new DOM
      const t1 = performance.now();
      layout.push(t1 - tj);
      if (metric() === before) throw new Error(`final_state did not change after ending=${to}`);
      await new Promise((r) => requestAnimationFrame(r));
      await settle();
      frames.push(performance.now() - t0);
      work.push(t1 - t0);
    }
    return { work, frames, layout };
  }, { reps });
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  const m = median(res.work);
  row('page: a control change re-renders, defaults (ending complete ⇄ fail: change event → DOM updated + style/layout)', '≤ 16 ms',
    `${ms(m)} (${spread(res.work)}; of which style/layout ${ms(median(res.layout))}; to the end of the next frame ${ms(median(res.frames))})`, verdict(m <= 16));
  await page.close();
}

async function bigTrace(context, url, scrubMoves, reps) {
  const { page, cdp, errors } = await newPage(context);
  await page.goto(`${url}?chunks=10000&step=0`);
  await page.waitForFunction(() => /step 0 \/ [1-9]/.test(document.querySelector('.playback__position')?.textContent ?? ''), null, { timeout: 60000 });
  const res = await page.evaluate(async ({ scrubMoves, reps }) => {
    // Waits for every microtask the event queued (Leptos updates the DOM in microtasks).
    const settle = () => new Promise((r) => { const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); });
    const pos = () => document.querySelector('.playback__position')?.textContent ?? '';
    const count = () => document.querySelectorAll('.event-table tbody tr').length;
    const slider = document.querySelector('.playback input[type=range]');
    const showAll = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Show all');
    const len = Number(slider.max);
    const layout = { show: [], move: [] };
    const move = async (p) => {
      const t0 = performance.now();
      slider.value = String(p);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      await settle();
      const tj = performance.now();
      void document.body.offsetHeight;
      const t = performance.now() - t0;
      layout.move.push(performance.now() - tj);
      if (pos() !== `step ${p} / ${len}`) throw new Error(`slider at ${p} shows "${pos()}"`);
      return t;
    };
    let maxRows = 0;
    const show = [];
    for (let r = 0; r < reps; r++) {
      await move(0);
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const t0 = performance.now();
      showAll.click();
      await settle();
      const tj = performance.now();
      void document.body.offsetHeight;
      show.push(performance.now() - t0);
      layout.show.push(performance.now() - tj);
      if (pos() !== `step ${len} / ${len}`) throw new Error(`Show all shows "${pos()}"`);
      maxRows = Math.max(maxRows, count());
    }
    const lastCell = document.querySelector('.event-table tbody tr:last-child td')?.textContent;
    const jumps = [], steps = [];
    for (let k = 0; k < scrubMoves; k++) {
      // Across the whole trace, alternating ends, so each move replaces the window.
      const p = k % 2 === 0 ? Math.round(((k + 1) * len) / (scrubMoves + 1)) : len - Math.round((k * len) / (scrubMoves + 1));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      jumps.push(await move(Math.max(1, Math.min(len, p))));
      maxRows = Math.max(maxRows, count());
    }
    let p = Math.floor(len / 2);
    for (let k = 0; k < scrubMoves; k++) {
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      steps.push(await move(++p)); // one row at a time, as a drag does
      maxRows = Math.max(maxRows, count());
    }
    return { len, show, lastCell, jumps, steps, maxRows, layout, nodes: document.getElementsByTagName('*').length };
  }, { scrubMoves, reps });
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  const s = median(res.show), j = median(res.jumps), st = median(res.steps);
  row(`page: 10,000-chunk trace (${res.len} rows): Show all (click → DOM updated + layout)`, '< 16 ms',
    `${ms(s)} (${spread(res.show)}; of which style/layout ${ms(median(res.layout.show))}; last row #${res.lastCell})`, verdict(s < 16));
  row('page: 10,000-row trace: slider scrub per move, jumps across the trace', '< 16 ms',
    `${ms(j)} median (${spread(res.jumps)}; style/layout ${ms(median(res.layout.move))} median over all moves)`, verdict(j < 16));
  row('page: 10,000-row trace: slider scrub per move, one row at a time', '< 16 ms',
    `${ms(st)} median (${spread(res.steps)})`, verdict(st < 16));
  row('page: 10,000-row trace: table rows in the DOM (max seen)', 'bounded, ≪ 10,000',
    `${res.maxRows} rows (${res.nodes} elements in the whole document)`, verdict(res.maxRows <= 500));
  return { page, cdp, errors };
}

async function pageMemory({ page, cdp }) {
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const get = (name) => metrics.find((m) => m.name === name)?.value ?? NaN;
  const inPage = await page.evaluate(async () => {
    const mod = await import(new URL('a2a-lifecycle-lab.js', location.href).href);
    const wasm = await mod.default(); // already initialised by boot.js: returns its exports
    return {
      wasm: wasm.memory.buffer.byteLength,
      perfMemory: performance.memory?.usedJSHeapSize ?? null,
      live: {
        rows: document.querySelectorAll('.event-table tbody tr').length,
        slider: !!document.querySelector('.playback input[type=range]'),
        svgs: document.querySelectorAll('svg').length,
      },
    };
  });
  const heap = get('JSHeapUsedSize');
  const total = heap + inPage.wasm;
  row('page memory, 10,000-chunk trace live (CDP JSHeapUsedSize after GC + WebAssembly memory)', '< 64 MiB',
    `${MiB(total)} (JS heap ${MiB(heap)} used of ${MiB(get('JSHeapTotalSize'))}, wasm memory ${MiB(inPage.wasm)}; ` +
    `${inPage.live.rows} rows, slider ${inPage.live.slider ? 'on' : 'MISSING'}, ${inPage.live.svgs} svg, ${get('Nodes')} DOM nodes)`,
    verdict(total < 64 * 1048576));
}

async function ledgerInPage(context, url, n, seed, reps) {
  const { page, errors } = await newPage(context);
  await page.goto(url);
  await page.waitForSelector('.event-table tbody tr');
  const res = await page.evaluate(async ({ n, seed, reps }) => {
    const base = location.href;
    const lab = await import(new URL('a2a-lifecycle-lab.js', base).href);
    const { generate } = await import(new URL('perf/gen-events.js', base).href);
    const { reduce } = await import(new URL('perf/js-reducer.js', base).href);
    // The generator twins must agree: a few small runs with other seeds.
    const agree = [];
    for (let s = 0; s < 64; s++) {
      const seed = Math.imul(s, 0x9e3779b9) >>> 0;
      lab.benchPrepare(500, seed);
      agree.push([lab.benchRun(), reduce(generate(500, seed)).sequence]);
    }
    // A tenth of the events first, for the linearity check.
    const small = { wasm: [], js: [] };
    {
      const m = Math.max(1, Math.floor(n / 10));
      lab.benchPrepare(m, seed);
      const ev = generate(m, seed);
      for (let r = 0; r < reps; r++) {
        let t = performance.now(); lab.benchRun(); small.wasm.push(performance.now() - t);
        t = performance.now(); reduce(ev); small.js.push(performance.now() - t);
      }
      small.n = m;
    }
    let t = performance.now();
    lab.benchPrepare(n, seed);
    const prepareWasm = performance.now() - t;
    t = performance.now();
    const events = generate(n, seed);
    const prepareJs = performance.now() - t;
    const wasm = [], js = [];
    let wasmSeq, jsSeq, accepted;
    for (let r = 0; r < reps; r++) {
      t = performance.now();
      wasmSeq = lab.benchRun();
      wasm.push(performance.now() - t);
      t = performance.now();
      const out = reduce(events);
      js.push(performance.now() - t);
      jsSeq = out.sequence;
      accepted = out.accepted.length;
      await new Promise((r) => setTimeout(r, 0));
    }
    return { agree, prepareWasm, prepareJs, wasm, js, wasmSeq, jsSeq, accepted, small };
  }, { n, seed, reps });
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await page.close();
  const bad = res.agree.filter(([a, b]) => a !== b);
  if (bad.length || res.wasmSeq !== res.jsSeq) {
    throw new Error(`wasm and JS disagree: accepted sequence ${res.wasmSeq} vs ${res.jsSeq}; small runs ${JSON.stringify(res.agree)}`);
  }
  const w = median(res.wasm), j = median(res.js);
  row(`ledger in WebAssembly, headless Chromium (${n.toLocaleString('en')} generated events, seed ${seed})`, '',
    `${ms(w)} median = ${(n / w / 1000).toFixed(2)} M events/s (${spread(res.wasm)}; benchPrepare ${ms(res.prepareWasm)}, untimed)`);
  row('JavaScript reducer (Set of seen ids), same page, same events', '',
    `${ms(j)} median = ${(n / j / 1000).toFixed(2)} M events/s (${spread(res.js)}; generate ${ms(res.prepareJs)}, untimed)`);
  row('ledger: WebAssembly vs JavaScript in the same page (JS time / wasm time)', '≥ 3×',
    `${(j / w).toFixed(2)}× on medians, ${(mean(res.js) / mean(res.wasm)).toFixed(2)}× on means (both accept sequence ${res.wasmSeq}; generator twins agree on 64 more seeds × 500 events)`, verdict(j / w >= 3));
  const sw = median(res.small.wasm), sj = median(res.small.js);
  const lw = (w / n) / (sw / res.small.n), lj = (j / n) / (sj / res.small.n);
  row(`ledger in WebAssembly: linear (per-event cost at ${n} vs ${res.small.n})`, '≤ 2× (linear)',
    `${lw.toFixed(2)}× (${(sw / res.small.n * 1e6).toFixed(0)} → ${(w / n * 1e6).toFixed(0)} ns each; JavaScript ${lj.toFixed(2)}×)`, verdict(lw <= 2));
}

// ---------------------------------------------------------------- CLI

/** Runs a command with stdout to `out` (a path or /dev/null): wall ms and peak RSS bytes. */
async function runMeasured(cmd, args, out = '/dev/null') {
  const fd = openSync(out, 'w');
  try {
    if (existsSync('/usr/bin/time')) {
      const rss = join(tmpdir(), `a2a-perf-time-${process.pid}.txt`);
      const t0 = process.hrtime.bigint();
      const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rss, cmd, ...args], { stdio: ['ignore', fd, 'pipe'], maxBuffer: 1 << 26 });
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${String(r.stderr).trim().slice(0, 200)}`);
      const kb = Number(readFileSync(rss, 'utf8').trim().split('\n').pop());
      rmSync(rss, { force: true });
      return { wall, rss: kb * 1024 };
    }
    // No GNU time: poll /proc/PID/status for VmHWM (the kernel's peak RSS).
    return await new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = spawn(cmd, args, { stdio: ['ignore', fd, 'pipe'] });
      let hwm = 0, stderr = '';
      child.stderr.on('data', (d) => { stderr += d; });
      const poll = setInterval(() => {
        try {
          const m = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
          if (m) hwm = Math.max(hwm, Number(m[1]) * 1024);
        } catch { /* gone */ }
      }, 2);
      child.on('error', (e) => { clearInterval(poll); reject(e); });
      child.on('exit', (code) => {
        clearInterval(poll);
        const wall = Number(process.hrtime.bigint() - t0) / 1e6;
        if (code !== 0) reject(new Error(`${cmd} exited ${code}: ${stderr.trim().slice(0, 200)}`));
        else resolve({ wall, rss: hwm, polled: true });
      });
    });
  } finally {
    closeSync(fd);
  }
}

async function cliVsNode(o) {
  if (!existsSync(o.cli)) throw new Error(`${o.cli} missing: cargo build --release --bin a2a-lab`);
  if (!existsSync(o.events)) await writeEventsFile(o.events, 1_000_000, o.seed);
  const size = statSync(o.events).size;
  const count = 1_000_000; // as written by gen-events.mjs
  const rust = [o.cli, ['reduce', o.events]];
  const node = [process.execPath, [join(HERE, 'js-reducer.mjs'), o.events]];
  // Same answer, byte for byte (untimed).
  const a = join(tmpdir(), 'a2a-perf-reduce-rust.json'), b = join(tmpdir(), 'a2a-perf-reduce-node.json');
  await runMeasured(...rust, a);
  await runMeasured(...node, b);
  const digest = (p) => createHash('sha256').update(readFileSync(p)).digest('hex');
  const same = digest(a) === digest(b);
  const accepted = JSON.parse(readFileSync(a, 'utf8')).sequence;
  rmSync(a, { force: true }); rmSync(b, { force: true });
  if (!same) throw new Error('a2a-lab reduce and the JavaScript reducer print different answers');
  const R = [], N = [];
  for (let r = 0; r < o.reps; r++) { R.push(await runMeasured(...rust)); N.push(await runMeasured(...node)); }
  const rw = median(R.map((x) => x.wall)), nw = median(N.map((x) => x.wall));
  const rr = median(R.map((x) => x.rss)), nr = median(N.map((x) => x.rss));
  const how = R[0].polled ? 'VmHWM polled' : '/usr/bin/time %M';
  row(`a2a-lab reduce, whole process, ${count.toLocaleString('en')}-event file (${(size / 1e6).toFixed(1)} MB)`, '',
    `${ms(rw)} median (${spread(R.map((x) => x.wall))}) = ${(count / rw / 1000).toFixed(2)} M events/s`);
  row('node scripts/perf/js-reducer.mjs, whole process, same file', '',
    `${ms(nw)} median (${spread(N.map((x) => x.wall))}); peak RSS ${MiB(nr)}`);
  // Where node's time goes, in a fresh process each time.
  const phases = [];
  const code = `import { readFileSync } from 'node:fs'; import { reduce } from ${JSON.stringify(join(HERE, 'js-reducer.mjs'))};
    const t0 = performance.now(); const events = JSON.parse(readFileSync(process.argv[1], 'utf8'));
    const t1 = performance.now(); const out = reduce(events);
    const t2 = performance.now(); const text = JSON.stringify(out);
    const t3 = performance.now(); console.log(JSON.stringify([t1 - t0, t2 - t1, t3 - t2]));`;
  for (let r = 0; r < Math.min(3, o.reps); r++) {
    phases.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code, o.events], { encoding: 'utf8' })));
  }
  const ph = [0, 1, 2].map((i) => median(phases.map((x) => x[i])));
  row('node phases (in-process): read + JSON.parse / reduce / JSON.stringify', '',
    `${ms(ph[0])} / ${ms(ph[1])} / ${ms(ph[2])} (median of ${phases.length})`);
  row('a2a-lab reduce vs node (node time / a2a-lab time)', '≥ 4×',
    `${(nw / rw).toFixed(2)}× (identical output, accepted sequence ${accepted})`, verdict(nw / rw >= 4));
  row('a2a-lab reduce peak resident memory, 1,000,000-event file', '< 150 MiB',
    `${MiB(rr)} (${how}; max ${MiB(Math.max(...R.map((x) => x.rss)))})`, verdict(rr < 150 * 1048576, true));
}

// ---------------------------------------------------------------- criterion

function criterion() {
  const dir = join(ROOT, 'target/criterion');
  const found = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (!statSync(p).isDirectory()) continue;
      if (name === 'new' && existsSync(join(p, 'estimates.json')) && existsSync(join(p, 'benchmark.json'))) found.push(p);
      else if (name !== 'report' && name !== 'base' && name !== 'change') walk(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  if (found.length === 0) {
    row('criterion (cargo bench)', '', 'not run: no target/criterion/*/new/estimates.json (run `cargo bench`)');
    return;
  }
  const results = found.map((p) => {
    const est = JSON.parse(readFileSync(join(p, 'estimates.json'), 'utf8'));
    const meta = JSON.parse(readFileSync(join(p, 'benchmark.json'), 'utf8'));
    const ns = (est.median ?? est.mean).point_estimate;
    const elements = meta.throughput?.Elements ?? null;
    return { id: meta.full_id, group: meta.group_id, ns, elements, when: statSync(join(p, 'estimates.json')).mtime };
  }).sort((x, y) => x.group.localeCompare(y.group) || (x.elements ?? 0) - (y.elements ?? 0) || x.id.localeCompare(y.id));
  const time = (ns) => (ns >= 1e9 ? `${(ns / 1e9).toFixed(3)} s` : ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`);
  const stamp = (d) => d.toISOString().slice(0, 16).replace('T', ' ');
  // Results older than the last commit touching the code they measure are stale.
  const LEDGER = ['src/model/ledger.rs', 'src/model/receipt_log.rs', 'src/model/state.rs', 'src/model/seed_form.rs', 'benches/ledger.rs', 'Cargo.toml'];
  const changedAt = (paths) => {
    try {
      return 1000 * Number(execFileSync('git', ['-C', ROOT, 'log', '-1', '--format=%ct', '--', ...paths, 'Cargo.lock'], { encoding: 'utf8' }).trim());
    } catch { return 0; } // not a git checkout
  };
  const changed = { ledger: changedAt(LEDGER), other: changedAt(['src/model', 'benches']) };
  for (const r of results) {
    const rate = r.elements ? `, ${(r.elements / r.ns * 1e3).toFixed(2)} M elements/s, ${(r.ns / r.elements).toFixed(1)} ns each` : '';
    // The aim is the ledger on a stream (`apply_all`, events laid out as a
    // parser leaves them); `apply/N` (one owned event at a time) is shown for
    // comparison.
    const isLedger1M = r.id.startsWith('ledger/apply_all/') && r.elements === 1_000_000;
    const ok = isLedger1M ? r.elements / r.ns * 1e3 >= 10 : null;
    const c = r.group === 'ledger' ? changed.ledger : changed.other;
    const stale = r.when.getTime() < c
      ? `; STALE: ${r.group === 'ledger' ? 'the ledger code' : 'src/model or benches'} changed in a commit at ${stamp(new Date(c))}` : '';
    row(`criterion ${r.id}`, isLedger1M ? '≥ 10 M events/s' : '', `${time(r.ns)} median/iter${rate} (run ${stamp(r.when)} UTC${stale})`,
      ok === null ? 'info' : stale ? `stale (${verdict(ok)})` : verdict(ok));
    r.stale = !!stale;
  }
  // The whole-process comparison: node's time over a2a-lab's.
  const lab = results.find((r) => r.id.startsWith('reduce-process/a2a-lab/'));
  const node = results.find((r) => r.id.startsWith('reduce-process/node/'));
  if (lab && node) {
    const ratio = node.ns / lab.ns;
    row('criterion reduce-process: a2a-lab reduce vs node (node time / a2a-lab time)', '≥ 4×',
      `${ratio.toFixed(2)}× (${time(lab.ns)} against ${time(node.ns)})`,
      lab.stale || node.stale ? `stale (${verdict(ratio >= 4)})` : verdict(ratio >= 4));
  }
  // Linearity: cost per element at the two largest sizes of each group.
  const groups = new Map();
  for (const r of results) {
    if (!r.elements) continue;
    const fn = r.id.replace(/\/[^/]*\d+$/, ''); // `ledger/apply_all/1000000` → `ledger/apply_all`
    groups.set(fn, [...(groups.get(fn) ?? []), r]);
  }
  for (const [g, rs] of groups) {
    if (rs.length < 2) continue;
    const [small, big] = rs.slice(-2);
    const ratio = (big.ns / big.elements) / (small.ns / small.elements);
    row(`criterion ${g}: linear (per-element cost at ${big.elements} vs ${small.elements})`, '≤ 2× (linear)',
      `${ratio.toFixed(2)}× (${(small.ns / small.elements).toFixed(1)} → ${(big.ns / big.elements).toFixed(1)} ns each)`,
      small.stale || big.stale ? `stale (${verdict(ratio <= 2)})` : verdict(ratio <= 2));
  }
}

// ---------------------------------------------------------------- main

function chromiumVersion() {
  try {
    return execFileSync(process.env.CHROMIUM || '/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch { return null; }
}

async function main() {
  const o = options(process.argv);
  const loadAtStart = loadavg();
  let chromium = null;
  console.error(`dist ${o.dist}, cli ${o.cli}, events ${o.events}, n ${o.n}, reps ${o.reps}`);

  await group('bundle', 'bundle', '≤ 250 kB', () => bundle(o.dist));

  if (!o.skip.has('page') || !o.skip.has('bench')) {
    let server, context, dir;
    try {
      dir = stage(o.dist);
      server = await serve(dir);
      context = await launch();
      chromium = chromiumVersion();
      if (!chromium) {
        const { page } = await newPage(context);
        chromium = await page.evaluate(() => navigator.userAgent.match(/Chrome\/([\d.]+)/)?.[1]);
        await page.close();
      }
      if (!o.skip.has('page')) {
        await group('first render', 'page: first render', '≤ 300 ms', () => firstRender(context, server.url, o.reps));
        await group('control change', 'page: control change', '≤ 16 ms', () => controlChange(context, server.url, 3 * o.reps + 1));
        let big = null;
        await group('10,000-row trace', 'page: 10,000-row trace', '< 16 ms', async () => { big = await bigTrace(context, server.url, 30, o.reps); });
        await group('page memory', 'page memory', '< 64 MiB', async () => {
          if (!big) throw new Error('no 10,000-chunk page (see above)');
          await pageMemory(big);
        });
        await big?.page.close();
      }
      if (!o.skip.has('bench')) {
        await group('ledger wasm vs JS', 'ledger: wasm vs JS', '≥ 3×', () => ledgerInPage(context, server.url, o.n, o.seed, o.reps));
      }
    } catch (e) {
      errorRow('page (Chromium)', '', e);
    } finally {
      await context?.close().catch(() => {});
      server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }

  if (!o.skip.has('cli')) await group('a2a-lab reduce vs node', 'a2a-lab reduce vs node', '≥ 4×', () => cliVsNode(o));
  if (!o.skip.has('criterion')) await group('criterion', 'criterion', '', () => criterion());

  chromium ??= chromiumVersion();
  const m = machine(chromium, loadAtStart);
  console.log(`\nA2A Lifecycle Lab performance, ${m.date}, commit ${m.commit}${m.dirty ? ' (with uncommitted changes)' : ''}`);
  console.log(`machine: ${m.nproc} cores, ${m.cpu}, ${m.total_memory} RAM, ${m.kernel}, node ${m.node}, ${m.chromium}; load average (1, 5, 15 min) ${m.load_start} at the start, ${m.load} at the end\n`);
  printTable();
  const missed = rows.filter((r) => r.result !== 'pass' && r.result !== 'info');
  console.log(`\n${rows.filter((r) => r.result === 'pass').length} pass, ${missed.length} not met or errored`);
  if (o.md) {
    writeFileSync(o.md, `${markdownTable()}\n\nMachine: ${m.nproc} cores (\`nproc\`), ${m.cpu}; ${m.total_memory} RAM; ${m.kernel}; node ${m.node}; ${m.chromium}; load average (1, 5, 15 min) ${m.load_start} at the start, ${m.load} at the end; ${m.date}, commit ${m.commit}${m.dirty ? ' + uncommitted changes' : ''}.\n\n\`free -h\`:\n\n\`\`\`\n${m.memory}\n\`\`\`\n`);
  }
  if (o.json) writeFileSync(o.json, JSON.stringify({ machine: m, rows }, null, 2));
}

main().catch((e) => {
  console.error(`measure.mjs: ${e.stack ?? e}`);
  process.exit(2);
});
