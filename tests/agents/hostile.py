#!/usr/bin/env python3
"""A scripted A2A agent (1.0 JSON-RPC unless said) that breaks one contract no SDK breaks
(SPEC §11), or takes one legal shape the SDK agents never take (SPEC §13), for the
probe's checks.

    tests/agents/hostile.py KIND [grpc=HOST:PORT]

With `grpc=HOST:PORT` the 1.0 card also lists a GRPC interface there: the agent's gRPC
front served by another program (tests/grpc_standin), for `probe --binding all`.

KIND (everything not named is as `clean`)
  clean          nothing broken: the lifecycle of the SDK agents, on its own
  envelope       every stream event echoes the wrong JSON-RPC `id`; GetTask answers with
                 both `result` and `"error": null`; CancelTask on a finished task answers
                 an error with no `jsonrpc`
  context        every event after the first artifact names another contextId
  foreign        each stream carries, after its first artifact, a statusUpdate of another
                 task (as an executor that keeps task ids on itself does under load)
  thin-card      the card has no `description`, no `defaultOutputModes` and an empty
                 `skills` list; the lifecycle is clean
  progress       legal: before each chunk, a statusUpdate repeating TASK_STATE_WORKING with
                 a `status.message` ("Checking step k"), as TaskUpdater.update_status does
  artifact-last  legal: no chunks while working, progress updates 100 ms apart, then ONE
                 artifactUpdate with the whole result (`lastChunk`) right before COMPLETED
  no-artifact    legal: progress updates, then COMPLETED with a `status.message` holding
                 the answer; no artifact at all
  cancel-ignored as no-artifact, but CancelTask on a running task answers the task
                 TASK_STATE_CANCELED and changes nothing: the stream goes on to COMPLETED
                 (no CANCELED on it), GetTask then says COMPLETED
  naive-time     every `status.timestamp` has no zone ("2026-11-02T10:00:00.123456")
  rs-byte        every SSE data payload starts with a 0x1e byte (`data: \\x1e{...}`)
  get-500        GetTask answers HTTP 500 text/plain "Internal Server Error"
  get-garbage    GetTask answers HTTP 200 application/json, the body a Python dict's
                 repr (single quotes): not JSON
  card-elsewhere the card is at URL/agent/card.json only (both well-known paths 404)
  rest-unlisted  the card lists JSON-RPC only, but the HTTP+JSON (REST) binding is served
                 too, at URL/rest (and at URL/ itself), as the SDKs serve it
  html           the card's name, description and skill, every status message, the
                 artifact's id, name and text hold HTML and script
                 (`<img src=x onerror=…><script>…</script>`): a client shows them as text
  input          the task asks for input: WORKING, then INPUT_REQUIRED ("Which order?"),
                 and the stream ends; a message that names the task (`taskId`) continues
                 it: WORKING, the chunks, COMPLETED
  input-new-task as input, but a message that names the task starts a new one (in the
                 message's context): the continuation is lost (A2A 1.0 §3.4.3)
  long           legal: one stream of 10,000 events (the task, WORKING, 9,997 chunks of
                 one artifact, COMPLETED), sent in bursts of 100 a millisecond apart: the
                 page's Live view reads it as it comes (scripts/perf/live-stream.mjs)
  card-03-no-skills  an A2A 0.3 agent (0.3 card, `kind`-tagged events, methods
                 message/stream, tasks/get, tasks/cancel, tasks/resubscribe) whose card
                 has `"skills": []`: legal in 0.3

The lifecycle: a new message makes a task that streams `task` SUBMITTED, status WORKING,
three chunks of one artifact 100 ms apart (the first without `append`, the last with
`lastChunk`), then status COMPLETED. GetTask answers the task with every part so far;
CancelTask on a working task ends it CANCELED (its stream gets the status and closes);
on a finished task it answers -32002. SubscribeToTask on a working task answers its
`task` (with the parts delivered so far), then the events after; on a finished task,
-32004 (0.3: as an SSE error event, as both SDKs answer it).

Same protocol as bad.py: 127.0.0.1 on a free port, one line on stdout (the URL, printed
once the socket listens, whatever the card's path), serves until SIGTERM/SIGINT.
Standard library only; no SDK.
"""

