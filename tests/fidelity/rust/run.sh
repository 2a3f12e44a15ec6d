#!/usr/bin/env bash
# Re-records the a2a-rs (a2a-server-lf 0.5.3) fixtures into tests/fidelity/fixtures/rust/.
# Builds tests/agents/rust first (cargo build --release --locked, through
# tests/agents/setup.sh rust, which skips the build when nothing changed), then runs its
# recorder. Arguments go to the recorder: --runs N, --only QUERY (repeatable; merges into
# index.json), --out DIR, --no-probes, --watchdog S, --list.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agents="$(cd "$here/../../agents" && pwd)"
"$agents/setup.sh" rust
exec "$agents/rust/target/release/recorder" record "$@"
