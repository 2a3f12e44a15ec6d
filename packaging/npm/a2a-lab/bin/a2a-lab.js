#!/usr/bin/env node
// Runs the native a2a-lab binary with this command's arguments, standard
// streams and exit code. The binary is in the one optional dependency that
// npm installed for this platform (its package.json's `os` and `cpu` say
// which), as esbuild and biome ship theirs; A2A_LAB_BINARY points at
// another build instead.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

function binary() {
  if (process.env.A2A_LAB_BINARY) return process.env.A2A_LAB_BINARY;
  const platform = `${process.platform}-${process.arch}`;
  const pkg = `@a2a-lab/${platform}`;
  const exe = process.platform === 'win32' ? 'a2a-lab.exe' : 'a2a-lab';
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', exe);
  } catch {
    console.error(
      `a2a-lab: ${pkg} is not installed. It is an optional dependency of a2a-lab: ` +
        'reinstall without --omit=optional (or --no-optional). ' +
        `If there is no build for ${platform}, \`pip install a2a-lab\` or ` +
        '`cargo install a2a-lifecycle-lab` give the same command.',
    );
    process.exit(1);
  }
}

const run = spawnSync(binary(), process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  console.error(`a2a-lab: ${run.error.message}`);
  process.exit(1);
}
// A binary stopped by a signal (Ctrl-C on `serve`) stops this launcher the same way.
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);
