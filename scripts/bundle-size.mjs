// Reports the release bundle's transfer size (gzip) per file and fails when
// the whole exceeds the budget.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

// 250 kB until the page took in real traffic, subscribers and probe
// reports (257.0 kB with all three); raised to 258 kB, not beyond:
// docs/performance.md says what grew and what was cut to make room.
const BUDGET = 258 * 1024;
const dir = process.argv[2] || 'dist';
let total = 0;
const rows = [];
for (const name of readdirSync(dir)) {
  const path = join(dir, name);
  if (!statSync(path).isFile()) continue;
  const gz = gzipSync(readFileSync(path), { level: 9 }).length;
  total += gz;
  rows.push([name, gz]);
}
rows.sort((a, b) => b[1] - a[1]);
for (const [name, gz] of rows) console.log(`${(gz / 1024).toFixed(1).padStart(8)} kB  ${name}`);
console.log(`${(total / 1024).toFixed(1).padStart(8)} kB  total (gzip), budget ${BUDGET / 1024} kB`);
if (total > BUDGET) { console.error('bundle over budget'); process.exit(1); }
