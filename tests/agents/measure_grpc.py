#!/usr/bin/env python3
"""Measures what the a2a-sdk agent answers over its gRPC binding (A2A 1.0 `lf.a2a.v1.A2AService`),
with a plain grpcio client over the SDK's own generated stubs (a2a.types.a2a_pb2 /
a2a_pb2_grpc; no SDK client), and the same calls over the same agent's JSON-RPC binding
(raw HTTP, as measure.py), to compare the two.

    tests/agents/measure_grpc.py [--defect D ...] [--out DIR] [--long]
    tests/agents/measure_grpc.py --show > tests/agents/answers/grpc-summary.txt

Starts `tests/agents/start.sh python 1.0 DEFECT grpc=on rest=on` for every DEFECT (default:
none, no-final, late-artifact, cancel-raises, never-returns, and `none ending=raise`,
an execute() that raises after its last chunk), reads the gRPC interface's url from the
card (`127.0.0.1:PORT`, a gRPC target) and makes the probe's calls on each binding:
SendStreamingMessage read to its end; GetTask, CancelTask and SubscribeToTask on that task
(and on an unknown one); on a new task CancelTask right after its first artifact event (the
stream kept open and read to its end); on another new task the stream dropped after its
first artifact (gRPC: the call cancelled, RST_STREAM) and SubscribeToTask. With DEFECT
none also a few request variants over gRPC (no `a2a-version` metadata, version 0.3, a
message without role or messageId, an unknown method). --long watches the first
never-returns stream 40 s on each binding (keep-alives). One JSON file per agent,
DIR/grpc-python-1.0-<defect>.json (default DIR tests/agents/answers/measured/, not committed):
every message as ProtoJSON (json_format.MessageToDict) with its arrival time, and every
status: its code name, details string, and the google.rpc.Status of the trailing
metadata `grpc-status-details-bin` (ErrorInfo reason and domain, BadRequest violations).

Needs grpcio and a2a-sdk: it runs under the a2a-sdk venv (tests/fidelity/python/.venv,
made by tests/agents/setup.sh python), re-executing itself there when started by another
Python.
"""

from __future__ import annotations

import json
import os
import queue
import re
import sys
import threading
import time
import uuid

from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = Path(os.environ.get('A2A_FIDELITY_VENV') or HERE.parent / 'fidelity' / 'python' / '.venv')

try:
    import grpc

    from google.protobuf import json_format
    from google.rpc import error_details_pb2, status_pb2

    from a2a.types import a2a_pb2, a2a_pb2_grpc
except ImportError:
    py = VENV / 'bin' / 'python'
    if os.environ.get('A2A_MEASURE_GRPC_REEXEC') or not py.exists():
        sys.exit(f'measure_grpc.py: no grpcio/a2a-sdk here and no venv at {VENV}: run tests/agents/setup.sh python')
    os.environ['A2A_MEASURE_GRPC_REEXEC'] = '1'
    os.execv(str(py), [str(py), __file__, *sys.argv[1:]])

from measure import Client  # noqa: E402  (raw JSON-RPC, as measure.py measures it)
from measuring import PROBE_DEFECTS, TEXT, Agent, arg_parser, msg10, summarize_10, task_line  # noqa: E402

# DEFECT plus extra start.sh keys: the agents measured by default
AGENTS = {d: [] for d in PROBE_DEFECTS} | {'raise': ['ending=raise']}
AGENT_DEFECT = {'raise': 'none'}
V10 = [('a2a-version', '1.0')]  # what a2a-sdk's GrpcTransport sends (client/transports/grpc.py:299-308)


def message(**over) -> a2a_pb2.Message:
    m = a2a_pb2.Message(message_id=f'msg-{uuid.uuid4()}', role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text=TEXT)])
    for k, v in over.items():
        if v is None:
            m.ClearField(k)
        else:
            setattr(m, k, v)
    return m


def proto_json(msg) -> dict:
    return json_format.MessageToDict(msg)


