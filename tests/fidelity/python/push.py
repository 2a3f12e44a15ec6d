"""Push notifications (SPEC section 12), measured on a2a-sdk 1.3.0.

`recorder.py push [--runs 3] [--only QUERY ...] [--out DIR] [--list]` runs the same
server, executor and side channel as `recorder.py record`, with push notifications
wired as the SDK documents them (`serve` with `push: true`: an
InMemoryPushNotificationConfigStore and a BasePushNotificationSender given to the
DefaultRequestHandler, `capabilities.push_notifications` on the card), the client
drivers of subscribe.py (the SDK's client on the 1.0 wire, a raw httpx client with
the 0.3 method names on the 0.3 wire), and a webhook receiver on 127.0.0.1 in this
process that keeps every POST: when it arrived (ms since the client's call
started), its header names in the order sent, which header carried the token or
the credentials, the body exactly as received, and the answer it gave.

Keys (SPEC section 12) on top of the lab's: `push` (`inline`: the config is sent
with the message; `after:k`: the client creates it with
SetTaskPushNotificationConfig / `tasks/pushNotificationConfig/set` after delivered
event k), `webhook` (`ok`, `error`: answers 500, `down`: nothing listens on its
port), `webhook_delay_ms` (the webhook answers after this long), `push_auth`
(`token`, `bearer`: authentication credentials, `both`), and `wire` (1.0 or 0.3,
as in subscribe.py). The fixtures go to tests/fidelity/fixtures/python/push/.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import uuid

from pathlib import Path
from typing import Any

import recorder as R
import subscribe as S


PUSH_OUT = R.HERE.parent / 'fixtures' / 'python' / 'push'
PUSH_DEFAULTS = {'push': 'off', 'webhook': 'ok', 'webhook_delay_ms': 'none', 'push_auth': 'token', 'wire': '1.0',
                 'push_followup': 'none', 'resubscribe': 'none', 'second_client': 'none'}
# written in a fixture's `inputs` only when set (SPEC section 14's keys on this recorder)
PUSH_LATE_KEYS = {**S.LATE_KEYS, 'resubscribe': 'none', 'second_client': 'none'}
PUSH_KEYS = ('push', 'webhook', 'webhook_delay_ms', 'push_auth')
TOKEN = 'bbs-1042-push-token'
CREDENTIALS = 'bbs-1042-webhook-secret'
QUIET_S = 1.0  # the pushes are over when nothing arrived (and nothing is being answered) for this long
PUSH_WAIT_CAP_S = 30.0
WATCHDOG_PER_DELAYED_EVENT = 8  # webhook_delay_ms: the watchdog is 3 s + 8 x the delay

_BASE = ['defaults', 'ending=fail', 'ending=input', 'ending=auth', 'ending=return', 'ending=raise', 'late=0',
         'cancel=1', 'cancel=1&cancel_impl=raise', 'client=block', 'chunks=1']
_ONE_WIRE = (
    [('push=inline' if q == 'defaults' else f'push=inline&{q}') for q in _BASE]
    + ['push=after:2', 'push=inline&webhook=error', 'push=inline&webhook=down',
       'push=inline&webhook_delay_ms=2000', 'push=inline&webhook_delay_ms=2000&client=block',
       'push=inline&push_auth=bearer', 'push=inline&push_auth=both']
)
# SPEC section 14, the lifecycle in combination, with a push config: follow-up turns
# (interrupt, streaming and blocking, the follow-up with no config or the same inline config
# repeated), a retried submission, a client that drops and resubscribes (the real request
# behind the lab's dup=k), a second subscriber, a restart over the database task store, and
# a webhook that answers within a few ms of the push sender's 5 s timeout.
_TURNS = [f'push=inline&interrupt={i}' + ('' if c == 'stream' else '&client=block') + ('' if f == 'none' else '&push_followup=repeat')
          for i in ('input', 'auth', 'both') for c in ('stream', 'block') for f in ('none', 'repeat')]
COMBOS: list[str] = (
    _TURNS
    + ['push=inline&interrupt=input&wire=0.3', 'push=inline&interrupt=input&push_followup=repeat&wire=0.3',
       'push=inline&interrupt=both&wire=0.3', 'push=inline&interrupt=both&push_followup=repeat&wire=0.3',
       'push=inline&interrupt=input&client=block&push_followup=repeat&wire=0.3',
       'push=inline&interrupt=input&second_client=3']
    + ['push=inline&retry=on', 'push=inline&retry=on&wire=0.3', 'push=inline&retry=on&second_client=2']
    + ['push=inline&resubscribe=3', 'push=inline&second_client=3', 'push=inline&resubscribe=3&wire=0.3']
    + ['push=inline&restart=2&store=database', 'push=inline&restart=2&store=database&resubscribe=5',
       'push=inline&restart=2&store=database&resubscribe=5&wire=0.3']
    + ['push=inline&webhook_delay_ms=4995', 'push=inline&webhook_delay_ms=5005']
)
MATRIX: list[str] = _ONE_WIRE + [f'{q}&wire=0.3' for q in _ONE_WIRE] + COMBOS


def parse_query(query: str) -> tuple[dict[str, str], dict[str, str]]:
    """The lab's keys (recorder.parse_scenario) plus SPEC section 12's and `wire`."""
    cfg, extra = S.split_query(query, PUSH_DEFAULTS)
    p = extra['push']
    if not (p in ('off', 'inline') or re.fullmatch(r'after:[1-9][0-9]*', p)):
        raise ValueError('push must be off, inline or after:k')
    if extra['webhook'] not in ('ok', 'error', 'down'):
        raise ValueError('webhook must be ok, error or down')
    d = extra['webhook_delay_ms']
    if d != 'none' and not (d.isdigit() and 1 <= int(d) <= 60000):
        raise ValueError('webhook_delay_ms must be none or 1..60000')
    if extra['push_auth'] not in ('token', 'bearer', 'both'):
        raise ValueError('push_auth must be token, bearer or both')
    if extra['wire'] not in ('1.0', '0.3'):
        raise ValueError("wire must be '1.0' or '0.3'")
    if p.startswith('after:') and cfg['client'] != 'stream':
        raise ValueError('push=after:k needs client=stream')
    if extra['push_followup'] not in ('none', 'repeat'):
        raise ValueError('push_followup must be none or repeat')
    for key in ('resubscribe', 'second_client'):
        if extra[key] != 'none' and not (extra[key].isdigit() and int(extra[key]) >= 1):
            raise ValueError(f'{key} must be none or k >= 1')
        if extra[key] != 'none' and cfg['client'] != 'stream':
            raise ValueError(f'{key} needs client=stream')
    return cfg, extra


def combined(cfg: dict[str, str], extra: dict[str, str]) -> bool:
    """A scenario of SPEC section 14 (push with follow-up turns, a retry, a restart or a
    subscriber): its fixture also keeps every stream, the attempts and each POST's task."""
    return (cfg['interrupt'] != 'none' or cfg['retry'] != 'off' or cfg['restart'] != 'none'
            or any(extra[k] != v for k, v in PUSH_LATE_KEYS.items() if k in extra))