from __future__ import annotations

import datetime
import json
import sys
import threading
import time
import urllib.parse
import uuid

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

import standin

STEP_S = 0.1
CHUNKS = 3
TERMINAL = ('TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED')
INTERRUPTED = ('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED')
HTML = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script><b>bold?</b>'
WELL_KNOWN = '/.well-known/agent-card.json'
ANSWER = 'BBS-1042: out for delivery, arriving today'


class A2AError(Exception):
    """An A2A error, by its JSON-RPC code; each binding says it its own way."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


# --- timestamps ---------------------------------------------------------------------

def utc_stamp() -> str:
    """A2A 1.0 §5.6.1: ISO 8601 in UTC, `Z`, milliseconds."""
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3] + 'Z'


def naive_stamp() -> str:
    """No zone at all, as Python's datetime.utcnow().isoformat() writes it."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None).isoformat(timespec='microseconds')


# --- the task and what the executor sends ------------------------------------------

class Task:
    """One task: its events so far, in order, and what a GetTask shows (built by
    applying each event of its own as it is sent)."""

    def __init__(self, tid: str, ctx: str, stamp: Callable[[], str]) -> None:
        self.id, self.ctx = tid, ctx
        self.wire_ctx = ctx  # the contextId its events name (`context` changes it)
        self.stamp = stamp
        self.status: dict = {'state': 'TASK_STATE_SUBMITTED'}
        self.artifacts: list[dict] = []
        self.events: list[dict] = []
        self.cancel = False
        self.artifact_sent = False

    @property
    def state(self) -> str:
        return self.status['state']

    def snapshot(self) -> dict:
        task = {'id': self.id, 'contextId': self.ctx, 'status': dict(self.status)}
        if self.artifacts:
            task['artifacts'] = [dict(a, parts=list(a['parts'])) for a in self.artifacts]
        return task

    def apply(self, event: dict) -> None:
        if 'statusUpdate' in event and event['statusUpdate']['taskId'] == self.id:
            self.status = dict(event['statusUpdate']['status'])
        elif 'artifactUpdate' in event and event['artifactUpdate']['taskId'] == self.id:
            update = event['artifactUpdate']
            new = update['artifact']
            held = next((a for a in self.artifacts if a['artifactId'] == new['artifactId']), None)
            if held is not None and update.get('append'):
                held['parts'].extend(new['parts'])
            else:
                if held is not None:
                    self.artifacts.remove(held)
                self.artifacts.append(dict(new, parts=list(new['parts'])))

    # The events an executor sends.
    def update(self, state: str, text: str | None = None) -> dict:
        status = {'state': state, 'timestamp': self.stamp()}
        if text is not None:
            status['message'] = {'messageId': str(uuid.uuid4()), 'role': 'ROLE_AGENT', 'parts': [{'text': text}]}
        return {'statusUpdate': {'taskId': self.id, 'contextId': self.wire_ctx, 'status': status}}

    def progress(self, k: int) -> dict:
        return self.update('TASK_STATE_WORKING', f'Checking step {k}')

    def chunk(self, k: int, n: int = CHUNKS) -> dict:
        update = {'taskId': self.id, 'contextId': self.wire_ctx,
                  'artifact': {'artifactId': 'order-status', 'parts': [{'text': f'BBS-1042: step {k} of {n}'}]}}
        if k > 1:
            update['append'] = True
        if k == n:
            update['lastChunk'] = True
        return {'artifactUpdate': update}

    def whole(self) -> dict:
        return {'artifactUpdate': {'taskId': self.id, 'contextId': self.wire_ctx,
                                   'artifact': {'artifactId': 'order-status', 'name': 'order-status',
                                                'parts': [{'text': ANSWER}]},
                                   'lastChunk': True}}


# Plans: what the executor does after WORKING, as a generator of events and pauses
# (a float: seconds to wait).

def chunks(task: Task, progress: bool = False) -> Iterator:
    """The SDK agents' shape: one chunk per step, then COMPLETED."""
    for k in range(1, CHUNKS + 1):
        yield STEP_S
        if progress:
            yield task.progress(k)
        yield task.chunk(k)
    yield STEP_S
    yield task.update('TASK_STATE_COMPLETED')


