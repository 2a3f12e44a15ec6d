/**
 * Push notifications (SPEC section 12), measured on @a2a-js/sdk 1.3.0.
 *
 * The twin of tests/fidelity/python/push.py. `recorder.mjs push [--runs 3] [--only QUERY
 * ...] [--out DIR] [--list]` runs the same server, executor and side channel as
 * `recorder.mjs record`, with push notifications wired as the SDK's README documents them
 * (`serve` with `push: true`: capabilities.pushNotifications, an
 * InMemoryPushNotificationStore and a DefaultPushNotificationSender given to
 * DefaultRequestHandler; with the 0.3 compatibility mode, the compat layer's
 * createLegacyAwarePushNotificationSender), subscribe.mjs's client drivers (the SDK client
 * on 1.0, raw fetch with the 0.3 method names on 0.3), and a webhook receiver on
 * 127.0.0.1 in this process that keeps every POST: when it arrived (ms since the client's
 * call started), its header names as sent, which header carried the token or the
 * credentials, the body exactly as received, and the answer it gave.
 *
 * Keys, matrix, fixture format and names: as push.py. Fixtures:
 * tests/fidelity/fixtures/js/push/ (own index.json).
 */

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';

import * as R from './recorder.mjs';
import * as S from './subscribe.mjs';

export const PUSH_OUT = path.resolve(R.HERE, '..', 'fixtures', 'js', 'push');
const PUSH_DEFAULTS = {
  push: 'off',
  webhook: 'ok',
  webhook_delay_ms: 'none',
  push_auth: 'token',
  wire: '1.0',
  push_followup: 'none',
  resubscribe: 'none',
  second_client: 'none',
};
// written in a fixture's `inputs` only when set (SPEC section 14's keys on this recorder)
const PUSH_LATE_KEYS = { ...S.LATE_KEYS, resubscribe: 'none', second_client: 'none' };
const TOKEN = 'bbs-1042-push-token';
const CREDENTIALS = 'bbs-1042-webhook-secret';
const QUIET_MS = 1000; // the pushes are over when nothing arrived (and nothing is being answered) for this long
const PUSH_WAIT_CAP_MS = 30000;
const WATCHDOG_PER_DELAYED_EVENT = 8; // webhook_delay_ms: the watchdog is 3 s + 8 x the delay

// The same matrix, in the same order, as push.py.
const BASE = ['defaults', 'ending=fail', 'ending=input', 'ending=auth', 'ending=return', 'ending=raise', 'late=0',
  'cancel=1', 'cancel=1&cancel_impl=raise', 'client=block', 'chunks=1'];
const ONE_WIRE = [
  ...BASE.map((q) => (q === 'defaults' ? 'push=inline' : `push=inline&${q}`)),
  'push=after:2', 'push=inline&webhook=error', 'push=inline&webhook=down',
  'push=inline&webhook_delay_ms=2000', 'push=inline&webhook_delay_ms=2000&client=block',
  'push=inline&push_auth=bearer', 'push=inline&push_auth=both',
];
// SPEC section 14, the lifecycle in combination, with a push config (as push.py): follow-up
// turns (interrupt, streaming and blocking, the follow-up with no config or the same inline
// config repeated), a retried submission, a client that drops and resubscribes (the real
// request behind the lab's dup=k), a second subscriber, a restart over the database task
// store, and a webhook that answers within a few ms of the push sender's 5 s timeout.
const TURNS = ['input', 'auth', 'both'].flatMap((i) =>
  ['stream', 'block'].flatMap((c) =>
    ['none', 'repeat'].map(
      (f) => `push=inline&interrupt=${i}${c === 'stream' ? '' : '&client=block'}${f === 'none' ? '' : '&push_followup=repeat'}`,
    ),
  ),
);
export const COMBOS = [
  ...TURNS,
  'push=inline&interrupt=input&wire=0.3',
  'push=inline&interrupt=input&push_followup=repeat&wire=0.3',
  'push=inline&interrupt=both&wire=0.3',
  'push=inline&interrupt=both&push_followup=repeat&wire=0.3',
  'push=inline&interrupt=input&client=block&push_followup=repeat&wire=0.3',
  'push=inline&interrupt=input&second_client=3',
  'push=inline&retry=on',
  'push=inline&retry=on&wire=0.3',
  'push=inline&retry=on&second_client=2',
  'push=inline&resubscribe=3',
  'push=inline&second_client=3',
  'push=inline&resubscribe=3&wire=0.3',
  'push=inline&restart=2&store=database',
  'push=inline&restart=2&store=database&resubscribe=5',
  'push=inline&restart=2&store=database&resubscribe=5&wire=0.3',
  'push=inline&webhook_delay_ms=4995',
  'push=inline&webhook_delay_ms=5005',
];
export const MATRIX = [...ONE_WIRE, ...ONE_WIRE.map((q) => `${q}&wire=0.3`), ...COMBOS];

