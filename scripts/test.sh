#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting, lints (native
# and wasm32), the model's tests, browser tests of the components in
# headless Chromium, the release build with its size budget, and the
# end-to-end tests against the release bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh test
source scripts/env.sh
step() { printf '\n==> %s\n' "$*"; }
export TMPDIR="$PWD/target/tmp"
mkdir -p "$TMPDIR"
cargo fetch --quiet

step "cargo fmt --check"
cargo fmt --check

step "cargo clippy (native and wasm32)"
cargo clippy --all-targets --quiet -- -D warnings
cargo clippy --target wasm32-unknown-unknown --lib --bins --tests --quiet -- -D warnings

step "model tests (native)"
cargo test --quiet

step "component tests in headless Chromium (wasm-bindgen-test)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=120 \
  cargo test --target wasm32-unknown-unknown --test browser --test browser_pictures

step "release bundle (trunk, offline) and its size budget"
trunk build --release
node scripts/bundle-size.mjs dist

step "end-to-end tests in headless Chromium (against target/debug/a2a-lab)"
node --test tests/e2e/