def with_progress(task: Task) -> Iterator:
    return chunks(task, progress=True)


def artifact_last(task: Task) -> Iterator:
    """ADK's and most LLM agents' shape: progress, then the whole result at the end."""
    for k in range(1, CHUNKS + 1):
        yield STEP_S
        yield task.progress(k)
    yield STEP_S
    yield task.whole()
    yield task.update('TASK_STATE_COMPLETED')


def no_artifact(task: Task) -> Iterator:
    """Progress, then the answer in the final status's message."""
    for k in range(1, CHUNKS + 1):
        yield STEP_S
        yield task.progress(k)
    yield STEP_S
    yield task.update('TASK_STATE_COMPLETED', ANSWER)


def html_parts(task: Task) -> Iterator:
    """Markup and script wherever an agent writes text."""
    yield STEP_S
    yield task.update('TASK_STATE_WORKING', HTML)
    yield STEP_S
    yield {'artifactUpdate': {'taskId': task.id, 'contextId': task.wire_ctx, 'lastChunk': True,
                              'artifact': {'artifactId': HTML, 'name': HTML, 'parts': [{'text': HTML}]}}}
    yield task.update('TASK_STATE_COMPLETED', HTML)


def ask_first(task: Task) -> Iterator:
    """The task needs the user: INPUT_REQUIRED, and the executor waits for a reply."""
    yield STEP_S
    yield task.update('TASK_STATE_INPUT_REQUIRED', 'Which order? Reply with its number.')


LONG_CHUNKS = 9_997
LONG_BURST = 100


def long_stream(task: Task) -> Iterator:
    """A long answer streamed as it is written: 10,000 events in all."""
    for k in range(1, LONG_CHUNKS + 1):
        if k % LONG_BURST == 0:
            yield 0.001
        yield task.chunk(k, LONG_CHUNKS)
    yield task.update('TASK_STATE_COMPLETED')


# After the first artifact: events to add to the stream (the kinds that mix things up).

def foreign_status(task: Task) -> list[dict]:
    return [{'statusUpdate': {'taskId': 'task-of-another-request', 'contextId': 'ctx-other',
                              'status': {'state': 'TASK_STATE_WORKING'}}}]


def other_context(task: Task) -> list[dict]:
    task.wire_ctx = 'ctx-of-another-conversation'
    return []


# --- cards ----------------------------------------------------------------------------

# Interfaces served by other programs, listed after the agent's own (grpc=HOST:PORT).
MORE_INTERFACES: list[dict] = []


def card_10(base: str, name: str) -> dict:
    own = [{'url': f'{base}/', 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}]
    return {
        'name': f'Hostile stand-in ({name})',
        'description': 'A scripted agent for a2a-lab probe (tests/agents/hostile.py).',
        'supportedInterfaces': own + MORE_INTERFACES,
        'version': '1.0.0',
        'capabilities': {'streaming': True},
        'defaultInputModes': ['text/plain'],
        'defaultOutputModes': ['text/plain'],
        'skills': [{'id': 'orders', 'name': 'Orders', 'description': 'Order status', 'tags': ['test']}],
    }


def thin_card(base: str, name: str) -> dict:
    out = card_10(base, name)
    del out['description'], out['defaultOutputModes']
    out['skills'] = []
    return out


def card_html(base: str, name: str) -> dict:
    out = card_10(base, name)
    out['name'] = f'{HTML} ({name})'
    out['description'] = HTML
    out['skills'][0]['description'] = HTML
    return out


def card_03_no_skills(base: str, name: str) -> dict:
    """An A2A 0.3-only agent's card (top-level url, protocolVersion, preferredTransport;
    no supportedInterfaces), with no skills."""
    return {
        'name': f'Hostile stand-in ({name})',
        'description': 'A scripted A2A 0.3 agent for a2a-lab probe (tests/agents/hostile.py).',
        'url': f'{base}/',
        'version': '1.0.0',
        'protocolVersion': '0.3',
        'preferredTransport': 'JSONRPC',
        'capabilities': {'streaming': True},
        'defaultInputModes': ['text/plain'],
        'defaultOutputModes': ['text/plain'],
        'skills': [],
    }


