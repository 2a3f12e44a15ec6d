// Takes the README's screenshots of each view into docs/ (run after
// `trunk build --release`): node scripts/screenshots.mjs [dist]
import { serve, launch, open } from '../tests/e2e/harness.mjs';

const dist = process.argv[2] || 'dist';
const views = [
  ['screenshot-defaults.png', '', { width: 1280, height: 900 }, null],
  ['screenshot-late-artifact-guard.png', 'late=0&guard=on', { width: 1280, height: 900 }, null],
  ['screenshot-cancel-to-thread.png', 'cancel=1&work=to_thread&step=6', { width: 1280, height: 900 }, null],
  ['screenshot-python-vs-js.png', 'late=0', { width: 1280, height: 900 }, 'button:text-is("Python vs JS")'],
  ['screenshot-t42-ledger.png', 'preset=t42', { width: 1280, height: 900 }, '.ledger-panel summary'],
  ['screenshot-phone.png', 'ending=never&cancel=3', { width: 390, height: 844 }, null],
  ['screenshot-embed.png', 'restart=2&store=database&embed=1', { width: 720, height: 480 }, null],
];
const server = await serve(dist);
const context = await launch();
for (const [file, query, viewport, click] of views) {
  const { page } = await open(context, `${server.url}?${query}`, viewport);
  if (click) await page.click(click);
  await page.waitForTimeout(150);
  await page.screenshot({ path: `docs/${file}`, fullPage: viewport.width !== 720 });
  console.log(`docs/${file}`);
  await page.close();
}
await context.close();
server.close();
