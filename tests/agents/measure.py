#!/usr/bin/env python3
"""Measures, with raw HTTP (no SDK client), what the real SDK agents answer to the
six probes of SPEC section 10, on both wires, with and without defects.

    tests/agents/measure.py [--sdk python|js|rust ...] [--wire 1.0|0.3 ...] [--defect D ...]
                            [--out DIR] [--long]

Starts every agent with tests/agents/start.sh (needs tests/agents/setup.sh first),
runs the probes and the request-shape variants, and writes one JSON file per agent
(DIR/<sdk>-<wire>-<defect>.json, default DIR tests/agents/answers/measured/) with
every exchange: the request (method, headers, body) and the answer (HTTP status,
content type, JSON-RPC result/error or the SSE events in order, with arrival times).
--long also watches a never-returns stream for 40 s (keep-alive comments).
Standard library only.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import time

from pathlib import Path

from measuring import (HERE, PROBE_DEFECTS, TEXT, Agent, Stream, arg_parser, msg03, msg10, rpc_headers,
                       summarize_10, task_line, version_header, wires)

METHODS = {
    '1.0': {'stream': 'SendStreamingMessage', 'get': 'GetTask', 'cancel': 'CancelTask', 'subscribe': 'SubscribeToTask'},
    '0.3': {'stream': 'message/stream', 'get': 'tasks/get', 'cancel': 'tasks/cancel', 'subscribe': 'tasks/resubscribe'},
}
RAW_LIMIT = 6000


class Client:
    """Raw JSON-RPC over http.client; every exchange is kept."""

    def __init__(self, agent: Agent) -> None:
        self.a = agent
        self.rpc_id = 0

    def body(self, method: str, params) -> dict:
        self.rpc_id += 1
        return {'jsonrpc': '2.0', 'id': self.rpc_id, 'method': method, 'params': params}

    def get(self, path: str) -> dict:
        c = http.client.HTTPConnection(self.a.host, self.a.port, timeout=5)
        c.request('GET', path)
        r = c.getresponse()
        raw = r.read()
        c.close()
        out = {'request': {'http': f'GET {path}'}, 'status': r.status, 'content_type': r.getheader('content-type'),
               'location': r.getheader('location')}
        try:
            out['json'] = json.loads(raw)
        except ValueError:
            out['raw'] = raw.decode('utf-8', 'replace')[:300]
        return out

    def call(self, method: str, params, version: str | None, sse: bool = False, raw_body: dict | None = None) -> dict:
        """A unary call (or a streaming method read to the end within 5 s)."""
        body = raw_body if raw_body is not None else self.body(method, params)
        h = rpc_headers(version, sse)
        c = http.client.HTTPConnection(self.a.host, self.a.port, timeout=5)
        t0 = time.monotonic()
        c.request('POST', '/', body=json.dumps(body), headers=h)
        r = c.getresponse()
        try:
            raw = r.read()
            ended = 'closed'
        except (TimeoutError, socket.timeout):
            raw = b''
            ended = 'timeout 5 s'
        c.close()
        out = {
            'request': {'headers': {k: v for k, v in h.items() if k != 'Content-Type'}, 'body': body},
            'status': r.status,
            'content_type': r.getheader('content-type'),
            'ms': round((time.monotonic() - t0) * 1000),
            'ended': ended,
        }
        text = raw.decode('utf-8', 'replace')
        if (r.getheader('content-type') or '').startswith('text/event-stream'):
            out['events'] = parse_sse(text)
            out['summary'] = [summarize(e) for e in out['events']]
        else:
            try:
                out['json'] = json.loads(text)
                out['summary'] = summarize(out['json'])
            except ValueError:
                out['raw'] = text[:RAW_LIMIT]
        return out

    def open_stream(self, method: str, params, version: str | None, raw_body: dict | None = None) -> RpcStream:
        body = raw_body if raw_body is not None else self.body(method, params)
        return RpcStream(self.a, body, rpc_headers(version, True))


def parse_sse(text: str) -> list:
    out, data = [], []
    for line in text.replace('\r\n', '\n').split('\n'):
        if line == '':
            if data:
                try:
                    out.append(json.loads('\n'.join(data)))
                except ValueError:
                    out.append({'unparsed': '\n'.join(data)})
                data = []
        elif line.startswith(':'):
            out.append({'comment': line})
        elif line.startswith('data:'):
            data.append(line[5:].lstrip(' ') if line.startswith('data: ') else line[5:])
    if data:
        out.append({'unparsed-tail': '\n'.join(data)})
    return out


def summarize(ev) -> str:
    """One short line for a JSON-RPC response: the event kind and state, or the error."""
    if not isinstance(ev, dict):
        return repr(ev)[:80]
    if 'comment' in ev:
        return ev['comment']
    if 'error' in ev:
        e = ev['error']
        return f'error {e.get("code")} {e.get("message")!r}' + (f' data={json.dumps(e["data"])[:200]}' if e.get('data') else '')
    r = ev.get('result', ev)
    if not isinstance(r, dict):
        return repr(r)[:80]
    if 'kind' in r:  # 0.3
        k = r['kind']
        if k == 'task':
            return task_line('task', r)
        if k == 'status-update':
            return f'status-update {r["status"]["state"]} final={r.get("final")}'
        if k == 'artifact-update':
            return (f'artifact-update {r["artifact"]["artifactId"]} append={r.get("append")} '
                    f'lastChunk={r.get("lastChunk")}')
        return k
    line = summarize_10(r)
    if line is not None:
        return line
    if 'id' in r and 'status' in r:  # a bare 1.0 Task (GetTask / CancelTask result)
        return task_line('Task', r)
    return json.dumps(r)[:120]


def task_id_of(ev: dict) -> str | None:
    r = ev.get('result') or {}
    if r.get('kind') == 'task':
        return r['id']
    if 'task' in r:
        return r['task']['id']
    return r.get('taskId') or next((v.get('taskId') for v in r.values() if isinstance(v, dict) and 'taskId' in v), None)


def is_artifact(ev: dict) -> bool:
    r = ev.get('result') or {}
    return r.get('kind') == 'artifact-update' or 'artifactUpdate' in r


class RpcStream(Stream):
    """A JSON-RPC SSE response (POST /) read by a thread, line by line, with arrival times."""

    def __init__(self, agent: Agent, body: dict, headers: dict[str, str]) -> None:
        self.request = {'headers': {k: v for k, v in headers.items() if k != 'Content-Type'}, 'body': body}
        super().__init__(agent, 'POST', '/', headers, json.dumps(body))

    summarize = staticmethod(summarize)
    task_id_of = staticmethod(task_id_of)
    is_artifact = staticmethod(is_artifact)

    def _field(self, line: str, ms: int) -> dict | None:
        if line.startswith('data:'):
            self._data.append(line[5:].lstrip(' ') if line.startswith('data: ') else line[5:])
            return None
        return self._keep({'ms': ms, 'field': line})

    def record(self) -> dict:
        return {
            'request': self.request,
            'status': self.resp.status,
            'content_type': self.resp.getheader('content-type'),
            'ended': self.ended,
            'items': self.items,
            'summary': [it.get('summary') or it.get('comment') or it.get('field') for it in self.items],
        }


def new_message(wire: str):
    return {'message': msg10() if wire == '1.0' else msg03()}


def probes(agent: Agent, long: bool) -> dict:  # noqa: PLR0915
    wire = agent.wire
    m = METHODS[wire]
    hv = version_header(wire)
    c = Client(agent)
    res: dict = {'agent': {'sdk': agent.sdk, 'wire': wire, 'defect': agent.defect, 'url': agent.url}}

    res['discovery'] = {p: c.get(p) for p in ('/.well-known/agent-card.json', '/.well-known/agent.json')}

    # stream, read to the end
    s = c.open_stream(m['stream'], new_message(wire), hv)
    wait = 45.0 if (long and agent.defect == 'never-returns') else 4.0
    s.read_to_end(wait)
    res['stream'] = s.record()
    tid = s.task_seen()
    s.drop()
    res['task_id'] = tid

    time.sleep(0.3)  # let a late event or the executor's end land
    res['get'] = c.call(m['get'], {'id': tid}, hv)
    res['cancel-terminal'] = c.call(m['cancel'], {'id': tid}, hv)
    res['subscribe-terminal'] = c.call(m['subscribe'], {'id': tid}, hv, sse=True)
    res['get-unknown'] = c.call(m['get'], {'id': 'no-such-task'}, hv)

    # cancel: a new task, CancelTask after its first artifact event, then the rest of the stream
    s = c.open_stream(m['stream'], new_message(wire), hv)
    ctid = s.first_artifact_task()
    t_cancel = s.ms_now()
    cancel = c.call(m['cancel'], {'id': ctid}, hv)
    cancel['sent_at_stream_ms'] = t_cancel
    s.read_to_end(4.0)
    res['cancel'] = {'stream': s.record(), 'cancel_call': cancel}
    s.drop()
    time.sleep(0.5)
    res['cancel']['get_after'] = c.call(m['get'], {'id': ctid}, hv)

    # resubscribe: a new task, dropped after its first artifact, then SubscribeToTask
    s = c.open_stream(m['stream'], new_message(wire), hv)
    rtid = s.first_artifact_task()
    s.drop()
    s2 = c.open_stream(m['subscribe'], {'id': rtid}, hv)
    s2.read_to_end(4.0)
    res['resubscribe'] = {'dropped': s.record(), 'subscribed': s2.record()}
    s2.drop()
    time.sleep(0.3)
    res['resubscribe']['get_after'] = c.call(m['get'], {'id': rtid}, hv)
    return res


def variants(agent: Agent) -> dict:
    """Request shapes that differ from the ones that work: what does each SDK say?"""
    c = Client(agent)
    out: dict = {}

    def stream_call(name, method, params, version, sse=True):
        r = c.call(method, params, version, sse=sse)
        s = r.get('summary')
        out[name] = {'request': r['request'], 'status': r['status'], 'content_type': r['content_type'],
                     'ended': r['ended'],
                     'summary': s if isinstance(s, str) else (s[:2] + (['...'] if len(s) > 2 else []) if s else s),
                     **({'json': r['json']} if 'json' in r and 'error' in r['json'] else {}),
                     **({'raw': r['raw'][:300]} if 'raw' in r else {})}

    # 1.0 method names
    stream_call('1.0 as the probe sends it', 'SendStreamingMessage', {'message': msg10()}, '1.0')
    stream_call('1.0 no A2A-Version header', 'SendStreamingMessage', {'message': msg10()}, None)
    stream_call('1.0 A2A-Version: 0.3', 'SendStreamingMessage', {'message': msg10()}, '0.3')
    stream_call('1.0 role "user"', 'SendStreamingMessage', {'message': msg10(role='user')}, '1.0')
    stream_call('1.0 parts with kind', 'SendStreamingMessage',
                {'message': msg10(parts=[{'kind': 'text', 'text': TEXT}])}, '1.0')
    stream_call('1.0 no messageId', 'SendStreamingMessage', {'message': msg10(messageId=None)}, '1.0')
    stream_call('1.0 no role', 'SendStreamingMessage', {'message': msg10(role=None)}, '1.0')
    stream_call('1.0 no Accept header', 'SendStreamingMessage', {'message': msg10()}, '1.0', sse=False)
    stream_call('1.0 with configuration', 'SendStreamingMessage',
                {'message': msg10(), 'configuration': {'acceptedOutputModes': ['text/plain']}}, '1.0')
    stream_call('1.0 GetTask with name', 'GetTask', {'name': 'tasks/no-such-task'}, '1.0', sse=False)
    # 0.3 method names
    stream_call('0.3 as the probe sends it (no header)', 'message/stream', {'message': msg03()}, None)
    stream_call('0.3 A2A-Version: 0.3', 'message/stream', {'message': msg03()}, '0.3')
    stream_call('0.3 A2A-Version: 1.0', 'message/stream', {'message': msg03()}, '1.0')
    stream_call('0.3 no kind on message', 'message/stream', {'message': msg03(kind=None)}, None)
    stream_call('0.3 parts without kind', 'message/stream', {'message': msg03(parts=[{'text': TEXT}])}, None)
    stream_call('0.3 role ROLE_USER', 'message/stream', {'message': msg03(role='ROLE_USER')}, None)
    stream_call('0.3 no messageId', 'message/stream', {'message': msg03(messageId=None)}, None)
    stream_call('0.3 1.0-shaped message', 'message/stream', {'message': msg10()}, None)
    stream_call('0.3 tasks/get unknown', 'tasks/get', {'id': 'no-such-task'}, None, sse=False)
    stream_call('unknown method', 'NoSuchMethod', {}, '1.0', sse=False)
    # not JSON at all
    conn = http.client.HTTPConnection(agent.host, agent.port, timeout=5)
    conn.request('POST', '/', body='not json', headers={'Content-Type': 'application/json', 'A2A-Version': '1.0'})
    r = conn.getresponse()
    raw = r.read().decode('utf-8', 'replace')
    conn.close()
    out['body not JSON'] = {'status': r.status, 'content_type': r.getheader('content-type'), 'raw': raw[:300]}
    return out


def show(path: Path) -> None:
    """Prints one measured file in short: what the probe would see."""
    d = json.loads(path.read_text(encoding='utf-8'))
    print(f'=== {path.name} ({d.get("seconds")} s)')
    for p, r in d['discovery'].items():
        print(f'  GET {p}: {r["status"]} {r["content_type"]}')

    def line(name: str, r: dict) -> None:
        if r is None:
            return
        s = r.get('summary')
        extra = f' sent at {r["sent_at_stream_ms"]} ms, answered in {r["ms"]} ms' if 'sent_at_stream_ms' in r else ''
        ms = ' @' + ','.join(str(it['ms']) for it in r['items']) if 'items' in r else ''
        print(f'  {name}: {r.get("status")} {r.get("content_type")} ended={r.get("ended")}{extra}{ms}')
        for x in (s if isinstance(s, list) else [s]):
            print(f'      {x}')

    for k in ('stream', 'get', 'cancel-terminal', 'subscribe-terminal', 'get-unknown'):
        line(k, d[k])
    line('cancel: call', d['cancel']['cancel_call'])
    line('cancel: stream', d['cancel']['stream'])
    line('cancel: GetTask after', d['cancel']['get_after'])
    line('resubscribe: dropped', d['resubscribe']['dropped'])
    line('resubscribe: subscribed', d['resubscribe']['subscribed'])
    line('resubscribe: GetTask after', d['resubscribe']['get_after'])
    for k, v in (d.get('variants') or {}).items():
        print(f'  variant {k}: {v["status"]} {v["content_type"]} {v.get("summary") or v.get("raw")}')


def main() -> int:
    ap = arg_parser(__doc__, PROBE_DEFECTS)
    ap.add_argument('--out', default=str(HERE / 'answers' / 'measured'))
    ap.add_argument('--long', action='store_true')
    ap.add_argument('--show', action='store_true', help='only print the measured files of --out in short')
    args = ap.parse_args()
    out = Path(args.out)
    if args.show:
        for path in sorted(out.glob('*.json')):
            show(path)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for sdk in args.sdk or ['python', 'js']:
        for wire in wires(sdk, args.wire):
            for defect in args.defect or PROBE_DEFECTS:
                agent = Agent(sdk, wire, defect)
                try:
                    t0 = time.monotonic()
                    res = probes(agent, args.long)
                    if defect == 'none':
                        res['variants'] = variants(agent)
                    res['seconds'] = round(time.monotonic() - t0, 1)
                finally:
                    agent.stop()
                path = out / f'{sdk}-{wire}-{defect}.json'
                path.write_text(json.dumps(res, indent=1) + '\n', encoding='utf-8')
                print(f'{path} ({res["seconds"]} s)', flush=True)
    return 0


if __name__ == '__main__':
    os.environ.setdefault('PYTHONUNBUFFERED', '1')
    sys.exit(main())
