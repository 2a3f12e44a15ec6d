#!/usr/bin/env bash
# Makes the two real SDK agents runnable, idempotently, from the registries only:
#   - the Python venv with a2a-sdk 1.3.0 (PyPI), exactly as tests/fidelity/python/run.sh makes it
#   - tests/fidelity/js/node_modules with @a2a-js/sdk 1.3.0 (npm ci), exactly as tests/fidelity/js/run.sh
# It writes the same stamp files as those scripts, so each accepts what the other installed.
# A second run with nothing changed does nothing (and touches no network).
#
#   tests/agents/setup.sh            # both
#   tests/agents/setup.sh python     # only the venv
#   tests/agents/setup.sh js         # only node_modules
#
# Environment (the same as the fidelity recorders'):
#   A2A_FIDELITY_VENV    venv path (default: tests/fidelity/python/.venv, git-ignored)
#   A2A_FIDELITY_PYTHON  interpreter to build the venv from (default: newest python3.1x >= 3.10)
#   A2A_FIDELITY_NODE    node binary (default: node on PATH; >= 20)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fid="$(cd "$here/../fidelity" && pwd)"
what="${1:-all}"

setup_python() {
  local pyd="$fid/python"
  local venv="${A2A_FIDELITY_VENV:-$pyd/.venv}"
  local want stamp py="" m c root=""
  want="$(cat "$pyd/requirements.txt" "$pyd/constraints.txt" | sha256sum | cut -d' ' -f1)"
  stamp="$venv/.fidelity-stamp"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    if [[ -n "${A2A_FIDELITY_PYTHON:-}" ]]; then
      py="$A2A_FIDELITY_PYTHON"
    else
      command -v pyenv >/dev/null 2>&1 && root="$(pyenv root 2>/dev/null || true)"
      for m in 13 12 11 10; do
        for c in "python3.$m" ${root:+$root/versions/3.$m.*/bin/python3.$m}; do
          if [[ -z "$py" && "$c" != *'*'* ]] && command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys' 2>/dev/null; then
            py="$c"
          fi
        done
      done
      if [[ -z "$py" ]] && command -v python3 >/dev/null 2>&1 &&
         python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
        py=python3
      fi
      [[ -n "$py" ]] || { echo "no Python >= 3.10 found (set A2A_FIDELITY_PYTHON)" >&2; exit 2; }
    fi
    echo "creating venv $venv with $("$py" --version 2>&1)" >&2
    if ! "$py" -m venv --clear "$venv"; then
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
      -r "$pyd/requirements.txt" -c "$pyd/constraints.txt"
    echo "$want" > "$stamp"
  fi
}

setup_js() {
  local jsd="$fid/js" node="${A2A_FIDELITY_NODE:-node}" major want stamp
  command -v "$node" >/dev/null 2>&1 || { echo "node not found (set A2A_FIDELITY_NODE)" >&2; exit 2; }
  major="$("$node" -p 'process.versions.node.split(".")[0]')"
  (( major >= 20 )) || { echo "node >= 20 needed, found $("$node" --version)" >&2; exit 2; }
  want="$(cat "$jsd/package.json" "$jsd/package-lock.json" | sha256sum | cut -d' ' -f1)"
  stamp="$jsd/node_modules/.fidelity-stamp"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" || ! -d "$jsd/node_modules/@a2a-js/sdk" ]]; then
    echo "installing pinned packages into $jsd/node_modules (npm ci)" >&2
    (cd "$jsd" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
}

case "$what" in
  all) setup_python; setup_js ;;
  python) setup_python ;;
  js) setup_js ;;
  *) echo "usage: setup.sh [all|python|js]" >&2; exit 2 ;;
esac
