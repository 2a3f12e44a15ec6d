#!/usr/bin/env bash
# Re-record the a2a-sdk 1.3.0 fidelity fixtures (tests/fidelity/fixtures/python/).
#
#   tests/fidelity/python/run.sh                      # whole matrix, 3 runs each, + probes
#   tests/fidelity/python/run.sh --only 'cancel=1'    # one scenario (repeatable), index.json is merged
#   tests/fidelity/python/run.sh --runs 1 --out /tmp/fx
#   tests/fidelity/python/run.sh --captures           # raw capture bodies -> tests/fidelity/captures/python/
#   tests/fidelity/python/run.sh --captures --wire 0.3 --runs 1 --out /tmp/cap
#   tests/fidelity/python/run.sh --subscribe          # resubscribe / second_client / wire=0.3 -> tests/fidelity/fixtures/python/subscribe/
#   tests/fidelity/python/run.sh --subscribe --only 'ending=input&resubscribe=3' --runs 1 --out /tmp/sub
#   tests/fidelity/python/run.sh --push               # push notifications (webhook receiver) -> tests/fidelity/fixtures/python/push/
#   tests/fidelity/python/run.sh --push --only 'push=inline&webhook=error' --runs 1 --out /tmp/push
#
# Needs only PyPI: it creates (idempotently) a venv with the pinned packages.
# Environment:
#   A2A_FIDELITY_VENV    venv path (default: tests/fidelity/python/.venv, git-ignored)
#   A2A_FIDELITY_PYTHON  interpreter to build the venv from (default: newest python3.1x >= 3.10 on PATH)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${A2A_FIDELITY_VENV:-$here/.venv}"

# The venv and its pinned packages, made idempotently (tests/agents/setup.sh
# makes the same venv for the probe's test agents).
bash "$here/../../agents/setup.sh" python

if [[ "${1:-}" == "--captures" ]]; then
  shift
  exec "$venv/bin/python" "$here/recorder.py" captures "$@"
fi
if [[ "${1:-}" == "--subscribe" ]]; then
  shift
  exec "$venv/bin/python" "$here/recorder.py" subscribe "$@"
fi
if [[ "${1:-}" == "--push" ]]; then
  shift
  exec "$venv/bin/python" "$here/recorder.py" push "$@"
fi
exec "$venv/bin/python" "$here/recorder.py" record "$@"
