// Which split points (src/ui/deferred.rs) load each chunk of the split
// page, as its loader (__wasm_split.js, written by wasm-split-cli) says:
// for the size test (scripts/bundle-size.mjs) and the end-to-end tests.

/** Chunk file -> the split points that load it, read off the loader. */
export function splitPoints(loader) {
  const points = new Map();
  // `/* a, b */ const __chunk_N = makeLoad(() => fetch("./chunk_N.wasm") ...`
  for (const m of loader.matchAll(/\/\* ([\w, ]+) \*\/\s*const __chunk_\w+ = makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([\w.]+)"/g)) {
    points.set(m[2], m[1].split(', '));
  }
  // `export const __wasm_split_load_NAME = ... fetch("./split_NAME.wasm")`
  for (const m of loader.matchAll(/export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([\w.]+)"/g)) {
    points.set(m[2], [m[1]]);
  }
  return points;
}
