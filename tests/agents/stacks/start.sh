#!/usr/bin/env bash
# Starts one A2A agent on another stack (google-adk to_a2a, fasta2a) on 127.0.0.1 and prints
# its URL, exactly as tests/agents/start.sh does for the SDK agents; see ../README.md.
#   tests/agents/stacks/start.sh adk|fasta2a [KEY=VALUE ...]
# Needs tests/agents/setup.sh stacks (or setup.sh) to have run once; this script never installs.
# `exec`: the PID the caller holds is the launcher's; SIGTERM/SIGINT stop the agent,
# SIGKILL kills it too (the agent dies with its parent).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${A2A_AGENTS_PYTHON:-}"
if [[ -z "$py" ]]; then
  if command -v python3 >/dev/null 2>&1; then py=python3; else py="$here/.venv-fasta2a/bin/python"; fi
fi
exec "$py" "$here/launch.py" "$@"