# ---------------------------------------------------------------------------
# The webhook receiver: a bare HTTP/1.1 server on asyncio, so the request line,
# the header names and the body are kept exactly as they arrived.
# ---------------------------------------------------------------------------


class Receiver:
    def __init__(self, mode: str, delay_ms: int | None, ms) -> None:  # noqa: ANN001
        self.mode, self.delay_ms, self.ms = mode, delay_ms, ms
        self.posts: list[dict[str, Any]] = []
        self.in_flight = 0
        self.last_activity = time.monotonic()
        self.server: asyncio.AbstractServer | None = None
        self.port = R.free_port()
        self.connections = 0

    async def start(self) -> None:
        if self.mode == 'down':
            return  # nothing listens on the port: the agent's connection is refused
        self.server = await asyncio.start_server(self._conn, '127.0.0.1', self.port)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)

    @property
    def url(self) -> str:
        return f'http://127.0.0.1:{self.port}/webhook'

    async def _conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn = self.connections
        try:
            while True:
                head = await reader.readuntil(b'\r\n\r\n')
                arrived = self.ms()
                self.in_flight += 1
                self.last_activity = time.monotonic()
                lines = head.decode('latin-1').split('\r\n')
                request_line, header_lines = lines[0], [h for h in lines[1:] if h]
                headers = [(h.split(':', 1)[0], h.split(':', 1)[1].strip()) for h in header_lines]
                low = {k.lower(): v for k, v in headers}
                if 'content-length' in low:
                    body = await reader.readexactly(int(low['content-length']))
                elif low.get('transfer-encoding', '').lower() == 'chunked':
                    body = bytearray()
                    while True:
                        size = int((await reader.readuntil(b'\r\n')).split(b';')[0], 16)
                        body.extend((await reader.readexactly(size + 2))[:-2])
                        if size == 0:
                            break
                    body = bytes(body)
                else:
                    body = b''
                got = self.ms()
                post = {'t_ms': arrived, 'body_done_ms': got, 'connection': conn,
                        'request_line': request_line, 'headers': [k for k, _ in headers],
                        'auth': auth_kinds(headers), 'content_type': low.get('content-type'),
                        'body': body.decode('utf-8', 'replace')}
                self.posts.append(post)
                if self.delay_ms:
                    await asyncio.sleep(self.delay_ms / 1000.0)
                    if reader.at_eof():
                        # the agent closed the connection while the webhook waited: its sender
                        # gave up (timed out) before the answer
                        post['agent_closed_before_answer_ms'] = self.ms()
                status = 500 if self.mode == 'error' else 200
                reason = 'Internal Server Error' if status == 500 else 'OK'
                writer.write(f'HTTP/1.1 {status} {reason}\r\nContent-Length: 0\r\n\r\n'.encode())
                try:
                    await writer.drain()
                    post['answer'] = 'timeout' if 'agent_closed_before_answer_ms' in post else str(status)
                except Exception as e:  # noqa: BLE001
                    post['answer'] = f'not delivered ({type(e).__name__})'
                post['answered_ms'] = self.ms()
                self.in_flight -= 1
                self.last_activity = time.monotonic()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def wait_quiet(self, since: float) -> None:
        """Until nothing arrived and nothing was answered for QUIET_S (at most PUSH_WAIT_CAP_S, or
        8 answers of a slow webhook when that is longer)."""
        deadline = since + max(PUSH_WAIT_CAP_S, WATCHDOG_PER_DELAYED_EVENT * (self.delay_ms or 0) / 1000.0)
        while time.monotonic() < deadline:
            if self.in_flight == 0 and time.monotonic() - max(self.last_activity, since) > QUIET_S:
                return
            await asyncio.sleep(0.05)


