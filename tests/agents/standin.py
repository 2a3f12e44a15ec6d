"""What every stand-in server of tests/agents shares (bad.py, hostile.py, bearer.py): it
listens on 127.0.0.1 on a free port, prints one line, its URL, and serves until SIGTERM,
SIGHUP or SIGINT. Standard library only."""

from __future__ import annotations

import http.client
import signal
import sys
import urllib.parse

from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Hop-by-hop headers, and those a proxy sets itself.
HOP = {'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host'}


class QuietServer(ThreadingHTTPServer):
    """A client that goes away mid-request (a probe that drops a stream, a test that
    ends) is no error worth a traceback in the test log."""

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def serve(make_handler: Callable[[list[str]], type[BaseHTTPRequestHandler]]) -> int:
    """Serves the handler `make_handler(base_ref)` makes; `base_ref[0]` is the server's
    own URL once it listens (a card names it)."""
    base_ref = ['']
    srv = QuietServer(('127.0.0.1', 0), make_handler(base_ref))
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


def write_chunk(handler: BaseHTTPRequestHandler, data: bytes) -> None:
    """One chunk of a chunked answer, sent at once (an empty `data` ends the answer)."""
    handler.wfile.write(f'{len(data):x}\r\n'.encode() + data + b'\r\n')
    handler.wfile.flush()


def proxy(handler: BaseHTTPRequestHandler, method: str, url: str, body: bytes | None,
          drop: frozenset[str] = frozenset(), rewrite: Callable[[bytes], bytes] | None = None) -> None:
    """Sends the request `handler` is serving to `url` (headers but `drop` and the
    hop-by-hop ones) and its answer back as it comes, streams included; `rewrite`, when
    given, reads the whole answer and changes it first (a card naming the upstream)."""
    target = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
    headers = {k: v for k, v in handler.headers.items() if k.lower() not in HOP | drop}
    path = target.path or '/'
    if target.query:
        path += '?' + target.query
    conn.request(method, path, body=body, headers=headers)
    answer = conn.getresponse()
    handler.send_response(answer.status)
    for k, v in answer.getheaders():
        if k.lower() not in HOP:
            handler.send_header(k, v)
    try:
        if rewrite is not None:
            data = rewrite(answer.read())
            handler.send_header('Content-Length', str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
            return
        handler.send_header('Transfer-Encoding', 'chunked')
        handler.end_headers()
        while chunk := answer.read1(65536):
            write_chunk(handler, chunk)
        write_chunk(handler, b'')
    except OSError:
        pass  # the client went away
    finally:
        conn.close()
