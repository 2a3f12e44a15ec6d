#!/usr/bin/env python3
"""Starts one A2A agent built on another stack than the two SDK samples, for the probe's
tests, and keeps it running: the same contract as tests/agents/launch.py (whose serve()
does the work: a free port on 127.0.0.1, one URL line on stdout once
GET URL/.well-known/agent-card.json answers 200, SIGTERM/SIGINT/SIGHUP stop the agent, the
agent dies with this process, exit 2 when it cannot start).

    launch.py adk|fasta2a [KEY=VALUE ...]      (normally through start.sh)

adk      google-adk 2.13.0 `to_a2a` serving a stub BaseAgent (no model): adk_agent.py
fasta2a  fasta2a 2.1.1 FastA2A + InMemoryBroker + InMemoryStorage + our Worker: fasta2a_agent.py
KEY=VALUE  fasta2a only: artifact=last|none, skills=none|one (see fasta2a_agent.py)

Environment: A2A_AGENT_STEP_MS (default 150: the pause between the agent's steps),
A2A_AGENT_READY_S, A2A_AGENT_DIR (as for launch.py). The venvs are this folder's
.venv-adk and .venv-fasta2a (tests/agents/setup.sh stacks makes them).
"""

from __future__ import annotations

import json
import os
import sys

from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from launch import die, serve  # noqa: E402

KEYS = {'adk': {}, 'fasta2a': {'artifact': ('last', 'none'), 'skills': ('none', 'one')}}
USAGE = 'usage: stacks/start.sh adk | fasta2a [artifact=last|none] [skills=none|one]'


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0] not in KEYS:
        die(USAGE)
    stack, conf = args[0], {}
    for pair in args[1:]:
        key, _, value = pair.partition('=')
        if value not in KEYS[stack].get(key, ()):
            die(f'bad pair {pair!r} for {stack}\n{USAGE}')
        conf[key] = value
    try:
        conf['step_ms'] = int(os.environ.get('A2A_AGENT_STEP_MS', '150'))
        ready_s = float(os.environ.get('A2A_AGENT_READY_S', '30'))
    except ValueError as e:
        die(f'bad number: {e}')
    venv = HERE / f'.venv-{stack}'
    py = venv / 'bin' / 'python'
    if not py.exists() or not (venv / '.stack-stamp').exists():
        die(f'no {stack} venv at {venv}: run tests/agents/setup.sh stacks {stack} first')

    def spawn(port: int, workdir: Path) -> tuple[list[str], str]:  # noqa: ARG001
        return [str(py), str(HERE / f'{stack}_agent.py'), json.dumps({**conf, 'port': port})], str(HERE)

    return serve(stack, spawn, ready_s)


if __name__ == '__main__':
    sys.exit(main())
