// Which split points (src/ui/deferred.rs) load each chunk of the split
// page, as its loader (__wasm_split.js, written by wasm-split-cli and
// minified by scripts/split-wasm.sh in release builds) says: for the size
// test (scripts/bundle-size.mjs) and the end-to-end tests.
//
// Read off the code, not its comments, so that the minified loader reads
// as the one wasm-split-cli wrote: each module is a loader bound to a name
// (`const __chunk_6 = makeLoad(() => { const src = fetch(new URL("./chunk_6.wasm"`,
// minified `o=e(()=>{const t=fetch(new URL("./chunk_6.wasm"`), and a split
// point's own module `split_NAME.wasm` lists the loaders of the chunks it
// needs after it (`}, [__chunk_6, __chunk_7])`, minified `},[o,m])`).

/** Chunk file -> the split points that load it, read off the loader. */
export function splitPoints(loader) {
  const fileOf = new Map();
  const bound = /(\w+)\s*=\s*(?:\w+\(\s*)?\w+\(\s*\(\)\s*=>\s*\{\s*const\s+\w+\s*=\s*fetch\(new URL\("\.\/([\w.]+)"/g;
  for (const m of loader.matchAll(bound)) fileOf.set(m[1], m[2]);
  const points = new Map();
  const needs = /fetch\(new URL\("\.\/(split_(\w+)\.wasm)"[^[]*\[([\w,\s]*)\]/g;
  for (const m of loader.matchAll(needs)) {
    const [, file, point, deps] = m;
    points.set(file, [point]);
    for (const dep of deps.split(',').map((d) => d.trim()).filter(Boolean)) {
      const chunk = fileOf.get(dep);
      if (chunk) points.set(chunk, [...(points.get(chunk) || []), point].sort());
    }
  }
  return points;
}
