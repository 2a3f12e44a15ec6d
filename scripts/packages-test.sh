#!/usr/bin/env bash
# The packages users install, built here and run as users run them (SPEC
# §17): the Python wheel in a fresh venv that holds nothing but the wheel
# (`--version`, `check` on a capture, `probe` against a live a2a-sdk agent,
# `serve` with the page opened in headless Chromium), and the npm tarballs
# installed in an empty folder with npm offline (`--version`, `check`).
#
# scripts/test.sh runs it after building what it packages: dist/ (`trunk
# build --release`) and target/debug/a2a-lab with the page feature. To keep
# the test command quick, the wheel is that debug build (`maturin build
# --profile dev` finds it built and only packs it) and so is the npm
# platform package's binary; the release workflow
# (.github/workflows/release.yml) builds both from release builds.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

OUT="$ROOT/target/packages"
MATURIN_VERSION=1.16.0
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
# A capture of a2a-sdk streaming an artifact after complete(): check
# finds it (exit 1) and names the lab's scenario that reproduces it.
FIXTURE="$ROOT/tests/fidelity/captures/python/v1.0_late-0.sse"
try="$OUT/try"
rm -rf "$try"
mkdir -p "$try"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

fail() { echo "packages-test: $*" >&2; exit 1; }
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# Runs "$@", keeps its output in $said and its exit code in $code.
run() { set +e; said=$("$@" 2>&1); code=$?; set -e; }
expect() { # CODE TEXT...: the last `run` exited CODE and said each TEXT
  local want="$1"; shift
  [ "$code" = "$want" ] || fail "exit $code, not $want, from: $said"
  local text
  for text in "$@"; do
    grep -qF -- "$text" <<<"$said" || fail "no \"$text\" in: $said"
  done
}

# A live agent to probe, started now so that it is ready when the wheel is:
# a2a-sdk 1.3.0's order-status agent, healthy (tests/agents/README.md).
tests/agents/start.sh python 1.0 none >"$try/agent.url" 2>"$try/agent.log" &
pids+=("$!")

say "maturin $MATURIN_VERSION from PyPI in target/packages/maturin (skipped when present)"
if ! "$OUT/maturin/bin/maturin" --version 2>/dev/null | grep -qx "maturin $MATURIN_VERSION"; then
  rm -rf "$OUT/maturin"
  python3 -m venv "$OUT/maturin"
  "$OUT/maturin/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi

say "the wheel: maturin build --profile dev (the page inside)"
rm -rf "$OUT/wheels"
(cd packaging/python && "$OUT/maturin/bin/maturin" build --quiet --profile dev --locked --offline \
  --out "$OUT/wheels") >"$try/maturin.log" 2>&1 || { cat "$try/maturin.log"; fail "maturin build failed"; }
wheel=$(echo "$OUT"/wheels/a2a_lab-"$VERSION"-py3-none-*.whl)
[ -f "$wheel" ] || fail "no wheel in $OUT/wheels: $(ls "$OUT/wheels")"
say "$(basename "$wheel"): $(du -k "$wheel" | cut -f1) kB"

say "a fresh venv with the wheel alone (pip install --no-index), as a CI step does"
start=$(now)
python3 -m venv "$try/venv"
created=$(now)
"$try/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$wheel"
installed=$(now)
"$try/venv/bin/pip" list --format=freeze --disable-pip-version-check | grep -v '^pip=\|^setuptools=' >"$try/venv.txt"
[ "$(cat "$try/venv.txt")" = "a2a-lab==$VERSION" ] || fail "the venv holds more than the wheel: $(cat "$try/venv.txt")"
PATH_BEFORE="$PATH"
export PATH="$try/venv/bin:$PATH"
[ "$(command -v a2a-lab)" = "$try/venv/bin/a2a-lab" ] || fail "a2a-lab is not the venv's: $(command -v a2a-lab)"

run a2a-lab --version
expect 0 "a2a-lab $VERSION"
run python -m a2a_lab --version
expect 0 "a2a-lab $VERSION"
run a2a-lab check "$FIXTURE"
expect 1 "after-terminal #6" "scenario: ?late=0 (reproduces it)" "1 finding(s) in 7 events of 1 task(s)"

for _ in $(seq 300); do [ -s "$try/agent.url" ] && break; sleep 0.1; done
agent=$(cat "$try/agent.url")
[ -n "$agent" ] || { cat "$try/agent.log"; fail "the test agent did not start"; }
probing=$(now)
run a2a-lab probe "$agent" --out "$try/probe-run"
probed=$(now)
expect 0 "at $agent (A2A 1.0)" "stream               clean" "cancel               clean" "ok: nothing broken"
[ -s "$try/probe-run/probe.json" ] || fail "probe --out wrote no probe.json"
say "a2a-lab probe $agent: exit 0, nothing broken; from nothing (venv, wheel) to the probe's start $(seconds "$start" "$probing") s (the venv $(seconds "$start" "$created") s, pip install $(seconds "$created" "$installed") s), the probe $(seconds "$probing" "$probed") s"

