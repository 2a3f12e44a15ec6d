#!/usr/bin/env bash
# Installs what is missing, then serves the lab on http://127.0.0.1:8080
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
step "installing what is missing (skipped when present)"
mkdir -p target
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown >/dev/null
bash scripts/install.sh build &
installs=$!
trap 'kill $installs 2>/dev/null || true' EXIT
# The page's own compile needs none of the tools: it runs alongside them,
# and trunk then finds it built.
step "compiling the page (alongside the installs)"
cargo build --quiet --target wasm32-unknown-unknown --profile wasm-release --bin a2a-lifecycle-lab
wait "$installs"
trap - EXIT
step "serving the lab at http://127.0.0.1:8080 (Ctrl-C stops it)"
exec trunk serve --release
