#!/usr/bin/env python3
"""A path-rewriting proxy on 127.0.0.1 for a2a-testbed's conformance run.

a2a-testbed 0.3.0a3 sends every JSON-RPC request to AGENT_URL + "/a2a/v1/"
(`A2ATransport.rpc_endpoint_path`, fixed), not to the URL the agent's card
names; the test agents of tests/agents serve JSON-RPC at "/" (their card
says so). This proxy forwards everything to the agent, with a leading
"/a2a/v1" taken off the path, and copies the answer back as it arrives
(SSE streams included), so that the sweep reaches the agent's JSON-RPC
endpoint. Nothing else is changed: headers and bodies pass as they are.

    scripts/perf/rpc-path-proxy.py http://127.0.0.1:PORT

Prints its own URL (http://127.0.0.1:PORT) on stdout once it listens, and
serves until SIGTERM or SIGINT. Standard library only.
"""
import http.client
import http.server
import signal
import sys
import urllib.parse

PREFIX = "/a2a/v1"
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
       "proxy-connection", "proxy-authorization", "proxy-authenticate"}


def main() -> None:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    target = urllib.parse.urlsplit(sys.argv[1])
    host, port = target.hostname, target.port or 80

    class Handler(http.server.BaseHTTPRequestHandler):
        # HTTP/1.0 answers end when the connection closes: a stream is
        # copied through without re-chunking it.
        protocol_version = "HTTP/1.0"

        def log_message(self, *args):  # quiet
            pass

        def forward(self):
            path = self.path
            if path == PREFIX or path.startswith(PREFIX + "/"):
                path = path[len(PREFIX):] or "/"
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            conn = http.client.HTTPConnection(host, port, timeout=120)
            try:
                conn.request(self.command, path, body=body, headers=headers)
                resp = conn.getresponse()
                self.send_response(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() not in HOP and k.lower() != "content-length":
                        self.send_header(k, v)
                self.send_header("Connection", "close")
                self.end_headers()
                while True:
                    chunk = resp.read1(65536)
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                conn.close()

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = forward

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass


if __name__ == "__main__":
    main()
