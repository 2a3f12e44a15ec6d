#!/usr/bin/env bash
# Re-record the @a2a-js/sdk 1.3.0 fidelity fixtures (tests/fidelity/fixtures/js/).
#
#   tests/fidelity/js/run.sh                      # whole matrix, 3 runs each, + the 8 s probes
#   tests/fidelity/js/run.sh --only 'cancel=1'    # one scenario (repeatable), index.json is merged
#   tests/fidelity/js/run.sh --runs 1 --out /tmp/fx
#   tests/fidelity/js/run.sh --captures           # raw capture bodies -> tests/fidelity/captures/js/
#   tests/fidelity/js/run.sh --captures --wire 0.3 --runs 1 --out /tmp/cap
#   tests/fidelity/js/run.sh --subscribe          # resubscribe / second_client / wire=0.3 -> tests/fidelity/fixtures/js/subscribe/
#   tests/fidelity/js/run.sh --subscribe --only 'ending=input&resubscribe=3' --runs 1 --out /tmp/sub
#   tests/fidelity/js/run.sh --push               # push notifications (webhook receiver) -> tests/fidelity/fixtures/js/push/
#   tests/fidelity/js/run.sh --push --only 'push=inline&webhook=error' --runs 1 --out /tmp/push
#   tests/fidelity/js/run.sh --probes-only --long-probes   # also the ~5.5 min Node fetch timeout probes
#
# Needs only the npm registry: it runs (idempotently) `npm ci` from package-lock.json
# into tests/fidelity/js/node_modules (git-ignored). The optional dependencies kysely
# and better-sqlite3 (for store=database) build from source when no prebuilt binary
# can be downloaded (needs make and a C++ compiler, ~1 min once); without them
# store=database is written as "measurable": false.
# Environment:
#   A2A_FIDELITY_NODE   node binary to use (default: node on PATH; must be >= 20)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
node="${A2A_FIDELITY_NODE:-node}"

# node >= 20 and the pinned packages, installed idempotently
# (tests/agents/setup.sh installs the same for the probe's test agents).
bash "$here/../../agents/setup.sh" js

cd "$here"
if [[ "${1:-}" == "--captures" ]]; then
  shift
  exec "$node" "$here/recorder.mjs" captures "$@"
fi
if [[ "${1:-}" == "--subscribe" ]]; then
  shift
  exec "$node" "$here/recorder.mjs" subscribe "$@"
fi
if [[ "${1:-}" == "--push" ]]; then
  shift
  exec "$node" "$here/recorder.mjs" push "$@"
fi
exec "$node" "$here/recorder.mjs" record "$@"
