#!/usr/bin/env node
// Runs the native a2a-lab binary with this command's arguments, standard
// streams and exit code. The binary is in the one optional dependency that
// npm installed for this platform (its package.json's `os` and `cpu` say
// which), as esbuild and biome ship theirs; A2A_LAB_BINARY points at
// another build instead.
'use strict';
const { spawn } = require('node:child_process');
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

const child = spawn(binary(), process.argv.slice(2), { stdio: 'inherit' });
// A signal sent to this launcher alone (a CI job's timeout, `kill`) stops
// the binary too; at a terminal, Ctrl-C reaches both anyway.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const signal of forwarded) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  console.error(`a2a-lab: ${error.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // Stopped by a signal: this launcher stops the same way.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
