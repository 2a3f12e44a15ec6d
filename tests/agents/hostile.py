#!/usr/bin/env python3
"""A scripted A2A 1.0 JSON-RPC agent that breaks one contract no SDK breaks, for the
probe's contract checks (SPEC §11).

    tests/agents/hostile.py KIND

KIND
  clean       nothing broken: the lifecycle of the SDK agents, on its own
  envelope    every stream event echoes the wrong JSON-RPC `id`; GetTask answers with
              both `result` and `"error": null`; CancelTask on a finished task answers
              an error with no `jsonrpc`
  context     every event after the first artifact names another contextId
  foreign     each stream carries, after its first artifact, a statusUpdate of another
              task (as an executor that keeps task ids on itself does under load)
  thin-card   the card has no `description`, no `defaultOutputModes` and an empty
              `skills` list; the lifecycle is clean

The lifecycle: a new message makes a task that streams `task` SUBMITTED, status WORKING,
three chunks of one artifact 100 ms apart (the first without `append`, the last with
`lastChunk`), then status COMPLETED. GetTask answers the task with every part so far;
CancelTask on a working task ends it CANCELED (its stream gets the status and closes);
on a finished task it answers -32002. SubscribeToTask on a working task answers its
`task` (with the parts delivered so far), then the events after; on a finished task,
-32004.

Same protocol as bad.py: 127.0.0.1 on a free port, one line on stdout (the URL), serves
until SIGTERM/SIGINT. Standard library only; no SDK.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid

from http.server import BaseHTTPRequestHandler

import standin

KINDS = ('clean', 'envelope', 'context', 'foreign', 'thin-card')
STEP_S = 0.1
CHUNKS = 3
TERMINAL = ('TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED')


def card(base: str, kind: str) -> dict:
    out = {
        'name': f'Hostile stand-in ({kind})',
        'description': 'A scripted agent for a2a-lab probe (tests/agents/hostile.py).',
        'supportedInterfaces': [{'url': f'{base}/', 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}],
        'version': '1.0.0',
        'capabilities': {'streaming': True},
        'defaultInputModes': ['text/plain'],
        'defaultOutputModes': ['text/plain'],
        'skills': [{'id': 'orders', 'name': 'Orders', 'description': 'Order status', 'tags': ['test']}],
    }
    if kind == 'thin-card':
        del out['description'], out['defaultOutputModes']
        out['skills'] = []
    return out


class Task:
    """One task: its events so far, in order, and what a GetTask shows."""

    def __init__(self, tid: str, ctx: str) -> None:
        self.id, self.ctx = tid, ctx
        self.state = 'TASK_STATE_SUBMITTED'
        self.parts: list[dict] = []
        self.events: list[dict] = []
        self.cancel = False

    def snapshot(self) -> dict:
        task = {'id': self.id, 'contextId': self.ctx, 'status': {'state': self.state}}
        if self.parts:
            task['artifacts'] = [{'artifactId': 'order-status', 'parts': list(self.parts)}]
        return task


class Agent:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.tasks: dict[str, Task] = {}
        self.cond = threading.Condition()

    def emit(self, task: Task, event: dict) -> None:
        with self.cond:
            task.events.append(event)
            self.cond.notify_all()

    def status(self, task: Task, state: str, ctx: str) -> dict:
        task.state = state
        stamp = time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime()) + 'Z'
        return {'statusUpdate': {'taskId': task.id, 'contextId': ctx,
                                 'status': {'state': state, 'timestamp': stamp}}}

    def run(self, task: Task) -> None:
        """The executor: the lifecycle, step by step, until done or canceled."""
        ctx = task.ctx
        self.emit(task, self.status(task, 'TASK_STATE_WORKING', ctx))
        for n in range(CHUNKS):
            time.sleep(STEP_S)
            with self.cond:
                if task.cancel:
                    return
                part = {'text': f'BBS-1042: step {n + 1} of {CHUNKS}'}
                task.parts.append(part)
                update = {'taskId': task.id, 'contextId': ctx,
                          'artifact': {'artifactId': 'order-status', 'parts': [part]}}
                if n:
                    update['append'] = True
                if n == CHUNKS - 1:
                    update['lastChunk'] = True
                task.events.append({'artifactUpdate': update})
                if n == 0 and self.kind == 'foreign':
                    task.events.append({'statusUpdate': {
                        'taskId': 'task-of-another-request', 'contextId': 'ctx-other',
                        'status': {'state': 'TASK_STATE_WORKING'}}})
                self.cond.notify_all()
            if n == 0 and self.kind == 'context':
                ctx = 'ctx-of-another-conversation'
        time.sleep(STEP_S)
        with self.cond:
            if task.cancel:
                return
        self.emit(task, self.status(task, 'TASK_STATE_COMPLETED', ctx))

    def start(self, message: dict) -> Task:
        task = Task(str(uuid.uuid4()), message.get('contextId') or str(uuid.uuid4()))
        with self.cond:
            self.tasks[task.id] = task
            task.events.append({'task': task.snapshot()})
        threading.Thread(target=self.run, args=(task,), daemon=True).start()
        return task

    def cancel(self, task: Task) -> bool:
        with self.cond:
            if task.state in TERMINAL:
                return False
            task.cancel = True
        self.emit(task, self.status(task, 'TASK_STATE_CANCELED', task.ctx))
        return True

    def events(self, task: Task, start: int):
        """The task's events from `start`, as they come, until a terminal one."""
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
                    (inner.get('status') or {}).get('state') in TERMINAL:
                return


