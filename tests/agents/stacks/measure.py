#!/usr/bin/env python3
"""Measures, with raw HTTP (no SDK client), what the agents on other stacks answer: the six
probes of SPEC section 10 acted on a running task as SPEC section 13 says (after the first
event that shows it WORKING) and, for comparison, as the probe did before (after the first
artifact); SendMessage, push config, two streams at once, and measure.py's request variants.

    tests/agents/stacks/measure.py [--stack adk|fasta2a|fasta2a-no-artifact ...] [--out DIR] [--raw]
    tests/agents/stacks/measure.py --show      # short form of DIR/stacks-*.json

Starts each agent with stacks/start.sh (needs tests/agents/setup.sh stacks first) and
writes DIR/stacks-<agent>.json (default DIR tests/agents/answers/measured/, git-ignored).
--raw also writes the exact bytes of a few exchanges to tests/agents/answers/raw/<stack>-*
(ports and ids replaced by PORT / TASK_ID ... so that a re-run changes only timestamps).
Standard library only; reuses measure.py's client and stream reader.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from measure import METHODS, Client, RpcStream, new_message, summarize, variants  # noqa: E402
from measuring import Agent, rpc_headers, version_header  # noqa: E402

# Each measured agent: the stack and its start.sh keys. The third is fasta2a with no artifact
# at all (only 1.0 probes): what the probe meets on an agent that answers in messages only.
AGENTS = {'adk': ('adk', []), 'fasta2a': ('fasta2a', []),
          'fasta2a-no-artifact': ('fasta2a', ['artifact=none', 'skills=one'])}
RAW = HERE.parent / 'answers' / 'raw'


class StackAgent(Agent):
    """An agent of stacks/start.sh; the measuring helpers only need url, host, port, wire."""

    def __init__(self, stack: str, extra: list[str] | None = None) -> None:  # noqa: D107 (no super: another launcher)
        self.sdk, self.wire, self.defect, self.extra = stack, '1.0', 'none', list(extra or [])
        self.proc = subprocess.Popen([str(HERE / 'start.sh'), stack, *self.extra],  # noqa: S603
                                     stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url:
            raise RuntimeError(f'{stack}: no URL')
        u = urlsplit(self.url)
        self.host, self.port = u.hostname, u.port


class RawStream(RpcStream):
    """An RpcStream that also keeps every line exactly as received (for answers/raw/)."""

    def __init__(self, *a, **kw) -> None:
        self.raw: list[str] = []
        super().__init__(*a, **kw)

    def _line(self, raw: str, ms: int):  # noqa: ANN202
        self.raw.append(raw)
        return super()._line(raw, ms)


def line(ev) -> str:  # noqa: ANN001
    """measure.summarize, plus what this section is about: the status message's text and
    the timestamp's form (Z, another offset, naive, or none)."""
    s = summarize(ev)
    r = ev.get('result') if isinstance(ev, dict) else None
    if not isinstance(r, dict):
        return s
    body = r.get('statusUpdate') or r.get('task') or (r if 'status' in r else None)
    st = (body or {}).get('status') or {}
    msg = st.get('message')
    if msg:
        s += ' msg=' + json.dumps(' '.join(p.get('text', '?') for p in msg.get('parts', [])))
    if body is not None:
        ts = st.get('timestamp')
        s += ' ts=' + ('none' if ts is None else 'Z' if ts.endswith('Z') else
                       'offset' if re.search(r'[+-]\d\d:\d\d$', ts) else 'NAIVE')
    return s


def running(ev: dict) -> bool:
    """The first event that shows the task running (SPEC section 13): WORKING, either wire."""
    r = ev.get('result') or {}
    body = r.get('statusUpdate') or r.get('task') or r
    return (body.get('status') or {}).get('state') in ('TASK_STATE_WORKING', 'working')


def record(s: RpcStream) -> dict:
    out = s.record()
    out['summary'] = [line(it['event']) if 'event' in it else it.get('comment') or it.get('field')
                      for it in s.items]
    out['ms'] = [it['ms'] for it in s.items]
    return out


def call(c: Client, method: str, params, hv, **kw) -> dict:
    r = c.call(method, params, hv, **kw)
    if 'json' in r:
        r['summary'] = line(r['json'])
    elif 'events' in r:
        r['summary'] = [line(e) for e in r['events']]
    return r


