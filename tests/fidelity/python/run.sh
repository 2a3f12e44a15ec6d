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
#
# Needs only PyPI: it creates (idempotently) a venv with the pinned packages.
# Environment:
#   A2A_FIDELITY_VENV    venv path (default: tests/fidelity/python/.venv, git-ignored)
#   A2A_FIDELITY_PYTHON  interpreter to build the venv from (default: newest python3.1x >= 3.10 on PATH)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${A2A_FIDELITY_VENV:-$here/.venv}"

pick_python() {
  if [[ -n "${A2A_FIDELITY_PYTHON:-}" ]]; then echo "$A2A_FIDELITY_PYTHON"; return; fi
  # newest first; the seed's measurements were taken with Python 3.13
  local m c root=""
  command -v pyenv >/dev/null 2>&1 && root="$(pyenv root 2>/dev/null || true)"
  for m in 13 12 11 10; do
    for c in "python3.$m" ${root:+$root/versions/3.$m.*/bin/python3.$m}; do
      if [[ "$c" != *'*'* ]] && command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys' 2>/dev/null; then
        echo "$c"; return
      fi
    done
  done
  if command -v python3 >/dev/null 2>&1 &&
     python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
    echo python3; return
  fi
  echo "no Python >= 3.10 found (set A2A_FIDELITY_PYTHON)" >&2
  exit 2
}

want="$(cat "$here/requirements.txt" "$here/constraints.txt" | sha256sum | cut -d' ' -f1)"
stamp="$venv/.fidelity-stamp"

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
  py="$(pick_python)"
  echo "creating venv $venv with $("$py" --version 2>&1)" >&2
  if ! "$py" -m venv --clear "$venv"; then
    # Debian's python3 ships venv/ensurepip separately
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
      "$py" -m venv --clear "$venv"
    else
      echo "python -m venv failed; install python3-venv" >&2
      exit 2
    fi
  fi
fi

if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "installing pinned packages into $venv" >&2
  "$venv/bin/python" -m pip install --disable-pip-version-check -q \
    -r "$here/requirements.txt" -c "$here/constraints.txt"
  echo "$want" > "$stamp"
fi

if [[ "${1:-}" == "--captures" ]]; then
  shift
  exec "$venv/bin/python" "$here/recorder.py" captures "$@"
fi
if [[ "${1:-}" == "--subscribe" ]]; then
  shift
  exec "$venv/bin/python" "$here/recorder.py" subscribe "$@"
fi
exec "$venv/bin/python" "$here/recorder.py" record "$@"