def make_handler(agent: Agent, base_ref: list[str]):  # noqa: C901
    kind = agent.kind

    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        server_version = 'hostile-a2a/1'

        def log_message(self, format, *args) -> None:  # noqa: A002, ARG002
            pass

        def send_json(self, obj) -> None:
            body = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802
            if self.path == '/.well-known/agent-card.json':
                self.send_json(card(base_ref[0], kind))
            else:
                body = b'Not Found\n'
                self.send_response(404)
                self.send_header('Content-Type', 'text/plain')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            n = int(self.headers.get('Content-Length') or 0)
            try:
                req = json.loads(self.rfile.read(n) if n else b'')
                method, rid, params = req['method'], req.get('id'), req.get('params') or {}
            except (ValueError, KeyError, TypeError):
                self.send_json({'jsonrpc': '2.0', 'id': None, 'error': {'code': -32700, 'message': 'Parse error'}})
                return

            def error(code: int, message: str) -> None:
                self.send_json({'jsonrpc': '2.0', 'id': rid, 'error': {'code': code, 'message': message}})

            task = agent.tasks.get(str(params.get('id')))
            if method == 'SendStreamingMessage':
                task = agent.start(params.get('message') or {})
                self.stream(rid, agent.events(task, 0))
            elif method in ('GetTask', 'CancelTask', 'SubscribeToTask') and task is None:
                error(-32001, 'Task not found')
            elif method == 'GetTask':
                answer = {'jsonrpc': '2.0', 'id': rid, 'result': task.snapshot()}
                if kind == 'envelope':
                    answer['error'] = None
                self.send_json(answer)
            elif method == 'CancelTask':
                if agent.cancel(task):
                    self.send_json({'jsonrpc': '2.0', 'id': rid, 'result': task.snapshot()})
                elif kind == 'envelope':
                    self.send_json({'id': rid, 'error': {'code': -32002, 'message': 'Task cannot be canceled'}})
                else:
                    error(-32002, 'Task cannot be canceled')
            elif method == 'SubscribeToTask':
                with agent.cond:
                    if task.state in TERMINAL:
                        snapshot = None
                    else:
                        snapshot, at = task.snapshot(), len(task.events)
                if snapshot is None:
                    error(-32004, 'Task is in a terminal state')
                    return

                def events():
                    yield {'task': snapshot}
                    yield from agent.events(task, at)

                self.stream(rid, events())
            else:
                error(-32601, 'Method not found')

        def stream(self, rid, events) -> None:
            self.send_response(200)
            self.send_header('Content-Type', 'text/event-stream')
            self.send_header('Cache-Control', 'no-cache')
            self.send_header('Transfer-Encoding', 'chunked')
            # Said, not only done: a client that pools connections must not
            # send its next request on this one.
            self.send_header('Connection', 'close')
            self.end_headers()
            echoed = rid + 1000 if kind == 'envelope' and isinstance(rid, int) else rid
            try:
                for event in events:
                    text = 'data: ' + json.dumps({'jsonrpc': '2.0', 'id': echoed, 'result': event}) + '\n\n'
                    standin.write_chunk(self, text.encode())
                standin.write_chunk(self, b'')
            except OSError:
                return  # the client went away
            self.close_connection = True

    return Handler


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in KINDS:
        print(f'usage: hostile.py {"|".join(KINDS)}', file=sys.stderr)
        return 2
    agent = Agent(sys.argv[1])
    return standin.serve(lambda base_ref: make_handler(agent, base_ref))

if __name__ == '__main__':
    sys.exit(main())