def auth_kinds(headers: list[tuple[str, str]]) -> dict[str, Any]:
    """Which header carried what (values are never kept; only whether they match the config)."""
    out: dict[str, Any] = {}
    for k, v in headers:
        if k.lower() == 'x-a2a-notification-token':
            out['X-A2A-Notification-Token'] = 'token' if v == TOKEN else 'other'
        if k.lower() == 'authorization':
            scheme, _, cred = v.partition(' ')
            out['Authorization'] = scheme + (' credentials' if cred == CREDENTIALS else ' other')
    return out


def push_event(body: str, terminal_seen: bool) -> dict[str, Any]:
    """What a POST body says, in the fixtures' event form (1.0 StreamResponse or a 0.3 object)."""
    try:
        obj = json.loads(body)
    except Exception:  # noqa: BLE001
        return {'kind': 'unparsable', 'state': None}
    if isinstance(obj, dict) and 'result' in obj and 'jsonrpc' in obj:
        obj = obj['result']
    ev = S.norm_event(obj, terminal_seen)
    ev['shape'] = ('0.3 ' + obj['kind']) if isinstance(obj, dict) and isinstance(obj.get('kind'), str) \
        else ('1.0 StreamResponse ' + ev['kind'])
    return ev


def task_of_body(body: str) -> str | None:
    """The task id a POST body is about (1.0 StreamResponse or a 0.3 object)."""
    try:
        obj = json.loads(body)
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get('kind'), str):
        return obj.get('id') if obj['kind'] == 'task' else obj.get('taskId')
    if 'task' in obj:
        return obj['task'].get('id')
    for k in ('statusUpdate', 'artifactUpdate'):
        if k in obj:
            return obj[k].get('taskId')
    return None