def summarize(d: dict) -> str:
    """One short line for a StreamResponse or a Task, as ProtoJSON."""
    line = summarize_10(d)
    if line is not None:
        return line
    if 'id' in d and 'status' in d:
        return task_line('Task', d)
    return json.dumps(d)[:160]


def status_of(call) -> dict:
    """A finished call's status: code name, details, and what grpc-status-details-bin holds."""
    out: dict = {'code': call.code().name, 'details': call.details()}
    trailing = call.trailing_metadata() or ()
    other = {}
    for k, v in trailing:
        if k == 'grpc-status-details-bin':
            st = status_pb2.Status()
            st.ParseFromString(v)
            rich: dict = {'code': st.code, 'message': st.message, 'details': []}
            for a in st.details:
                if a.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                    ei = error_details_pb2.ErrorInfo()
                    a.Unpack(ei)
                    rich['details'].append({'ErrorInfo': json_format.MessageToDict(ei)})
                elif a.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                    br = error_details_pb2.BadRequest()
                    a.Unpack(br)
                    rich['details'].append({'BadRequest': json_format.MessageToDict(br)})
                else:
                    rich['details'].append({'type_url': a.type_url})
            out['status_details'] = rich
        else:
            other[k] = v if isinstance(v, str) else repr(v)
    if other:
        out['trailing_metadata'] = other
    return out


def status_line(st: dict) -> str:
    reasons = [d['ErrorInfo'].get('reason') for d in (st.get('status_details') or {}).get('details', [])
               if 'ErrorInfo' in d]
    bad = [v for d in (st.get('status_details') or {}).get('details', []) if 'BadRequest' in d
           for v in d['BadRequest'].get('fieldViolations', [])]
    rich = ' (no grpc-status-details-bin)' if 'status_details' not in st else ''
    return (f'status {st["code"]} details={st["details"]!r}' + (f' reason={",".join(reasons)}' if reasons else '')
            + (f' violations={json.dumps(bad)}' if bad else '') + rich)


