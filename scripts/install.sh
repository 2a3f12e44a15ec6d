#!/usr/bin/env bash
# Installs what the lab needs to build and test, skipping what is present.
# Only package registries are used: crates.io, npm, Debian's apt.
#   install.sh build   -> wasm32 target, trunk, wasm-bindgen-cli, wasm-split-cli, npm tools
#   install.sh test    -> the above plus chromium and chromium-driver, and the
#                         real SDK agents the probe is tested against
# The installs are independent, so they run side by side: the apt download
# and unpacking overlap the compiles. Each one's output goes to
# target/install/NAME.log and is shown only if it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
what="${1:-build}"
LOGS=target/install
mkdir -p "$LOGS"

command -v cargo >/dev/null || { echo "cargo is missing: install Rust with rustup first" >&2; exit 1; }

# The tools are built for a quick first run (measured in README.md): no LTO,
# many codegen units, and trunk, which only orchestrates, without
# optimisation (opt-level 0 builds in half the time of 1, and a
# `trunk build --release` takes 5.5 s with either). Neither needs TLS: trunk
# runs offline and the test runner talks to chromedriver on 127.0.0.1, so
# both are built without their default TLS features.
tool_profile() {
  local level="$1"; shift
  CARGO_PROFILE_RELEASE_OPT_LEVEL="$level" CARGO_PROFILE_RELEASE_LTO=false \
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS=64 CARGO_PROFILE_RELEASE_DEBUG=false \
  CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_INCREMENTAL=false "$@"
}

pids=() names=()
# Runs "$@" in the background as job NAME, its output in the job's log.
job() {
  local name="$1"; shift
  say "$name: started (log: $LOGS/$name.log)"
  ( start=$(date +%s)
    if "$@" >"$LOGS/$name.log" 2>&1; then
      say "$name: done in $(( $(date +%s) - start )) s"
    else
      say "$name: FAILED; the end of $LOGS/$name.log:"; tail -n 30 "$LOGS/$name.log"; exit 1
    fi ) &
  pids+=("$!"); names+=("$name")
}

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown >"$LOGS/wasm32-target.log" 2>&1 || { cat "$LOGS/wasm32-target.log"; exit 1; }
fi

# The small apt installs the jobs below need (node for the npm tools and the
# JS agent; Python's venv module for the Python agent) come first and in one
# go, so that apt never runs twice at once.
base=()
command -v npm >/dev/null || base+=(nodejs npm)
if [ "$what" = test ] && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  base+=(python3 python3-venv)
fi
if [ "${#base[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || { echo "${base[*]} missing and apt-get is not here to install them" >&2; exit 1; }
  say "installing ${base[*]} from apt"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${base[@]}"
fi

if [ "$what" = test ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  command -v apt-get >/dev/null || { echo "chromium and chromedriver are missing and apt-get is not here to install them" >&2; exit 1; }
  # Without the recommended extras (printing, notification daemons, perl
  # libraries): 26 packages instead of 131, all a headless browser needs.
  job chromium bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver'
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -x node_modules/.bin/esbuild ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
  job npm-tools npm ci --no-audit --no-fund
fi

# The probe's tests run real agents: a2a-sdk in a venv (PyPI),
# @a2a-js/sdk (npm ci), the agents on other stacks (PyPI) and the a2a-rs
# agent (crates.io, cargo build --release in tests/agents/rust, its own
# target/).
if [ "$what" = test ]; then
  job agents bash tests/agents/setup.sh
fi

WBG_OPT_LEVEL=1
TRUNK_VERSION=0.21.14
if ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION"; then
  job trunk tool_profile 0 cargo install trunk --version "$TRUNK_VERSION" --locked --no-default-features
fi

# wasm-bindgen-cli must equal the wasm-bindgen the crate links (Cargo.lock).
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WBG_VERSION"; then
  # Not --locked: its lockfile pins a webpki-roots release the registry lacks.
  job wasm-bindgen-cli tool_profile "$WBG_OPT_LEVEL" cargo install wasm-bindgen-cli --version "$WBG_VERSION" --no-default-features
fi

# wasm-split-cli splits the page's module into the first view and the
# chunks loaded on first use (scripts/split-wasm.sh, trunk's post-build hook).
WSPLIT_VERSION=0.2.4
if ! command -v wasm-split-cli >/dev/null || ! cargo install --list 2>/dev/null | grep -qx "wasm_split_cli_support v$WSPLIT_VERSION:"; then
  job wasm-split-cli tool_profile 1 cargo install wasm_split_cli_support --version "$WSPLIT_VERSION" --locked --features build-binary
fi

failed=0
for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed=1; done
[ "$failed" = 0 ] || { echo "an install failed (see above)" >&2; exit 1; }
[ "${#pids[@]}" = 0 ] || say "tools ready"
