#!/usr/bin/env python3
"""Starts one real A2A SDK agent for the probe's tests and keeps it running.

    launch.py SDK WIRE DEFECT [KEY=VALUE ...]      (normally through start.sh)

SDK     python (a2a-sdk 1.3.0, PyPI) | js (@a2a-js/sdk 1.3.0, npm)
        | rust (a2a-server-lf 0.5.3, crates.io: tests/agents/rust, built by setup.sh rust)
WIRE    1.0 | 0.3   (0.3: the SDK's A2A 0.3 compatibility mode on the same endpoint,
                     and the card gets a second JSON-RPC interface of protocol version 0.3;
                     rust has no 0.3 mode: exit 2)
DEFECT  none | no-final | late-artifact | cancel-raises | never-returns | shared-state
        | shared-queue
KEY=VALUE  optional extra scenario keys of the fidelity recorders (e.g. ending=fail,
           ending=raise, cancel_impl=noop, chunks=5); they win over the defect's.
           `progress=K` (default 0): before each step's chunk, K status updates that
           repeat WORKING with an agent message ("Looking up BBS-1042 (step 1/3)"),
           a2a-sdk TaskUpdater.update_status(WORKING, message=new_agent_message(...)),
           @a2a-js/sdk a status-update event of state working with a `message`.
           `result=last` (default `chunks`): no chunks while working (only the
           progress updates, a step still STEP_MS long), then the whole artifact,
           one part per step, in one artifact update (no append, lastChunk) right
           before the ending, as ADK and most LLM agents do.
           `push=on`: push notifications wired as the push recorders wire them
           (tests/fidelity/python/push.py, tests/fidelity/js/push.mjs): the card declares
           capabilities.pushNotifications and the agent POSTs each event to the webhook
           a message's config names.
           `rest=on`: the SDK's HTTP+JSON (REST) routes too, at URL/rest (a2a-sdk
           create_rest_routes(path_prefix='/rest'); @a2a-js/sdk restHandler() mounted at
           /rest; on wire 0.3 with the SDK's 0.3 REST routes, URL/rest/v1/...), and the
           card lists an HTTP+JSON interface at URL/rest (on wire 0.3 a second one of
           protocol version 0.3). `rest=only`: the same, but the card lists only the
           HTTP+JSON interfaces and no JSON-RPC route is mounted (POST URL/ is not A2A).
           `grpc=on`: the SDK's gRPC server too (A2A 1.0 `a2a.proto` A2AService; a2a-sdk
           with its `grpc` extra, a2a-rs through a2a-grpc), on a second free port of
           127.0.0.1, and the card lists a GRPC interface at 127.0.0.1:PORT. `grpc=only`:
           the card lists only the GRPC interface (the HTTP routes still serve the card).
           python and rust only (@a2a-js/sdk 1.3.0 serves no gRPC: exit 2); wire 1.0 only.
           With `rest=on grpc=on` one agent serves all three bindings.
           `card=thin`: the card leaves out `description` and `defaultOutputModes` and
           lists no skill (a2a-sdk's protobuf JSON then omits `skills`; @a2a-js/sdk
           serves `"skills": []`).

The agent is the fidelity recorders' own `serve` child (tests/fidelity/python/recorder.py,
tests/fidelity/js/recorder.mjs, and for rust the recorder's server binary
tests/agents/rust/target/release/order-status-agent), unchanged: the BBS-1042 order-status executor, which
streams a tracking artifact in CHUNKS chunks STEP_MS apart, then a final status.

Prints one line, the agent's base URL (http://127.0.0.1:PORT), once its agent card
answers, then runs until SIGTERM/SIGINT/SIGHUP, which stop the agent too; if this
process is killed outright (SIGKILL) the kernel kills the agent (PR_SET_PDEATHSIG).
Exit 2 when the agent cannot be started (missing setup, bad arguments, not ready).

Environment:
  A2A_AGENT_STEP_MS   time per chunk (default 200: a stream of 3 chunks ends in ~0.6 s)
  A2A_AGENT_CHUNKS    chunks (default 3; at least 3 so the first artifact comes well
                      before the end)
  A2A_AGENT_DIR       keep the agent's log (server.log) and its executor's side channel
                      (side.jsonl, one JSON line per executor step) in this directory;
                      default: a temporary directory removed at exit (and, if this
                      launcher was SIGKILLed, by the next launcher)
  A2A_AGENT_READY_S   seconds to wait for the card (default 30)
  A2A_FIDELITY_VENV, A2A_FIDELITY_NODE   as for tests/agents/setup.sh
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from pathlib import Path

HERE = Path(__file__).resolve().parent
FIDELITY = HERE.parent / 'fidelity'

# The recorders' scenario defaults, from the Python recorder itself (its
# top level needs only the standard library).
sys.path.insert(0, str(FIDELITY / 'python'))
from recorder import DEFAULTS as SCENARIO  # noqa: E402
from recorder import SHAPE_DEFAULTS, SHAPE_ENUMS  # noqa: E402  (progress, result: serve only)

DEFECTS = {
    'none': {},
    'no-final': {'ending': 'return'},  # execute() returns after the last chunk, no final status
    'late-artifact': {'late': '0'},  # an artifact right after complete()
    'cancel-raises': {'cancel_impl': 'raise'},  # cancel() raises
    'never-returns': {'ending': 'never'},  # execute() awaits forever after the last chunk
    'shared-state': {},  # the executor keeps the current task's ids on itself (SERVE_CONF)
    'shared-queue': {},  # ... and its event queue / event bus too (SERVE_CONF)
}
# Defects that are not scenario keys: extra keys of the recorders' `serve` config.
# shared-state: one executor object for all requests stores the current request's task
# id and context id on itself and builds every later event from them, so under
# concurrent requests an earlier task's later events name a later task. shared-queue:
# the event queue (a2a-sdk) / event bus (@a2a-js/sdk) is kept there too, so they also go
# to the later request's stream. Default scenario only (chunks and A2A_AGENT_STEP_MS apply).
SERVE_CONF = {
    'shared-state': {'shared_state': 'ids'},
    'shared-queue': {'shared_state': 'queue'},
}
USAGE = ('usage: start.sh python|js|rust 1.0|0.3 ' + '|'.join(DEFECTS)
         + ' [push=on] [rest=on|only] [grpc=on|only] [card=thin] [progress=K] [result=chunks|last] [KEY=VALUE ...]')


def die(msg: str, code: int = 2) -> None:
    print(f'a2a-agents: {msg}', file=sys.stderr, flush=True)
    sys.exit(code)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def die_with_parent() -> None:
    # Runs in the child between fork and exec: the kernel sends SIGKILL to the
    # agent when this launcher dies, however it dies.
    try:
        libc = ctypes.CDLL('libc.so.6', use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    if os.getppid() == 1:  # the launcher is already gone
        os._exit(1)


RUST_DIR = HERE / 'rust'
RUST_AGENT = RUST_DIR / 'target' / 'release' / 'order-status-agent'
RUST_STAMP = RUST_DIR / 'target' / 'release' / '.setup-stamp'
# What a2a-server-lf 0.5.3 has no counterpart of (see ANSWERS.md, "a2a-rs (sdk rust)").
RUST_NO_03 = ('a2a-rs (a2a-server-lf 0.5.3) has no A2A 0.3 mode: its JSON-RPC binding answers a request '
              'without an A2A-Version header, or with 0.3, with -32009 VersionNotSupportedError '
              '(a2a-server-lf src/jsonrpc.rs check_a2a_version); use WIRE 1.0')
RUST_NO_DATABASE = ('a2a-rs (a2a-server-lf 0.5.3) ships no database task store, only InMemoryTaskStore '
                    '(src/task_store/mod.rs): store=database has no rust counterpart')


def command(sdk: str, conf: dict) -> tuple[list[str], str]:
    if sdk == 'rust':
        if not RUST_AGENT.exists() or not RUST_STAMP.exists():
            die(f'no a2a-rs agent at {RUST_AGENT}: run tests/agents/setup.sh rust first')
        return [str(RUST_AGENT), 'serve', json.dumps(conf)], str(RUST_DIR)
    if sdk == 'python':
        venv = Path(os.environ.get('A2A_FIDELITY_VENV') or FIDELITY / 'python' / '.venv')
        py = venv / 'bin' / 'python'
        if not py.exists() or not (venv / '.fidelity-stamp').exists():
            die(f'no a2a-sdk venv at {venv}: run tests/agents/setup.sh python first')
        recorder = FIDELITY / 'python' / 'recorder.py'
        return [str(py), str(recorder), 'serve', json.dumps(conf)], str(FIDELITY / 'python')
    node = os.environ.get('A2A_FIDELITY_NODE') or shutil.which('node')
    if not node:
        die('node not found (set A2A_FIDELITY_NODE)')
    jsd = FIDELITY / 'js'
    if not (jsd / 'node_modules' / '@a2a-js' / 'sdk').is_dir():
        die(f'no @a2a-js/sdk in {jsd}/node_modules: run tests/agents/setup.sh js first')
    return [node, str(jsd / 'recorder.mjs'), 'serve', json.dumps(conf)], str(jsd)


def remove_stale_workdirs() -> None:
    """Removes the temporary directories of launchers that were killed outright."""
    for d in Path(tempfile.gettempdir()).glob('a2a-agent-*-*-*'):
        try:
            pid = int(d.name.split('-')[3])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except (ValueError, IndexError, PermissionError):
            pass


def card_ready(port: int) -> bool:
    url = f'http://127.0.0.1:{port}/.well-known/agent-card.json'
    try:
        with urllib.request.urlopen(url, timeout=0.5) as r:  # noqa: S310 (our own 127.0.0.1)
            json.loads(r.read())
            return r.status == 200
    except Exception:  # noqa: BLE001
        return False


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 3 or args[0] not in ('python', 'js', 'rust') or args[1] not in ('1.0', '0.3') or args[2] not in DEFECTS:
        die(USAGE)
    sdk, wire, defect = args[:3]
    if sdk == 'rust' and wire == '0.3':
        die(RUST_NO_03)
    scenario = dict(SCENARIO)
    scenario['chunks'] = os.environ.get('A2A_AGENT_CHUNKS', '3')
    scenario.update(DEFECTS[defect])
    push = False
    rest = None
    grpc = None
    thin_card = False
    for pair in args[3:]:
        key, sep, value = pair.partition('=')
        if key == 'push' and value in ('on', 'off'):
            push = value == 'on'
            continue
        if key == 'rest' and value in ('on', 'only', 'off'):
            rest = None if value == 'off' else value
            continue
        if key == 'grpc' and value in ('on', 'only', 'off'):
            grpc = None if value == 'off' else value
            continue
        if key == 'card' and value in ('thin', 'full'):
            thin_card = value == 'thin'
            continue
        if key in SHAPE_DEFAULTS and sep:
            # progress=K / result=chunks|last: only the executor of `serve` reads them,
            # so they are added to its scenario only when given (the defaults change nothing)
            if value not in SHAPE_ENUMS.get(key, {value}):
                die(f'bad value for {key}: {value!r} (one of {", ".join(sorted(SHAPE_ENUMS[key]))})')
            if defect in SERVE_CONF and value != SHAPE_DEFAULTS[key]:
                die(f'{key}={value}: the {defect} executor streams the default scenario only')
            scenario[key] = value
            continue
        if not sep or key not in SCENARIO:
            die(f'bad scenario pair {pair!r} (keys: {", ".join([*SCENARIO, *SHAPE_DEFAULTS])})\n{USAGE}')
        scenario[key] = value
    try:
        step_ms = int(os.environ.get('A2A_AGENT_STEP_MS', '200'))
        ready_s = float(os.environ.get('A2A_AGENT_READY_S', '30'))
        int(scenario['chunks'])
        if not 0 <= int(scenario.get('progress', '0')) <= 100:
            die(f'bad value for progress: {scenario["progress"]!r} (0 to 100)')
    except ValueError as e:
        die(f'bad number: {e}')
    if grpc and sdk == 'js':
        die('grpc: @a2a-js/sdk 1.3.0 serves no gRPC binding (python and rust do)')
    if grpc and wire == '0.3':
        die('grpc: the gRPC binding is A2A 1.0 only here')
    if sdk == 'rust' and scenario.get('store') == 'database':
        die(RUST_NO_DATABASE)

    def spawn(port: int, workdir: Path) -> tuple[list[str], str]:
        conf = {
            'scenario': scenario,
            'step_ms': step_ms,
            'side': str(workdir / 'side.jsonl'),
            'db': str(workdir / 'tasks.sqlite'),
            'port': port,
            'v03_compat': wire == '0.3',
        }
        conf.update(SERVE_CONF.get(defect, {}))
        if push:
            conf['push'] = True
        if rest:
            conf['rest'] = rest
        if thin_card:
            conf['card'] = 'thin'
        if grpc:
            # The gRPC server's own port: a second listener beside the HTTP one.
            conf['grpc'] = grpc
            conf['grpc_port'] = free_port()
        return command(sdk, conf)

    return serve(sdk, spawn, ready_s)


def serve(label: str, spawn, ready_s: float) -> int:  # noqa: ANN001
    """Runs the agent that spawn(port, workdir) -> (argv, cwd) starts, on a free port of
    127.0.0.1: prints its URL once its card answers, then waits for a signal or its end.
    Also the launcher of the other stacks (stacks/launch.py), hence the label."""
    keep = os.environ.get('A2A_AGENT_DIR')
    if keep:
        workdir = Path(keep)
        workdir.mkdir(parents=True, exist_ok=True)
    else:
        remove_stale_workdirs()
        workdir = Path(tempfile.mkdtemp(prefix=f'a2a-agent-{label}-{os.getpid()}-'))

    proc: subprocess.Popen | None = None

    class Stop(Exception):  # noqa: N818
        pass

    def on_signal(signum, frame) -> None:  # noqa: ANN001, ARG001
        # Unwinds whatever the main flow is doing (a `with` lock held by
        # Popen.wait included) and lets `finally` stop the agent.
        raise Stop

    def cleanup() -> None:
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()  # uvicorn waits for open streams on SIGTERM
                proc.wait()
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)

    try:
        for attempt in range(3):  # a free port can be taken between choosing and binding it
            port = free_port()
            argv, cwd = spawn(port, workdir)
            with open(workdir / 'server.log', 'a', encoding='utf-8') as log:
                proc = subprocess.Popen(  # noqa: S603
                    argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    preexec_fn=die_with_parent,  # noqa: PLW1509
                )
            deadline = time.monotonic() + ready_s
            while time.monotonic() < deadline and proc.poll() is None and not card_ready(port):
                time.sleep(0.05)
            if proc.poll() is None and card_ready(port):
                break
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if attempt == 2 or time.monotonic() >= deadline:
                tail = (workdir / 'server.log').read_text(encoding='utf-8', errors='replace')[-2000:]
                die(f'the {label} agent did not become ready (log {workdir}/server.log):\n{tail}')
        print(f'http://127.0.0.1:{port}', flush=True)
        code = proc.wait()
        tail = (workdir / 'server.log').read_text(encoding='utf-8', errors='replace')[-2000:]
        print(f'a2a-agents: the agent exited with {code}; its log ends:\n{tail}', file=sys.stderr, flush=True)
        return 1
    except Stop:
        return 0
    finally:
        cleanup()


if __name__ == '__main__':
    sys.exit(main())