class GrpcStream:
    """A server-streaming call read by a thread, each message kept as ProtoJSON with its
    arrival time (ms from the call), then the status that ended it."""

    def __init__(self, method, request, metadata=V10) -> None:  # noqa: ANN001
        self.request = {'message': proto_json(request), 'metadata': dict(metadata)}
        self.t0 = time.monotonic()
        self.call = method(request, metadata=metadata)
        self.q: queue.Queue = queue.Queue()
        self.items: list[dict] = []
        self.ended: str | None = None
        self.status: dict | None = None
        self.dropped = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for resp in self.call:
                self.q.put(('msg', resp))
            self.q.put(('end', None))
        except grpc.RpcError:
            self.q.put(('end', None))

    def ms_now(self) -> int:
        return round((time.monotonic() - self.t0) * 1000)

    def next_item(self, timeout: float) -> dict | None:
        try:
            kind, resp = self.q.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if kind == 'end':
            self.status = status_of(self.call)
            self.ended = self.ended or ('closed with status ' + self.status['code'])
            return None
        d = proto_json(resp)
        it = {'ms': self.ms_now(), 'event': d, 'summary': summarize(d)}
        self.items.append(it)
        return it

    def read_until(self, pred, timeout: float) -> dict | None:  # noqa: ANN001
        deadline = time.monotonic() + timeout
        while self.ended is None:
            it = self.next_item(deadline - time.monotonic())
            if it is None:
                return None
            if pred(it['event']):
                return it
        return None

    def read_to_end(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.ended is None:
            if time.monotonic() >= deadline:
                self.ended = f'still open after {timeout:g} s'
                return
            self.next_item(deadline - time.monotonic())

    @staticmethod
    def task_id_of(ev: dict) -> str | None:
        if 'task' in ev:
            return ev['task'].get('id')
        return next((v.get('taskId') for v in ev.values() if isinstance(v, dict) and v.get('taskId')), None)

    def first_artifact_task(self, timeout: float = 4.0) -> str | None:
        first = self.read_until(lambda ev: 'artifactUpdate' in ev, timeout)
        return self.task_id_of(first['event']) if first else None

    def task_seen(self) -> str | None:
        return next((self.task_id_of(it['event']) for it in self.items if self.task_id_of(it['event'])), None)

    def drop(self) -> None:
        """Cancels the call (RST_STREAM CANCEL), the gRPC form of closing the connection."""
        if self.ended is None:
            self.dropped = True
            self.ended = 'dropped by the client (call cancelled)'
        self.call.cancel()

    def record(self) -> dict:
        return {'request': self.request, 'ended': self.ended, 'status': self.status, 'items': self.items,
                'summary': [it['summary'] for it in self.items]}


class GrpcBinding:
    name = 'grpc'

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.stub = a2a_pb2_grpc.A2AServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def unary(self, method: str, request, metadata=V10, timeout: float = 5.0) -> dict:  # noqa: ANN001
        t0 = time.monotonic()
        out: dict = {'request': {'method': method, 'message': proto_json(request), 'metadata': dict(metadata)}}
        try:
            resp, call = getattr(self.stub, method).with_call(request, metadata=metadata, timeout=timeout)
            out['response'] = proto_json(resp)
            out['summary'] = summarize(out['response'])
            out['status'] = status_of(call)
        except grpc.RpcError as e:
            out['status'] = status_of(e)
            out['summary'] = status_line(out['status'])
        out['ms'] = round((time.monotonic() - t0) * 1000)
        return out

    def send_stream(self) -> GrpcStream:
        return GrpcStream(self.stub.SendStreamingMessage, a2a_pb2.SendMessageRequest(message=message()))

    def subscribe(self, tid: str) -> GrpcStream:
        return GrpcStream(self.stub.SubscribeToTask, a2a_pb2.SubscribeToTaskRequest(id=tid))

    def subscribe_call(self, tid: str) -> dict:
        s = self.subscribe(tid)
        s.read_to_end(5.0)
        s.drop()
        return s.record()

    def get(self, tid: str) -> dict:
        return self.unary('GetTask', a2a_pb2.GetTaskRequest(id=tid))

    def cancel(self, tid: str) -> dict:
        return self.unary('CancelTask', a2a_pb2.CancelTaskRequest(id=tid))


class JsonRpcBinding:
    """The same calls over JSON-RPC 1.0 at URL/ (A2A-Version: 1.0), as measure.py makes them."""

    name = 'jsonrpc'

    def __init__(self, agent: Agent) -> None:
        self.c = Client(agent)

    def close(self) -> None:
        pass

    def send_stream(self):  # noqa: ANN201
        return self.c.open_stream('SendStreamingMessage', {'message': msg10()}, '1.0')

    def subscribe(self, tid: str):  # noqa: ANN201
        return self.c.open_stream('SubscribeToTask', {'id': tid}, '1.0')

    def subscribe_call(self, tid: str) -> dict:
        return self.c.call('SubscribeToTask', {'id': tid}, '1.0', sse=True)

    def get(self, tid: str) -> dict:
        return self.c.call('GetTask', {'id': tid}, '1.0')

    def cancel(self, tid: str) -> dict:
        return self.c.call('CancelTask', {'id': tid}, '1.0')


def probes(b, wait: float = 4.0) -> dict:  # noqa: ANN001
    res: dict = {}
    s = b.send_stream()
    s.read_to_end(wait)
    res['stream'] = s.record()
    tid = s.task_seen()
    s.drop()
    res['task_id'] = tid
    time.sleep(0.3)  # let a late event or the executor's end land
    res['get'] = b.get(tid)
    res['cancel-terminal'] = b.cancel(tid)
    res['subscribe-terminal'] = b.subscribe_call(tid)
    res['get-unknown'] = b.get('no-such-task')
    res['cancel-unknown'] = b.cancel('no-such-task')
    res['subscribe-unknown'] = b.subscribe_call('no-such-task')

    # cancel: a new task, CancelTask right after its first artifact event, the stream read to its end
    s = b.send_stream()
    ctid = s.first_artifact_task()
    t_cancel = s.ms_now()
    cancel = b.cancel(ctid)
    cancel['sent_at_stream_ms'] = t_cancel
    s.read_to_end(4.0)
    res['cancel'] = {'call': cancel, 'stream': s.record()}
    s.drop()
    time.sleep(0.5)
    res['cancel']['get_after'] = b.get(ctid)

    # resubscribe: a new task, its stream dropped after the first artifact, then SubscribeToTask
    s = b.send_stream()
    rtid = s.first_artifact_task()
    s.drop()
    s2 = b.subscribe(rtid)
    s2.read_to_end(4.0)
    res['resubscribe'] = {'dropped': s.record(), 'subscribed': s2.record()}
    s2.drop()
    time.sleep(0.3)
    res['resubscribe']['get_after'] = b.get(rtid)
    return res


def variants(b: GrpcBinding) -> dict:
    """Requests other than the probe's, over gRPC (DEFECT none)."""
    out: dict = {}

    def stream(name: str, request, metadata) -> None:  # noqa: ANN001
        s = GrpcStream(b.stub.SendStreamingMessage, request, metadata)
        s.read_to_end(3.0)
        s.drop()
        r = s.record()
        r['summary'] = r['summary'][:2] + (['...'] if len(r['summary']) > 2 else [])
        r.pop('items')
        out[name] = r

    stream('stream, no a2a-version metadata', a2a_pb2.SendMessageRequest(message=message()), [])
    stream('stream, a2a-version: 0.3', a2a_pb2.SendMessageRequest(message=message()), [('a2a-version', '0.3')])
    stream('stream, a2a-version: 2.0', a2a_pb2.SendMessageRequest(message=message()), [('a2a-version', '2.0')])
    stream('stream, no role (ROLE_UNSPECIFIED)', a2a_pb2.SendMessageRequest(message=message(role=None)), V10)
    stream('stream, no messageId', a2a_pb2.SendMessageRequest(message=message(message_id=None)), V10)
    stream('stream, no message', a2a_pb2.SendMessageRequest(), V10)
    out['GetTask, empty id'] = b.unary('GetTask', a2a_pb2.GetTaskRequest())
    out['GetTask, historyLength=-1'] = b.unary('GetTask', a2a_pb2.GetTaskRequest(id='no-such-task', history_length=-1))
    unknown = b.channel.unary_unary('/lf.a2a.v1.A2AService/NoSuchMethod', request_serializer=lambda m: m.SerializeToString(),
                                    response_deserializer=a2a_pb2.Task.FromString)
    t0 = time.monotonic()
    try:
        unknown(a2a_pb2.GetTaskRequest(id='x'), metadata=V10, timeout=5.0)
        out['unknown method'] = {'summary': 'answered'}
    except grpc.RpcError as e:
        st = status_of(e)
        out['unknown method'] = {'status': st, 'summary': status_line(st), 'ms': round((time.monotonic() - t0) * 1000)}
    return out


def card_of(agent: Agent) -> dict:
    return Client(agent).get('/.well-known/agent-card.json').get('json') or {}


def run(key: str, long: bool) -> dict:
    defect = AGENT_DEFECT.get(key, key)
    extra = ['grpc=on', 'rest=on', *AGENTS[key]]
    agent = Agent('python', '1.0', defect, extra)
    t0 = time.monotonic()
    wait = 40.0 if (long and key == 'never-returns') else 4.0
    try:
        card = card_of(agent)
        ifaces = card.get('supportedInterfaces') or []
        target = next(i['url'] for i in ifaces if i.get('protocolBinding') == 'GRPC')
        res: dict = {'agent': {'sdk': 'python', 'wire': '1.0', 'defect': defect, 'extra': extra},
                     'card': {'supportedInterfaces': ifaces}}
        g = GrpcBinding(target)
        try:
            res['grpc'] = probes(g, wait)
            if key == 'none':
                res['grpc']['variants'] = variants(g)
        finally:
            g.close()
        res['jsonrpc'] = probes(JsonRpcBinding(agent), wait)
    finally:
        agent.stop()
    if key == 'none':
        agent = Agent('python', '1.0', 'none', ['grpc=only'])
        try:
            only: dict = {'card': {'supportedInterfaces': card_of(agent).get('supportedInterfaces')}}
            only['jsonrpc POST /'] = Client(agent).call('GetTask', {'id': 'x'}, '1.0')
            target = only['card']['supportedInterfaces'][0]['url']
            g = GrpcBinding(target)
            try:
                s = g.send_stream()
                s.read_to_end(4.0)
                only['grpc stream'] = s.record()
                s.drop()
            finally:
                g.close()
            res['grpc=only'] = only
        finally:
            agent.stop()
    res['seconds'] = round(time.monotonic() - t0, 1)
    return res


# ---------------------------------------------------------------------------
# --show: the short form, ids, times and ports masked
# ---------------------------------------------------------------------------

UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
TIME = re.compile(r'\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)')  # ProtoJSON; sse-starlette's ping
PORT = re.compile(r'127\.0\.0\.1:\d+')


class Masker:
    """Gives every task and context id a stable name (TASK_1, CONTEXT_1, ...) in order of
    appearance, message ids MSG, timestamps TIME, ports PORT."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.n = {'TASK': 0, 'CONTEXT': 0}

    def learn(self, obj, field: str | None = None) -> None:  # noqa: ANN001
        if isinstance(obj, dict):
            for k, v in obj.items():
                self.learn(v, k)
        elif isinstance(obj, list):
            for v in obj:
                self.learn(v, field)
        elif isinstance(obj, str) and UUID.fullmatch(obj) and obj not in self.names:
            kind = 'TASK' if field in ('id', 'taskId') else 'CONTEXT' if field == 'contextId' else None
            if kind:
                self.n[kind] += 1
                self.names[obj] = f'{kind}_{self.n[kind]}'

    def __call__(self, text: str) -> str:
        text = UUID.sub(lambda m: self.names.get(m.group(0), 'ID'), text)
        text = re.sub(r'msg-ID', 'MSG', text)
        return PORT.sub('127.0.0.1:PORT', TIME.sub('TIME', text))


def show(path: Path) -> None:  # noqa: PLR0915
    d = json.loads(path.read_text(encoding='utf-8'))
    mask = Masker()
    mask.learn(d)
    a = d['agent']
    print(f'=== {path.name}: start.sh python 1.0 {a["defect"]} {" ".join(a["extra"])} ({d.get("seconds")} s)')
    print('  card supportedInterfaces: ' + mask(json.dumps(d['card']['supportedInterfaces'])))

    def js(obj) -> str:  # noqa: ANN001
        return mask(json.dumps(obj, separators=(',', ':')))

    def grpc_call(name: str, r: dict, ind: str = '  ') -> None:
        if 'items' in r:  # a stream
            times = (' @' + ','.join(str(it['ms']) for it in r['items'])) if r['items'] else ''
            print(f'{ind}{name}: ended={mask(r["ended"] or "")}{times}')
            for it in r['items']:
                print(f'{ind}    {it["summary"]}')
                print(f'{ind}      {js(it["event"])}')
            if r.get('status'):
                print(f'{ind}    end: {mask(status_line(r["status"]))}')
                if r['status'].get('status_details'):
                    print(f'{ind}      grpc-status-details-bin: {js(r["status"]["status_details"])}')
            return
        extra = f' (sent at {r["sent_at_stream_ms"]} ms, answered in {r["ms"]} ms)' if 'sent_at_stream_ms' in r else ''
        print(f'{ind}{name}: {r["request"]["method"]}{extra}')
        if 'response' in r:
            print(f'{ind}    {r["summary"]}  [{r["status"]["code"]}]')
            print(f'{ind}      {js(r["response"])}')
        else:
            print(f'{ind}    {mask(r["summary"])}')
            if r['status'].get('status_details'):
                print(f'{ind}      grpc-status-details-bin: {js(r["status"]["status_details"])}')

    def rpc_call(name: str, r: dict, ind: str = '  ') -> None:
        extra = f' (sent at {r["sent_at_stream_ms"]} ms, answered in {r["ms"]} ms)' if 'sent_at_stream_ms' in r else ''
        times = (' @' + ','.join(str(it['ms']) for it in r['items'] if 'ms' in it)) if r.get('items') else ''
        print(f'{ind}{name}: {r.get("status")} {r.get("content_type")} ended={r.get("ended")}{extra}{times}')
        s = r.get('summary')
        for x in (s if isinstance(s, list) else [s]):
            print(f'{ind}    {mask(str(x))}')
        if isinstance(r.get('json'), dict) and 'error' in r['json']:
            print(f'{ind}      {js(r["json"])}')
        for ev in r.get('events') or []:
            if isinstance(ev, dict) and 'error' in ev:
                print(f'{ind}      {js(ev)}')
        for it in r.get('items') or []:
            ev = it.get('event')
            if isinstance(ev, dict) and 'error' in ev:
                print(f'{ind}      {js(ev)}')

    for bnd, call in (('grpc', grpc_call), ('jsonrpc', rpc_call)):
        b = d[bnd]
        print(f' {bnd}:')
        for k in ('stream', 'get', 'cancel-terminal', 'subscribe-terminal', 'get-unknown', 'cancel-unknown',
                  'subscribe-unknown'):
            call(k, b[k])
        call('cancel: call', b['cancel']['call'])
        call('cancel: stream', b['cancel']['stream'])
        call('cancel: GetTask after', b['cancel']['get_after'])
        call('resubscribe: dropped', b['resubscribe']['dropped'])
        call('resubscribe: subscribed', b['resubscribe']['subscribed'])
        call('resubscribe: GetTask after', b['resubscribe']['get_after'])
        for k, v in (b.get('variants') or {}).items():
            line = v['summary'] if isinstance(v['summary'], str) else '; '.join(v['summary'])
            end = ''
            if 'ended' in v:  # a stream: how it ended
                st = v.get('status')
                end = f' | ended={v["ended"]}' + (f': {status_line(st)}' if st and st['code'] != 'OK' else '')
            print(f'  variant {k}: {mask(line)}{mask(end)}')
    if 'grpc=only' in d:
        o = d['grpc=only']
        print('  grpc=only card supportedInterfaces: ' + mask(json.dumps(o['card']['supportedInterfaces'])))
        r = o['jsonrpc POST /']
        print(f'  grpc=only JSON-RPC POST /: {r["status"]} {r["content_type"]} {mask(str(r.get("raw") or r.get("summary")))[:80]}')
        s = o['grpc stream']
        print(f'  grpc=only gRPC stream: {", ".join(s["summary"])} | ended={s["ended"]}')


def main() -> int:
    ap = arg_parser(__doc__, list(AGENTS))
    ap.add_argument('--out', default=str(HERE / 'answers' / 'measured'))
    ap.add_argument('--long', action='store_true', help='watch the never-returns stream 40 s on each binding')
    ap.add_argument('--show', action='store_true', help='only print the measured grpc-*.json files of --out in short')
    args = ap.parse_args()
    if (args.sdk and args.sdk != ['python']) or (args.wire and args.wire != ['1.0']):
        ap.error('the gRPC measurement is of the python agent on wire 1.0 only')
    out = Path(args.out)
    order = list(AGENTS)
    if args.show:
        def rank(p: Path) -> int:
            k = p.name.removeprefix('grpc-python-1.0-').removesuffix('.json')
            return order.index(k) if k in order else len(order)
        for path in sorted(out.glob('grpc-python-1.0-*.json'), key=rank):
            show(path)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for key in args.defect or order:
        res = run(key, args.long)
        path = out / f'grpc-python-1.0-{key}.json'
        path.write_text(json.dumps(res, indent=1) + '\n', encoding='utf-8')
        print(f'{path} ({res["seconds"]} s)', flush=True)
    return 0


if __name__ == '__main__':
    os.environ.setdefault('PYTHONUNBUFFERED', '1')
    sys.exit(main())