def masked(s: str) -> str:
    return R._TS.sub('<ts>', R._UUID.sub('<id>', s))


# ---------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------


class PushRun(S.SubRun):
    """subscribe.py's run (its clients, streams, follow-up turns, retries, subscribers, restart)
    with push notifications on and the webhook receiver; the inline config rides on the sends."""

    def __init__(self, query: str, cfg: dict[str, str], extra: dict[str, str], workdir: Path) -> None:
        super().__init__(query, cfg, {'resubscribe': extra['resubscribe'], 'second_client': extra['second_client'],
                                      'wire': extra['wire']}, workdir)
        self.push = extra
        self.combined = combined(cfg, extra)
        delay = None if extra['webhook_delay_ms'] == 'none' else int(extra['webhook_delay_ms'])
        self.receiver = Receiver(extra['webhook'], delay, self.ms)
        if delay:
            # a slow webhook may hold the stream up once per event: the watchdog waits
            # long enough to see when the stream really ends
            self.watchdog_s = R.WATCHDOG_S + WATCHDOG_PER_DELAYED_EVENT * delay / 1000.0
        self.config_set: dict[str, Any] = {}
        after = int(extra['push'].split(':')[1]) if extra['push'].startswith('after:') else None
        if after is not None:
            def on_event(count: int) -> None:
                if count == after:
                    self.more_side_tasks.append(asyncio.ensure_future(self.do_set()))
            self.first_stream_hooks.append(on_event)

    def server_conf(self) -> dict[str, Any]:
        conf = super().server_conf()
        conf['push'] = True
        return conf

    @property
    def turns_concurrent(self) -> bool:
        # with a push config every follow-up turn is measured the same way (each stream left open)
        return self.cfg['interrupt'] != 'none'

    def push_config_for(self, client: S.Client, role: str) -> Any:
        """push=inline: the send and its identical resend carry the config; a follow-up turn
        carries it again only with push_followup=repeat."""
        if self.push['push'] != 'inline' or client.name != 1:
            return None
        if role == 'resume' and self.push['push_followup'] != 'repeat':
            return None
        return self.config_v10() if self.extra['wire'] == '1.0' else self.config_v03()

    def config_v10(self, task_id: str | None = None) -> Any:
        from a2a.types.a2a_pb2 import AuthenticationInfo, TaskPushNotificationConfig

        c = TaskPushNotificationConfig(url=self.receiver.url)
        if task_id:
            c.task_id = task_id
        if self.push['push_auth'] in ('token', 'both'):
            c.token = TOKEN
        if self.push['push_auth'] in ('bearer', 'both'):
            c.authentication.CopyFrom(AuthenticationInfo(scheme='Bearer', credentials=CREDENTIALS))
        return c

    def config_v03(self) -> dict[str, Any]:
        c: dict[str, Any] = {'url': self.receiver.url}
        if self.push['push_auth'] in ('token', 'both'):
            c['token'] = TOKEN
        if self.push['push_auth'] in ('bearer', 'both'):
            c['authentication'] = {'schemes': ['Bearer'], 'credentials': CREDENTIALS}
        return c

    async def do_set(self) -> None:
        self.config_set.update(await self.set_config(self.c1))

    def make_client(self, name: int, streaming: bool) -> S.Client:
        client = super().make_client(name, streaming)
        if name == 1:
            self.c1 = client
        return client

    async def set_config(self, client: S.Client) -> dict[str, Any]:
        """SetTaskPushNotificationConfig (0.3: tasks/pushNotificationConfig/set) on the running task."""
        out: dict[str, Any] = {'sent_ms': self.ms()}
        tid = self.task_id or self.task_id_from_side()
        try:
            if self.extra['wire'] == '1.0':
                n = len(client.tee.exchanges)
                await asyncio.wait_for(client.sdk.create_task_push_notification_config(self.config_v10(tid)), 10)
                out['answer'] = json.loads(bytes(client.tee.exchanges[n]['raw']))
            else:
                body = client.v03('tasks/pushNotificationConfig/set',
                                  {'taskId': tid, 'pushNotificationConfig': self.config_v03()})
                out['method'] = body['method']
                resp = await client.http.post(self.base_url + '/', json=body, timeout=10)
                out['answer'] = resp.json()
            out['result'] = 'error' if 'error' in out['answer'] else 'ok'
        except Exception as e:  # noqa: BLE001
            out['result'] = f'error: {type(e).__name__}: {e}'
        out['answered_ms'] = self.ms()
        return out

    async def after_settle(self) -> None:
        # the executor's own end (or the watchdog), then the webhook's quiet
        await self.receiver.wait_quiet(time.monotonic())

    async def execute(self) -> dict[str, Any]:
        await self.receiver.start()
        try:
            return await super().execute()
        finally:
            await self.receiver.stop()

    def assemble(self, streams, get_after, get_settled, settled_wire, cancel_info, restart_info,  # noqa: ANN001, PLR0913
                 attempts, first_attempt, call_end_ms, second) -> dict[str, Any]:  # noqa: ANN001
        sub = super().assemble(streams, get_after, get_settled, settled_wire, cancel_info, restart_info,
                               attempts, first_attempt, call_end_ms, second)
        cfg = self.cfg
        own = [s for s in sub['streams'] if s['client'] == 1]
        events = S.events_of([r for s in own for r in s['wire']])
        for ev, t in zip(events, [e['ms'] for s in own for e in s['events']], strict=True):
            ev['ms'] = t
            for k in ('parts', 'artifacts', 'history'):
                ev.pop(k, None)
        last = own[-1] if own else {'rpc_error': None}
        end = sub['stream'] or sub['call']
        posts = sorted(self.receiver.posts, key=lambda p: p['t_ms'])
        seen_terminal, seen_bodies = False, set()
        terminal_at = None
        task_ids: list[str] = list(dict.fromkeys(a['task_id'] for a in sub.get('attempts', []) if a.get('task_id')))
        for i, p in enumerate(posts):
            ev = push_event(p['body'], seen_terminal)
            p['event'] = {k: v for k, v in ev.items() if k not in ('parts', 'history')}
            p['duplicate'] = p['body'] in seen_bodies
            seen_bodies.add(p['body'])
            if ev.get('state') in R.TERMINAL and not seen_terminal:
                seen_terminal, terminal_at = True, i
            if self.combined:
                tid = task_of_body(p['body'])
                if tid and tid not in task_ids:
                    task_ids.append(tid)
                p['task_n'] = task_ids.index(tid) + 1 if tid in task_ids else None
        side = R.read_side(self.side_path)
        log_lines = R.server_log_lines(self.log_path)
        failed_logged = sum(1 for line in log_lines if 'Error sending push-notification' in line)
        states = [p['event'].get('state') for p in posts if p['event'].get('state')]
        run: dict[str, Any] = {
            'events': events,
            'stream': end if cfg['client'] == 'stream' else None,
            'call': end if cfg['client'] != 'stream' else None,
            'end_error': sub['end_error'],
            'rpc_error': last['rpc_error'],
            'client_done_ms': call_end_ms,
            'posts': posts,
            'pushes_received': len(posts),
            'pushes_failed_logged': failed_logged,
            'pushes_answered': sum(1 for p in posts if p.get('answer') == '200'),
            'push_states': states,
            'push_last_state': states[-1] if states else None,
            'push_after_terminal': 0 if terminal_at is None else len(posts) - terminal_at - 1,
            'push_duplicates': sum(1 for p in posts if p['duplicate']),
            'webhook_connections': self.receiver.connections,
            'get_task_settled': get_settled,
            'cancel': cancel_info or None,
            'config_set': self.config_set or None,
            'executions': sum(1 for r in side if r['ev'] == 'execute_start'),
            'side_channel': R.side_records(side, self.t0_wall, drop=('t', 'pid', 'task_id')),
            'server_log': log_lines[:20],
            'notes': sub['notes'],
        }
        if self.combined:
            # SPEC section 14: every stream of every client, the attempts (turns, resends), the
            # tasks, and which task each POST is about (task_n: 1 = the first task, 2 = a second)
            run['streams'] = sub['streams']
            run['tasks'] = len(task_ids)
            run['posts_per_task'] = [sum(1 for p in posts if p.get('task_n') == n) for n in range(1, len(task_ids) + 1)]
            for k in ('attempts', 'distinct_tasks', 'first_attempt_task_settled', 'restart', 'resumed', 'resumes',
                      'states', 'executor_after_drop', 'get_task_after'):
                if k in sub:
                    run[k] = sub[k]
        else:
            for s in sub['streams']:
                s.pop('_raw', None)
        return run


