#!/usr/bin/env python3
"""Tiny servers that are NOT working A2A agents, for the probe's bad-input tests.

    tests/agents/bad.py KIND

KIND
  html          every GET and POST answers 200 text/html (a web page, no card)
  no-jsonrpc    a 1.0 agent card whose interfaces are GRPC and HTTP+JSON only; POST: 404
  garbage       a valid 1.0 card (JSON-RPC at URL/); every POST answers 200
                Content-Type: application/json with a body that is not JSON
  endless       a valid 1.0 card; SendStreamingMessage (or message/stream) answers an SSE
                stream: a `task` (TASK_STATE_WORKING) event, then every 100 ms alternately a
                `: ping` comment and a statusUpdate TASK_STATE_WORKING, forever
  endless-ping  the same, but after the `task` event only `: ping` comments every 100 ms
  redirect      GET /.well-known/agent-card.json and /.well-known/agent.json answer
                302 to http://example.invalid/.well-known/...; POST answers 307 there
  hang          accepts connections and never answers (reads the request, then waits)
  auth          every request without `Authorization: Bearer s3cret-test-token` answers 401;
                with it, the server is `no-jsonrpc` (so a probe that sent it gets further)

Listens on 127.0.0.1 on a free port, prints one line, its URL (http://127.0.0.1:PORT),
and serves until SIGTERM/SIGINT. Standard library only; no SDK.

For endless/endless-ping, GetTask answers the task WORKING, CancelTask answers it
CANCELED (the stream goes on WORKING regardless), SubscribeToTask answers the same
endless stream; other methods -32601.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid

from http.server import BaseHTTPRequestHandler

import standin

KINDS = ('html', 'no-jsonrpc', 'garbage', 'endless', 'endless-ping', 'redirect', 'hang', 'auth')
TOKEN = 'Bearer s3cret-test-token'
CARD_PATHS = ('/.well-known/agent-card.json', '/.well-known/agent.json')
HTML = (b'<!DOCTYPE html>\n<html><head><title>Belgavi Book Store</title></head>\n'
        b'<body><h1>Welcome</h1><p>This is a web page, not an A2A agent.</p></body></html>\n')
GARBAGE = b'garbage: this is not JSON {{{ \x00\x01 <html>\n'


def card(base: str, interfaces: list[dict]) -> dict:
    return {
        'name': 'Not quite an agent',
        'description': 'A test server for a2a-lab probe (tests/agents/bad.py).',
        'supportedInterfaces': interfaces,
        'version': '1.0.0',
        'capabilities': {'streaming': True},
        'defaultInputModes': ['text/plain'],
        'defaultOutputModes': ['text/plain'],
        'skills': [{'id': 'none', 'name': 'None', 'description': 'Nothing', 'tags': ['test']}],
    }


def make_handler(kind: str, base_ref: list[str]):  # noqa: C901
    contexts: dict[str, str] = {}  # each endless task's contextId, as its stream named it

    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        server_version = 'bad-a2a/1'

        def log_message(self, format, *args) -> None:  # noqa: A002, ARG002
            pass

        def send_body(self, status: int, ctype: str, body: bytes, extra: dict | None = None) -> None:
            self.send_response(status)
            self.send_header('Content-Type', ctype)
            self.send_header('Content-Length', str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def send_json(self, obj, status: int = 200) -> None:
            self.send_body(status, 'application/json', json.dumps(obj).encode())

        def read_body(self) -> bytes:
            n = int(self.headers.get('Content-Length') or 0)
            return self.rfile.read(n) if n else b''

        def refused(self) -> bool:
            """`auth`: a 401 for a request without the credentials."""
            if kind == 'auth' and self.headers.get('Authorization') != TOKEN:
                self.send_body(401, 'application/json', b'{"error": "unauthorized"}', {'WWW-Authenticate': 'Bearer'})
                return True
            return False

        def do_GET(self) -> None:  # noqa: N802
            base = base_ref[0]
            if self.refused():
                return
            if kind == 'hang':
                time.sleep(10**9)
            if kind == 'html':
                self.send_body(200, 'text/html; charset=utf-8', HTML)
            elif kind == 'redirect' and self.path in CARD_PATHS:
                self.send_body(302, 'text/plain', b'moved\n', {'Location': f'http://example.invalid{self.path}'})
            elif self.path == CARD_PATHS[0] and kind in ('no-jsonrpc', 'auth'):
                self.send_json(card(base, [
                    {'url': f'{base}/grpc', 'protocolBinding': 'GRPC', 'protocolVersion': '1.0'},
                    {'url': f'{base}/rest', 'protocolBinding': 'HTTP+JSON', 'protocolVersion': '1.0'},
                ]))
            elif self.path == CARD_PATHS[0] and kind in ('garbage', 'endless', 'endless-ping'):
                self.send_json(card(base, [{'url': f'{base}/', 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}]))
            else:
                self.send_body(404, 'text/plain', b'Not Found\n')

        def do_POST(self) -> None:  # noqa: N802
            if self.refused():
                return
            body = self.read_body()
            if kind == 'hang':
                time.sleep(10**9)
            if kind == 'html':
                self.send_body(200, 'text/html; charset=utf-8', HTML)
                return
            if kind == 'redirect':
                self.send_body(307, 'text/plain', b'moved\n', {'Location': f'http://example.invalid{self.path}'})
                return
            if kind == 'garbage':
                self.send_body(200, 'application/json', GARBAGE)
                return
            if kind == 'no-jsonrpc':
                self.send_body(404, 'text/plain', b'Not Found\n')
                return
            self.endless_rpc(body)

        # --- endless / endless-ping -------------------------------------------------
        def endless_rpc(self, body: bytes) -> None:
            try:
                req = json.loads(body)
                method, rid, params = req['method'], req.get('id'), req.get('params') or {}
            except (ValueError, KeyError, TypeError):
                self.send_json({'jsonrpc': '2.0', 'id': None, 'error': {'code': -32700, 'message': 'Parse error'}})
                return
            if method in ('SendStreamingMessage', 'message/stream'):
                msg = params.get('message') or {}
                tid = msg.get('taskId') or str(uuid.uuid4())
                contexts[tid] = msg.get('contextId') or str(uuid.uuid4())
                self.stream(rid, tid, contexts[tid])
            elif method in ('SubscribeToTask', 'tasks/resubscribe'):
                tid = str(params.get('id'))
                self.stream(rid, tid, contexts.get(tid, 'ctx-endless'))
            elif method in ('GetTask', 'tasks/get'):
                tid = str(params.get('id'))
                self.send_json({'jsonrpc': '2.0', 'id': rid, 'result': self.task(tid, 'TASK_STATE_WORKING', contexts.get(tid, 'ctx-endless'))})
            elif method in ('CancelTask', 'tasks/cancel'):
                tid = str(params.get('id'))
                self.send_json({'jsonrpc': '2.0', 'id': rid, 'result': self.task(tid, 'TASK_STATE_CANCELED', contexts.get(tid, 'ctx-endless'))})
            else:
                self.send_json({'jsonrpc': '2.0', 'id': rid, 'error': {'code': -32601, 'message': 'Method not found'}})

        @staticmethod
        def task(tid: str, state: str, ctx: str = 'ctx-endless') -> dict:
            return {'id': tid, 'contextId': ctx, 'status': {'state': state}}

        def stream(self, rid, tid: str, ctx: str) -> None:
            self.send_response(200)
            self.send_header('Content-Type', 'text/event-stream')
            self.send_header('Cache-Control', 'no-cache')
            self.send_header('Transfer-Encoding', 'chunked')
            self.end_headers()

            def chunk(text: str) -> None:
                standin.write_chunk(self, text.encode())

            def event(result: dict) -> None:
                chunk('data: ' + json.dumps({'jsonrpc': '2.0', 'id': rid, 'result': result}) + '\n\n')

            try:
                event({'task': self.task(tid, 'TASK_STATE_WORKING', ctx)})
                n = 0
                while True:
                    time.sleep(0.1)
                    n += 1
                    if kind == 'endless-ping' or n % 2:
                        chunk(': ping\n\n')
                    else:
                        event({'statusUpdate': {'taskId': tid, 'contextId': ctx, 'status': {
                            'state': 'TASK_STATE_WORKING',
                            'timestamp': time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime()) + 'Z'}}})
            except OSError:
                return  # the client went away

    return Handler


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in KINDS:
        print(f'usage: bad.py {"|".join(KINDS)}', file=sys.stderr)
        return 2
    kind = sys.argv[1]
    return standin.serve(lambda base_ref: make_handler(kind, base_ref))

if __name__ == '__main__':
    threading.current_thread().name = 'bad-a2a'
    sys.exit(main())