# --- GetTask answers that cannot be read ----------------------------------------------

def answer_500(handler, rid, task: Task | None) -> None:  # noqa: ANN001, ARG001
    handler.send_body(500, 'text/plain; charset=utf-8', b'Internal Server Error')


def answer_repr(handler, rid, task: Task | None) -> None:  # noqa: ANN001
    """str(dict) where json.dumps was meant: single quotes, `None`."""
    result = task.snapshot() if task is not None else None
    handler.send_body(200, 'application/json', repr({'jsonrpc': '2.0', 'id': rid, 'result': result}).encode())


# --- the table of kinds ---------------------------------------------------------------

@dataclass(frozen=True)
class Kind:
    plan: Callable[[Task], Iterator] = chunks
    card: Callable[[str, str], dict] = card_10
    card_paths: tuple[str, ...] = (WELL_KNOWN,)
    first_artifact: Callable[[Task], list[dict]] | None = None
    stamp: Callable[[], str] = utc_stamp
    sse_prefix: str = ''
    get: Callable | None = None  # GetTask answered raw, by this
    cancel_ignored: bool = False
    envelope: bool = False
    rest: bool = False
    wire: str = '1.0'
    reply: bool = False  # a message naming a task waiting for input continues it


KINDS: dict[str, Kind] = {
    'clean': Kind(),
    'envelope': Kind(envelope=True),
    'context': Kind(first_artifact=other_context),
    'foreign': Kind(first_artifact=foreign_status),
    'thin-card': Kind(card=thin_card),
    'progress': Kind(plan=with_progress),
    'artifact-last': Kind(plan=artifact_last),
    'no-artifact': Kind(plan=no_artifact),
    'cancel-ignored': Kind(plan=no_artifact, cancel_ignored=True),
    'naive-time': Kind(stamp=naive_stamp),
    'rs-byte': Kind(sse_prefix='\x1e'),
    'get-500': Kind(get=answer_500),
    'get-garbage': Kind(get=answer_repr),
    'card-elsewhere': Kind(card_paths=('/agent/card.json',)),
    'rest-unlisted': Kind(rest=True),
    'card-03-no-skills': Kind(card=card_03_no_skills, wire='0.3'),
    'html': Kind(plan=html_parts, card=card_html),
    'input': Kind(plan=ask_first, reply=True),
    'input-new-task': Kind(plan=ask_first),
    'long': Kind(plan=long_stream),
}


# --- the A2A 0.3 form of the events (flat, `kind`-tagged, kebab-case states) --------------

def state_03(state: str) -> str:
    return state[len('TASK_STATE_'):].lower().replace('_', '-') if state.startswith('TASK_STATE_') else state


def message_03(message: dict) -> dict:
    role = {'ROLE_AGENT': 'agent', 'ROLE_USER': 'user'}.get(message.get('role'), message.get('role'))
    return dict(message, kind='message', role=role,
                parts=[{'kind': 'text', **p} for p in message.get('parts', [])])


def status_03(status: dict) -> dict:
    out = dict(status, state=state_03(status['state']))
    if 'message' in status:
        out['message'] = message_03(status['message'])
    return out


def artifact_03(artifact: dict) -> dict:
    return dict(artifact, parts=[{'kind': 'text', **p} for p in artifact['parts']])


def task_03(task: dict) -> dict:
    out = {'kind': 'task', 'id': task['id'], 'contextId': task['contextId'], 'status': status_03(task['status'])}
    if 'artifacts' in task:
        out['artifacts'] = [artifact_03(a) for a in task['artifacts']]
    return out


def event_03(event: dict) -> dict:
    if 'task' in event:
        return task_03(event['task'])
    if 'statusUpdate' in event:
        u = event['statusUpdate']
        return {'kind': 'status-update', 'taskId': u['taskId'], 'contextId': u['contextId'],
                'status': status_03(u['status']), 'final': u['status']['state'] in TERMINAL}
    u = event['artifactUpdate']
    return {'kind': 'artifact-update', 'taskId': u['taskId'], 'contextId': u['contextId'],
            'artifact': artifact_03(u['artifact']), 'append': bool(u.get('append')),
            'lastChunk': bool(u.get('lastChunk'))}


