#!/usr/bin/env bash
# Starts one real A2A SDK agent on 127.0.0.1 and prints its URL; see README.md and launch.py.
#   tests/agents/start.sh python|js|rust 1.0|0.3 none|no-final|late-artifact|cancel-raises|never-returns [push=on] [rest=on|only] [KEY=VALUE ...]
# Needs tests/agents/setup.sh to have run once (it installs; this script never does).
# `exec`: the PID the caller holds is the launcher's; SIGTERM/SIGINT stop the agent,
# SIGKILL kills it too (the agent dies with its parent).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${A2A_AGENTS_PYTHON:-}"
if [[ -z "$py" ]]; then
  if command -v python3 >/dev/null 2>&1; then py=python3
  else py="${A2A_FIDELITY_VENV:-$here/../fidelity/python/.venv}/bin/python"; fi
fi
exec "$py" "$here/launch.py" "$@"