export function parseQuery(query) {
  const [cfg, extra] = S.splitQuery(query, PUSH_DEFAULTS);
  if (!(['off', 'inline'].includes(extra.push) || /^after:[1-9][0-9]*$/.test(extra.push))) {
    throw new Error('push must be off, inline or after:k');
  }
  if (!['ok', 'error', 'down'].includes(extra.webhook)) throw new Error('webhook must be ok, error or down');
  const d = extra.webhook_delay_ms;
  if (d !== 'none' && !(/^\d+$/.test(d) && Number(d) >= 1 && Number(d) <= 60000)) {
    throw new Error('webhook_delay_ms must be none or 1..60000');
  }
  if (!['token', 'bearer', 'both'].includes(extra.push_auth)) throw new Error('push_auth must be token, bearer or both');
  if (!['1.0', '0.3'].includes(extra.wire)) throw new Error("wire must be '1.0' or '0.3'");
  if (extra.push.startsWith('after:') && cfg.client !== 'stream') throw new Error('push=after:k needs client=stream');
  if (!['none', 'repeat'].includes(extra.push_followup)) throw new Error('push_followup must be none or repeat');
  for (const key of ['resubscribe', 'second_client']) {
    if (extra[key] !== 'none' && !(/^\d+$/.test(extra[key]) && Number(extra[key]) >= 1)) throw new Error(`${key} must be none or k >= 1`);
    if (extra[key] !== 'none' && cfg.client !== 'stream') throw new Error(`${key} needs client=stream`);
  }
  return [cfg, extra];
}

/**
 * A scenario of SPEC section 14 (push with follow-up turns, a retry, a restart or a subscriber):
 * its fixture also keeps every stream, the attempts and each POST's task.
 */
function combined(cfg, extra) {
  return (
    cfg.interrupt !== 'none' ||
    cfg.retry !== 'off' ||
    cfg.restart !== 'none' ||
    Object.entries(PUSH_LATE_KEYS).some(([k, v]) => k in extra && extra[k] !== v)
  );
}

/** The task id a POST body is about (1.0 StreamResponse or a 0.3 object). */
function taskOfBody(body) {
  let obj;
  try {
    obj = JSON.parse(body);
  } catch {
    return null;
  }
  if (!obj || typeof obj !== 'object') return null;
  if (typeof obj.kind === 'string') return obj.kind === 'task' ? (obj.id ?? null) : (obj.taskId ?? null);
  if (obj.task) return obj.task.id ?? null;
  for (const k of ['statusUpdate', 'artifactUpdate']) if (obj[k]) return obj[k].taskId ?? null;
  return null;
}

// ---------------------------------------------------------------------------
// The webhook receiver: a bare HTTP/1.1 server on node:net, so the request line, the
// header names and the body are kept exactly as they arrived.
// ---------------------------------------------------------------------------

function authKinds(headers) {
  const out = {};
  for (const [k, v] of headers) {
    if (k.toLowerCase() === 'x-a2a-notification-token') out['X-A2A-Notification-Token'] = v === TOKEN ? 'token' : 'other';
    if (k.toLowerCase() === 'authorization') {
      const i = v.indexOf(' ');
      const scheme = i < 0 ? v : v.slice(0, i);
      out.Authorization = `${scheme}${i >= 0 && v.slice(i + 1) === CREDENTIALS ? ' credentials' : ' other'}`;
    }
  }
  return out;
}