# --- the agent: tasks, the executor, and the four operations, whatever the binding ----

class Agent:
    def __init__(self, name: str) -> None:
        self.name, self.kind = name, KINDS[name]
        self.tasks: dict[str, Task] = {}
        self.cond = threading.Condition()

    def emit(self, task: Task, event: dict, force: bool = False) -> bool:
        """Sends `event` on the task's streams; False (nothing sent) once it was canceled."""
        with self.cond:
            if task.cancel and not force:
                return False
            task.apply(event)
            task.events.append(event)
            if 'artifactUpdate' in event and not task.artifact_sent:
                task.artifact_sent = True
                if self.kind.first_artifact is not None:
                    task.events.extend(self.kind.first_artifact(task))
            self.cond.notify_all()
            return True

    def run(self, task: Task) -> None:
        """The executor: WORKING, then the kind's plan, step by step, until done or
        canceled."""
        if not self.emit(task, task.update('TASK_STATE_WORKING')):
            return
        for step in self.kind.plan(task):
            if isinstance(step, float):
                time.sleep(step)
            elif not self.emit(task, step):
                return

    def resume(self, task: Task) -> None:
        """The executor again, once the user replied: WORKING, the chunks, COMPLETED."""
        if not self.emit(task, task.update('TASK_STATE_WORKING')):
            return
        for step in chunks(task):
            if isinstance(step, float):
                time.sleep(step)
            elif not self.emit(task, step):
                return

    def task(self, tid) -> Task:  # noqa: ANN001
        task = self.tasks.get(str(tid))
        if task is None:
            raise A2AError(-32001, 'Task not found')
        return task

    def send(self, message: dict) -> Iterator[dict]:
        waiting = self.tasks.get(str(message.get('taskId')))
        if self.kind.reply and waiting is not None and waiting.state in INTERRUPTED:
            with self.cond:
                at = len(waiting.events)
            threading.Thread(target=self.resume, args=(waiting,), daemon=True).start()
            return self.events(waiting, at)
        task = Task(str(uuid.uuid4()), message.get('contextId') or str(uuid.uuid4()), self.kind.stamp)
        with self.cond:
            self.tasks[task.id] = task
            task.events.append({'task': task.snapshot()})
        threading.Thread(target=self.run, args=(task,), daemon=True).start()
        return self.events(task, 0)

    def get(self, tid) -> dict:  # noqa: ANN001
        task = self.task(tid)
        with self.cond:
            return task.snapshot()

    def cancel(self, tid) -> dict:  # noqa: ANN001
        task = self.task(tid)
        with self.cond:
            if task.state in TERMINAL:
                raise A2AError(-32002, 'Task cannot be canceled')
            if self.kind.cancel_ignored:
                # Said, not done: the answer claims CANCELED, the executor goes on.
                answer = task.snapshot()
                answer['status'] = {'state': 'TASK_STATE_CANCELED', 'timestamp': task.stamp()}
                return answer
            task.cancel = True
        self.emit(task, {'statusUpdate': {'taskId': task.id, 'contextId': task.ctx, 'status': {
            'state': 'TASK_STATE_CANCELED', 'timestamp': task.stamp()}}}, force=True)
        with self.cond:
            return task.snapshot()

    def subscribe(self, tid) -> Iterator[dict]:  # noqa: ANN001
        task = self.task(tid)
        with self.cond:
            if task.state in TERMINAL:
                raise A2AError(-32004, f'Task {task.id} is in terminal state: {task.state}')
            snapshot, at = task.snapshot(), len(task.events)

        def events() -> Iterator[dict]:
            yield {'task': snapshot}
            yield from self.events(task, at)
        return events()

    def events(self, task: Task, start: int) -> Iterator[dict]:
        """The task's events from `start`, as they come, until a terminal one, or one
        that waits on the user."""
        at = start
        while True:
            with self.cond:
                while at >= len(task.events):
                    self.cond.wait(1.0)
                event = task.events[at]
            at += 1
            yield event
            inner = event.get('statusUpdate') or event.get('task') or {}
            if inner.get('taskId', inner.get('id')) == task.id and \
                    (inner.get('status') or {}).get('state') in TERMINAL + INTERRUPTED:
                return


