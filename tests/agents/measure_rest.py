#!/usr/bin/env python3
"""Measures, with raw HTTP (no SDK client), what the real SDK agents answer over their
HTTP+JSON (REST) binding: the six probes of SPEC section 10 and the request variants.

    tests/agents/measure_rest.py [--sdk python|js|rust ...] [--wire 1.0|0.3 ...] [--defect D ...]
                                 [--out DIR]
    tests/agents/measure_rest.py --show > tests/agents/answers/rest-summary.txt

Starts every agent with `tests/agents/start.sh SDK WIRE DEFECT rest=on` (needs
tests/agents/setup.sh first; with DEFECT none also a `rest=on push=on` agent for the push
config calls and a `rest=only` one) and writes one JSON file per agent,
DIR/rest-<sdk>-<wire>[-<defect>].json (default DIR tests/agents/answers/measured/), with
every exchange: the request (method, path, headers, body) and the answer (HTTP status,
headers, JSON body or the SSE events in order with their framing and arrival times).

REST 1.0 is measured on every agent (base URL/rest, header `A2A-Version: 1.0`); REST 0.3
on the 0.3 agents only (base URL/rest/v1, the SDKs' 0.3 REST routes, no header, the 0.3
proto-JSON message `{"messageId","role":"ROLE_USER","content":[{"text"}]}`).
Standard library only.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import time
import uuid

from pathlib import Path

from measuring import (HERE, PROBE_DEFECTS, TEXT, Agent, Stream, arg_parser, msg03, msg10, pruned, summarize_10,
                       task_line, wires)

KEEP_HEADERS = ('content-type', 'cache-control', 'x-accel-buffering', 'connection', 'transfer-encoding',
                'content-length', 'vary', 'etag', 'a2a-version', 'location')


def rest_msg03(**over):
    """The 0.3 REST (proto JSON) message: `content`, not `parts`; role ROLE_USER."""
    return pruned({'messageId': f'msg-{uuid.uuid4()}', 'role': 'ROLE_USER', 'content': [{'text': TEXT}]}, over)


BINDINGS = {
    '1.0': {'base': '/rest', 'headers': {'A2A-Version': '1.0'}, 'msg': msg10},
    '0.3': {'base': '/rest/v1', 'headers': {}, 'msg': rest_msg03},
}


def kept_headers(resp: http.client.HTTPResponse) -> dict[str, str]:
    return {k.lower(): v for k, v in resp.getheaders() if k.lower() in KEEP_HEADERS}


def call(agent: Agent, method: str, path: str, headers: dict[str, str], body=None, timeout: float = 5.0) -> dict:
    s = RestStream(agent, method, path, headers, body)
    s.read_to_end(timeout)
    s.drop()
    return s.record()


def summarize(ev) -> str:
    if not isinstance(ev, dict):
        return repr(ev)[:80]
    if 'error' in ev and isinstance(ev['error'], dict):
        e = ev['error']
        reasons = [d.get('reason') for d in e.get('details') or [] if isinstance(d, dict) and d.get('reason')]
        return (f'error code={e.get("code")} status={e.get("status")} reason={",".join(reasons) or None} '
                f'message={e.get("message")!r}')
    if 'code' in ev and 'message' in ev:  # a bare JSON-RPC-like error object
        return f'bare error code={ev["code"]} message={ev["message"]!r}'
    line = summarize_10(ev)
    if line is not None:
        return line
    if 'id' in ev and 'status' in ev:
        return task_line('Task', ev)
    if 'tasks' in ev:
        return f'tasks: {len(ev["tasks"])} ' + json.dumps({k: v for k, v in ev.items() if k != 'tasks'})[:120]
    return json.dumps(ev)[:160]


def task_id_of(ev: dict) -> str | None:
    if 'task' in ev and isinstance(ev['task'], dict):
        return ev['task'].get('id')
    for v in ev.values():
        if isinstance(v, dict) and v.get('taskId'):
            return v['taskId']
    return None


def is_artifact(ev: dict) -> bool:
    return 'artifactUpdate' in ev


class RestStream(Stream):
    """One request whose answer is read line by line by a thread (SSE or not), with arrival times."""

    def __init__(self, agent: Agent, method: str, path: str, headers: dict[str, str], body) -> None:
        self.request = {'method': method, 'path': path, 'headers': headers,
                        'body': body if not isinstance(body, (bytes, str)) else
                        (body.decode() if isinstance(body, bytes) else body)}
        self.raw_lines: list[str] = []  # the first lines exactly as received (framing)
        self._fields: dict[str, str] = {}
        self._body: list[str] = []
        data = None if body is None else (body if isinstance(body, (bytes, str)) else json.dumps(body))
        super().__init__(agent, method, path, headers, data)

    summarize = staticmethod(summarize)
    task_id_of = staticmethod(task_id_of)
    is_artifact = staticmethod(is_artifact)

    @property
    def sse(self) -> bool:
        return self.content_type.startswith('text/event-stream')

    def _line(self, raw: str, ms: int) -> dict | None:
        if len(self.raw_lines) < 12:
            end = '\r\n' if raw.endswith('\r\n') else '\n' if raw.endswith('\n') else ''
            self.raw_lines.append(raw[:160] + ('...' + end if len(raw) > 160 else ''))
        if not self.sse:
            self._body.append(raw)
            return None
        return super()._line(raw, ms)

    def _field(self, line: str, ms: int) -> None:
        name, _, value = line.partition(':')
        value = value[1:] if value.startswith(' ') else value
        if name == 'data':
            self._data.append(value)
        else:
            self._fields[name] = value

    def _event_item(self, it: dict) -> dict:
        if self._fields:
            it['fields'] = self._fields
            self._fields = {}
        return it

    def record(self) -> dict:
        out = {
            'request': self.request,
            'status': self.resp.status,
            'reason': self.resp.reason,
            'headers': kept_headers(self.resp),
            'ended': self.ended,
            'ms': self.ms_now(),
        }
        if self.sse:
            out['items'] = self.items
            out['summary'] = [it.get('summary') or it.get('comment') for it in self.items]
            out['line_end'] = ('CRLF' if self.raw_lines and self.raw_lines[0].endswith('\r\n')
                               else 'LF' if self.raw_lines else None)
            out['raw_head'] = self.raw_lines[:6]
        else:
            text = ''.join(self._body)
            try:
                out['json'] = json.loads(text)
                out['summary'] = summarize(out['json'])
            except ValueError:
                out['raw'] = text[:600]
                out['summary'] = f'not JSON: {text[:80]!r}'
        return out


def probes(agent: Agent, binding: str) -> dict:
    b = BINDINGS[binding]
    base, hv, msg = b['base'], b['headers'], b['msg']
    js = {'Content-Type': 'application/json', **hv}
    sse = {**js, 'Accept': 'text/event-stream'}
    res: dict = {}

    s = RestStream(agent, 'POST', f'{base}/message:stream', sse, {'message': msg()})
    s.read_to_end(4.0)
    res['stream'] = s.record()
    tid = s.task_seen()
    s.drop()
    res['task_id'] = tid
    time.sleep(0.3)
    res['get'] = call(agent, 'GET', f'{base}/tasks/{tid}', hv)
    res['get historyLength=0'] = call(agent, 'GET', f'{base}/tasks/{tid}?historyLength=0', hv)
    res['cancel-terminal'] = call(agent, 'POST', f'{base}/tasks/{tid}:cancel', js, {})
    res['cancel-terminal, no body'] = call(agent, 'POST', f'{base}/tasks/{tid}:cancel', hv)
    res['subscribe-terminal POST'] = call(agent, 'POST', f'{base}/tasks/{tid}:subscribe', sse, {})
    res['subscribe-terminal GET'] = call(agent, 'GET', f'{base}/tasks/{tid}:subscribe',
                                         {**hv, 'Accept': 'text/event-stream'})
    res['get-unknown'] = call(agent, 'GET', f'{base}/tasks/no-such-task', hv)
    res['cancel-unknown'] = call(agent, 'POST', f'{base}/tasks/no-such-task:cancel', js, {})
    res['subscribe-unknown'] = call(agent, 'POST', f'{base}/tasks/no-such-task:subscribe', sse, {})

    # cancel: a new task, :cancel after its first artifact event, then the rest of the stream
    s = RestStream(agent, 'POST', f'{base}/message:stream', sse, {'message': msg()})
    ctid = s.first_artifact_task()
    t_cancel = s.ms_now()
    cancel = call(agent, 'POST', f'{base}/tasks/{ctid}:cancel', js, {})
    cancel['sent_at_stream_ms'] = t_cancel
    s.read_to_end(4.0)
    res['cancel'] = {'stream': s.record(), 'cancel_call': cancel}
    s.drop()
    time.sleep(0.5)
    res['cancel']['get_after'] = call(agent, 'GET', f'{base}/tasks/{ctid}', hv)

    def resubscribe(method: str, headers: dict[str, str], body) -> tuple[str | None, dict, dict]:
        """A new task, dropped after its first artifact, then :subscribe by `method`."""
        s = RestStream(agent, 'POST', f'{base}/message:stream', sse, {'message': msg()})
        tid = s.first_artifact_task()
        s.drop()
        s2 = RestStream(agent, method, f'{base}/tasks/{tid}:subscribe', headers, body)
        s2.read_to_end(4.0)
        dropped, subscribed = s.record(), s2.record()
        s2.drop()
        return tid, dropped, subscribed

    rtid, dropped, subscribed = resubscribe('POST', sse, {})
    res['resubscribe'] = {'dropped': dropped, 'subscribed': subscribed}
    time.sleep(0.3)
    res['resubscribe']['get_after'] = call(agent, 'GET', f'{base}/tasks/{rtid}', hv)

    # the same with GET :subscribe
    res['resubscribe GET'] = resubscribe('GET', {**hv, 'Accept': 'text/event-stream'}, None)[2]

    # non-streaming send, and list
    res['send'] = call(agent, 'POST', f'{base}/message:send', js, {'message': msg()})
    res['list'] = call(agent, 'GET', f'{base}/tasks', hv)
    return res


def variants(agent: Agent, binding: str) -> dict:
    """Request shapes other than the ones that work, on REST `binding`."""
    b = BINDINGS[binding]
    base, msg = b['base'], b['msg']
    out: dict = {}

    def v(name: str, method: str, path: str, headers: dict[str, str], body=None) -> None:
        r = call(agent, method, path, headers, body, timeout=3.0)
        if 'items' in r:
            r['summary'] = r['summary'][:2] + (['...'] if len(r['summary']) > 2 else [])
            r.pop('items')
        out[name] = r

    ct = {'Content-Type': 'application/json'}
    stream = f'{base}/message:stream'
    body = {'message': msg()}
    v('stream, no A2A-Version', 'POST', stream, {**ct}, body)
    v('stream, A2A-Version: 1.0', 'POST', stream, {**ct, 'A2A-Version': '1.0'}, {'message': msg()})
    v('stream, A2A-Version: 0.3', 'POST', stream, {**ct, 'A2A-Version': '0.3'}, {'message': msg()})
    v('stream, A2A-Version: 1', 'POST', stream, {**ct, 'A2A-Version': '1'}, {'message': msg()})
    v('stream, A2A-Version: 1.0.0', 'POST', stream, {**ct, 'A2A-Version': '1.0.0'}, {'message': msg()})
    hv = b['headers']
    v('stream, no Content-Type', 'POST', stream, {**hv}, json.dumps({'message': msg()}))
    v('stream, Content-Type: application/a2a+json', 'POST', stream,
      {**hv, 'Content-Type': 'application/a2a+json'}, {'message': msg()})
    v('stream, Content-Type: text/plain', 'POST', stream, {**hv, 'Content-Type': 'text/plain'}, {'message': msg()})
    v('stream, body not JSON', 'POST', stream, {**ct, **hv}, 'not json')
    v('stream, body {}', 'POST', stream, {**ct, **hv}, {})
    v('stream, no messageId', 'POST', stream, {**ct, **hv}, {'message': msg(messageId=None)})
    v('stream, role "user"', 'POST', stream, {**ct, **hv}, {'message': msg(role='user')})
    v('stream, no role', 'POST', stream, {**ct, **hv}, {'message': msg(role=None)})
    if binding == '1.0':
        v('stream, 0.3 JSON-RPC-style message (kind, role user)', 'POST', stream, {**ct, **hv},
          {'message': msg03()})
        v('stream, parts in "content" (0.3 REST form)', 'POST', stream, {**ct, **hv}, {'message': rest_msg03()})
    else:
        v('stream, parts in "parts" (1.0 form)', 'POST', stream, {**ct, **hv}, {'message': msg10()})
    v('stream, double slash //message:stream', 'POST', f'{base}//message:stream', {**ct, **hv}, {'message': msg()})
    v('stream, without the /rest prefix', 'POST', stream.replace('/rest', '', 1), {**ct, **hv}, {'message': msg()})
    v('stream, GET', 'GET', stream, {**hv})
    v('unknown path', 'POST', f'{base}/message:nope', {**ct, **hv}, {'message': msg()})
    v('get, double slash //tasks/ID', 'GET', f'{base}//tasks/no-such-task', {**hv})
    v('get unknown, no A2A-Version', 'GET', f'{base}/tasks/no-such-task', {})
    v('get, historyLength=x', 'GET', f'{base}/tasks/no-such-task?historyLength=x', {**hv})
    if binding == '1.0':
        v('0.3 path /rest/v1/message:stream with A2A-Version: 1.0', 'POST', '/rest/v1/message:stream',
          {**ct, 'A2A-Version': '1.0'}, {'message': msg10()})
        v('tenant path /rest/t1/message:stream', 'POST', '/rest/t1/message:stream',
          {**ct, 'A2A-Version': '1.0'}, {'message': msg10()})
        v('tenant path before the prefix /t1/rest/message:stream', 'POST', '/t1/rest/message:stream',
          {**ct, 'A2A-Version': '1.0'}, {'message': msg10()})
    return out


def discovery(agent: Agent) -> dict:
    out = {}
    for name, h in (('no header', {}), ('A2A-Version: 1.0', {'A2A-Version': '1.0'}),
                    ('A2A-Version: 0.3', {'A2A-Version': '0.3'})):
        r = call(agent, 'GET', '/.well-known/agent-card.json', h)
        j = r.get('json') or {}
        r['summary'] = {k: j[k] for k in ('supportedInterfaces', 'url', 'preferredTransport', 'protocolVersion',
                                          'additionalInterfaces') if k in j}
        out[name] = r
    return out


def push_calls(agent: Agent, binding: str, tid: str) -> dict:
    b = BINDINGS[binding]
    base, hv = b['base'], b['headers']
    js = {'Content-Type': 'application/json', **hv}
    out = {}
    if binding == '1.0':
        cfg = {'id': 'cfg-1', 'url': 'http://127.0.0.1:9/hook', 'token': 'tok-1'}
    else:
        cfg = {'name': f'tasks/{tid}/pushNotificationConfigs/cfg-1',
               'pushNotificationConfig': {'id': 'cfg-1', 'url': 'http://127.0.0.1:9/hook', 'token': 'tok-1'}}
    out['set'] = call(agent, 'POST', f'{base}/tasks/{tid}/pushNotificationConfigs', js, cfg)
    out['get'] = call(agent, 'GET', f'{base}/tasks/{tid}/pushNotificationConfigs/cfg-1', hv)
    out['list'] = call(agent, 'GET', f'{base}/tasks/{tid}/pushNotificationConfigs', hv)
    out['delete'] = call(agent, 'DELETE', f'{base}/tasks/{tid}/pushNotificationConfigs/cfg-1', hv)
    out['get after delete'] = call(agent, 'GET', f'{base}/tasks/{tid}/pushNotificationConfigs/cfg-1', hv)
    return out


def finished_task(agent: Agent, binding: str) -> str | None:
    b = BINDINGS[binding]
    r = call(agent, 'POST', f'{b["base"]}/message:stream',
             {'Content-Type': 'application/json', **b['headers']}, {'message': b['msg']()}, timeout=4.0)
    return next((task_id_of(it['event']) for it in r.get('items', []) if task_id_of(it['event'])), None)


def run(sdk: str, wire: str, defect: str) -> dict:
    bindings = ['1.0', '0.3'] if wire == '0.3' else ['1.0']
    agent = Agent(sdk, wire, defect, ['rest=on'])
    t0 = time.monotonic()
    try:
        res: dict = {'agent': {'sdk': sdk, 'wire': wire, 'defect': defect, 'extra': ['rest=on']},
                     'discovery': discovery(agent)}
        for bnd in bindings:
            res[f'rest-{bnd}'] = probes(agent, bnd)
            if defect == 'none':
                res[f'rest-{bnd}']['variants'] = variants(agent, bnd)
                tid = finished_task(agent, bnd)
                res[f'rest-{bnd}']['push without push=on'] = {'set': push_calls(agent, bnd, tid)['set']}
        if defect == 'none':  # JSON-RPC still served beside REST?
            res['jsonrpc beside'] = call(agent, 'POST', '/', {'Content-Type': 'application/json', 'A2A-Version': '1.0'},
                                         {'jsonrpc': '2.0', 'id': 1, 'method': 'GetTask', 'params': {'id': 'x'}})
    finally:
        agent.stop()
    if defect == 'none':
        agent = Agent(sdk, wire, defect, ['rest=on', 'push=on'])
        try:
            for bnd in bindings:
                tid = finished_task(agent, bnd)
                res[f'rest-{bnd}']['push (push=on)'] = push_calls(agent, bnd, tid)
        finally:
            agent.stop()
        agent = Agent(sdk, wire, defect, ['rest=only'])
        try:
            only = {'discovery': discovery(agent)}
            only['jsonrpc POST /'] = call(agent, 'POST', '/', {'Content-Type': 'application/json', 'A2A-Version': '1.0'},
                                          {'jsonrpc': '2.0', 'id': 1, 'method': 'GetTask', 'params': {'id': 'x'}})
            tid = finished_task(agent, '1.0')
            only['rest-1.0 stream gave a task'] = tid is not None
            res['rest=only'] = only
        finally:
            agent.stop()
    res['seconds'] = round(time.monotonic() - t0, 1)
    return res


def show(path: Path) -> None:  # noqa: PLR0912
    d = json.loads(path.read_text(encoding='utf-8'))
    print(f'=== {path.name}')
    for k, r in (d['discovery'] if d['agent']['defect'] == 'none' else {}).items():
        print(f'  GET card ({k}): {r["status"]} {r["headers"].get("content-type")} {json.dumps(r["summary"])}')

    def line(name: str, r: dict | None, ind: str = '  ') -> None:
        if not r:
            return
        req = r['request']
        hdr = ','.join(f'{k}: {v}' for k, v in req['headers'].items()) or '-'
        extra = f' (sent at {r["sent_at_stream_ms"]} ms)' if 'sent_at_stream_ms' in r else ''
        frame = f' {r["line_end"]}' if r.get('line_end') else ''
        times = (' @' + ','.join(str(it['ms']) for it in r['items'])) if r.get('items') else ''
        print(f'{ind}{name}: {req["method"]} {req["path"]} [{hdr}]{extra} -> {r["status"]} '
              f'{r["headers"].get("content-type")}{frame} ended={r.get("ended")}{times}')
        s = r.get('summary')
        for x in (s if isinstance(s, list) else [s]):
            print(f'{ind}    {x}')
        for it in r.get('items') or []:
            if it.get('fields'):
                print(f'{ind}    (fields before data: {it["fields"]})')

    for bnd in ('rest-1.0', 'rest-0.3'):
        if bnd not in d:
            continue
        b = d[bnd]
        print(f' {bnd}:')
        for k, r in b.items():
            if k in ('task_id',):
                continue
            if k == 'cancel':
                line('cancel: call', r['cancel_call'])
                line('cancel: stream', r['stream'])
                line('cancel: get after', r['get_after'])
            elif k == 'resubscribe':
                line('resubscribe: dropped', r['dropped'])
                line('resubscribe: subscribed', r['subscribed'])
                line('resubscribe: get after', r['get_after'])
            elif k == 'variants':
                for vk, vr in r.items():
                    line(f'variant {vk}', vr)
            elif k.startswith('push'):
                for pk, pr in r.items():
                    line(f'{k}: {pk}', pr)
            else:
                line(k, r)
    if 'jsonrpc beside' in d:
        line('JSON-RPC GetTask at POST / beside REST', d['jsonrpc beside'])
    if 'rest=only' in d:
        o = d['rest=only']
        for k, r in o['discovery'].items():
            print(f'  rest=only GET card ({k}): {r["status"]} {json.dumps(r["summary"])}')
        line('rest=only JSON-RPC POST /', o['jsonrpc POST /'])
        print(f'  rest=only REST 1.0 stream gave a task: {o["rest-1.0 stream gave a task"]}')


def main() -> int:
    ap = arg_parser(__doc__, PROBE_DEFECTS)
    ap.add_argument('--out', default=str(HERE / 'answers' / 'measured'))
    ap.add_argument('--show', action='store_true', help='only print the measured rest-*.json files of --out in short')
    args = ap.parse_args()
    out = Path(args.out)
    if args.show:
        # each agent's DEFECT none file first, then its defects
        for path in sorted(out.glob('rest-*.json'), key=lambda p: (p.name.split('-')[1], p.name.split('-')[2].removesuffix('.json'), p.name.count('-') > 2, p.name)):
            show(path)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for sdk in args.sdk or ['python', 'js']:
        for wire in wires(sdk, args.wire):
            for defect in args.defect or ['none', 'no-final', 'late-artifact', 'cancel-raises']:
                res = run(sdk, wire, defect)
                name = f'rest-{sdk}-{wire}' + ('' if defect == 'none' else f'-{defect}') + '.json'
                (out / name).write_text(json.dumps(res, indent=1) + '\n', encoding='utf-8')
                print(f'{out / name} ({res["seconds"]} s)', flush=True)
    return 0


if __name__ == '__main__':
    os.environ.setdefault('PYTHONUNBUFFERED', '1')
    sys.exit(main())
