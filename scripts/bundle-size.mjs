// Reports the release bundle's transfer size (gzip) per file and fails when
// the first view or the whole exceeds its budget.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

import { splitPoints } from './split-points.mjs';

// 250 kB until the page took in real traffic, subscribers and probe
// reports (257.0 kB with all three); 258 kB until the simulator's actors
// became types that answer with effects (+3.8 kB) and the page's
// view-models moved into the model (262.4 kB); then push notifications in
// the simulator (270.5 kB): 272 kB. Back to 258 kB once the page's views
// were type-erased and the CSS minified (257.5 kB); 262 kB once Import
// judged every event by its wire's schema and showed progress (SPEC §13,
// +4.2 kB); 266 kB once the model read like a protocol crate (each actor
// its own inputs, the readers' typed errors: 265.1 kB); 270 kB with SPEC
// §14's first combinations (progress, result=last, push across the turns:
// 268.2 kB); 272 kB with every combination of §14 modelled (270.8 kB);
// 292 kB once Import explains a task by a scenario and opens it beside its
// simulation (issue 33: the event reader kept for it, the scenario reader,
// the view beside, an event resent read back; 291.3 kB; a task over
// several streams is read by the CLI only); 299 kB once the page explains a
// capture's tasks within a budget, one task a step, the SDK its bytes name
// first (issue 40: 298.6 kB); 313 kB once the page reads a task over
// several streams as `check` does, and explains a task when it is opened
// (312.6 kB); 315 kB with @a2a-js/sdk's stream kept open at AUTH_REQUIRED
// and its blocking flow's parts modelled (issue 41: 314.0 kB); 321 kB once
// the page explains a task in slices that never hold it, with Stop (issue
// 40: 320.0 kB); 325 kB with a2a-rs as a third SDK profile (issue 42:
// 324.1 kB); 326 kB once any two of the three SDKs are compared, each
// side read off its profile row, with an SSE event's id line read as a
// sign and a bare error object as the error it says (issue 42: 325.9 kB);
// 327 kB once a stream ended by an error event is explained with that end
// (issue 40: 326.9 kB): docs/performance.md says what grew and what was
// cut at each step.
//
// Since the split (issue 45) the page loads in two parts, each with its own
// budget: the first view (everything the page fetches before it shows the
// first trace row: the HTML, CSS, the loaders and the first view's module)
// and the chunks loaded on first use (src/ui/deferred.rs), each named with
// the split points (features) that load it, as __wasm_split.js says.
// The whole keeps a budget too: a split costs some bytes (each chunk's
// imports and table entries, what several chunks share), which readers who
// open everything pay; it was at most 10% over the unsplit page's 327 kB
// (see BUDGET below for what came since).
// The first view's budget was 219 kB at the split (218.1 kB); 209 kB once
// the Unicode case tables left it and wasm-bindgen's loader was minified
// (208.2 kB); 200 kB once JSON's writers left it (198.6 kB).
// The whole is budgeted without Live (issue 59): the chunks only the Live
// view loads are fetched only by a page opened from `a2a-lab serve --agent`
// on the user's own machine, never by the lab on a docs page; they have a
// budget of their own. The whole was 327 kB + 10% (359.7 kB) until the
// capture reader read a session's requests and judged a continuation
// (2.4 kB), and the code Import shares with Live went to chunks of its own,
// so that Import never fetches Live (1 kB in all): 362 kB.
// Live's own chunks were budgeted 40 kB (34.8 kB at first); 48 kB once Live
// judged each line as it came (one reader kept, its report taken so far),
// listed tasks, and followed the webhook's POSTs and judged them beside the
// session (46.5 kB). They come only from `a2a-lab serve --agent` on the
// user's own machine, over loopback, never over a network to a docs page;
// the budget still says when they grow.
const FIRST_VIEW_BUDGET = 200 * 1024;
const BUDGET = 362 * 1024;
const LIVE_BUDGET = 48 * 1024;
const dir = process.argv[2] || 'dist';

const loaderPath = join(dir, '__wasm_split.js');
if (!existsSync(loaderPath)) { console.error(`${loaderPath} missing: the page was not split (scripts/split-wasm.sh)`); process.exit(1); }
const points = splitPoints(readFileSync(loaderPath, 'utf8'));
// The stylesheets the chunks link when they first show: loaded on first
// use, with their chunks (src/ui/live/mod.rs; ui/capture.rs, ui/compare.rs
// and ui/app.rs's panels below the trace).
points.set('live.css', ['live']);
points.set('panels.css', ['compare', 'import', 'rest']);
const first = [], lazy = [];
for (const name of readdirSync(dir)) {
  const path = join(dir, name);
  if (!statSync(path).isFile()) continue;
  const gz = gzipSync(readFileSync(path), { level: 9 }).length;
  if (points.has(name)) lazy.push([name, gz, points.get(name)]);
  else if (name.endsWith('.wasm') && name !== 'a2a-lifecycle-lab_bg.wasm') {
    console.error(`${name}: a module that neither the first view nor the split loader names`);
    process.exit(1);
  } else first.push([name, gz]);
}
const kB = (n) => `${(n / 1024).toFixed(1).padStart(8)} kB`;
const sum = (rows) => rows.reduce((a, r) => a + r[1], 0);
console.log('the first view (before the first trace row):');
for (const [name, gz] of first.sort((a, b) => b[1] - a[1])) console.log(`${kB(gz)}  ${name}`);
console.log(`${kB(sum(first))}  first view (gzip), budget ${FIRST_VIEW_BUDGET / 1024} kB`);
console.log('loaded on first use:');
for (const [name, gz, by] of lazy.sort((a, b) => b[1] - a[1])) console.log(`${kB(gz)}  ${name}  (${by.join(', ')})`);
const liveOnly = lazy.filter(([, , by]) => by.length === 1 && by[0] === 'live');
const total = sum(first) + sum(lazy) - sum(liveOnly);
console.log(`${kB(total)}  total without Live's own chunks (gzip), budget ${(BUDGET / 1024).toFixed(1)} kB`);
console.log(`${kB(sum(liveOnly))}  Live's own chunks (gzip), budget ${(LIVE_BUDGET / 1024).toFixed(1)} kB`);
let over = false;
if (lazy.length === 0) { console.error('no chunk loaded on first use: the split points are gone'); over = true; }
if (sum(first) > FIRST_VIEW_BUDGET) { console.error('the first view is over its budget'); over = true; }
if (total > BUDGET) { console.error('the bundle is over its budget'); over = true; }
if (sum(liveOnly) > LIVE_BUDGET) { console.error('Live\'s chunks are over their budget'); over = true; }
if (over) process.exit(1);
