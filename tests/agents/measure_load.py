#!/usr/bin/env python3
"""Measures, with raw HTTP (no SDK client), what N concurrent streams of one real SDK
agent see: the facts behind `a2a-lab probe --tasks N` (SPEC section 11).

    tests/agents/measure_load.py [--sdk python|js|rust ...] [--wire 1.0|0.3 ...]
                                 [--defect none|shared-state|shared-queue ...]
                                 [--n N ...] [--reps R] [--hang S] [--jobs J] [--out DIR]
    tests/agents/measure_load.py --show [--out DIR]      # the short form

For every agent (started with tests/agents/start.sh, A2A_AGENT_DIR kept so its
server.log and side.jsonl can be read) and every N (default 2, 8, 16; a fresh agent per
N), R times (default 3): N threads open N connections, wait on one barrier, send N
SendStreamingMessage (0.3: message/stream) requests at once, each with its own message,
and read each SSE body until the server closes it or HANG seconds (default 10) from the
start. Then, after 1 s, GetTask (0.3: tasks/get) for every task seen. Each stream is
judged against the task it was created for: the task the executor made for the stream's
message (side.jsonl `execute_start` message_id -> task_id), cross-checked with the first
event's id.

Per stream: `foreign` events (taskId or contextId of another task), its own terminal
status or not, the stream's end (closed / still open = hung), JSON-RPC error events;
per run the server log's new lines that look like exceptions. Writes
DIR/load-<sdk>-<wire>-<defect>-n<N>.json (default DIR tests/agents/answers/measured/).
Standard library only.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
import uuid

from pathlib import Path

import measuring
from measuring import HERE, arg_parser, msg03, msg10, rpc_headers, version_header, wires

METHODS = {
    '1.0': {'stream': 'SendStreamingMessage', 'get': 'GetTask'},
    '0.3': {'stream': 'message/stream', 'get': 'tasks/get'},
}
TERMINAL = {'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED',
            'completed', 'failed', 'canceled', 'rejected'}
DEFECTS = ['none', 'shared-state', 'shared-queue']
UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')


def message(wire: str, mid: str) -> dict:
    return msg10(messageId=mid) if wire == '1.0' else msg03(messageId=mid)


def headers(wire: str, sse: bool) -> dict:
    return rpc_headers(version_header(wire), sse)


class Agent(measuring.Agent):
    """The agent with A2A_AGENT_DIR kept (its server.log and side.jsonl), removed at stop()."""

    def __init__(self, sdk: str, wire: str, defect: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f'a2a-load-{sdk}-{wire}-{defect}-'))
        super().__init__(sdk, wire, defect, env=dict(os.environ, A2A_AGENT_DIR=str(self.dir)))

    def log_size(self) -> int:
        try:
            return (self.dir / 'server.log').stat().st_size
        except FileNotFoundError:
            return 0

    def log_from(self, offset: int) -> str:
        try:
            with open(self.dir / 'server.log', 'rb') as f:
                f.seek(offset)
                return f.read().decode('utf-8', 'replace')
        except FileNotFoundError:
            return ''

    def side(self) -> list[dict]:
        try:
            return [json.loads(x) for x in (self.dir / 'side.jsonl').read_text(encoding='utf-8').splitlines() if x]
        except FileNotFoundError:
            return []

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def event_shape(ev: dict) -> dict:
    """kind, state, taskId, contextId of one JSON-RPC SSE event, on either wire."""
    if 'error' in ev:
        e = ev['error']
        return {'kind': 'error', 'code': e.get('code'), 'message': e.get('message'),
                **({'data': e['data']} if 'data' in e else {})}
    r = ev.get('result')
    if not isinstance(r, dict):
        return {'kind': 'other', 'raw': json.dumps(ev)[:200]}
    if 'kind' in r:  # 0.3
        k = r['kind']
        if k == 'task':
            return {'kind': 'task', 'state': r['status']['state'], 'taskId': r.get('id'), 'contextId': r.get('contextId')}
        out = {'kind': k, 'taskId': r.get('taskId'), 'contextId': r.get('contextId')}
        if k == 'status-update':
            out['state'] = r['status']['state']
            out['final'] = r.get('final')
        elif k == 'artifact-update':
            out['append'] = r.get('append')
            out['lastChunk'] = r.get('lastChunk')
        return out
    for k, v in r.items():
        if k == 'task':
            return {'kind': 'task', 'state': v['status']['state'], 'taskId': v.get('id'), 'contextId': v.get('contextId')}
        if k == 'statusUpdate':
            return {'kind': 'statusUpdate', 'state': v['status']['state'], 'taskId': v.get('taskId'),
                    'contextId': v.get('contextId')}
        if k == 'artifactUpdate':
            return {'kind': 'artifactUpdate', 'taskId': v.get('taskId'), 'contextId': v.get('contextId'),
                    'append': v.get('append'), 'lastChunk': v.get('lastChunk')}
        if k == 'message':
            return {'kind': 'message', 'taskId': v.get('taskId'), 'contextId': v.get('contextId')}
    return {'kind': 'other', 'raw': json.dumps(r)[:200]}


def one_stream(agent: Agent, wire: str, mid: str, rpc_id: int, barrier: threading.Barrier, hang: float) -> dict:
    body = {'jsonrpc': '2.0', 'id': rpc_id, 'method': METHODS[wire]['stream'],
            'params': {'message': message(wire, mid)}}
    conn = http.client.HTTPConnection(agent.host, agent.port, timeout=hang)
    conn.connect()
    barrier.wait()
    t0 = time.monotonic()
    deadline = t0 + hang
    out: dict = {'message_id': mid, 'rpc_id': rpc_id, 'events': []}
    try:
        conn.request('POST', '/', body=json.dumps(body), headers=headers(wire, True))
        resp = conn.getresponse()
        out['status'] = resp.status
        out['content_type'] = resp.getheader('content-type')
        data: list[str] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                out['ended'] = 'open'
                break
            conn.sock.settimeout(left)
            try:
                line = resp.readline()
            except (TimeoutError, socket.timeout):
                out['ended'] = 'open'
                break
            if not line:
                out['ended'] = 'closed'
                break
            text = line.decode('utf-8', 'replace').rstrip('\r\n')
            if text.startswith('data:'):
                data.append(text[5:].lstrip(' ') if text.startswith('data: ') else text[5:])
            elif text == '' and data:
                raw = '\n'.join(data)
                data = []
                ms = round((time.monotonic() - t0) * 1000)
                try:
                    ev = json.loads(raw)
                    shape = event_shape(ev)
                    if ev.get('id') != rpc_id:
                        shape['rpc_id'] = ev.get('id')
                except ValueError:
                    ev, shape = None, {'kind': 'unparsed', 'raw': raw[:200]}
                out['events'].append({'ms': ms, **shape, 'json': ev})
            elif text.startswith(':'):
                out.setdefault('comments', 0)
                out['comments'] += 1
        if data:
            out['events'].append({'kind': 'unparsed-tail', 'raw': '\n'.join(data)[:200]})
    except Exception as e:  # noqa: BLE001
        out['ended'] = f'{type(e).__name__}: {e}'
    out['ms'] = round((time.monotonic() - t0) * 1000)
    try:
        conn.sock.shutdown(socket.SHUT_RDWR)
    except (OSError, AttributeError):
        pass
    conn.close()
    return out


def get_task(agent: Agent, wire: str, tid: str) -> dict:
    body = {'jsonrpc': '2.0', 'id': 1, 'method': METHODS[wire]['get'], 'params': {'id': tid}}
    conn = http.client.HTTPConnection(agent.host, agent.port, timeout=5)
    conn.request('POST', '/', body=json.dumps(body), headers=headers(wire, False))
    r = conn.getresponse()
    raw = r.read()
    conn.close()
    try:
        j = json.loads(raw)
    except ValueError:
        return {'status': r.status, 'raw': raw.decode('utf-8', 'replace')[:300]}
    if 'error' in j:
        return {'status': r.status, 'error': j['error']}
    t = j.get('result') or {}
    arts = t.get('artifacts') or []
    return {
        'status': r.status,
        'state': (t.get('status') or {}).get('state'),
        'contextId': t.get('contextId'),
        'artifacts': [{'artifactId': a.get('artifactId'), 'parts': len(a.get('parts') or [])} for a in arts],
        'history_message_ids': [m.get('messageId') for m in (t.get('history') or [])],
    }


def judge(s: dict, own: str | None, own_ctx: str | None) -> dict:
    """One stream against the task it was created for."""
    evs = s['events']
    foreign = [e for e in evs if e.get('taskId') and (e['taskId'] != own or e.get('contextId') != own_ctx)]
    errors = [e for e in evs if e['kind'] == 'error']
    own_terminal = [i for i, e in enumerate(evs)
                    if e.get('taskId') == own and e.get('state') in TERMINAL]
    foreign_terminal = [e for e in foreign if e.get('state') in TERMINAL]
    own_art = [e for e in evs if e.get('taskId') == own and e['kind'] in ('artifactUpdate', 'artifact-update')]
    after_terminal = len(evs) - 1 - own_terminal[0] if own_terminal else 0
    verdict = []
    if foreign:
        verdict.append('foreign-task')
    if errors:
        verdict.append('error')
    if s.get('ended') == 'open':
        verdict.append('hung')
    elif not own_terminal:
        verdict.append('missing-terminal')
    if s.get('ended') not in ('closed', 'open'):
        verdict.append('transport')
    if len(own_art) != 3:
        verdict.append(f'own-artifacts={len(own_art)}')
    if len(own_terminal) > 1:
        verdict.append(f'own-terminals={len(own_terminal)}')
    if after_terminal:
        verdict.append(f'events-after-terminal={after_terminal}')
    return {
        'verdict': verdict or ['clean'],
        'events': len(evs),
        'foreign_events': len(foreign),
        'foreign_tasks': len({e['taskId'] for e in foreign}),
        'foreign_terminal': len(foreign_terminal),
        'own_terminal': len(own_terminal),
        'own_artifacts': len(own_art),
        'errors': [{k: e.get(k) for k in ('code', 'message', 'data') if k in e} for e in errors],
        'shape': [shape_word(e, own) for e in evs] + [f'<{s.get("ended")}>'],
    }


def shape_word(e: dict, own: str | None) -> str:
    k = e['kind']
    short = {'task': 'task', 'statusUpdate': 'status', 'status-update': 'status',
             'artifactUpdate': 'art', 'artifact-update': 'art'}.get(k, k)
    st = e.get('state')
    if st:
        short += ':' + st.replace('TASK_STATE_', '').lower()
    if k == 'error':
        short += f':{e.get("code")}'
    if e.get('taskId') and e['taskId'] != own:
        short += '@foreign'
    return short


def squeeze(words: list[str]) -> str:
    """'art art art' -> 'art x3' (runs of one word)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and words[j] == words[i]:
            j += 1
        out.append(words[i] if j - i == 1 else f'{words[i]} x{j - i}')
        i = j
    return ' '.join(out)


