#!/usr/bin/env bash
# Installs what the lab needs to build and test, skipping what is present.
# Only package registries are used: crates.io, npm, Debian's apt.
#   install.sh build   -> wasm32 target, trunk, wasm-bindgen-cli, npm tools
#   install.sh test    -> the above plus chromium and chromium-driver
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-build}"
say() { printf '==> %s\n' "$*"; }

export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo >/dev/null || { echo "cargo is missing: install Rust with rustup first" >&2; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

TRUNK_VERSION=0.21.14
if ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION from crates.io (about 7 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

# wasm-bindgen-cli must equal the wasm-bindgen the crate links (Cargo.lock).
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WBG_VERSION"; then
  say "installing wasm-bindgen-cli $WBG_VERSION from crates.io (about 3 minutes)"
  # Not --locked: its lockfile pins a webpki-roots release the registry lacks.
  cargo install wasm-bindgen-cli --version "$WBG_VERSION"
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
  command -v npm >/dev/null || { say "installing node and npm from apt"; apt-get update -qq && apt-get install -y -qq nodejs npm; }
  say "installing wasm-opt (binaryen 132) and playwright-core from npm"
  npm ci --no-audit --no-fund
fi

if [ "$what" = test ]; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing chromium and chromium-driver from apt (about 1 minute)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
  fi
fi
