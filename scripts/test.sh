#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting, lints (native
# and wasm32), the model's tests, browser tests of the components in
# headless Chromium, the release build with its size budget, and the
# end-to-end tests against the release bundle. Each step shows the time
# since the command started.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
export TMPDIR="$PWD/target/tmp"
mkdir -p "$TMPDIR"

step "installing what is missing (skipped when present), alongside the steps that need none of it"
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown >/dev/null
bash scripts/install.sh test &
installs=$!
trap 'kill $installs 2>/dev/null || true' EXIT
cargo fetch --quiet

step "cargo fmt --check"
cargo fmt --check

step "cargo clippy (native and wasm32)"
cargo clippy --all-targets --quiet -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --bins --tests --all-features --quiet -- -D warnings

step "model tests (native)"
cargo test --quiet

step "waiting for the installs (Chromium, trunk, wasm-bindgen-cli, the SDK agents)"
wait "$installs"
trap - EXIT

# python3 comes with the installs on a machine that had none.
step "no import circle between two files of src/ (docs/architecture.md)"
python3 scripts/import-cycles.py

# The a2a-rs agent is built by tests/agents/setup.sh (install.sh's
# "agents" job, waited for above), once per machine.
step "a2a-lab probe against real a2a-sdk, @a2a-js/sdk and a2a-rs agents on 127.0.0.1"
cargo test --quiet --test probe_agents -- --include-ignored

step "component tests in headless Chromium (wasm-bindgen-test)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=120 \
  cargo test --target wasm32-unknown-unknown --test browser

step "release bundle (trunk, offline) and its size budget"
trunk build --release
node scripts/bundle-size.mjs dist

step "a2a-lab with the page inside (the page feature, for a2a-lab serve)"
cargo build --quiet --features page --bin a2a-lab

step "end-to-end tests in headless Chromium (against target/debug/a2a-lab)"
node --test tests/e2e/

# Last: `cargo publish --dry-run` builds the packaged crate, without the
# page, into the same target/debug/a2a-lab the end-to-end tests serve.
step "the packages: the wheel in a fresh venv, the npm tarballs in an empty folder"
bash scripts/packages-test.sh

step "all tests passed"
