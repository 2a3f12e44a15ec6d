#!/usr/bin/env node
// Packs the npm packages of a2a-lab with `npm pack`, at the crate's version
// (Cargo.toml), as esbuild and biome ship theirs: a main package `a2a-lab`
// whose launcher runs the binary of the one optional dependency npm
// installs for the platform, and one `@a2a-lab/PLATFORM` package each,
// holding that platform's binary.
//
//   node packaging/npm/pack.mjs main [--out DIR]
//   node packaging/npm/pack.mjs platform PLATFORM BINARY [--out DIR]
//
// PLATFORM is Node's `${process.platform}-${process.arch}` (linux-x64, ...).
// The tarballs go to DIR (default target/packages/npm); the path of each
// is printed.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');

/** Each platform the release builds, with its Rust target. */
export const PLATFORMS = {
  'linux-x64': 'x86_64-unknown-linux-gnu',
  'linux-arm64': 'aarch64-unknown-linux-gnu',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
  'win32-x64': 'x86_64-pc-windows-msvc',
};

/** The crate's version: the one every package of a release carries. */
function version() {
  const manifest = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
  const pkg = manifest.split(/^\[/m).find((section) => section.startsWith('package]'));
  const found = pkg && pkg.match(/^version\s*=\s*"([^"]+)"/m);
  if (!found) throw new Error('no version in the [package] of Cargo.toml');
  return found[1];
}

function usage(message) {
  console.error(`pack.mjs: ${message}\nusage: pack.mjs main [--out DIR] | pack.mjs platform PLATFORM BINARY [--out DIR]`);
  process.exit(2);
}

/** Lays a package out in a fresh stage folder with `write`, then packs it into `out`. */
function pack(stageName, out, write) {
  const stage = join(out, 'stage', stageName);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  write(stage);
  const json = execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, encoding: 'utf8' });
  const [{ filename }] = JSON.parse(json);
  console.log(join(out, filename));
}

const args = process.argv.slice(2);
let out = join(ROOT, 'target/packages/npm');
const outAt = args.indexOf('--out');
if (outAt >= 0) {
  if (!args[outAt + 1]) usage('--out needs a folder');
  out = resolve(args[outAt + 1]);
  args.splice(outAt, 2);
}
mkdirSync(out, { recursive: true });
const v = version();

if (args[0] === 'main' && args.length === 1) {
  pack('a2a-lab', out, (stage) => {
    const manifest = JSON.parse(readFileSync(join(HERE, 'a2a-lab/package.json'), 'utf8'));
    manifest.version = v;
    manifest.optionalDependencies = Object.fromEntries(Object.keys(PLATFORMS).map((p) => [`@a2a-lab/${p}`, v]));
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    cpSync(join(HERE, 'a2a-lab/bin'), join(stage, 'bin'), { recursive: true });
    chmodSync(join(stage, 'bin/a2a-lab.js'), 0o755);
    copyFileSync(join(HERE, 'a2a-lab/README.md'), join(stage, 'README.md'));
  });
} else if (args[0] === 'platform' && args.length === 3) {
  const [, platform, binary] = args;
  if (!(platform in PLATFORMS)) usage(`unknown platform ${platform} (one of ${Object.keys(PLATFORMS).join(', ')})`);
  const [os, cpu] = platform.split('-');
  const exe = os === 'win32' ? 'a2a-lab.exe' : 'a2a-lab';
  pack(`a2a-lab-${platform}`, out, (stage) => {
    const manifest = {
      name: `@a2a-lab/${platform}`,
      version: v,
      description: `The ${platform} binary of a2a-lab (the A2A Lifecycle Lab's command line); install a2a-lab, which runs it`,
      license: 'MIT',
      os: [os],
      cpu: [cpu],
      files: [`bin/${exe}`],
      // Package managers that keep packages zipped (Yarn PnP) must unpack this one to run it.
      preferUnplugged: true,
    };
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    mkdirSync(join(stage, 'bin'));
    copyFileSync(binary, join(stage, 'bin', exe));
    chmodSync(join(stage, 'bin', exe), 0o755);
    writeFileSync(join(stage, 'README.md'), `# @a2a-lab/${platform}\n\nThe ${platform} binary of [a2a-lab](https://www.npmjs.com/package/a2a-lab), which installs it as an optional dependency: install \`a2a-lab\`, not this package.\n`);
  });
} else {
  usage('which package?');
}
