#!/usr/bin/env bash
# Makes the other stacks' agents runnable: one venv per stack, .venv-adk (google-adk 2.13.0)
# and .venv-fasta2a (fasta2a 2.1.1), each from requirements-S.txt + constraints-S.txt, from
# PyPI only, idempotently (a stamp file in each venv: a second run with nothing changed
# does nothing and touches no network). The work is tests/agents/setup.sh's, shared with
# the SDK agents' venv.
#   tests/agents/stacks/setup.sh [adk|fasta2a]      # default both
# Environment: A2A_STACKS_PYTHON (interpreter, >= 3.11; default the newest python3.1x)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../setup.sh" stacks "$@"