# --- the bindings -------------------------------------------------------------------

METHODS = {
    '1.0': {'SendStreamingMessage': 'send', 'GetTask': 'get', 'CancelTask': 'cancel', 'SubscribeToTask': 'subscribe'},
    '0.3': {'message/stream': 'send', 'tasks/get': 'get', 'tasks/cancel': 'cancel', 'tasks/resubscribe': 'subscribe'},
}

# A REST error (HTTP+JSON): the HTTP status, the google.rpc status and the A2A reason a
# JSON-RPC code stands for, as both SDKs answer them (ANSWERS.md, "REST").
REST_ERRORS = {
    -32001: (404, 'NOT_FOUND', 'TASK_NOT_FOUND'),
    -32002: (400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'),
    -32004: (400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'),
    -32009: (400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'),
    -32600: (400, 'INVALID_ARGUMENT', 'INVALID_REQUEST'),
    -32602: (400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'),
}


def make_handler(agent: Agent, base_ref: list[str]):  # noqa: C901
    kind = agent.kind

    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        server_version = 'hostile-a2a/1'

        def log_message(self, format, *args) -> None:  # noqa: A002, ARG002
            pass

        def send_body(self, status: int, ctype: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header('Content-Type', ctype)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def send_json(self, obj, status: int = 200, ctype: str = 'application/json') -> None:  # noqa: ANN001
            self.send_body(status, ctype, json.dumps(obj).encode())

        def not_found(self) -> None:
            self.send_body(404, 'text/plain', b'Not Found\n')

        def read_body(self) -> bytes:
            n = int(self.headers.get('Content-Length') or 0)
            return self.rfile.read(n) if n else b''

        def do_GET(self) -> None:  # noqa: N802
            path = urllib.parse.urlsplit(self.path).path
            if path in kind.card_paths:
                self.send_json(kind.card(base_ref[0], agent.name))
            elif kind.rest and self.rest_path(path) is not None:
                self.rest('GET', self.rest_path(path))
            else:
                self.not_found()

        def do_POST(self) -> None:  # noqa: N802
            path = urllib.parse.urlsplit(self.path).path
            if kind.rest and self.rest_path(path) is not None:
                self.rest('POST', self.rest_path(path))
            elif path == '/':
                self.jsonrpc(self.read_body())
            else:
                self.read_body()
                self.not_found()

        # --- JSON-RPC --------------------------------------------------------------
        def jsonrpc(self, body: bytes) -> None:
            try:
                req = json.loads(body)
                method, rid, params = req['method'], req.get('id'), req.get('params') or {}
            except (ValueError, KeyError, TypeError):
                self.send_json({'jsonrpc': '2.0', 'id': None, 'error': {'code': -32700, 'message': 'Parse error'}})
                return
            op = METHODS[kind.wire].get(method)

            def error(e: A2AError, sse: bool = False) -> None:
                answer = {'jsonrpc': '2.0', 'id': rid, 'error': {'code': e.code, 'message': e.message}}
                if kind.envelope and e.code == -32002:
                    del answer['jsonrpc']
                if sse:  # 0.3: both SDKs answer a subscription's error as an SSE event
                    self.stream(rid, iter(()), error=answer)
                else:
                    self.send_json(answer)

            def result(value: dict) -> None:
                answer = {'jsonrpc': '2.0', 'id': rid, 'result': value}
                if kind.envelope and op == 'get':
                    answer['error'] = None
                self.send_json(answer)

            try:
                if op == 'send':
                    self.stream(rid, agent.send(params.get('message') or {}))
                elif op == 'get' and kind.get is not None:
                    kind.get(self, rid, agent.tasks.get(str(params.get('id'))))
                elif op == 'get':
                    result(self.on_wire(agent.get(params.get('id'))))
                elif op == 'cancel':
                    result(self.on_wire(agent.cancel(params.get('id'))))
                elif op == 'subscribe':
                    events = agent.subscribe(params.get('id'))
                    self.stream(rid, events)
                else:
                    error(A2AError(-32601, 'Method not found'))
            except A2AError as e:
                error(e, sse=op == 'subscribe' and kind.wire == '0.3')

        def on_wire(self, task: dict) -> dict:
            return task_03(task) if kind.wire == '0.3' else task

        # --- HTTP+JSON (REST), served by `rest-unlisted` at URL/rest and URL/ -------
        @staticmethod
        def rest_path(path: str) -> str | None:
            """The REST call's path below its base, if `path` is one."""
            for base in ('/rest', ''):
                if path.startswith(base + '/') and (path[len(base):] == '/message:stream'
                                                   or path[len(base):].startswith('/tasks/')):
                    return path[len(base):]
            return None

        def rest(self, verb: str, path: str) -> None:
            body = self.read_body() if verb == 'POST' else b''
            try:
                if self.headers.get('A2A-Version') != '1.0':
                    version = self.headers.get('A2A-Version') or '0.3'
                    raise A2AError(-32009, f"A2A version '{version}' is not supported by this handler. "
                                           "Expected version '1.0'.")
                if (verb, path) == ('POST', '/message:stream'):
                    try:
                        message = json.loads(body)['message']
                        message['messageId']  # noqa: B018
                    except ValueError as e:
                        raise A2AError(-32600, f'Failed to load JSON: {e}') from None
                    except (KeyError, TypeError):
                        raise A2AError(-32602, 'Validation failed') from None
                    self.stream(None, agent.send(message))
                    return
                if not path.startswith('/tasks/'):
                    self.not_found()
                    return
                tid, _, action = urllib.parse.unquote(path[len('/tasks/'):]).partition(':')
                if (verb, action) == ('GET', ''):
                    self.send_json(agent.get(tid), ctype='application/a2a+json')
                elif (verb, action) == ('POST', 'cancel'):
                    self.send_json(agent.cancel(tid), ctype='application/a2a+json')
                elif action == 'subscribe':
                    self.stream(None, agent.subscribe(tid))
                else:
                    self.not_found()
            except A2AError as e:
                status, grpc, reason = REST_ERRORS.get(e.code, (500, 'INTERNAL', ''))
                details = [{'@type': 'type.googleapis.com/google.rpc.ErrorInfo', 'reason': reason,
                            'domain': 'a2a-protocol.org', 'metadata': {}}] if reason else []
                self.send_json({'error': {'code': status, 'status': grpc, 'message': e.message,
                                          'details': details}}, status=status)

        # --- SSE -----------------------------------------------------------------------
        def stream(self, rid, events: Iterator[dict], error: dict | None = None) -> None:  # noqa: ANN001
            """An SSE answer: each event in the binding's framing (`rid` None: REST, bare
            events), or one JSON-RPC `error` event."""
            self.send_response(200)
            self.send_header('Content-Type', 'text/event-stream')
            self.send_header('Cache-Control', 'no-cache')
            self.send_header('Transfer-Encoding', 'chunked')
            # Said, not only done: a client that pools connections must not
            # send its next request on this one.
            self.send_header('Connection', 'close')
            self.end_headers()
            echoed = rid + 1000 if kind.envelope and isinstance(rid, int) else rid

            def frame(event: dict) -> dict:
                if kind.wire == '0.3':
                    event = event_03(event)
                return event if rid is None else {'jsonrpc': '2.0', 'id': echoed, 'result': event}

            try:
                payloads = (frame(e) for e in events) if error is None else iter([error])
                for payload in payloads:
                    text = 'data: ' + kind.sse_prefix + json.dumps(payload) + '\n\n'
                    standin.write_chunk(self, text.encode())
                standin.write_chunk(self, b'')
            except OSError:
                return  # the client went away
            self.close_connection = True

    return Handler


def main() -> int:
    grpc = sys.argv[2].removeprefix('grpc=') if len(sys.argv) == 3 else None
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in KINDS or grpc == (sys.argv[2:] or [''])[0]:
        print(f'usage: hostile.py {"|".join(KINDS)} [grpc=HOST:PORT]', file=sys.stderr)
        return 2
    if grpc:
        MORE_INTERFACES.append({'url': grpc, 'protocolBinding': 'GRPC', 'protocolVersion': '1.0'})
    agent = Agent(sys.argv[1])
    return standin.serve(lambda base_ref: make_handler(agent, base_ref))


if __name__ == '__main__':
    sys.exit(main())
