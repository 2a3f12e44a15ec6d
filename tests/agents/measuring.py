"""What measure.py, measure_rest.py and measure_load.py share: the agent launcher, the
options, request messages, JSON-RPC headers, the short line of a 1.0 event or task, and the
reader of a streamed answer.

Imported by those scripts (run as `tests/agents/X.py`, this folder is on sys.path).
Standard library only.
"""

from __future__ import annotations

import argparse
import http.client
import json
import queue
import socket
import subprocess
import threading
import time
import uuid

from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
TEXT = 'Where is my order BBS-1042?'
PROBE_DEFECTS = ['none', 'no-final', 'late-artifact', 'cancel-raises', 'never-returns']


def arg_parser(doc: str, defects: list[str]) -> argparse.ArgumentParser:
    """The options every script has: --sdk, --wire, --defect (each repeatable)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--sdk', action='append', choices=['python', 'js', 'rust'])
    ap.add_argument('--wire', action='append', choices=['1.0', '0.3'])
    ap.add_argument('--defect', action='append', choices=defects)
    return ap


def wires(sdk: str, asked: list[str] | None) -> list[str]:
    """The wires to measure `sdk` on: those asked (default both) that it has. a2a-rs has no
    0.3 wire (`start.sh rust 0.3` exits 2; ANSWERS.md, "What has no counterpart")."""
    return [w for w in asked or ['1.0', '0.3'] if sdk != 'rust' or w == '1.0']


def pruned(m: dict, over: dict) -> dict:
    """m with the keys of `over` set (in place, or added at the end); a None value drops its key."""
    m.update(over)
    return {k: v for k, v in m.items() if v is not None}


def msg10(**over):
    """The 1.0 message (JSON-RPC and REST alike)."""
    return pruned({'messageId': f'msg-{uuid.uuid4()}', 'role': 'ROLE_USER', 'parts': [{'text': TEXT}]}, over)


def msg03(**over):
    """The 0.3 JSON-RPC message: `kind`s, role user."""
    return pruned({'kind': 'message', 'messageId': f'msg-{uuid.uuid4()}', 'role': 'user',
                   'parts': [{'kind': 'text', 'text': TEXT}]}, over)


def version_header(wire: str) -> str | None:
    """The A2A-Version header a JSON-RPC request of `wire` is sent with (0.3: none)."""
    return '1.0' if wire == '1.0' else None


def rpc_headers(version: str | None, sse: bool) -> dict[str, str]:
    h = {'Content-Type': 'application/json'}
    if sse:
        h['Accept'] = 'text/event-stream'
    if version:
        h['A2A-Version'] = version
    return h


def artifact_parts(t: dict) -> str:
    """' parts=ID:N,...' for a task's artifacts (N its parts, or its 0.3 REST `content`), '' without any."""
    arts = t.get('artifacts') or []
    return (' parts=' + ','.join(f'{a.get("artifactId")}:{len(a.get("parts") or a.get("content") or [])}'
                                 for a in arts)) if arts else ''


def task_line(word: str, t: dict) -> str:
    """'WORD STATE artifacts=N parts=...' for a task."""
    state = (t.get('status') or {}).get('state')
    return f'{word} {state} artifacts={len(t.get("artifacts") or [])}' + artifact_parts(t)


def summarize_10(r: dict) -> str | None:
    """One short line for a 1.0 stream response (JSON-RPC result or REST body): its first
    key that is task, statusUpdate, artifactUpdate, message (or 0.3 REST msg); None if none."""
    for k, v in r.items():
        if not isinstance(v, dict):
            continue
        if k == 'task':
            return task_line('task', v)
        if k == 'statusUpdate':
            return f'statusUpdate {v.get("status", {}).get("state")}' + (f' final={v["final"]}' if 'final' in v else '')
        if k == 'artifactUpdate':
            return (f'artifactUpdate {v.get("artifact", {}).get("artifactId")} append={v.get("append")} '
                    f'lastChunk={v.get("lastChunk")}')
        if k in ('message', 'msg'):
            return k
    return None


