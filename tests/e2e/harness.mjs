// Reusable end-to-end harness: serves the release bundle (dist/) on
// 127.0.0.1 under a path prefix, launches Debian's Chromium through
// playwright-core, and records every request the page makes.
import { test, before, after } from 'node:test';
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { readFile, mkdtemp } from 'node:fs/promises';
import { join, extname, normalize } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.png': 'image/png',
};

/** The repository, the release bundle, the CLI and where screenshots go. */
export const ROOT = new URL('../../', import.meta.url).pathname;
export const DIST = process.env.DIST || `${ROOT}dist`;
export const CLI = process.env.A2A_LAB_CLI || `${ROOT}target/debug/a2a-lab`;
export const OUT = `${ROOT}tests/e2e/out`;
mkdirSync(OUT, { recursive: true });

const startedChildren = [];

/** Starts `command` and resolves to the first match of `pattern` in what
 * it prints on stdout (an agent's URL, the one `serve` prints); rejects
 * when it exits first. [`stopStarted`] ends every one. */
export function started(command, args, pattern, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    startedChildren.push(child);
    let said = '';
    const heard = (chunk) => {
      said += chunk;
      const found = said.match(pattern);
      if (found) resolve(found[0]);
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', (chunk) => { said += chunk; });
    child.on('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${said}`)));
  });
}

/** Ends every program [`started`] started. */
export const stopStarted = () => startedChildren.forEach((p) => p.kill('SIGKILL'));

/** What `a2a-lab ARGS...` prints. */
export const cli = (...args) => execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 1 << 26 });

/** The bundle served and a browser launched for every test of a file:
 * `lab.server` and `lab.context` once its tests run. */
export function useLab() {
  const lab = {};
  before(async () => { lab.server = await serve(DIST); lab.context = await launch(); });
  after(async () => { await lab.context?.close(); lab.server?.close(); });
  return lab;
}

/** Serves `root` at http://127.0.0.1:PORT/PREFIX/ (a documentation site's sub-path);
 * with `gzip`, each file compressed once at level 9, as a CDN sends it. */
export async function serve(root, prefix = '/tools/a2a-lab/', { gzip = false } = {}) {
  const packed = new Map();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (!url.pathname.startsWith(prefix)) { res.writeHead(404).end('not found'); return; }
    let rel = normalize(url.pathname.slice(prefix.length)).replace(/^(\.\.[/\\])+/, '');
    if (rel === '' || rel === '.') rel = 'index.html';
    try {
      const headers = { 'content-type': TYPES[extname(rel)] || 'application/octet-stream' };
      let body = await readFile(join(root, rel));
      if (gzip) {
        if (!packed.has(rel)) packed.set(rel, gzipSync(body, { level: 9 }));
        body = packed.get(rel);
        headers['content-encoding'] = 'gzip';
      }
      res.writeHead(200, headers).end(body);
    } catch { res.writeHead(404).end('not found'); }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${prefix}`, origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}

export async function launch() {
  const userDataDir = await mkdtemp(join(process.env.TMPDIR || tmpdir(), 'a2a-lab-chromium-'));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    acceptDownloads: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Opens a page, collecting console errors, page errors and every request URL. */
export async function open(context, url, viewport = { width: 1280, height: 900 }) {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const log = { errors: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error') log.errors.push(m.text()); });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('request', (r) => log.requests.push(r.url()));
  await page.goto(url);
  await page.waitForSelector('.event-table tbody tr');
  // The pictures follow once the trace has painted.
  await page.waitForSelector('.pictures .timeline');
  return { page, log };
}

/** The table's body rows as arrays of cell texts. */
export async function tableRows(page) {
  return page.$$eval('.event-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent.trim())));
}

/** A metric card's shown value. In a frame or on a phone the full set is
 * folded away, its cards built when first opened: opened as a reader
 * would, with a click. */
export async function metric(page, name) {
  if (!(await page.$eval('.metrics__all', (d) => d.open))) {
    await page.click('.metrics__toggle');
    await page.waitForSelector(`[data-metric="${name}"]`);
  }
  return page.$eval(`[data-metric="${name}"] .metric__value`, (e) => e.textContent.trim());
}
