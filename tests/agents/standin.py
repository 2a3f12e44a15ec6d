"""What every stand-in server of tests/agents shares (bad.py, hostile.py, bearer.py): it
listens on 127.0.0.1 on a free port, prints one line, its URL, and serves until SIGTERM,
SIGHUP or SIGINT. Standard library only."""

from __future__ import annotations

import signal

from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve(make_handler: Callable[[list[str]], type[BaseHTTPRequestHandler]]) -> int:
    """Serves the handler `make_handler(base_ref)` makes; `base_ref[0]` is the server's
    own URL once it listens (a card names it)."""
    base_ref = ['']
    srv = ThreadingHTTPServer(('127.0.0.1', 0), make_handler(base_ref))
    srv.daemon_threads = True
    base_ref[0] = f'http://127.0.0.1:{srv.server_address[1]}'

    def stop(signum, frame) -> None:  # noqa: ANN001, ARG001
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    print(base_ref[0], flush=True)
    try:
        srv.serve_forever(poll_interval=0.2)
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        srv.server_close()
    return 0