def act_on_running(c: Client, m: dict, wire: str, hv, when, action: str) -> dict:
    """A new task; once `when(event)` holds: cancel it (stream kept open) or drop the stream
    and subscribe. Then the rest, and GetTask 0.5 s later. The stream is read by a thread
    while the call is out, so that every event keeps the time it arrived."""
    s = c.open_stream(m['stream'], new_message(wire), hv)
    first = s.read_until(when, 4.0)
    tid = s.task_seen()
    out: dict = {'acted_after': first and line(first['event']), 'acted_at_ms': s.ms_now()}
    if action == 'cancel':
        reader = threading.Thread(target=s.read_to_end, args=(4.0,))
        reader.start()
        out['cancel_call'] = call(c, m['cancel'], {'id': tid}, hv)
        out['cancel_call']['answered_at_stream_ms'] = s.ms_now()
        reader.join()
        out['stream'] = record(s)
        s.drop()
    else:
        s.drop()
        out['dropped'] = record(s)
        s2 = c.open_stream(m['subscribe'], {'id': tid}, hv)
        s2.read_to_end(4.0)
        out['subscribed'] = record(s2)
        s2.drop()
    time.sleep(0.5)
    out['get_after'] = call(c, m['get'], {'id': tid}, hv)
    return out


def probes(agent: StackAgent, wire: str) -> dict:
    m = METHODS[wire]
    hv = version_header(wire)
    c = Client(agent)
    res: dict = {}
    s = c.open_stream(m['stream'], new_message(wire), hv)
    s.read_to_end(4.0)
    res['stream'] = record(s)
    tid = s.task_seen()
    s.drop()
    time.sleep(0.3)
    res['get'] = call(c, m['get'], {'id': tid}, hv)
    res['cancel-terminal'] = call(c, m['cancel'], {'id': tid}, hv)
    res['get-after-cancel-terminal'] = call(c, m['get'], {'id': tid}, hv)
    res['subscribe-terminal'] = call(c, m['subscribe'], {'id': tid}, hv, sse=True)
    res['get-unknown'] = call(c, m['get'], {'id': 'no-such-task'}, hv)
    res['cancel-unknown'] = call(c, m['cancel'], {'id': 'no-such-task'}, hv)
    is_art = RpcStream.is_artifact
    res['cancel@working'] = act_on_running(c, m, wire, hv, running, 'cancel')
    res['cancel@artifact'] = act_on_running(c, m, wire, hv, is_art, 'cancel')
    res['resubscribe@working'] = act_on_running(c, m, wire, hv, running, 'subscribe')
    res['resubscribe@artifact'] = act_on_running(c, m, wire, hv, is_art, 'subscribe')
    send = 'SendMessage' if wire == '1.0' else 'message/send'
    res['send'] = call(c, send, new_message(wire), hv)
    time.sleep(1.0)
    sent = (res['send'].get('json') or {}).get('result') or {}
    sent_id = (sent.get('task') or sent).get('id')
    res['get-after-send'] = call(c, m['get'], {'id': sent_id}, hv)
    res['push-set'] = call(c, 'CreateTaskPushNotificationConfig' if wire == '1.0' else 'tasks/pushNotificationConfig/set',
                           {'taskId': sent_id, 'url': 'http://127.0.0.1:9/hook'} if wire == '1.0' else
                           {'taskId': sent_id, 'pushNotificationConfig': {'url': 'http://127.0.0.1:9/hook'}}, hv)
    # Two streams at once: are they served side by side?
    pair = [c.open_stream(m['stream'], new_message(wire), hv) for _ in range(2)]
    readers = [threading.Thread(target=p.read_to_end, args=(6.0,)) for p in pair]
    for r in readers:
        r.start()
    for r in readers:
        r.join()
    res['two-at-once'] = [record(p) for p in pair]
    for p in pair:
        p.drop()
    return res