# ---------------------------------------------------------------------------
# Stability, files, index
# ---------------------------------------------------------------------------


def short(e: dict[str, Any]) -> str:
    s = {'task': 'T', 'statusUpdate': 'S', 'artifactUpdate': 'A', 'message': 'M'}.get(e['kind'], e['kind'])
    if e.get('state'):
        s += ':' + e['state'].removeprefix('TASK_STATE_')
    if e['kind'] == 'artifactUpdate' and e.get('artifact_id') != R.TRACKING_ID:
        s += '(' + str(e.get('artifact_id')) + ')'
    return s


def outcome_key(run: dict[str, Any], delay_ms: int | None) -> str:
    o = {
        'events': [short(e) for e in run['events']],
        'end': run['stream'] or run['call'],
        'rpc_error': (run['rpc_error'] or {}).get('code'),
        'posts': [(short(p['event']), p['event'].get('shape'), p['event'].get('append'), p['event'].get('last_chunk'),
                   p['headers'], p['auth'], p.get('answer'), p['duplicate']) for p in run['posts']],
        'failed_logged': run['pushes_failed_logged'],
        'settled': (run['get_task_settled'] or {}).get('state') if isinstance(run['get_task_settled'], dict)
        else run['get_task_settled'],
        'cancel': (run['cancel'] or {}).get('result'),
        'config_set': (run['config_set'] or {}).get('result'),
    }
    if delay_ms:
        # does the slow webhook hold up the client? (per event: after how many answered POSTs)
        o['client_done_after_delay'] = run['client_done_ms'] >= delay_ms
    if 'streams' in run:
        o['streams'] = [S.stream_key(s) for s in run['streams']]
        o['post_tasks'] = [p.get('task_n') for p in run['posts']]
        o['executions'] = run['executions']
    return json.dumps(o, sort_keys=True)


