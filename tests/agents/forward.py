#!/usr/bin/env python3
"""A forwarder for `probe --webhook-url`: what a public address that forwards to the
probe's webhook does, on 127.0.0.1. Every POST, whatever its path, goes to the URL that
TARGET_FILE holds (written there once the probe has said where its webhook listens;
a POST that comes first waits up to 10 s for it), and the webhook's answer comes back.

    tests/agents/forward.py TARGET_FILE

Same protocol as bad.py: one line on stdout (its URL), serves until SIGTERM.
"""

from __future__ import annotations

import sys
import time

from http.server import BaseHTTPRequestHandler
from pathlib import Path

import standin


def make_handler(target_file: Path, base_ref: list[str]):  # noqa: ARG001
    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        server_version = 'webhook-forwarder/1'

        def log_message(self, format, *args) -> None:  # noqa: A002, ARG002
            pass

        def do_POST(self) -> None:  # noqa: N802
            n = int(self.headers.get('Content-Length') or 0)
            body = self.rfile.read(n) if n else None
            deadline = time.monotonic() + 10
            while not (target := target_file.read_text().strip() if target_file.exists() else ''):
                if time.monotonic() > deadline:
                    self.send_error(502, 'no target to forward to')
                    return
                time.sleep(0.02)
            standin.proxy(self, 'POST', target, body)

    return Handler


def main() -> int:
    if len(sys.argv) != 2:
        print('usage: forward.py TARGET_FILE', file=sys.stderr)
        return 2
    target_file = Path(sys.argv[1])
    return standin.serve(lambda base_ref: make_handler(target_file, base_ref))


if __name__ == '__main__':
    sys.exit(main())