def run_once(agent: Agent, n: int, hang: float) -> dict:
    wire = agent.wire
    log0 = agent.log_size()
    side0 = len(agent.side())
    mids = [f'load-{uuid.uuid4()}' for _ in range(n)]
    barrier = threading.Barrier(n)
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        futs = [pool.submit(one_stream, agent, wire, mids[i], 100 + i, barrier, hang) for i in range(n)]
        streams = [f.result() for f in futs]
    wall = round((time.monotonic() - t0) * 1000)
    time.sleep(1.0)
    side = agent.side()[side0:]
    by_mid = {r.get('message_id'): r.get('task_id') for r in side if r.get('ev') == 'execute_start'}
    # the none executor does not log message ids: fall back to the first event's task id
    tasks = {}
    for s in streams:
        first = next((e for e in s['events'] if e.get('taskId')), None)
        own = by_mid.get(s['message_id']) or (first or {}).get('taskId')
        s['own_task'] = own
        s['first_event_task'] = (first or {}).get('taskId')
        tasks[own] = None
    for tid in list(tasks):
        if tid:
            tasks[tid] = get_task(agent, wire, tid)
    for s in streams:
        own = s['own_task']
        g = tasks.get(own) or {}
        s['judged'] = judge(s, own, g.get('contextId') or next(
            (e.get('contextId') for e in s['events'] if e.get('taskId') == own), None))
        s['get_after'] = g
    starts = [r.get('task_id') for r in side if r.get('ev') == 'execute_start']
    last = starts[-1] if starts else None
    foreign_ids = {e['taskId'] for st in streams for e in st['events']
                   if e.get('taskId') and e['taskId'] != st['own_task']}
    own_term = [st['own_task'] for st in streams if st['judged']['own_terminal']]
    checks = {
        'last_started_task': last,
        'foreign_events_name_only_the_last_started': bool(foreign_ids) and foreign_ids == {last},
        'foreign_task_ids': len(foreign_ids),
        'only_the_last_started_stream_saw_its_own_terminal': own_term == [last],
        'events_with_another_rpc_id': sum(1 for st in streams for e in st['events'] if 'rpc_id' in e),
    }
    log = agent.log_from(log0)
    exc = [ln for ln in log.splitlines() if re.search(r'Error|Exception|Traceback|ERROR|WARN', ln)]
    return {'n': n, 'wall_ms': wall, 'checks': checks, 'streams': streams, 'server_log_exceptions': exc[:80],
            'server_log': log[:20000],
            'server_log_exception_lines': len(exc), 'side': side}