def describe(run: dict[str, Any]) -> str:
    ev = ' '.join(short(e) for e in run['events']) or '(none)'
    posts = ' '.join(short(p['event']) + ('' if p.get('answer') == '200' else f'[{p.get("answer")}]')
                     + ('=dup' if p['duplicate'] else '') for p in run['posts']) or '(none)'
    g = run['get_task_settled']
    gs = g if isinstance(g, str) else str(g.get('state')).removeprefix('TASK_STATE_')
    if 'streams' in run:
        ev = ' | '.join(f'c{s["client"]} {s["role"]}: ' + (' '.join(S.short_event(e) for e in s['events']) or '(none)')
                        + f' -> {s["end"]}' for s in run['streams'])
        posts = ' '.join(short(p['event']) + ('' if p.get('answer') == '200' else f'[{p.get("answer")}]')
                         + ('=dup' if p['duplicate'] else '') + (f'#{p["task_n"]}' if (p.get('task_n') or 1) > 1 else '')
                         for p in run['posts']) or '(none)'
    out = f'client: {ev} -> {run["stream"] or run["call"]} at {run["client_done_ms"]} ms; webhook: {posts}'
    if run['pushes_failed_logged']:
        out += f'; {run["pushes_failed_logged"]} failed POSTs logged'
    return out + f'; GetTask {gs}'


