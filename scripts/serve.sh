#!/usr/bin/env bash
# Installs what is missing, then serves the lab on http://127.0.0.1:8080
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh build
source scripts/env.sh
cargo fetch --quiet
exec trunk serve --release