def count(run: dict) -> dict:
    c = {'clean': 0, 'foreign-task': 0, 'missing-terminal': 0, 'hung': 0, 'error': 0, 'other': 0}
    for s in run['streams']:
        v = s['judged']['verdict']
        for w in v:
            if w in c:
                c[w] += 1
        if not any(w in c for w in v):
            c['other'] += 1  # only own-artifacts / own-terminals / events-after-terminal
    return c


def measure(sdk: str, wire: str, defect: str, n: int, reps: int, hang: float, out: Path) -> str:
    agent = Agent(sdk, wire, defect)
    try:
        res = {'agent': {'sdk': sdk, 'wire': wire, 'defect': defect, 'url': agent.url}, 'n': n, 'hang_s': hang,
               'runs': []}
        for _ in range(reps):
            run = run_once(agent, n, hang)
            run['counts'] = count(run)
            res['runs'].append(run)
    finally:
        agent.stop()
    path = out / f'load-{sdk}-{wire}-{defect}-n{n}.json'
    path.write_text(json.dumps(res, indent=1) + '\n', encoding='utf-8')
    return f'{path.name}: ' + ' | '.join(json.dumps(r['counts']) for r in res['runs'])


def show(out: Path) -> None:
    files = sorted(out.glob('load-*.json'))
    order = {('python', '1.0'): 0, ('python', '0.3'): 1, ('js', '1.0'): 2, ('js', '0.3'): 3, ('rust', '1.0'): 4}
    docs = [json.loads(p.read_text(encoding='utf-8')) for p in files]
    docs.sort(key=lambda d: (order.get((d['agent']['sdk'], d['agent']['wire']), 9),
                             DEFECTS.index(d['agent']['defect']) if d['agent']['defect'] in DEFECTS else 9, d['n']))
    for d in docs:
        a = d['agent']
        forms = {json.dumps([run['counts'], sorted(' '.join(s['judged']['verdict'] + s['judged']['shape'])
                                                   for s in run['streams'])]) for run in d['runs']}
        stable = 'the same counts and stream shapes in all runs' if len(forms) == 1 else 'runs DIFFER'
        print(f'=== {a["sdk"]} {a["wire"]} {a["defect"]} N={d["n"]} (hang {d["hang_s"]:g} s; '
              f'{len(d["runs"])} runs: {stable})')
        for i, run in enumerate(d['runs'], 1):
            c = run['counts']
            nz = ' '.join(f'{k}={v}' for k, v in c.items() if v)
            slow = max(s['ms'] for s in run['streams'])
            print(f'  run {i}: {nz}  (slowest {slow} ms; server-log exception lines {run["server_log_exception_lines"]})')
            if i > 1 and len(forms) == 1:
                continue  # the same as run 1
            shapes: dict[str, int] = {}
            for s in run['streams']:
                key = ' '.join(s['judged']['verdict']) + ' :: ' + squeeze(s['judged']['shape'])
                shapes[key] = shapes.get(key, 0) + 1
            for k, v in sorted(shapes.items(), key=lambda kv: -kv[1]):
                print(f'      {v}x {k}')
            errs: dict[str, int] = {}
            for s in run['streams']:
                for e in s['judged']['errors']:
                    k = json.dumps(e).replace(s['own_task'] or '-', '<own task>')
                    k = UUID.sub('<other task>', k)
                    errs[k] = errs.get(k, 0) + 1
            for k, v in errs.items():
                print(f'      {v}x error event: {k}')
            gets: dict[str, int] = {}
            for s in run['streams']:
                g = s['get_after']
                key = (f'{g.get("state")} artifacts=' + ','.join(f'{x["artifactId"]}:{x["parts"]}' for x in g.get('artifacts', []))
                       if 'state' in g else json.dumps(g.get('error') or g)[:150])
                gets[key] = gets.get(key, 0) + 1
            print('      GetTask after: ' + '; '.join(f'{v}x {k}' for k, v in gets.items()))
            if a['defect'] != 'none':
                print('      checks: ' + json.dumps({k: v for k, v in run['checks'].items() if k != 'last_started_task'}))
            mism = sum(1 for s in run['streams'] if s['first_event_task'] != s['own_task'])
            if mism:
                print(f'      first event names another task than the stream\'s own: {mism} streams')
            logs: dict[str, int] = {}
            for ln in run['server_log_exceptions']:
                k = UUID.sub('<id>', ln)[:230]
                logs[k] = logs.get(k, 0) + 1
            for k, v in logs.items():
                print(f'      log {v}x: {k}')


def main() -> int:
    ap = arg_parser(__doc__, DEFECTS)
    ap.add_argument('--n', action='append', type=int)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--hang', type=float, default=10.0)
    ap.add_argument('--jobs', type=int, default=4, help='agents measured at once (default 4)')
    ap.add_argument('--out', default=str(HERE / 'answers' / 'measured'))
    ap.add_argument('--show', action='store_true')
    args = ap.parse_args()
    out = Path(args.out)
    if args.show:
        show(out)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(sdk, wire, defect, n)
            for sdk in args.sdk or ['python', 'js'] for wire in wires(sdk, args.wire)
            for defect in args.defect or DEFECTS for n in args.n or [2, 8, 16]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(measure, *j, args.reps, args.hang, out) for j in jobs]
        for f in concurrent.futures.as_completed(futs):
            print(f.result(), flush=True)
    return 0


if __name__ == '__main__':
    os.environ.setdefault('PYTHONUNBUFFERED', '1')
    sys.exit(main())
