import { serve, launch } from '../../tests/e2e/harness.mjs';
const server = await serve('/tmp/prof-dist');
const context = await launch();
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
await page.goto(server.url);
await page.waitForSelector('.event-table tbody tr');
await page.evaluate(async () => {
  const lab = await import(new URL('a2a-lifecycle-lab.js', location.href).href);
  window.lab = lab; lab.benchPrepare(1000000, 42); lab.benchRun();
});
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
await cdp.send('Profiler.start');
const times = await page.evaluate(() => { const t = []; for (let i = 0; i < 5; i++) { const s = performance.now(); window.lab.benchRun(); t.push(performance.now() - s); } return t; });
const { profile } = await cdp.send('Profiler.stop');
console.log('runs ms', times.map((t) => t.toFixed(1)).join(' '));
const self = new Map();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const counts = new Map();
for (const s of profile.samples) counts.set(s, (counts.get(s) || 0) + 1);
let total = 0;
for (const [id, c] of counts) { const n = byId.get(id); const name = n.callFrame.functionName || n.callFrame.url; self.set(name, (self.get(name) || 0) + c); total += c; }
for (const [name, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((100 * c / total).toFixed(1).padStart(5), name.slice(0, 150));
await context.close(); server.close();