class Receiver {
  constructor(mode, delayMs, ms) {
    this.mode = mode;
    this.delayMs = delayMs;
    this.ms = ms;
    this.posts = [];
    this.inFlight = 0;
    this.lastActivity = performance.now();
    this.connections = 0;
    this.server = null;
  }

  async start() {
    this.port = await R.freePort();
    if (this.mode === 'down') return; // nothing listens on the port: the agent's connection is refused
    this.server = net.createServer((sock) => this.conn(sock));
    await new Promise((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  async stop() {
    if (!this.server) return;
    this.server.close();
    for (const s of this.sockets ?? []) s.destroy();
  }

  get url() {
    return `http://127.0.0.1:${this.port}/webhook`;
  }

  conn(sock) {
    this.connections += 1;
    const conn = this.connections;
    (this.sockets ??= []).push(sock);
    let buf = Buffer.alloc(0);
    let busy = false;
    const pump = async () => {
      if (busy) return;
      busy = true;
      try {
        for (;;) {
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) break;
          const arrived = this.ms();
          const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
          const requestLine = lines[0];
          const headers = lines.slice(1).filter(Boolean).map((h) => {
            const i = h.indexOf(':');
            return [h.slice(0, i), h.slice(i + 1).trim()];
          });
          const low = Object.fromEntries(headers.map(([k, v]) => [k.toLowerCase(), v]));
          let body;
          let rest;
          if ('content-length' in low) {
            const len = Number(low['content-length']);
            if (buf.length < end + 4 + len) break; // wait for more
            body = buf.subarray(end + 4, end + 4 + len);
            rest = buf.subarray(end + 4 + len);
          } else if ((low['transfer-encoding'] ?? '').toLowerCase() === 'chunked') {
            let p = end + 4;
            const parts = [];
            let complete = false;
            for (;;) {
              const nl = buf.indexOf('\r\n', p);
              if (nl < 0) break;
              const size = Number.parseInt(buf.subarray(p, nl).toString('latin1').split(';')[0], 16);
              if (buf.length < nl + 2 + size + 2) break;
              parts.push(buf.subarray(nl + 2, nl + 2 + size));
              p = nl + 2 + size + 2;
              if (size === 0) {
                complete = true;
                break;
              }
            }
            if (!complete) break;
            body = Buffer.concat(parts);
            rest = buf.subarray(p);
          } else {
            body = Buffer.alloc(0);
            rest = buf.subarray(end + 4);
          }
          buf = rest;
          this.inFlight += 1;
          this.lastActivity = performance.now();
          const post = {
            t_ms: arrived,
            body_done_ms: this.ms(),
            connection: conn,
            request_line: requestLine,
            headers: headers.map(([k]) => k),
            auth: authKinds(headers),
            content_type: low['content-type'] ?? null,
            body: body.toString('utf8'),
          };
          this.posts.push(post);
          if (this.delayMs) await sleep(this.delayMs);
          const status = this.mode === 'error' ? 500 : 200;
          const reason = status === 500 ? 'Internal Server Error' : 'OK';
          if (sock.destroyed) post.answer = 'not delivered (the agent closed the connection)';
          else {
            sock.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: 0\r\n\r\n`);
            post.answer = String(status);
          }
          post.answered_ms = this.ms();
          this.inFlight -= 1;
          this.lastActivity = performance.now();
        }
      } finally {
        busy = false;
      }
    };
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      pump();
    });
    sock.on('error', () => {});
  }

  async waitQuiet(since) {
    // at most PUSH_WAIT_CAP_MS, or 8 answers of a slow webhook when that is longer
    const deadline = since + Math.max(PUSH_WAIT_CAP_MS, WATCHDOG_PER_DELAYED_EVENT * (this.delayMs ?? 0));
    while (performance.now() < deadline) {
      if (this.inFlight === 0 && performance.now() - Math.max(this.lastActivity, since) > QUIET_MS) return;
      await sleep(50);
    }
  }
}

/** What a POST body says, in the fixtures' event form (1.0 StreamResponse or a 0.3 object). */
function pushEvent(body, terminalSeen) {
  let obj;
  try {
    obj = JSON.parse(body);
  } catch {
    return { kind: 'unparsable', state: null };
  }
  if (obj && typeof obj === 'object' && 'result' in obj && 'jsonrpc' in obj) obj = obj.result;
  const ev = S.normEvent(obj, terminalSeen);
  ev.shape = obj && typeof obj.kind === 'string' ? `0.3 ${obj.kind}` : `1.0 StreamResponse ${ev.kind}`;
  return ev;
}

const masked = (s) => R.maskIds(s).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?/g, '<ts>');

// ---------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------

/** subscribe.mjs's client; on 0.3 the push config rides in message/send and message/stream. */
/**
 * subscribe.mjs's run (its clients, streams, follow-up turns, retries, subscribers, restart) with
 * push notifications on and the webhook receiver; the inline config rides on the sends.
 */
class PushRun extends S.SubRun {
  constructor(query, cfg, extra, workdir, sdk) {
    super(query, cfg, { resubscribe: extra.resubscribe, second_client: extra.second_client, wire: extra.wire }, workdir, sdk);
    this.push = extra;
    this.combined = combined(cfg, extra);
    const delay = extra.webhook_delay_ms === 'none' ? null : Number(extra.webhook_delay_ms);
    this.receiver = new Receiver(extra.webhook, delay, () => this.ms());
    // a slow webhook may hold the stream up once per event: the watchdog waits long
    // enough to see when the stream really ends (as push.py)
    if (delay) this.watchdogS = R.WATCHDOG_S + (WATCHDOG_PER_DELAYED_EVENT * delay) / 1000;
    this.configSet = {};
    const after = extra.push.startsWith('after:') ? Number(extra.push.split(':')[1]) : null;
    if (after != null) {
      this.firstStreamHooks.push((count) => {
        if (count === after) this.moreSideTasks.push(this.setConfig(this.c1).then((r) => Object.assign(this.configSet, r)));
      });
    }
  }

  serverConf() {
    return { ...super.serverConf(), push: true };
  }

  // with a push config every follow-up turn is measured the same way (each stream left open)
  get turnsConcurrent() {
    return this.cfg.interrupt !== 'none';
  }

  makeClient(name, streaming) {
    const client = super.makeClient(name, streaming);
    if (name === 1) this.c1 = client;
    return client;
  }

  /** push=inline: the send and its identical resend carry the config; a follow-up turn only with push_followup=repeat. */
  pushConfigFor(client, role) {
    if (this.push.push !== 'inline' || client.name !== 1) return null;
    if (role === 'resume' && this.push.push_followup !== 'repeat') return null;
    return this.extra.wire === '1.0' ? this.configV10() : this.configV03();
  }

  configV10(taskId) {
    const c = { url: this.receiver.url };
    if (taskId) c.taskId = taskId;
    if (['token', 'both'].includes(this.push.push_auth)) c.token = TOKEN;
    if (['bearer', 'both'].includes(this.push.push_auth)) c.authentication = { scheme: 'Bearer', credentials: CREDENTIALS };
    return c;
  }

  configV03() {
    const c = { url: this.receiver.url };
    if (['token', 'both'].includes(this.push.push_auth)) c.token = TOKEN;
    if (['bearer', 'both'].includes(this.push.push_auth)) c.authentication = { schemes: ['Bearer'], credentials: CREDENTIALS };
    return c;
  }

  /** SetTaskPushNotificationConfig (0.3: tasks/pushNotificationConfig/set) on the running task. */
  async setConfig(client) {
    const out = { sent_ms: this.ms() };
    const tid = this.taskId ?? this.taskIdFromSide();
    try {
      if (this.extra.wire === '1.0') {
        const n = client.tee.exchanges.length;
        await client.sdkClient.createTaskPushNotificationConfig(this.sdk.TaskPushNotificationConfig.fromJSON(this.configV10(tid)), {
          signal: AbortSignal.timeout(10000),
        });
        out.answer = JSON.parse(R.rawOf(client.tee.exchanges[n]).toString('utf8'));
      } else {
        const body = client.v03('tasks/pushNotificationConfig/set', { taskId: tid, pushNotificationConfig: this.configV03() });
        out.method = body.method;
        const resp = await fetch(`${this.baseUrl}/`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10000),
        });
        out.answer = JSON.parse(Buffer.from(await resp.arrayBuffer()).toString('utf8'));
      }
      out.result = out.answer && out.answer.error ? 'error' : 'ok';
    } catch (e) {
      out.result = `error: ${R.errText(e)}`;
    }
    out.answered_ms = this.ms();
    return out;
  }

  // the executor's own end (or the watchdog), then the webhook's quiet
  async afterSettle() {
    await this.receiver.waitQuiet(performance.now());
  }

  async execute() {
    await this.receiver.start();
    try {
      return await super.execute();
    } finally {
      await this.receiver.stop();
    }
  }

  assemble(args) {
    const sub = super.assemble(args);
    const own = sub.streams.filter((st) => st.client === 1);
    const ms = own.flatMap((st) => st.events.map((e) => e.ms));
    const events = S.eventsOf(own.flatMap((st) => st.wire)).map((ev, i) => {
      const { parts, artifacts, history, ...rest } = ev;
      return { ...rest, ms: ms[i] };
    });
    const last = own.length ? own[own.length - 1] : { rpc_error: null };
    const end = sub.stream ?? sub.call;
    const posts = [...this.receiver.posts].sort((a, b) => a.t_ms - b.t_ms);
    let seenTerminal = false;
    let terminalAt = null;
    const seenBodies = new Set();
    const taskIds = [...new Set((sub.attempts ?? []).map((a) => a.task_id).filter(Boolean))];
    posts.forEach((p, i) => {
      const { parts, history, ...ev } = pushEvent(p.body, seenTerminal);
      p.event = ev;
      p.duplicate = seenBodies.has(p.body);
      seenBodies.add(p.body);
      if (R.TERMINAL.has(ev.state) && !seenTerminal) {
        seenTerminal = true;
        terminalAt = i;
      }
      if (this.combined) {
        const tid = taskOfBody(p.body);
        if (tid && !taskIds.includes(tid)) taskIds.push(tid);
        p.task_n = tid && taskIds.includes(tid) ? taskIds.indexOf(tid) + 1 : null;
      }
    });
    const side = R.readSide(this.sidePath);
    const logLines = R.readLog(this.logPath)
      .split('\n')
      .filter((l) => ['WARNING', 'ERROR'].includes(l.split(' ', 1)[0]))
      .map(R.maskIds);
    const failedLogged = logLines.filter((l) => l.includes('Error sending push notification')).length;
    const states = posts.map((p) => p.event.state).filter(Boolean);
    const run = {
      events,
      stream: this.isStream ? end : null,
      call: this.isStream ? null : end,
      end_error: sub.end_error,
      rpc_error: last.rpc_error,
      client_done_ms: args.callEndMs,
      posts,
      pushes_received: posts.length,
      pushes_failed_logged: failedLogged,
      pushes_answered: posts.filter((p) => p.answer === '200').length,
      push_states: states,
      push_last_state: states.length ? states[states.length - 1] : null,
      push_after_terminal: terminalAt == null ? 0 : posts.length - terminalAt - 1,
      push_duplicates: posts.filter((p) => p.duplicate).length,
      webhook_connections: this.receiver.connections,
      get_task_settled: args.getSettled,
      cancel: Object.keys(args.cancelInfo).length ? args.cancelInfo : null,
      config_set: Object.keys(this.configSet).length ? this.configSet : null,
      executions: side.filter((r) => r.ev === 'execute_start').length,
      side_channel: R.sideRecords(side, this.t0Wall, ['t', 'pid', 'task_id']),
      server_log: logLines.slice(0, 20),
      notes: sub.notes,
    };
    if (this.combined) {
      // SPEC section 14: every stream of every client, the attempts (turns, resends), the tasks,
      // and which task each POST is about (task_n: 1 = the first task, 2 = a second)
      run.streams = sub.streams;
      run.tasks = taskIds.length;
      run.posts_per_task = taskIds.map((_, n) => posts.filter((p) => p.task_n === n + 1).length);
      for (const k of ['attempts', 'distinct_tasks', 'first_attempt_task_settled', 'restart', 'resumed', 'resumes', 'states',
        'executor_after_drop', 'get_task_after']) {
        if (k in sub) run[k] = sub[k];
      }
    } else {
      for (const st of sub.streams) delete st._raw;
    }
    return run;
  }
}

// ---------------------------------------------------------------------------
// Stability, files, index
// ---------------------------------------------------------------------------

function short(e) {
  let s = { task: 'T', statusUpdate: 'S', artifactUpdate: 'A', message: 'M' }[e.kind] ?? e.kind;
  if (e.state) s += `:${e.state.replace(/^TASK_STATE_/, '')}`;
  if (e.kind === 'artifactUpdate' && e.artifact_id !== R.TRACKING_ID) s += `(${e.artifact_id})`;
  return s;
}

function outcomeKey(run, delayMs) {
  const g = run.get_task_settled;
  const o = {
    events: run.events.map(short),
    end: run.stream ?? run.call,
    rpc_error: run.rpc_error?.code ?? null,
    posts: run.posts.map((p) => [short(p.event), p.event.shape, p.event.append, p.event.last_chunk, p.headers, p.auth, p.answer ?? null, p.duplicate]),
    failed_logged: run.pushes_failed_logged,
    settled: typeof g === 'string' ? g : (g?.state ?? null),
    cancel: run.cancel?.result ?? null,
    config_set: run.config_set?.result ?? null,
  };
  if (delayMs) o.client_done_after_delay = run.client_done_ms >= delayMs;
  if (run.streams) {
    o.streams = run.streams.map(S.streamKey);
    o.post_tasks = run.posts.map((p) => p.task_n ?? null);
    o.executions = run.executions;
  }
  return JSON.stringify(R.sortKeys(o));
}

function describe(run) {
  let ev = run.events.map(short).join(' ') || '(none)';
  let posts =
    run.posts.map((p) => short(p.event) + (p.answer === '200' ? '' : `[${p.answer}]`) + (p.duplicate ? '=dup' : '')).join(' ') ||
    '(none)';
  if (run.streams) {
    ev = run.streams
      .map((st) => `c${st.client} ${st.role}: ${st.events.map(S.shortEvent).join(' ') || '(none)'} -> ${st.end}`)
      .join(' | ');
    posts =
      run.posts
        .map(
          (p) =>
            short(p.event) +
            (p.answer === '200' ? '' : `[${p.answer}]`) +
            (p.duplicate ? '=dup' : '') +
            ((p.task_n ?? 1) > 1 ? `#${p.task_n}` : ''),
        )
        .join(' ') || '(none)';
  }
  const g = run.get_task_settled;
  const gs = typeof g === 'string' ? g : String(g?.state).replace(/^TASK_STATE_/, '');
  let out = `client: ${ev} -> ${run.stream ?? run.call} at ${run.client_done_ms} ms; webhook: ${posts}`;
  if (run.pushes_failed_logged) out += `; ${run.pushes_failed_logged} failed POSTs logged`;
  return `${out}; GetTask ${gs}`;
}

async function recordOne(query, runs, sdk) {
  const [cfg, extra] = parseQuery(query);
  const delay = extra.webhook_delay_ms === 'none' ? null : Number(extra.webhook_delay_ms);
  const results = await R.executeRuns(
    query,
    runs,
    'a2a-push-js-',
    (dir) => new PushRun(query, cfg, extra, dir, sdk),
    (run) => run.receiver.stop().catch(() => {}),
  );
  const keys = results.map((r) => outcomeKey(r, delay));
  const stable = keys.every((k) => k === keys[0]);
  // bodies: run 1 keeps them all; a later run keeps a body only where it differs from run 1's
  // once ids and timestamps are masked
  const first = results[0].posts.map((p) => masked(p.body));
  for (const r of results.slice(1)) {
    r.posts.forEach((p, j) => {
      if (j < first.length && masked(p.body) === first[j]) {
        p.body = null;
        p.body_as_run_1 = true;
      }
    });
  }
  if (results[0].streams) {
    results.forEach((r, j) => {
      for (const st of r.streams) {
        const raw = st._raw;
        delete st._raw;
        if (j === 0) st.raw = raw; // the body exactly as received, first run only
      }
    });
  }
  const fx = {
    ...S.fixtureHead(
      query,
      cfg,
      extra,
      Math.round((R.WATCHDOG_S + (delay ? (WATCHDOG_PER_DELAYED_EVENT * delay) / 1000 : 0)) * 1000),
      PUSH_LATE_KEYS,
    ),
    stable,
    summary: describe(results[0]),
    timing: results.map((r) => ({ client_done_ms: r.client_done_ms, event_ms: r.events.map((e) => e.ms), post_ms: r.posts.map((p) => p.t_ms) })),
    runs: results,
  };
  if (!stable) fx.variants = S.variants(keys, results, describe);
  return fx;
}

export async function record(argv) {
  const mx = await S.MatrixRecording.start(argv, PUSH_OUT, MATRIX, parseQuery);
  if (!mx) return 0;
  const { args } = mx;
  const entries = new Map((mx.old.scenarios ?? []).map((e) => [e.scenario, e]));
  for (const q of mx.queries) {
    const t = performance.now();
    const fx = await recordOne(q, args.runs, mx.sdk);
    const name = `${R.fileStem(q).replace(/:/g, '-')}.json`;
    // every scenario is written, unstable ones too (`stable: false` and `variants`)
    fs.writeFileSync(path.join(args.out, name), `${JSON.stringify(fx, null, 1)}\n`);
    if (COMBOS.includes(q)) mx.combination(q, name, fx); // index.json's own `combinations` list (SPEC section 14)
    else {
      const entry = { scenario: q, file: name, stable: fx.stable, summary: fx.summary };
      if (!fx.stable) entry.variants = fx.variants;
      entries.set(q, entry);
    }
    const secs = ((performance.now() - t) / 1000).toFixed(1).padStart(5);
    console.log(`[${secs}s] ${q}: stable=${fx.stable} ${fx.summary}`);
    if (!fx.stable) for (const v of fx.variants) console.log(`    ${v.runs}x ${v.summary}`);
  }
  const about = {
    agent:
      'new DefaultRequestHandler(card, store, executor, undefined, new InMemoryPushNotificationStore(), sender); ' +
      'sender = new DefaultPushNotificationSender(pushStore) on 1.0, createLegacyAwarePushNotificationSender(pushStore) ' +
      '(@a2a-js/sdk/compat/v0_3/server) with legacyCompat on (wire=0.3); card capabilities.pushNotifications = true',
    'wire_1.0':
      'the SDK ClientFactory client; push=inline: SendMessageRequest.configuration.taskPushNotificationConfig; ' +
      'push=after:k: client.createTaskPushNotificationConfig',
    'wire_0.3':
      'legacyCompat: {enabled: true}; raw fetch; push=inline: params.configuration.pushNotificationConfig; ' +
      'push=after:k: tasks/pushNotificationConfig/set',
    webhook:
      'a bare HTTP/1.1 receiver on 127.0.0.1 in the recorder (keep-alive); it answers 200, or 500 (webhook=error), ' +
      "after webhook_delay_ms; webhook=down: a free port nobody listens on (the agent's attempts are counted from its " +
      'log: pushes_failed_logged)',
    config: {
      token: 'push_auth=token|both',
      authentication: "{scheme 'Bearer', credentials} (0.3: {schemes: ['Bearer'], credentials}) for push_auth=bearer|both",
    },
  };
  const sorted = mx.ordered(entries.values());
  const unstable = sorted.filter((e) => !e.stable).map((e) => e.scenario);
  return mx.write(about, sorted, unstable, `${unstable.length} unstable`);
}
