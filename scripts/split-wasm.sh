#!/usr/bin/env bash
# Trunk's post-build hook (Trunk.toml): splits the page's WebAssembly into
# the first view and the chunks it loads on first use (src/ui/deferred.rs).
#
# wasm-split works on the module as cargo linked it (with --emit-relocs,
# .cargo/config.toml), before wasm-bindgen: so this takes cargo's output,
# not trunk's, and does what trunk's rust pipeline did after cargo, around
# the split: wasm-split-cli (the first view's module, one module per chunk,
# __wasm_split.js that fetches them), wasm-bindgen on the first view's
# module, and in release builds wasm-opt on every module (index.html sets
# trunk's own wasm-opt to 0: its output is replaced here) and esbuild on
# wasm-bindgen's loader. The results
# overwrite trunk's in its staging folder under the same names.
set -euo pipefail

name=a2a-lifecycle-lab
case "${TRUNK_PROFILE:?run by trunk (Trunk.toml hooks)}" in
  release) profile=wasm-release ;;
  *) profile=debug ;;
esac
target="${CARGO_TARGET_DIR:-$TRUNK_SOURCE_DIR/target}"
raw="$target/wasm32-unknown-unknown/$profile/$name.wasm"
[ -f "$raw" ] || { echo "split-wasm: $raw is missing (did cargo build it?)" >&2; exit 1; }
command -v wasm-split-cli >/dev/null || { echo "split-wasm: wasm-split-cli is not on PATH (bash scripts/install.sh installs it)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wasm-split-cli --target web --out-name "$name" "$raw" "$work/split" >"$work/split.log" 2>&1 \
  || { cat "$work/split.log" >&2; echo "split-wasm: wasm-split-cli failed" >&2; exit 1; }
# The split's first view module is what wasm-bindgen would have read;
# the chunks import the table and memory that lld exported from it.
wasm-bindgen --target web --no-typescript --keep-lld-exports --out-dir "$work/bound" --out-name "$name" "$work/split/$name.wasm"
mv "$work/bound/$name.js" "$work/bound/${name}_bg.wasm" "$work/split/"
rm "$work/split/$name.wasm"

if [ "$TRUNK_PROFILE" = release ]; then
  # index.html's data-wasm-opt and its parameters, on every module.
  for module in "$work"/split/*.wasm; do
    # Quiet unless it fails: it warns of each name subsection it does not
    # know (the names go with --strip-debug anyway).
    wasm-opt -Oz --low-memory-unused --strip-debug --strip-producers --output "$module.opt" "$module" \
      >"$work/opt.log" 2>&1 || { cat "$work/opt.log" >&2; echo "split-wasm: wasm-opt failed on $module" >&2; exit 1; }
    mv "$module.opt" "$module"
  done
  # wasm-bindgen's loader minified (trunk's own minifier cannot read it):
  # about 2 kB less of what the first view waits for; the split's loader
  # too (0.4 kB: its comments and names), which scripts/split-points.mjs
  # reads either way.
  command -v esbuild >/dev/null || { echo "split-wasm: esbuild is not on PATH (bash scripts/install.sh installs it from npm)" >&2; exit 1; }
  for loader in "$name" __wasm_split; do
    esbuild "$work/split/$loader.js" --minify --format=esm --log-level=warning --outfile="$work/$loader.min.js"
    mv "$work/$loader.min.js" "$work/split/$loader.js"
  done
  # boot.js too: its comments are for the source, not the first view.
  esbuild "$TRUNK_STAGING_DIR/boot.js" --minify --format=esm --log-level=warning --outfile="$work/boot.min.js"
  mv "$work/boot.min.js" "$TRUNK_STAGING_DIR/boot.js"
fi

# Trunk leaves its `rel="rust"` link in the page when it injects no script
# (Trunk.toml), and index.html's `data-integrity="none"` on the sheets: they
# tell a browser nothing.
page="$TRUNK_STAGING_DIR/index.html"
[ ! -f "$page" ] || sed -i -e 's#<link [^>]*rel="\{0,1\}rust"\{0,1\}[^>]*>##' -e 's# data-integrity="\{0,1\}none"\{0,1\}##g' "$page"

# Chunks of an earlier build must not linger beside this one's.
rm -f "$TRUNK_STAGING_DIR"/split_*.wasm "$TRUNK_STAGING_DIR"/chunk_*.wasm
cp "$work"/split/* "$TRUNK_STAGING_DIR/"

# The stylesheets the chunks link when they first show (the Live view's, and the
# panels' of the import, compare and rest chunks): not in index.html, so the
# first view neither carries nor waits for them.
for sheet in live panels; do
  if [ "${TRUNK_PROFILE:-}" = "release" ] && command -v esbuild >/dev/null; then
    esbuild "style/$sheet.css" --minify --log-level=warning --outfile="$TRUNK_STAGING_DIR/$sheet.css"
  else
    cp "style/$sheet.css" "$TRUNK_STAGING_DIR/$sheet.css"
  fi
done