def raw_files(agent: StackAgent) -> None:
    """The exact bytes of a few 1.0 exchanges (and the 0.3 stream), as the agent sent them."""
    stack = agent.sdk
    ids: dict[str, str] = {}

    def scrub(text: str) -> str:
        text = text.replace(agent.url, 'http://127.0.0.1:PORT')
        for u in re.findall(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', text):
            ids.setdefault(u, f'ID-{len(ids) + 1}')
            text = text.replace(u, ids[u])
        return re.sub(r'(?im)^date: .*\r?\n', '', text)

    def write(name: str, text: str) -> None:
        (RAW / f'{stack}-{name}').write_text(scrub(text), encoding='utf-8')

    def headers(s: RpcStream) -> str:
        return f'HTTP/1.1 {s.resp.status} {s.resp.reason}\r\n' + ''.join(f'{k}: {v}\r\n' for k, v in s.resp.getheaders())

    c = Client(agent)
    card = c.get('/.well-known/agent-card.json')
    write('card.json', json.dumps(card['json'], indent=1) + '\n')
    m, hv = METHODS['1.0'], '1.0'
    s = RawStream(agent, c.body(m['stream'], new_message('1.0')), rpc_headers(hv, True))
    s.read_to_end(4.0)
    write('stream.headers', headers(s))
    write('stream.sse', ''.join(s.raw))
    tid = s.task_seen()
    s.drop()
    for name, method in (('get', m['get']), ('cancel-terminal', m['cancel']), ('subscribe-terminal', m['subscribe'])):
        x = RawStream(agent, c.body(method, {'id': tid}), rpc_headers(hv, name == 'subscribe-terminal'))
        x.read_to_end(4.0)
        write(f'{name}.headers', headers(x))
        write(f'{name}.body', ''.join(x.raw))
        x.drop()
    # cancel on the running task: the stream around it, and the answer
    s = RawStream(agent, c.body(m['stream'], new_message('1.0')), rpc_headers(hv, True))
    s.read_until(running, 4.0)
    x = RawStream(agent, c.body(m['cancel'], {'id': s.task_seen()}), rpc_headers(hv, False))
    x.read_to_end(4.0)
    s.read_to_end(4.0)
    write('cancel-running.body', ''.join(x.raw))
    write('cancel-running-stream.sse', ''.join(s.raw))
    s.drop()
    x.drop()
    s = RawStream(agent, c.body('message/stream', new_message('0.3')), rpc_headers(None, True))
    s.read_to_end(4.0)
    write('0.3-stream.sse', ''.join(s.raw))
    s.drop()


def show(path: Path) -> None:
    d = json.loads(path.read_text(encoding='utf-8'))
    print(f'=== {path.name}')
    for p, r in d['discovery'].items():
        print(f'  GET {p}: {r["status"]} {r["content_type"]}')

    def one(name: str, r) -> None:  # noqa: ANN001
        if isinstance(r, list):
            for i, x in enumerate(r):
                one(f'{name}[{i}]', x)
            return
        ms = ' @' + ','.join(map(str, r['ms'])) if 'ms' in r and isinstance(r['ms'], list) else ''
        if 'answered_at_stream_ms' in r:
            ms = f' took {r["ms"]} ms, answered at {r["answered_at_stream_ms"]} ms of the stream'
        print(f'  {name}: {r.get("status")} {r.get("content_type")} ended={r.get("ended")}{ms}')
        for x in (r.get('summary') if isinstance(r.get('summary'), list) else [r.get('summary') or r.get('raw')]):
            print(f'      {x}')

    for wire in ('1.0', '0.3'):
        for k, r in d.get(wire, {}).items():
            if 'acted_at_ms' in r:
                print(f'  [{wire}] {k}: acted at {r["acted_at_ms"]} ms after {r["acted_after"]}')
                for kk, rr in r.items():
                    if isinstance(rr, dict):
                        one(f'[{wire}] {k}: {kk}', rr)
            else:
                one(f'[{wire}] {k}', r)
    for k, v in d.get('variants', {}).items():
        print(f'  variant {k}: {v["status"]} {v["content_type"]} {v.get("summary") or v.get("raw")}')


def main() -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--stack', action='append', choices=list(AGENTS))
    ap.add_argument('--out', default=str(HERE.parent / 'answers' / 'measured'))
    ap.add_argument('--raw', action='store_true')
    ap.add_argument('--show', action='store_true')
    args = ap.parse_args()
    out = Path(args.out)
    if args.show:
        for path in sorted(out.glob('stacks-*.json')):
            show(path)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for name in args.stack or list(AGENTS):
        stack, extra = AGENTS[name]
        agent = StackAgent(stack, extra)
        try:
            c = Client(agent)
            res = {'agent': {'stack': stack, 'keys': extra, 'url': agent.url},
                   'discovery': {p: c.get(p) for p in ('/.well-known/agent-card.json', '/.well-known/agent.json')}}
            for wire in ('1.0', '0.3') if not extra else ('1.0',):
                res[wire] = probes(agent, wire)
            if not extra:
                res['variants'] = variants(agent)
            if args.raw and not extra:
                raw_files(agent)
        finally:
            agent.stop()
        path = out / f'stacks-{name}.json'
        path.write_text(json.dumps(res, indent=1) + '\n', encoding='utf-8')
        print(path, flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