class Agent:
    """A real agent started by start.sh SDK WIRE DEFECT [KEY=VALUE ...]; stop() ends it."""

    def __init__(self, sdk: str, wire: str, defect: str, extra: list[str] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.sdk, self.wire, self.defect, self.extra = sdk, wire, defect, list(extra or [])
        self.proc = subprocess.Popen(  # noqa: S603
            [str(HERE / 'start.sh'), sdk, wire, defect, *self.extra], stdout=subprocess.PIPE, text=True, env=env,
        )
        self.url = self.proc.stdout.readline().strip()
        if not self.url:
            raise RuntimeError(f'{sdk} {wire} {defect}' + (f' {self.extra}' if self.extra else '') + ': no URL')
        u = urlsplit(self.url)
        self.host, self.port = u.hostname, u.port

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


class Stream:
    """One request whose answer a thread reads line by line, kept with arrival times (ms
    from the request) as items: an SSE event ({'ms', 'event', 'summary'}), a comment
    ({'ms', 'comment'}), or what a subclass makes of another line.

    A subclass sets `request` (what the record shows of the request) before calling
    __init__, and gives `summarize` (one line for an event), `task_id_of` and `is_artifact`
    (of an event), and `_field` (an SSE line that is neither blank nor a comment)."""

    request: dict

    def __init__(self, agent: Agent, method: str, path: str, headers: dict[str, str], data) -> None:
        self.t0 = time.monotonic()
        self.conn = http.client.HTTPConnection(agent.host, agent.port, timeout=120)
        self.conn.request(method, path, body=data, headers=headers)
        self.resp = self.conn.getresponse()
        self.content_type = self.resp.getheader('content-type') or ''
        self.q: queue.Queue = queue.Queue()
        self.items: list[dict] = []
        self.ended: str | None = None
        self.dropped = False
        self._data: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    @staticmethod
    def summarize(ev) -> str:
        raise NotImplementedError

    @staticmethod
    def task_id_of(ev: dict) -> str | None:
        raise NotImplementedError

    @staticmethod
    def is_artifact(ev: dict) -> bool:
        raise NotImplementedError

    def _read(self) -> None:
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    self.q.put(('eof', None))
                    return
                self.q.put(('line', line.decode('utf-8', 'replace')))
        except Exception as e:  # noqa: BLE001
            self.q.put(('error', f'{type(e).__name__}: {e}'))

    def next_item(self, timeout: float) -> dict | None:
        """The next item, None at the end of the body or after timeout (then self.ended says)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                kind, raw = self.q.get(timeout=left)
            except queue.Empty:
                return None
            ms = round((time.monotonic() - self.t0) * 1000)
            if kind != 'line':
                self.ended = 'closed' if kind == 'eof' else raw
                if self._data:
                    return self._flush(ms)
                return None
            it = self._line(raw, ms)
            if it is not None:
                return it

    def _line(self, raw: str, ms: int) -> dict | None:
        """One line as received (with its line end): the item it completes, if any."""
        line = raw.rstrip('\r\n')
        if line == '':
            return self._flush(ms) if self._data else None
        if line.startswith(':'):
            return self._keep({'ms': ms, 'comment': line})
        return self._field(line, ms)

    def _field(self, line: str, ms: int) -> dict | None:
        raise NotImplementedError

    def _keep(self, it: dict) -> dict:
        self.items.append(it)
        return it

    def _flush(self, ms: int) -> dict:
        data = '\n'.join(self._data)
        self._data = []
        try:
            ev = json.loads(data)
        except ValueError:
            ev = {'unparsed': data}
        return self._keep(self._event_item({'ms': ms, 'event': ev, 'summary': self.summarize(ev)}))

    def _event_item(self, it: dict) -> dict:
        return it

    def read_until(self, pred, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while self.ended is None:
            it = self.next_item(max(0.0, deadline - time.monotonic()))
            if it is None:
                return None
            if 'event' in it and pred(it['event']):
                return it
        return None

    def read_to_end(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.ended is None:
            left = deadline - time.monotonic()
            if left <= 0:
                self.ended = f'still open after {timeout:g} s'
                return
            self.next_item(left)

    def first_artifact_task(self, timeout: float = 4.0) -> str | None:
        """Reads up to the first artifact event: the task it names (None if none came)."""
        first = self.read_until(self.is_artifact, timeout)
        return self.task_id_of(first['event']) if first else None

    def task_seen(self) -> str | None:
        """The first task an event read so far names."""
        return next((self.task_id_of(it['event']) for it in self.items
                     if 'event' in it and self.task_id_of(it['event'])), None)

    def drop(self) -> None:
        self.dropped = True
        self.ended = self.ended or 'dropped by the client'
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass
        self.conn.close()

    def ms_now(self) -> int:
        return round((time.monotonic() - self.t0) * 1000)