async def record_one(query: str, runs: int) -> tuple[dict[str, Any], bool]:
    cfg, extra = parse_query(query)
    delay = None if extra['webhook_delay_ms'] == 'none' else int(extra['webhook_delay_ms'])
    results = await R.execute_runs(query, runs, 'a2a-push-', lambda d: PushRun(query, cfg, extra, d))
    keys = [outcome_key(r, delay) for r in results]
    stable = all(k == keys[0] for k in keys)
    # bodies: run 1 keeps them all; a later run keeps a body only where it differs from
    # run 1's once ids and timestamps are masked
    first = [masked(p['body']) for p in results[0]['posts']]
    for r in results[1:]:
        for j, p in enumerate(r['posts']):
            if j < len(first) and masked(p['body']) == first[j]:
                p['body'] = None
                p['body_as_run_1'] = True
    watchdog_ms = round((R.WATCHDOG_S + (WATCHDOG_PER_DELAYED_EVENT * delay / 1000.0 if delay else 0)) * 1000)
    if 'streams' in results[0]:
        for j, r in enumerate(results):
            for st in r['streams']:
                raw = st.pop('_raw')
                if j == 0:
                    st['raw'] = raw  # the body exactly as received, first run only
    fx = {
        **S.fixture_head(query, cfg, extra, watchdog_ms, PUSH_LATE_KEYS),
        'stable': stable,
        'summary': describe(results[0]),
        'timing': [{'client_done_ms': r['client_done_ms'], 'event_ms': [e['ms'] for e in r['events']],
                    'post_ms': [p['t_ms'] for p in r['posts']]} for r in results],
        'runs': results,
    }
    if not stable:
        fx['variants'] = S.variants(keys, results, describe)
    return fx, stable


async def record(args: Any) -> int:
    mx = S.MatrixRecording(args, MATRIX, parse_query)
    out = mx.out
    entries = {e['scenario']: e for e in mx.old.get('scenarios', [])}
    for q in mx.queries:
        t = time.monotonic()
        fx, stable = await record_one(q, args.runs)
        name = R.file_stem(q).replace(':', '-') + '.json'
        # every scenario is written, unstable ones too (`stable: false` and `variants`)
        (out / name).write_text(json.dumps(fx, indent=1) + '\n', encoding='utf-8')
        if q in COMBOS:
            mx.combination(q, name, fx)  # index.json's own `combinations` list (SPEC section 14)
        else:
            entries[q] = {'scenario': q, 'file': name, 'stable': stable, 'summary': fx['summary']}
            if not stable:
                entries[q]['variants'] = fx['variants']
        print(f'[{time.monotonic() - t:5.1f}s] {q}: stable={stable} {fx["summary"]}', flush=True)
        if not stable:
            for v in fx['variants']:
                print(f'    {v["runs"]}x {v["summary"]}', flush=True)
    about = {
        'agent': 'DefaultRequestHandler(push_config_store=InMemoryPushNotificationConfigStore(), '
                 'push_sender=BasePushNotificationSender(httpx.AsyncClient(), config_store=...)), '
                 'card capabilities.push_notifications = true',
        'wire_1.0': 'the SDK ClientFactory client; push=inline: SendMessageRequest.configuration.'
                    'task_push_notification_config; push=after:k: client.create_task_push_notification_config',
        'wire_0.3': 'enable_v0_3_compat=True; a raw httpx client; push=inline: params.configuration.'
                    'pushNotificationConfig; push=after:k: tasks/pushNotificationConfig/set',
        'webhook': 'a bare HTTP/1.1 receiver on 127.0.0.1 in the recorder (keep-alive); it answers 200, or 500 '
                   '(webhook=error), after webhook_delay_ms; webhook=down: a free port nobody listens on (the '
                   "agent's attempts are counted from its log: pushes_failed_logged)",
        'config': {'token': 'push_auth=token|both', 'authentication': "{scheme 'Bearer', credentials} (0.3: "
                   "{schemes: ['Bearer'], credentials}) for push_auth=bearer|both"},
    }
    scenarios = mx.ordered(entries.values())
    unstable = [e['scenario'] for e in scenarios if not e['stable']]
    return mx.write(about, scenarios, unstable, f'{len(unstable)} unstable')
