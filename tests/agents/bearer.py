#!/usr/bin/env python3
"""An auth gateway in front of a real agent, as deployments put one: every request
without `Authorization: Bearer s3cret-test-token` answers 401; with it, the request goes
to the agent and its answer comes back as it comes (streams included), the agent's own
URL in its card replaced by the gateway's.

    tests/agents/bearer.py UPSTREAM_URL

Same protocol as bad.py: 127.0.0.1 on a free port, one line on stdout (the URL), serves
until SIGTERM/SIGINT. Standard library only.
"""

from __future__ import annotations

import sys

from http.server import BaseHTTPRequestHandler

import standin

TOKEN = 'Bearer s3cret-test-token'


def make_handler(upstream: str, base_ref: list[str]):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        server_version = 'bearer-gateway/1'

        def log_message(self, format, *args) -> None:  # noqa: A002, ARG002
            pass

        def forward(self, method: str) -> None:
            n = int(self.headers.get('Content-Length') or 0)
            body = self.rfile.read(n) if n else None
            if self.headers.get('Authorization') != TOKEN:
                data = b'{"error": "unauthorized"}'
                self.send_response(401)
                self.send_header('WWW-Authenticate', 'Bearer')
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            card = None
            if self.path.startswith('/.well-known/'):
                def card(data: bytes) -> bytes:
                    return data.replace(upstream.encode(), base_ref[0].encode())
            standin.proxy(self, method, upstream + self.path, body, frozenset({'authorization'}), card)

        def do_GET(self) -> None:  # noqa: N802
            self.forward('GET')

        def do_POST(self) -> None:  # noqa: N802
            self.forward('POST')

    return Handler


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].startswith('http://'):
        print('usage: bearer.py http://UPSTREAM', file=sys.stderr)
        return 2
    upstream = sys.argv[1].rstrip('/')
    return standin.serve(lambda base_ref: make_handler(upstream, base_ref))

if __name__ == '__main__':
    sys.exit(main())
