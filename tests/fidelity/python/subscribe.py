"""Subscribers and the A2A 0.3 wire (SPEC section 9), measured on a2a-sdk 1.3.0.

`recorder.py subscribe [--runs 3] [--only QUERY ...] [--out DIR]` runs the same
server, executor and side channel as `recorder.py record`, with a client driver
that can also

* drop its stream after delivered event k and call SubscribeToTask
  (0.3: `tasks/resubscribe`) on the task (`resubscribe=k`),
* let a second client call SubscribeToTask after the first client's delivered
  event k and read that stream beside the first (`second_client=k`),
* speak A2A 0.3 to the SDK's 0.3 compatibility mode (`wire=0.3`:
  `create_jsonrpc_routes(handler, rpc_url='/', enable_v0_3_compat=True)` plus a
  card interface of protocol_version 0.3; a raw httpx client with the 0.3 method
  names, no A2A-Version header, httpx's default 5 s timeouts like the SDK client).

The fixtures go to tests/fidelity/fixtures/python/subscribe/ (own index.json), one
file per stable scenario; the existing fixtures and their index are untouched.
Every stream of every client is kept: its events in order, how it ended, the
JSON-RPC error it answered with, the raw SSE text (first run). See the README.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import platform
import time
import uuid

from pathlib import Path
from typing import Any

import recorder as R


SUB_OUT = R.HERE.parent / 'fixtures' / 'python' / 'subscribe'
SUB_DEFAULTS = {'resubscribe': 'none', 'second_client': 'none', 'wire': '1.0'}
MAX_SUBSCRIPTIONS = 2  # a client re-subscribes at most this often in one run
RECONNECT_FOR_S = 15.0  # how long a re-subscribing client retries a refused connection

# The defaults deliver 6 events: T(SUBMITTED) S(WORKING) A A A S(COMPLETED).
_DEFAULT_EVENTS = 6
_ENDING_LAST = {'fail': 6, 'input': 6, 'auth': 6, 'return': 5, 'never': 5}

# SPEC section 14, the lifecycle in combination: a subscriber on a task that asks for input
# or authorization (subscribed before the question and after, across the follow-up turns),
# a subscriber with a retried submission, and the shapes of agents on other stacks
# (progress, result=last) with cancel, resubscribe and second_client.
COMBOS: list[str] = (
    ['interrupt=input&resubscribe=2', 'interrupt=input&resubscribe=3', 'interrupt=input&second_client=2',
     'interrupt=input&second_client=3', 'interrupt=auth&resubscribe=3', 'interrupt=auth&second_client=3',
     'interrupt=both&resubscribe=3', 'interrupt=both&second_client=3',
     'interrupt=input&resubscribe=3&wire=0.3', 'interrupt=input&second_client=3&wire=0.3',
     'interrupt=auth&second_client=3&wire=0.3']
    + ['retry=on&second_client=2', 'retry=on&second_client=3', 'retry=on&resubscribe=3',
       'retry=on&second_client=2&wire=0.3']
    + ['progress=2&cancel=1', 'result=last&cancel=1', 'progress=2&result=last&cancel=1',
       'progress=2&resubscribe=3', 'result=last&resubscribe=3', 'progress=2&second_client=3',
       'result=last&second_client=3', 'progress=2&cancel=1&wire=0.3', 'result=last&resubscribe=3&wire=0.3']
)

MATRIX: list[str] = (
    [f'resubscribe={k}' for k in range(1, _DEFAULT_EVENTS + 1)]
    + [f'ending={e}&resubscribe={k}' for e, last in _ENDING_LAST.items() for k in (3, last)]
    + [f'restart=2&store={s}&resubscribe={k}' for s in ('memory', 'database') for k in (3, 5)]
    + ['cancel=1&resubscribe=3', 'cancel=1&resubscribe=4', 'cancel=2&resubscribe=3',
       'late=0&resubscribe=3', 'late=0&resubscribe=6', 'late=300&resubscribe=6']
    + [f'second_client={k}' for k in range(1, _DEFAULT_EVENTS + 1)]
    + ['ending=input&second_client=3', 'ending=auth&second_client=3', 'ending=return&second_client=3',
       'ending=never&second_client=3', 'late=0&second_client=3', 'cancel=1&second_client=3']
    # every scenario of the existing matrix on the A2A 0.3 wire
    + [('wire=0.3' if q == 'defaults' else f'{q}&wire=0.3') for q in R.MATRIX]
    + ['resubscribe=3&wire=0.3', 'resubscribe=6&wire=0.3', 'second_client=3&wire=0.3',
       'second_client=6&wire=0.3', 'ending=auth&resubscribe=6&wire=0.3',
       'restart=2&store=memory&resubscribe=5&wire=0.3', 'restart=2&store=database&resubscribe=5&wire=0.3']
    + COMBOS
)

V03_STATE = {
    'submitted': 'TASK_STATE_SUBMITTED', 'working': 'TASK_STATE_WORKING',
    'input-required': 'TASK_STATE_INPUT_REQUIRED', 'auth-required': 'TASK_STATE_AUTH_REQUIRED',
    'completed': 'TASK_STATE_COMPLETED', 'failed': 'TASK_STATE_FAILED',
    'canceled': 'TASK_STATE_CANCELED', 'rejected': 'TASK_STATE_REJECTED', 'unknown': 'TASK_STATE_UNKNOWN',
}
V03_KIND = {'task': 'task', 'status-update': 'statusUpdate', 'artifact-update': 'artifactUpdate',
            'message': 'message'}
V03_METHOD = {'SendStreamingMessage': 'message/stream', 'SendMessage': 'message/send',
              'SubscribeToTask': 'tasks/resubscribe', 'GetTask': 'tasks/get', 'CancelTask': 'tasks/cancel'}


def split_query(query: str, defaults: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """A matrix recorder's query: its own keys (`defaults`, each at most once) taken out, the
    rest parsed by recorder.parse_scenario. Shared with push.py."""
    extra = dict(defaults)
    rest, seen = [], set()
    for pair in ([] if query in ('', 'defaults') else query.split('&')):
        key, _, value = pair.partition('=')
        if key in defaults:
            if key in seen:
                raise ValueError(f'repeated key {key!r}')
            seen.add(key)
            extra[key] = value
        else:
            rest.append(pair)
    return R.parse_scenario('&'.join(rest) or 'defaults'), extra


def parse_query(query: str) -> tuple[dict[str, str], dict[str, str]]:
    """The lab's keys (recorder.parse_scenario) plus SPEC section 9's three and the shapes of
    SPEC section 14 (`progress`, `result`: the executor's, written in `inputs` only when set)."""
    cfg, extra = split_query(query, {**SUB_DEFAULTS, **R.SHAPE_DEFAULTS})
    check_shapes(extra)
    for key in ('resubscribe', 'second_client'):
        if extra[key] != 'none' and not (extra[key].isdigit() and int(extra[key]) >= 1):
            raise ValueError(f'{key} must be none or k >= 1')
        if extra[key] != 'none' and cfg['client'] != 'stream':
            raise ValueError(f'{key} needs client=stream')
    if extra['wire'] not in ('1.0', '0.3'):
        raise ValueError("wire must be '1.0' or '0.3'")
    return cfg, extra


def check_shapes(extra: dict[str, str]) -> None:
    if not extra['progress'].isdigit():
        raise ValueError('progress must be k >= 0')
    if extra['result'] not in R.SHAPE_ENUMS['result']:
        raise ValueError('result must be chunks or last')


# Keys a fixture's `inputs` holds only when they are set (added after the fixtures of the
# earlier keys were recorded, so re-recording those keeps their `inputs`).
LATE_KEYS = {**R.SHAPE_DEFAULTS, 'push_followup': 'none'}


def norm_state(s: Any) -> Any:
    if isinstance(s, str) and not s.startswith('TASK_STATE_'):
        return V03_STATE.get(s, s)
    return s


def texts(parts: list[dict[str, Any]]) -> list[Any]:
    return [p.get('text') for p in parts]


def norm_event(result: Any, terminal_seen: bool) -> dict[str, Any]:
    """One wire event (1.0 or 0.3) in the fixtures' form; states in the 1.0 spelling."""
    if isinstance(result, dict) and isinstance(result.get('kind'), str):  # A2A 0.3: flat, tagged
        kind, body = V03_KIND.get(result['kind'], 'unknown'), result
    elif isinstance(result, dict):
        kind = R.kind_of(result)
        body = result.get(kind, {})
    else:
        kind, body = 'unknown', {}
    state = norm_state(body.get('status', {}).get('state')) if kind in ('task', 'statusUpdate') else None
    ev: dict[str, Any] = {
        'kind': kind,
        'state': state,
        'artifact_id': body.get('artifact', {}).get('artifactId') if kind == 'artifactUpdate' else None,
        'append': bool(body.get('append', False)) if kind == 'artifactUpdate' else False,
        'last_chunk': bool(body.get('lastChunk', False)) if kind == 'artifactUpdate' else False,
        'after_terminal': terminal_seen,
    }
    if 'final' in body:
        ev['final'] = body['final']
    if kind == 'artifactUpdate':
        ev['parts'] = texts(body.get('artifact', {}).get('parts', []))
    if kind == 'task':
        arts = body.get('artifacts', [])
        ev['artifacts'] = len(arts)
        ev['parts'] = [t for a in arts for t in texts(a.get('parts', []))]
        ev['history'] = len(body.get('history', []))
    return ev


def events_of(results: list[Any]) -> list[dict[str, Any]]:
    out, seen = [], False
    for r in results:
        ev = norm_event(r, seen)
        out.append(ev)
        seen = seen or ev['state'] in R.TERMINAL
    return out


def task_summary(task: dict[str, Any]) -> dict[str, Any]:
    s = R.task_summary(task)
    s['state'] = norm_state(s['state'])
    return s


def rpc_error_in(raw: bytes, content_type: str) -> dict[str, Any] | None:
    """The JSON-RPC error of a body: a JSON answer, or an SSE event holding one."""
    items: list[Any] = []
    if 'text/event-stream' in content_type:
        items = [ev['data'] for ev in R.parse_sse(raw)]
    else:
        with contextlib.suppress(Exception):
            items = [json.loads(raw)]
    for it in items:
        if isinstance(it, dict) and isinstance(it.get('error'), dict):
            e = it['error']
            return {'code': e.get('code'), 'message': e.get('message'), 'data': e.get('data')}
    return None


def results_in(raw: bytes, content_type: str) -> list[Any]:
    if 'text/event-stream' in content_type:
        return [ev['data']['result'] for ev in R.parse_sse(raw)
                if isinstance(ev['data'], dict) and 'result' in ev['data']]
    with contextlib.suppress(Exception):
        obj = json.loads(raw)
        if isinstance(obj, dict) and 'result' in obj:
            return [obj['result']]
    return []


def is_timeout(e: BaseException) -> bool:
    import httpx

    from a2a.client import A2AClientTimeoutError

    while e is not None:
        if isinstance(e, (A2AClientTimeoutError, httpx.TimeoutException)):
            return True
        e = e.__cause__ or e.__context__
    return False


class Client:
    """One A2A client on one wire: the SDK's own client (1.0) or raw httpx (0.3)."""

    def __init__(self, run: SubRun, name: int, streaming: bool) -> None:
        self.run, self.name, self.streaming = run, name, streaming
        self.wire = run.extra['wire']
        self.rpc_id = 0

    async def open(self) -> None:
        import httpx

        timeout = self.run.timeout
        if self.wire == '1.0':
            from a2a.client import ClientConfig, ClientFactory
            from a2a.client.card_resolver import A2ACardResolver

            self.tee = R.make_tee_transport()
            self.http = httpx.AsyncClient(transport=self.tee)
            card = await A2ACardResolver(self.http, self.run.base_url).get_agent_card()
            self.sdk = ClientFactory(ClientConfig(streaming=self.streaming, httpx_client=self.http)).create(card)
            from a2a.client import ClientCallContext

            self.ctx = ClientCallContext(timeout=timeout) if timeout is not None else None
        else:
            # httpx's defaults (5 s), the timeouts the SDK's factory gives its own client
            self.http = httpx.AsyncClient(timeout=httpx.Timeout(timeout) if timeout is not None else httpx.Timeout(5.0))
            self.sdk = None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.sdk is not None:
                await self.sdk.close()
        with contextlib.suppress(Exception):
            await self.http.aclose()

    # --- requests ------------------------------------------------------------
    def message(self, message_id: str, task_id: str | None = None, context_id: str | None = None,
                text: str = R.USER_TEXT, metadata: dict[str, Any] | None = None) -> Any:
        if self.wire == '1.0':
            return self.run.make_request(message_id, task_id, context_id, text, metadata)
        return R.v03_message(message_id, task_id, context_id, text, metadata)

    def v03(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.rpc_id += 1
        return {'jsonrpc': '2.0', 'id': self.rpc_id, 'method': method, 'params': params}

    async def unary(self, method: str, task_id: str) -> tuple[Any, dict[str, Any] | None]:
        """GetTask / CancelTask: (result dict or None, JSON-RPC error or None); raises on transport errors."""
        if self.wire == '1.0':
            from a2a.types.a2a_pb2 import CancelTaskRequest, GetTaskRequest

            n = len(self.tee.exchanges)
            call = self.sdk.get_task(GetTaskRequest(id=task_id)) if method == 'GetTask' \
                else self.sdk.cancel_task(CancelTaskRequest(id=task_id))
            try:
                await asyncio.wait_for(call, 10)
            except Exception:
                if len(self.tee.exchanges) <= n:
                    raise
                err = R.rpc_error_of(self.tee.exchanges[n])
                if err is None:
                    raise
                return None, err
            return json.loads(bytes(self.tee.exchanges[n]['raw']))['result'], None
        body = self.v03(V03_METHOD[method], {'id': task_id})
        resp = await self.http.post(self.run.base_url + '/', json=body, timeout=10)
        obj = resp.json()
        return obj.get('result'), obj.get('error')

    async def get_task(self, task_id: str | None) -> tuple[Any, Any]:
        if not task_id:
            return {'error': 'no task id known'}, None
        try:
            res, err = await self.unary('GetTask', task_id)
        except Exception as e:  # noqa: BLE001
            return {'error': f'{type(e).__name__}: {e}', 'code': None}, None
        if err is not None:
            if err.get('code') == -32001:
                return 'lost', {'error': err}
            return {'error': err.get('message'), 'code': err.get('code')}, {'error': err}
        return task_summary(res), res

    async def cancel(self, task_id: str) -> dict[str, Any]:
        out: dict[str, Any] = {'sent_at_ms': self.run.ms()}
        try:
            res, err = await self.unary('CancelTask', task_id)
            if err is None:
                st = norm_state(res.get('status', {}).get('state'))
                out.update(result='canceled' if st == 'TASK_STATE_CANCELED' else 'returned',
                           returned_state=st, code=None, message=None, wire=res)
            else:
                code = err.get('code')
                out.update(result='not_cancelable' if code == -32002 else 'error', code=code,
                           message=err.get('message'), wire_error=err)
        except TimeoutError:
            out.update(result='hung', code=None, message='CancelTask did not answer in 10 s')
        except Exception as e:  # noqa: BLE001
            out.update(result='error', code=None, message=f'{type(e).__name__}: {e}')
        out['answered_at_ms'] = self.run.ms()
        return out

    # --- streams -------------------------------------------------------------
    async def call(self, role: str, method: str, arg: Any, drop_after: int | None = None,
                   on_event=None, on_result=None, push_config: Any = None) -> dict[str, Any]:  # noqa: ANN001
        """One SendStreamingMessage / SendMessage / SubscribeToTask under the watchdog.

        Delivers events one by one (on_event(count), on_result(result)); with drop_after=k
        the client drops the connection right after delivered event k. push_config (push.py):
        the inline config of this send, a TaskPushNotificationConfig (1.0, set on the request)
        or a dict (0.3, params.configuration.pushNotificationConfig)."""
        if push_config is not None and self.wire == '1.0':
            arg.configuration.task_push_notification_config.CopyFrom(push_config)
        rec: dict[str, Any] = {
            'client': self.name, 'role': role,
            'method': method if self.wire == '1.0' else V03_METHOD[method],
            'started_ms': self.run.ms(), 'http_status': None, 'content_type': '',
            'results': [], 'event_ms': [], 'raw': bytearray(),
            'end': None, 'end_error': None, 'dropped_wall': None,
        }

        def deliver(result: Any) -> bool:
            rec['results'].append(result)
            rec['event_ms'].append(self.run.ms())
            if isinstance(result, dict) and self.name == 1:
                # the run's task is client 1's (a second client's snapshot of the first task
                # must not stand for the task a retry makes)
                self.run.note_task(result)
            if on_event is not None:
                on_event(len(rec['results']))
            if on_result is not None:
                on_result(result)
            if drop_after is not None and (drop_after(result) if callable(drop_after)
                                           else len(rec['results']) >= drop_after):
                rec['dropped_wall'] = time.time()
                return True
            return False

        async def read_sdk() -> str | None:
            from a2a.types.a2a_pb2 import SubscribeToTaskRequest

            n = len(self.tee.exchanges)
            gen = self.sdk.subscribe(SubscribeToTaskRequest(id=arg), context=self.ctx) if method == 'SubscribeToTask' \
                else self.sdk.send_message(arg, context=self.ctx)
            try:
                async for _resp in gen:
                    ex = self.tee.exchanges[n]
                    got = results_in(bytes(ex['raw']), ex.get('content_type', ''))
                    if len(got) <= len(rec['results']):  # cannot happen: the SDK parsed it from these bytes
                        raise RuntimeError('event not found in the raw body')
                    if deliver(got[len(rec['results'])]):
                        return 'dropped_by_client'
            finally:
                await gen.aclose()
            return None

        async def read_v03() -> str | None:
            params = {'id': arg} if method == 'SubscribeToTask' else {
                'message': arg, **({'configuration': {'blocking': True}} if method == 'SendMessage' else {})}
            if push_config is not None:
                params = {**params, 'configuration': {**params.get('configuration', {}),
                                                      'pushNotificationConfig': push_config}}
            body = self.v03(rec['method'], params)
            if method == 'SendMessage':
                resp = await self.http.post(self.run.base_url + '/', json=body)
                rec['http_status'], rec['content_type'] = resp.status_code, resp.headers.get('content-type', '')
                rec['raw'].extend(resp.content)
                for r in results_in(bytes(rec['raw']), rec['content_type']):
                    deliver(r)
                return None
            async with self.http.stream('POST', self.run.base_url + '/', json=body,
                                        headers={'Accept': 'text/event-stream'}) as resp:
                rec['http_status'], rec['content_type'] = resp.status_code, resp.headers.get('content-type', '')
                async for chunk in resp.aiter_raw():
                    rec['raw'].extend(chunk)
                    got = results_in(bytes(rec['raw']), rec['content_type'])
                    while len(rec['results']) < len(got):
                        if deliver(got[len(rec['results'])]):
                            return 'dropped_by_client'  # leaving the block closes the connection
                if 'text/event-stream' not in rec['content_type']:
                    for r in results_in(bytes(rec['raw']), rec['content_type']):
                        deliver(r)
            return None

        n_before = len(self.tee.exchanges) if self.wire == '1.0' else 0
        end, error = await self.run.watched(read_sdk if self.wire == '1.0' else read_v03)
        if self.wire == '1.0' and len(self.tee.exchanges) > n_before:
            ex = self.tee.exchanges[n_before]
            rec['raw'], rec['http_status'] = ex['raw'], ex.get('status')
            rec['content_type'] = ex.get('content_type', '')
        raw = bytes(rec['raw'])
        err = rpc_error_in(raw, rec['content_type'])
        rec['rpc_error'] = err
        rec['buffered_after_drop'] = 0
        if end == 'dropped_by_client':
            rec['buffered_after_drop'] = len(results_in(raw, rec['content_type'])) - len(rec['results'])
        if end == 'closed' and error is not None:
            if err is not None:
                end = 'error'
            elif is_timeout(error):
                end = 'timed_out'
            else:
                end = 'broken'
            # no HTTP answer at all: the connection failed (refused, or reset by a dying server)
            rec['no_response'] = rec['http_status'] is None and not raw
        elif end == 'closed' and err is not None:
            end = 'error'
        if end == 'closed' and method == 'SendMessage':
            end = 'returned'
        rec['end'], rec['end_error'] = end, (f'{type(error).__name__}: {error}' if error else None)
        rec['ended_ms'] = self.run.ms()
        return rec


class SubRun(R.Run):
    """One run of one scenario with the keys of SPEC section 9."""

    def __init__(self, query: str, cfg: dict[str, str], extra: dict[str, str], workdir: Path) -> None:
        super().__init__(query, cfg, workdir, R.WATCHDOG_S)
        self.extra = extra
        self.shape = {k: extra.get(k, v) for k, v in R.SHAPE_DEFAULTS.items()}
        self.timeout = None if cfg['timeout_ms'] == 'none' else int(cfg['timeout_ms']) / 1000.0
        self.t0 = time.monotonic()
        self.t0_wall = time.time()
        self.first_stream_hooks: list[Any] = []  # on_event(count) of client 1's first stream (push.py)
        self.more_side_tasks: list[asyncio.Future] = []  # joined with the cancel / restart ones (push.py)

    def server_conf(self) -> dict[str, Any]:
        conf = super().server_conf()
        if self.extra['wire'] == '0.3':
            conf['v03_compat'] = True
        if self.shape != R.SHAPE_DEFAULTS:
            conf['scenario'] = {**conf['scenario'], **self.shape}
        return conf

    # --- hooks (push.py) ---------------------------------------------------------
    def make_client(self, name: int, streaming: bool) -> Client:
        return Client(self, name, streaming)

    def push_config_for(self, client: Client, role: str) -> Any:
        """The inline push config a send of this role carries (none here)."""
        return None

    async def after_settle(self) -> None:
        """After the executor's end, before the settled GetTask (push.py: the webhook's quiet)."""

    @property
    def turns_concurrent(self) -> bool:
        """interrupt=* with a streaming client, a subscriber (or a push config): each turn's stream
        is left open while the client sends the next turn, so what an open stream gets is measured
        (@a2a-js/sdk ends a message stream it kept open at AUTH_REQUIRED with -32004 then)."""
        return self.cfg['interrupt'] != 'none' and (
            self.cfg['client'] == 'stream'
            or self.extra['resubscribe'] != 'none' or self.extra['second_client'] != 'none')

    @property
    def base_url(self) -> str:
        return f'http://127.0.0.1:{self.port}'

    def ms(self) -> int:
        return round((time.monotonic() - self.t0) * 1000)

    def note_task(self, result: dict[str, Any]) -> None:
        body = result if result.get('kind') == 'task' else result.get('task')
        if isinstance(body, dict) and body.get('id') and not self.task_id:
            self.task_id, self.context_id = body['id'], body.get('contextId')

    async def subscribe(self, client: Client, role: str, streams: list[dict[str, Any]],
                        on_result=None, task_id: str | None = None) -> dict[str, Any]:  # noqa: ANN001
        """SubscribeToTask; a call without any HTTP answer (the server is restarting) is retried."""
        deadline = time.monotonic() + RECONNECT_FOR_S
        attempts = 0
        while True:
            attempts += 1
            rec = await client.call(role, 'SubscribeToTask', task_id or self.task_id, on_result=on_result)
            if not (rec['end'] == 'broken' and rec.get('no_response')) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        rec['connect_attempts'] = attempts
        streams.append(rec)
        return rec

    async def execute(self) -> dict[str, Any]:  # noqa: PLR0912, PLR0915
        cfg, extra = self.cfg, self.extra
        await self.start_server()
        c1 = self.make_client(1, cfg['client'] == 'stream')
        await c1.open()
        c2 = None
        if extra['second_client'] != 'none':
            # ready before the run starts, so its setup does not delay the run's triggers
            c2 = self.make_client(2, True)
            await c2.open()
        self.t0, self.t0_wall = time.monotonic(), time.time()
        streams: list[dict[str, Any]] = []
        cancel_info: dict[str, Any] = {}
        restart_info: dict[str, Any] = {}
        attempts: list[dict[str, Any]] = []
        delivered1: dict[str, Any] = {'n': 0}
        reached: dict[int, asyncio.Event] = {}

        def on_first_stream(count: int) -> None:
            delivered1['n'] = count
            # the task client 1's first stream is on (a retry resets self.task_id)
            if delivered1.get('task_id') is None:
                delivered1['task_id'] = self.task_id
            for k, ev in reached.items():
                if count >= k:
                    ev.set()
            for hook in self.first_stream_hooks:
                hook(count)

        second: dict[str, Any] = {'opened': asyncio.Event()}

        async def do_second(k: int) -> None:
            ev = reached.setdefault(k, asyncio.Event())
            first_done = second['first_done']
            waiter = asyncio.ensure_future(ev.wait())
            await asyncio.wait({waiter, first_done}, return_when=asyncio.FIRST_COMPLETED)
            if not ev.is_set():
                waiter.cancel()
                second['skipped'] = f'the first stream ended after {delivered1["n"]} events, before event {k}'
                second['opened'].set()
                return
            try:
                rec = await self.subscribe(c2, 'second_client', streams, on_result=lambda _r: second['opened'].set(),
                                           task_id=delivered1.get('task_id'))
                rec['after_event'] = k
            finally:
                second['opened'].set()
                await c2.close()

        side_tasks, restart_task = self.start_faults(c1.cancel, cancel_info, restart_info)
        second_task = None
        if extra['second_client'] != 'none':
            second['first_done'] = asyncio.get_running_loop().create_future()
            second_task = asyncio.ensure_future(do_second(int(extra['second_client'])))
        if self.timeout is not None:
            self.notes.append(
                f'timeout_ms={cfg["timeout_ms"]}: ' + (
                    f'ClientCallContext(timeout={self.timeout}), httpx per-read timeouts' if extra['wire'] == '1.0'
                    else f'httpx.Timeout({self.timeout}) on the raw 0.3 client, per read as the SDK client'))

        send = 'SendStreamingMessage' if cfg['client'] == 'stream' else 'SendMessage'
        message_id = f'msg-{uuid.uuid4()}'
        resub = None if extra['resubscribe'] == 'none' else int(extra['resubscribe'])

        def sending(role: str, message: Any, **kw: Any) -> Any:
            return c1.call(role, send, message, push_config=self.push_config_for(c1, role), **kw)

        def first_artifact(result: Any) -> bool:
            return norm_event(result, False)['kind'] == 'artifactUpdate'

        async def resubscribing(rec: dict[str, Any], which: str = 'first stream') -> None:
            subs = 0
            last = rec
            # the client re-subscribes after its own drop, and after a stream the
            # server broke (a restart); never after a stream the server closed
            while subs < MAX_SUBSCRIPTIONS and last['end'] in ('dropped_by_client', 'broken'):
                if self.task_id is None:
                    self.task_id = self.task_id_from_side()
                subs += 1
                last = await self.subscribe(c1, 'resubscribe', streams)
            if rec['end'] != 'dropped_by_client':
                self.notes.append(f'resubscribe={resub}: the {which} ended ({rec["end"]}) after '
                                  f'{len(rec["results"])} events, before event {resub}')

        if cfg['retry'] == 'on':
            # attempt 1: the connection drops after the first artifact event; the
            # client then re-sends the very same submission (same messageId)
            a1 = await sending('send', c1.message(message_id), drop_after=first_artifact, on_event=on_first_stream)
            streams.append(a1)
            attempts.append({'task_id': self.task_id, 'end': a1['end']})
            if 'first_done' in second:
                second['first_done'].set_result(True)
            self.task_id = None
            # with resubscribe=k the resent stream drops after its event k and the client
            # subscribes to the task that stream is on
            a2 = await sending('retry', c1.message(message_id), drop_after=resub)
            streams.append(a2)
            attempts.append({'task_id': self.task_id, 'end': a2['end']})
            self.notes.append('retry: attempt 1 dropped by the client after its first artifact event, then the '
                              f'identical request (same messageId {message_id}) was sent again')
            if resub is not None:
                await resubscribing(a2, 'resent stream')
        elif cfg['interrupt'] != 'none' and self.turns_concurrent:
            async def second_ready() -> None:
                # a second client that is subscribing: the follow-up waits for its first event
                if second_task is not None and delivered1['n'] >= int(extra['second_client']):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(second['opened'].wait(), 5)

            await self.turns(c1, sending, message_id, resub, on_first_stream, second, second_ready, streams, attempts)
        elif cfg['interrupt'] != 'none':
            rec = await sending('send', c1.message(message_id), on_event=on_first_stream)
            streams.append(rec)
            attempts.append({'task_id': self.task_id, 'end': rec['end']})
            for _round in range(3):
                got, _ = await c1.get_task(self.task_id)
                st = got['state'] if isinstance(got, dict) else None
                answer = R.follow_up(st)
                if answer is None:
                    break
                follow = c1.message(f'msg-{uuid.uuid4()}', self.task_id, self.context_id, **answer)
                rec = await sending('resume', follow)
                streams.append(rec)
                attempts.append({'task_id': self.task_id, 'end': rec['end'], 'resumed_from': st})
        else:
            rec = await sending('send', c1.message(message_id), drop_after=resub, on_event=on_first_stream)
            streams.append(rec)
            if 'first_done' in second:
                second['first_done'].set_result(True)
            if resub is not None:
                await resubscribing(rec)
        if 'first_done' in second and not second['first_done'].done():
            second['first_done'].set_result(True)
        call_end_ms = self.ms()

        if self.task_id is None:
            self.task_id = self.task_id_from_side()
        if restart_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(restart_task), 30)
        get_after, _ = await c1.get_task(self.task_id)
        await self.join_side_tasks(side_tasks + ([second_task] if second_task else []), 20)
        await self.join_side_tasks(self.more_side_tasks, 20)
        await self.settle(cfg)
        await self.after_settle()
        get_settled, settled_wire = await c1.get_task(self.task_id)
        first_attempt = None
        if cfg['retry'] == 'on' and attempts and attempts[0]['task_id']:
            first_attempt, _ = await c1.get_task(attempts[0]['task_id'])
        await c1.close()
        if self.server:
            self.server.kill()
        return self.assemble(streams, get_after, get_settled, settled_wire, cancel_info, restart_info,
                             attempts, first_attempt, call_end_ms, second)

    async def turns(self, c1: Client, sending: Any, message_id: str, resub: int | None,  # noqa: PLR0913
                    on_first_stream: Any, second: dict[str, Any], second_ready: Any, streams: list[dict[str, Any]],
                    attempts: list[dict[str, Any]]) -> None:
        """interrupt=* with a subscriber or a push config (turns_concurrent): every turn's stream is
        read in the background and left open; the follow-up is sent once the task is interrupted
        (GetTask) and, with resubscribe / second_client, once that subscription has its first event.
        resubscribe=k: the first stream drops after its event k and the client subscribes at once."""
        calls: list[tuple[asyncio.Future, str | None]] = []

        def watching(ev: asyncio.Event) -> Any:
            def seen(result: Any) -> None:
                st = norm_event(result, False)['state']
                if st in R.INTERRUPTED or st in R.TERMINAL:
                    ev.set()
            return seen

        async def until(ev: asyncio.Event, task: asyncio.Future, timeout: float) -> None:
            waiter = asyncio.ensure_future(ev.wait())
            await asyncio.wait({waiter, task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()

        ev1 = asyncio.Event()
        t1 = asyncio.ensure_future(sending('send', c1.message(message_id), drop_after=resub,
                                           on_event=on_first_stream, on_result=watching(ev1)))
        calls.append((t1, None))
        if 'first_done' in second:
            t1.add_done_callback(lambda _t: None if second['first_done'].done() else second['first_done'].set_result(True))
        sub_task = None
        if resub is not None:
            rec = await t1
            if rec['end'] == 'dropped_by_client':
                if self.task_id is None:
                    self.task_id = self.task_id_from_side()
                opened = asyncio.Event()
                sub_task = asyncio.ensure_future(self.subscribe(c1, 'resubscribe', streams,
                                                                on_result=lambda _r: opened.set()))
                await until(opened, sub_task, 5)
            else:
                self.notes.append(f'resubscribe={resub}: the first stream ended ({rec["end"]}) after '
                                  f'{len(rec["results"])} events, before event {resub}')
        else:
            await until(ev1, t1, 10)
        for _round in range(3):
            await second_ready()
            st = None
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                got, _ = await c1.get_task(self.task_id or self.task_id_from_side())
                st = got['state'] if isinstance(got, dict) else None
                if st in R.INTERRUPTED or st in R.TERMINAL:
                    break
                await asyncio.sleep(0.05)
            answer = R.follow_up(st)
            if answer is None:
                break
            follow = c1.message(f'msg-{uuid.uuid4()}', self.task_id, self.context_id, **answer)
            ev = asyncio.Event()
            t = asyncio.ensure_future(sending('resume', follow, on_result=watching(ev)))
            calls.append((t, st))
            await until(ev, t, 10)
        for t, resumed_from in calls:
            rec = await t
            streams.append(rec)
            a = {'task_id': self.task_id, 'end': rec['end']}
            if resumed_from:
                a['resumed_from'] = resumed_from
            attempts.append(a)
        if sub_task is not None:
            await sub_task

    def assemble(self, streams, get_after, get_settled, settled_wire, cancel_info, restart_info,  # noqa: ANN001, PLR0913
                 attempts, first_attempt, call_end_ms, second) -> dict[str, Any]:  # noqa: ANN001
        cfg = self.cfg
        side = R.read_side(self.side_path)
        is_stream = cfg['client'] == 'stream'
        out_streams = []
        streams = sorted(streams, key=lambda s: (s['started_ms'], s['client']))
        for s in streams:
            evs = events_of(s['results'])
            for ev, t in zip(evs, s['event_ms'], strict=True):
                ev['ms'] = t
            o = {k: s[k] for k in ('client', 'role', 'method', 'started_ms', 'ended_ms', 'http_status', 'content_type')}
            if 'after_event' in s:
                o['after_event'] = s['after_event']
            o['events'] = evs
            o['end'] = s['end']
            o['end_error'] = s['end_error']
            o['rpc_error'] = s['rpc_error']
            if s.get('buffered_after_drop'):
                o['buffered_after_drop'] = s['buffered_after_drop']
            if s.get('connect_attempts', 1) > 1:
                o['connect_attempts'] = s['connect_attempts']
            o['wire'] = s['results']
            o['_raw'] = bytes(s['raw']).decode('utf-8', 'replace')
            out_streams.append(o)
        # client 1's events, across its streams, in order (the existing fixtures' `events`)
        c1 = [s for s in streams if s['client'] == 1]
        wire1 = [r for s in c1 for r in s['results']]
        events = events_of(wire1)
        last1 = c1[-1] if c1 else None
        top_end = None
        if last1 is not None:
            top_end = {'broken': 'closed', 'error': 'closed'}.get(last1['end'], last1['end'])
            if not is_stream and top_end == 'closed':
                top_end = 'returned'
        delivered = set()
        for s in streams:
            for r in s['results']:
                ev = norm_event(r, False)
                delivered.update(ev.get('parts', []))
        if isinstance(settled_wire, dict):
            for a in settled_wire.get('artifacts', []):
                delivered.update(texts(a.get('parts', [])))
        n = int(cfg['chunks'])
        done_steps = sorted({r['i'] for r in side if r['ev'] == 'work_done'})
        orphaned = [i for i in done_steps if R.step_text(i, n) not in delivered]
        if cfg['restart'] != 'none':
            if orphaned:
                self.notes.append(f'steps lost with the killed process: {orphaned}')
            orphaned = []
        run: dict[str, Any] = {
            'streams': out_streams,
            'events': events,  # client 1's events across its streams (each stream holds its own `wire`)
            'stream': top_end if is_stream else None,
            'call': top_end if not is_stream else None,
            'end_error': last1['end_error'] if last1 else None,
            'blocking_result_artifacts': None,
            'blocking_result_state': None,
            'blocking_result_parts': None,
            'get_task_after': get_after,
            'get_task_settled': get_settled,
            'get_task_settled_wire': settled_wire,
            'cancel_result': cancel_info.get('result'),
            'cancel_error_code': cancel_info.get('code'),
            'cancel': cancel_info or None,
            'orphaned_steps': len(orphaned),
            'orphaned_step_numbers': orphaned,
            'executions': sum(1 for r in side if r['ev'] == 'execute_start'),
            'steps_done': done_steps,
            'chunks_enqueued': sorted({r['i'] for r in side if r['ev'] == 'enqueued_chunk'}),
            'call_end_ms': call_end_ms,
        }
        if not is_stream:
            tasks = [norm_event(r, False) for r in wire1]
            tasks = [(r, e) for r, e in zip(wire1, tasks, strict=True) if e['kind'] == 'task']
            if tasks:
                body = tasks[-1][0].get('task', tasks[-1][0])
                run['blocking_result_artifacts'] = len(body.get('artifacts', []))
                run['blocking_result_state'] = tasks[-1][1]['state']
                run['blocking_result_parts'] = R.parts_of(body)
        if restart_info:
            run['restart'] = restart_info
        if attempts:
            run['attempts'] = attempts
            ids = []
            for a in attempts:
                if a['task_id'] and a['task_id'] not in ids:
                    ids.append(a['task_id'])
            run['distinct_tasks'] = len(ids)
            if first_attempt is not None:
                run['first_attempt_task_settled'] = first_attempt
        if cfg['interrupt'] != 'none':
            resumes = [r for r in side if r['ev'] == 'resume']
            run['resumed'] = bool(resumes)
            run['resumes'] = [{'from_state': r['from_state'], 'receipt': r.get('receipt')} for r in resumes]
            run['states'] = [e['state'] for e in events if e['state']]
        drop = next((s for s in streams if s['client'] == 1 and s['dropped_wall']), None)
        if drop is not None and self.extra['resubscribe'] != 'none':
            run['executor_after_drop'] = executor_after(side, drop['dropped_wall'], self.t0_wall)
        if second.get('skipped'):
            self.notes.append('second_client: ' + second['skipped'])
        run['side_channel'] = R.side_records(side, self.t0_wall)
        run['server_log'] = R.server_log_lines(self.log_path)[:30]
        run['notes'] = '; '.join(self.notes)
        return run


def executor_after(side: list[dict[str, Any]], dropped_wall: float, t0_wall: float) -> dict[str, Any]:
    """What the executor did after client 1 dropped its stream (from the side channel)."""
    before = [r for r in side if r['t'] <= dropped_wall]
    after = [r for r in side if r['t'] > dropped_wall]
    finished_before = any(r['ev'] == 'execute_end' for r in before)
    work = [r for r in after if r['ev'] in ('work_done', 'enqueued_chunk', 'ending', 'ended', 'enqueued_late')]
    return {
        'dropped_at_ms': round((dropped_wall - t0_wall) * 1000),
        'executor_finished_before_drop': finished_before,
        'kept_running': (not finished_before) and bool(work),
        'cancelled': any(r['ev'] == 'execute_cancelled' for r in after),
        'after_drop': [r['ev'] + (f' {r["i"]}' if 'i' in r else '') for r in after],
    }


# ---------------------------------------------------------------------------
# Stability, files, index
# ---------------------------------------------------------------------------


def stream_key(s: dict[str, Any]) -> dict[str, Any]:
    return {
        'client': s['client'], 'role': s['role'], 'method': s['method'], 'after_event': s.get('after_event'),
        'events': [{k: v for k, v in e.items() if k != 'ms'} for e in s['events']],
        'end': s['end'], 'rpc_error_code': (s['rpc_error'] or {}).get('code'),
    }


def outcome_key(run: dict[str, Any]) -> str:
    o = json.loads(R.outcome_key(run))
    o['streams'] = [stream_key(s) for s in run['streams']]
    ead = run.get('executor_after_drop')
    o['executor_kept_running'] = None if ead is None else (ead['executor_finished_before_drop'], ead['kept_running'])
    return json.dumps(o, sort_keys=True)


def short_event(e: dict[str, Any]) -> str:
    s = {'task': 'T', 'statusUpdate': 'S', 'artifactUpdate': 'A', 'message': 'M'}.get(e['kind'], e['kind'])
    if e['state']:
        s += ':' + e['state'].removeprefix('TASK_STATE_')
    if e['kind'] == 'task' and e.get('parts'):
        s += f'[{len(e["parts"])} parts]'
    if e['kind'] == 'artifactUpdate' and e['artifact_id'] != R.TRACKING_ID:
        s += '(' + str(e['artifact_id']) + ')'
    if e.get('final') is True:
        s += '^'
    return s + ('!' if e['after_terminal'] else '')


def executor_phrase(ead: dict[str, Any]) -> str:
    if ead['executor_finished_before_drop']:
        return 'had finished before the drop'
    if ead['kept_running']:
        return 'kept running after the drop' + (' until cancelled' if ead['cancelled'] else '')
    return 'was cancelled after the drop' if ead['cancelled'] else 'did nothing after the drop'


def describe(run: dict[str, Any]) -> str:
    """One line per stream: `c1 send: T:SUBMITTED S:WORKING A -> dropped_by_client`."""
    out = []
    for s in run['streams']:
        ev = ' '.join(short_event(e) for e in s['events']) or '(none)'
        end = s['end'] + (f' {s["rpc_error"]["code"]}' if s['rpc_error'] else '')
        out.append(f'c{s["client"]} {s["role"]}: {ev} -> {end}')
    g = run['get_task_settled']
    out.append('GetTask ' + (g if isinstance(g, str) else f'{str(g.get("state")).removeprefix("TASK_STATE_")}/{g.get("artifacts")}'))
    ead = run.get('executor_after_drop')
    if ead:
        out.append('executor ' + executor_phrase(ead))
    return '; '.join(out)


# The fixture head, the unstable variants and the index.json bookkeeping below are
# shared with push.py (the other matrix recorder).


def fixture_head(query: str, cfg: dict[str, str], extra: dict[str, str], watchdog_ms: int,
                 late: dict[str, str] = LATE_KEYS) -> dict[str, Any]:
    """The fields a matrix recorder's fixture starts with (`late`: keys written only when set)."""
    return {
        'sdk': f'a2a-sdk {R.SDK_VERSION}',
        'python': platform.python_version(),
        'scenario': query,
        'inputs': {**{k: cfg[k] for k in R.KEY_ORDER},
                   **{k: v for k, v in extra.items() if k not in late or v != late[k]}},
        'step_ms': R.RECORD_STEP_MS,
        'watchdog_ms': watchdog_ms,
    }


def variants(keys: list[str], results: list[dict[str, Any]], describe: Any) -> list[dict[str, Any]]:
    """An unstable scenario's distinct outcomes, in order of first appearance: runs and summary of each."""
    out: dict[str, dict[str, Any]] = {}
    for k, r in zip(keys, results, strict=True):
        out.setdefault(k, {'runs': 0, 'summary': describe(r)})['runs'] += 1
    return list(out.values())


class MatrixRecording:
    """The output folder, scenarios and index.json of a matrix recorder (`recorder.py subscribe|push`).

    With --only the old index.json is read (`old`) so that its other scenarios are kept;
    entries are listed in the order of the matrix.
    """

    def __init__(self, args: Any, matrix: list[str], parse_query: Any) -> None:
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.runs = args.runs
        self.queries = args.only or matrix
        for q in self.queries:
            parse_query(q)
        self.path = self.out / 'index.json'
        self.old = json.loads(self.path.read_text()) if self.path.exists() and args.only else {}
        self.order = {q: i for i, q in enumerate(matrix)}
        self.started = time.monotonic()
        self.combinations = {e['scenario']: e for e in self.old.get('combinations', [])}

    def ordered(self, entries: Any) -> list[dict[str, Any]]:
        return sorted(entries, key=lambda e: self.order.get(e['scenario'], 1_000))

    def combination(self, q: str, name: str, fx: dict[str, Any]) -> None:
        """SPEC section 14: a combination's entry goes to index.json's own `combinations` list (stable
        or not; every run is in its file), so the readers of `scenarios` keep what they compare."""
        entry = {'scenario': q, 'file': name, 'stable': fx['stable'], 'summary': fx['summary']}
        if not fx['stable']:
            entry['variants'] = fx['variants']
        self.combinations[q] = entry

    def write(self, about: dict[str, Any], scenarios: list[Any], unstable: list[Any], counts: str) -> int:
        """Writes index.json (`about`: what this recorder ran) and prints the closing line."""
        index = {
            'sdk': f'a2a-sdk {R.SDK_VERSION}',
            'python': platform.python_version(),
            'packages': R.sdk_versions(),
            **about,
            'step_ms': R.RECORD_STEP_MS,
            'watchdog_ms': round(R.WATCHDOG_S * 1000),
            'runs_per_scenario': self.runs,
            'scenarios': scenarios,
            'unstable': unstable,
        }
        if self.combinations:
            index['combinations'] = self.ordered(self.combinations.values())
        self.path.write_text(json.dumps(index, indent=1) + '\n', encoding='utf-8')
        print(f'recorded {len(self.queries)} scenarios in {time.monotonic() - self.started:.0f}s -> {self.out} '
              f'({counts})')
        return 0


async def record_one(query: str, runs: int) -> tuple[dict[str, Any], bool]:
    cfg, extra = parse_query(query)
    results = await R.execute_runs(query, runs, 'a2a-subscribe-', lambda d: SubRun(query, cfg, extra, d))
    keys = [outcome_key(r) for r in results]
    stable = all(k == keys[0] for k in keys)
    for j, r in enumerate(results):
        for s in r['streams']:
            raw = s.pop('_raw')
            if j == 0:
                s['raw'] = raw  # the body exactly as received (SSE or one JSON answer), first run only
    fx = {**fixture_head(query, cfg, extra, round(R.WATCHDOG_S * 1000)),
          'stable': stable, 'summary': describe(results[0]), 'runs': results}
    if not stable:
        fx['variants'] = variants(keys, results, describe)
    return fx, stable


async def record(args: Any) -> int:
    mx = MatrixRecording(args, MATRIX, parse_query)
    out = mx.out
    entries = {e['scenario']: e for e in mx.old.get('scenarios', [])}
    unstable = {e['scenario']: e for e in mx.old.get('unstable', [])}
    for q in mx.queries:
        t = time.monotonic()
        fx, stable = await record_one(q, args.runs)
        name = R.file_stem(q) + '.json'
        entries.pop(q, None)
        unstable.pop(q, None)
        if q in COMBOS:
            # SPEC section 14: written whether stable or not (every run; `variants` when they
            # differ), so the lab can show a race instead of picking one
            (out / name).write_text(json.dumps(fx, indent=1) + '\n', encoding='utf-8')
            mx.combination(q, name, fx)
        elif stable:
            (out / name).write_text(json.dumps(fx, indent=1) + '\n', encoding='utf-8')
            entries[q] = {'scenario': q, 'file': name, 'summary': fx['summary']}
        else:
            (out / name).unlink(missing_ok=True)  # only stable outcomes are fixtures
            unstable[q] = {'scenario': q, 'runs': args.runs, 'variants': fx['variants']}
        print(f'[{time.monotonic() - t:5.1f}s] {q}: stable={stable} {fx["summary"] if stable else fx["variants"]}',
              flush=True)
    about = {
        'handler': 'a2a.server.request_handlers.DefaultRequestHandler (= DefaultRequestHandlerV2 in 1.3.0)',
        'wire_1.0': 'the SDK ClientFactory client (JSON-RPC; send_message / subscribe / get_task / cancel_task), '
                    'bodies teed byte for byte; a second client is a second ClientFactory client on its own httpx client',
        'wire_0.3': 'create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=True) plus a card interface '
                    'protocol_version 0.3; a raw httpx client (5 s default timeouts) sends message/stream, '
                    'message/send (configuration.blocking true), tasks/resubscribe, tasks/get, tasks/cancel '
                    'without an A2A-Version header',
        'keys': {
            'resubscribe': 'k: client 1 drops its stream right after delivered event k and calls SubscribeToTask '
                           '(0.3: tasks/resubscribe) on the task; it subscribes again when a stream is broken by '
                           'the server going away (a restart; refused connections retried until the fresh server '
                           f'answers), at most {MAX_SUBSCRIPTIONS} subscriptions, never after a stream the server closed',
            'second_client': 'k: after client 1 received event k, a second client calls SubscribeToTask and reads '
                             'its stream while client 1 reads on',
            'wire': '1.0 or 0.3 (see wire_1.0 / wire_0.3)',
        },
    }
    scenarios, unstable_list = mx.ordered(entries.values()), mx.ordered(unstable.values())
    return mx.write(about, scenarios, unstable_list, f'{len(scenarios)} stable, {len(unstable_list)} unstable')