# Live from the wheel: the URL it prints opens the Live view on that agent,
# which the page drives through the relay to a task's end.
a2a-lab serve --port 0 --agent "$agent" >"$try/live.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do grep -q 'http://127.0.0.1:[0-9]*/?live=' "$try/live.log" && break; sleep 0.1; done
live=$(grep -o 'http://127.0.0.1:[0-9]*/?live=[0-9a-f]*' "$try/live.log" | head -n 1)
[ -n "$live" ] || fail "a2a-lab serve --agent said no URL: $(cat "$try/live.log")"
node scripts/packages-page.mjs "$live"
kill "${pids[-1]}"
kill "${pids[0]}"

a2a-lab serve --port 0 >"$try/serve.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do grep -q 'http://127.0.0.1:[0-9]*/' "$try/serve.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$try/serve.log" | head -n 1)
[ -n "$url" ] || fail "a2a-lab serve said no URL: $(cat "$try/serve.log")"
page=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$url") \
  || fail "GET $url failed"
grep -q '<title>A2A Lifecycle Lab</title>' <<<"$page" || fail "GET $url is not the lab: $page"
node scripts/packages-page.mjs "$url"
kill "${pids[-1]}"
export PATH="$PATH_BEFORE"

say "the npm packages: a2a-lab and @a2a-lab/linux-x64 packed, installed offline in an empty folder"
rm -rf "$OUT/npm"
# Stripped, as the release workflow's binary is (`maturin build --strip`):
# the debug build's 50 MB are mostly its line tables, and packing them
# would take npm most of this step.
cp target/debug/a2a-lab "$try/a2a-lab"
strip "$try/a2a-lab" 2>/dev/null || true
main=$(node packaging/npm/pack.mjs main --out "$OUT/npm")
platform=$(node packaging/npm/pack.mjs platform linux-x64 "$try/a2a-lab" --out "$OUT/npm")
say "$(basename "$main"): $(du -k "$main" | cut -f1) kB, $(basename "$platform"): $(du -k "$platform" | cut -f1) kB"
mkdir "$try/npm"
# A package.json of its own: without one, npm takes the nearest folder above
# that has one (this repository, when TMPDIR is under target/) as the
# project and adds the tarballs to its package.json.
printf '{ "private": true }\n' > "$try/npm/package.json"
# Offline: the tarballs are all it gets. The other platforms' optional
# dependencies cannot be fetched, and npm skips them, as it skips them
# online for not matching the platform.
(cd "$try/npm" && npm install --offline --no-audit --no-fund --loglevel=error "$main" "$platform" >/dev/null)
cd "$try/npm"
run npx --offline a2a-lab --version
expect 0 "a2a-lab $VERSION"
run npx --offline a2a-lab check "$FIXTURE"
expect 1 "after-terminal #6" "scenario: ?late=0 (reproduces it)"
# Live is in the npm binary too: its chunk and stylesheet, from the binary.
npx --offline a2a-lab serve --port 0 --agent http://127.0.0.1:9/ >"$try/npm-live.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do grep -q 'http://127.0.0.1:[0-9]*/?live=' "$try/npm-live.log" && break; sleep 0.1; done
base=$(grep -o 'http://127.0.0.1:[0-9]*/' "$try/npm-live.log" | head -n 1)
[ -n "$base" ] || fail "npx a2a-lab serve --agent said no URL: $(cat "$try/npm-live.log")"
for file in split_live.wasm live.css; do
  python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1]).read()' "$base$file" \
    || fail "the npm binary's serve --agent does not serve $file"
done
kill "${pids[-1]}"
cd "$ROOT"

say "the crate: what cargo publish would upload, and cargo publish --dry-run"
listed=$(cargo package --list --allow-dirty --offline --quiet)
for file in Cargo.toml Cargo.lock README.md build.rs src/lib.rs src/bin/a2a-lab.rs src/cli/serve.rs proto/a2a.proto proto/a2a.binpb proto/LICENSE; do
  grep -qx "$file" <<<"$listed" || fail "the crate's package lacks $file"
done
if grep -E '^(dist|tests|docs|node_modules|target|packaging)/' <<<"$listed"; then
  fail "the crate's package holds the files above"
fi
# Builds the packaged crate as `cargo install` will: no page feature, no
# dist/ (the dependencies are the test command's own: about 8 s warm).
cargo publish --dry-run --allow-dirty --quiet >"$try/publish.log" 2>&1 \
  || { cat "$try/publish.log"; fail "cargo publish --dry-run failed"; }
say "packages ok: the wheel in a fresh venv (--version, check, probe, serve and Live in Chromium), the npm tarballs (--version, check, Live's chunk served), the crate's $(wc -l <<<"$listed") files (cargo publish --dry-run)"
