#!/usr/bin/env python3
"""Measures, with raw HTTP (no SDK client), what the real SDK agents stream when they
report progress and send their whole artifact last (SPEC sections 13 and 14: the keys
`progress` and `result`), and what CancelTask and SubscribeToTask answer when sent right
after the first WORKING and after the end.

    tests/agents/measure_progress.py [--sdk python|js ...] [--wire 1.0|0.3 ...]
                                     [--runs R] [--keys 'progress=2 result=last']
                                     [--out DIR] [--raw]
    tests/agents/measure_progress.py --show [--out DIR]       # the short form

For every agent (tests/agents/start.sh SDK WIRE none KEYS) and R runs (default 3):
- `stream`: SendStreamingMessage (0.3: message/stream) read to its end; then GetTask,
  CancelTask and SubscribeToTask on the finished task;
- `cancel`: a new stream, CancelTask sent as soon as the first WORKING status update
  arrived, the rest of the stream, GetTask;
- `resubscribe`: a new stream dropped right after its first WORKING, then SubscribeToTask
  read to its end, GetTask;
- `after-artifact`: what a probe timed from the first artifact gets: CancelTask as soon as
  the artifact update arrived (stream kept open), and on another task a drop there and
  SubscribeToTask;
- `second`: a new stream kept open, SubscribeToTask right after its first WORKING; both
  read to their ends.
Writes DIR/progress-<sdk>-<wire>.json (default DIR tests/agents/answers/measured/, which
git ignores); --raw also writes the first run's exchanges to answers/raw/progress-<sdk>-<wire>-*: the
stream (.sse), GetTask, CancelTask and SubscribeToTask on the finished task, the CancelTask
after the first WORKING and its stream, the subscription after the drop.
Standard library only.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import sys
import tempfile
import threading
import time

from pathlib import Path

from measure import METHODS, RpcStream, is_artifact
from measuring import HERE, Agent, arg_parser, msg03, msg10, rpc_headers, version_header

RAW = HERE / 'answers' / 'raw'
STREAM_S = 6.0  # a stream of the default scenario ends in ~0.6 s


def status_text(status: dict) -> str | None:
    m = status.get('message')
    if not m:
        return None
    return ' '.join(p.get('text', '?') for p in m.get('parts') or [])


def line(ev) -> str:
    """One short line for a JSON-RPC answer or stream event, progress messages included."""
    if not isinstance(ev, dict):
        return repr(ev)[:80]
    if 'error' in ev:
        e = ev['error']
        return f'error {e.get("code")} {e.get("message")!r}'
    r = ev.get('result', ev)
    if not isinstance(r, dict):
        return repr(r)[:80]
    kind = r.get('kind')
    if kind == 'task' or 'task' in r or ('id' in r and 'status' in r):
        t = r['task'] if 'task' in r and isinstance(r['task'], dict) else r
        arts = t.get('artifacts') or []
        hist = t.get('history') or []
        agent_msgs = sum(1 for m in hist if m.get('role') in ('ROLE_AGENT', 'agent'))
        parts = ','.join(f'{a.get("artifactId")}:{len(a.get("parts") or [])}' for a in arts)
        msg = status_text(t.get('status') or {})
        return (f'{"task" if kind == "task" or "task" in r else "Task"} {t["status"]["state"]} '
                f'artifacts={len(arts)}' + (f' parts={parts}' if parts else '')
                + f' history={len(hist)} (agent {agent_msgs})' + (f' msg="{msg}"' if msg else ''))
    su = r if kind == 'status-update' else r.get('statusUpdate')
    if isinstance(su, dict):
        msg = status_text(su['status'])
        return (f'{"status-update" if kind else "statusUpdate"} {su["status"]["state"]}'
                + (f' final={su["final"]}' if 'final' in su else '')
                + (f' msg="{msg}"' if msg else ''))
    au = r if kind == 'artifact-update' else r.get('artifactUpdate')
    if isinstance(au, dict):
        a = au['artifact']
        return (f'{"artifact-update" if kind else "artifactUpdate"} {a.get("artifactId")} '
                f'parts={len(a.get("parts") or [])} append={au.get("append")} lastChunk={au.get("lastChunk")}')
    return json.dumps(r)[:120]


def state_of(ev: dict) -> str | None:
    r = ev.get('result') or {}
    su = r if r.get('kind') == 'status-update' else r.get('statusUpdate')
    return su['status']['state'] if isinstance(su, dict) else None


def is_working(ev: dict) -> bool:
    return state_of(ev) in ('TASK_STATE_WORKING', 'working')


class RawStream(RpcStream):
    """RpcStream that also keeps the body as received, the timestamps and message shapes."""

    summarize = staticmethod(line)

    def __init__(self, *a, **kw) -> None:
        self.raw: list[str] = []
        super().__init__(*a, **kw)

    def _line(self, raw: str, ms: int):
        self.raw.append(raw)
        return super()._line(raw, ms)

    def record(self) -> dict:
        rec = super().record()
        rec['at_ms'] = [it['ms'] for it in self.items if 'event' in it]
        details = []
        for it in self.items:
            ev = it.get('event') or {}
            r = ev.get('result') or {}
            su = r if r.get('kind') == 'status-update' else r.get('statusUpdate')
            if isinstance(su, dict):
                m = su['status'].get('message')
                details.append({'timestamp': su['status'].get('timestamp'),
                                'message': ({k: v for k, v in m.items() if k != 'parts'} if m else None)})
            else:
                details.append(None)
        rec['status_details'] = details
        return rec


def side_lines(path: Path) -> list[dict]:
    try:
        return [json.loads(x) for x in path.read_text(encoding='utf-8').splitlines() if x.strip()]
    except (FileNotFoundError, ValueError):
        return []


class Rpc:
    def __init__(self, agent: Agent, side: Path) -> None:
        self.a = agent
        self.side = side
        self.wire = agent.wire
        self.m = METHODS[agent.wire]
        self.hv = version_header(agent.wire)
        self.rpc_id = 0

    def body(self, method: str, params) -> dict:
        self.rpc_id += 1
        return {'jsonrpc': '2.0', 'id': self.rpc_id, 'method': method, 'params': params}

    def call(self, what: str, params, sse: bool = False) -> dict:
        """A unary call (SubscribeToTask on a finished task too), kept raw."""
        body = self.body(self.m[what], params)
        h = rpc_headers(self.hv, sse)
        c = http.client.HTTPConnection(self.a.host, self.a.port, timeout=5)
        t0 = time.monotonic()
        c.request('POST', '/', body=json.dumps(body), headers=h)
        r = c.getresponse()
        raw = r.read().decode('utf-8', 'replace')
        c.close()
        out = {'request': {'headers': {k: v for k, v in h.items() if k != 'Content-Type'}, 'body': body},
               'status': r.status, 'content_type': r.getheader('content-type'),
               'ms': round((time.monotonic() - t0) * 1000),
               'headers': ''.join(f'{k}: {v}\n' for k, v in r.getheaders() if k.lower() != 'date'),
               'raw': raw}
        if (r.getheader('content-type') or '').startswith('text/event-stream'):
            evs = [json.loads(x[5:].strip()) for x in raw.split('\n') if x.startswith('data:')]
            out['summary'] = [line(e) for e in evs]
        else:
            try:
                out['summary'] = line(json.loads(raw))
            except ValueError:
                out['summary'] = raw[:200]
        return out

    def stream(self, what: str, params) -> RawStream:
        return RawStream(self.a, self.body(self.m[what], params), rpc_headers(self.hv, True))

    def new_message(self) -> dict:
        return {'message': msg10() if self.wire == '1.0' else msg03()}



def cancel_when(rpc, moment):
    """A new task's stream, CancelTask sent as soon as `moment` is read, the stream read to its end.
    Returns the stream, the task id and the cancel call (with when it was sent)."""
    s = rpc.stream('stream', rpc.new_message())
    seen = s.read_until(moment, 4.0)
    tid = s.task_seen()
    sent = s.ms_now()
    cancel = rpc.call('cancel', {'id': tid})
    cancel['sent_at_stream_ms'] = sent
    cancel['first_working_ms'] = seen['ms'] if seen else None
    s.read_to_end(STREAM_S)
    return s, tid, cancel


def resubscribe_when(rpc, moment):
    """A new task's stream dropped as soon as `moment` is read, then SubscribeToTask read to its end.
    Returns the dropped stream, the task id and the subscription."""
    s = rpc.stream('stream', rpc.new_message())
    s.read_until(moment, 4.0)
    tid = s.task_seen()
    s.drop()
    s2 = rpc.stream('subscribe', {'id': tid})
    s2.read_to_end(STREAM_S)
    return s, tid, s2

def one_run(rpc: Rpc) -> tuple[dict, dict]:
    """One run of the four exchanges: (record, raw files of this run)."""
    res: dict = {}
    raw: dict[str, str] = {}

    # stream to the end, then cancel / subscribe on the finished task
    s = rpc.stream('stream', rpc.new_message())
    s.read_to_end(STREAM_S)
    tid = s.task_seen()
    res['stream'] = s.record()
    raw['stream.sse'] = ''.join(s.raw)
    s.drop()
    time.sleep(0.3)
    res['get'] = rpc.call('get', {'id': tid})
    res['cancel-terminal'] = rpc.call('cancel', {'id': tid})
    res['subscribe-terminal'] = rpc.call('subscribe', {'id': tid}, sse=True)
    raw['get.body'] = res['get']['raw']
    raw['cancel-terminal.body'] = res['cancel-terminal']['raw']
    raw['subscribe-terminal.headers'] = res['subscribe-terminal']['headers']
    raw['subscribe-terminal.body'] = res['subscribe-terminal']['raw']

    # cancel right after the first WORKING
    side_before = len(side_lines(rpc.side))
    s, ctid, cancel = cancel_when(rpc, is_working)
    res['cancel'] = {'stream': s.record(), 'cancel_call': cancel}
    raw['cancel-working.body'] = cancel['raw']
    raw['cancel-working-stream.sse'] = ''.join(s.raw)
    s.drop()
    time.sleep(0.8)  # the executor's steps are 200 ms: any step it still runs lands by then
    res['cancel']['get_after'] = rpc.call('get', {'id': ctid})
    # what the executor did meanwhile (its side channel: steps, events enqueued after the cancel)
    res['cancel']['executor'] = [' '.join([e['ev'], *(f'{k}={e[k]}' for k in ('i', 'j', 'impl', 'ending') if k in e)])
                                 for e in side_lines(rpc.side)[side_before:]]

    # resubscribe: dropped right after the first WORKING, then SubscribeToTask
    s, rtid, s2 = resubscribe_when(rpc, is_working)
    res['resubscribe'] = {'dropped': s.record(), 'subscribed': s2.record()}
    raw['resubscribe.sse'] = ''.join(s2.raw)
    s2.drop()
    time.sleep(0.3)
    res['resubscribe']['get_after'] = rpc.call('get', {'id': rtid})

    # what a probe timed from the first artifact gets: CancelTask, then (on another task)
    # a drop and SubscribeToTask, each sent as soon as the one artifact update arrived
    s, _, cancel = cancel_when(rpc, is_artifact)
    res['after-artifact'] = {'cancel_stream': s.record(), 'cancel_call': cancel}
    s.drop()
    s, _, s2 = resubscribe_when(rpc, is_artifact)
    res['after-artifact']['subscribed'] = s2.record()
    s2.drop()

    # a second subscriber right after the first WORKING; the first stream kept open
    s = rpc.stream('stream', rpc.new_message())
    s.read_until(is_working, 4.0)
    stid = s.task_seen()
    s2 = rpc.stream('subscribe', {'id': stid})
    # both read at once: an item's time is taken when it is read
    t = threading.Thread(target=s2.read_to_end, args=(STREAM_S,))
    t.start()
    s.read_to_end(STREAM_S)
    t.join()
    res['second'] = {'first': s.record(), 'subscriber': s2.record()}
    s.drop()
    s2.drop()
    return res, raw


def show(path: Path) -> None:
    d = json.loads(path.read_text(encoding='utf-8'))
    print(f'=== {path.name}: start.sh {d["agent"]["sdk"]} {d["agent"]["wire"]} none {" ".join(d["agent"]["keys"])}')

    def stream(name: str, r: dict) -> None:
        print(f'  {name}: ended={r["ended"]}')
        for it, det in zip([i for i in r['items'] if 'event' in i], r['status_details']):
            ts = f' ts={det["timestamp"]}' if det and det.get('timestamp') else ''
            print(f'    @{it["ms"]:>4} {it["summary"]}{ts}')

    def call(name: str, r: dict) -> None:
        extra = (f' (sent at {r["sent_at_stream_ms"]} ms, the event it waited for at {r["first_working_ms"]} ms,'
                 f' answered in {r["ms"]} ms)') if 'sent_at_stream_ms' in r else ''
        s = r['summary']
        print(f'  {name}: {r["status"]} {r["content_type"]}{extra}')
        for x in (s if isinstance(s, list) else [s]):
            print(f'      {x}')

    for i, run in enumerate(d['runs'], 1):
        print(f' -- run {i}')
        stream('stream', run['stream'])
        call('GetTask after', run['get'])
        call('CancelTask on the finished task', run['cancel-terminal'])
        call('SubscribeToTask on the finished task', run['subscribe-terminal'])
        call('CancelTask after the first WORKING', run['cancel']['cancel_call'])
        stream('its stream', run['cancel']['stream'])
        call('GetTask after the cancel', run['cancel']['get_after'])
        print(f'  the executor meanwhile (side.jsonl): {", ".join(run["cancel"]["executor"])}')
        stream('resubscribe: dropped after the first WORKING', run['resubscribe']['dropped'])
        stream('resubscribe: SubscribeToTask', run['resubscribe']['subscribed'])
        call('resubscribe: GetTask after', run['resubscribe']['get_after'])
        aa = run.get('after-artifact')
        if aa:
            call('CancelTask right after the artifact update', aa['cancel_call'])
            stream('its stream', aa['cancel_stream'])
            stream('dropped after the artifact update, then SubscribeToTask', aa['subscribed'])
        stream('second: first stream kept open', run['second']['first'])
        stream('second: SubscribeToTask after the first WORKING', run['second']['subscriber'])


def main() -> int:
    ap = arg_parser(__doc__, ['none'])
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--keys', default='progress=2 result=last')
    ap.add_argument('--out', default=str(HERE / 'answers' / 'measured'))
    ap.add_argument('--raw', action='store_true', help='write the first run to answers/raw/progress-*')
    ap.add_argument('--show', action='store_true')
    args = ap.parse_args()
    out = Path(args.out)
    if args.show:
        for path in sorted(out.glob('progress-*.json')):
            show(path)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    keys = args.keys.split()
    for sdk in args.sdk or ['python', 'js']:
        for wire in args.wire or ['1.0', '0.3']:
            workdir = Path(tempfile.mkdtemp(prefix='a2a-progress-'))
            agent = Agent(sdk, wire, 'none', keys, env={**os.environ, 'A2A_AGENT_DIR': str(workdir)})
            try:
                t0 = time.monotonic()
                rpc = Rpc(agent, workdir / 'side.jsonl')
                runs = []
                for r in range(args.runs):
                    res, raw = one_run(rpc)
                    runs.append(res)
                    if r == 0 and args.raw:
                        RAW.mkdir(parents=True, exist_ok=True)
                        for name, text in raw.items():
                            (RAW / f'progress-{sdk}-{wire}-{name}').write_text(text, encoding='utf-8')
            finally:
                agent.stop()
                shutil.rmtree(workdir, ignore_errors=True)
            rec = {'agent': {'sdk': sdk, 'wire': wire, 'keys': keys}, 'seconds': round(time.monotonic() - t0, 1),
                   'runs': runs}
            path = out / f'progress-{sdk}-{wire}.json'
            path.write_text(json.dumps(rec, indent=1) + '\n', encoding='utf-8')
            print(f'{path} ({rec["seconds"]} s)', flush=True)
    return 0


if __name__ == '__main__':
    os.environ.setdefault('PYTHONUNBUFFERED', '1')
    sys.exit(main())
