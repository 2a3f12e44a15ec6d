/**
 * Subscribers and the A2A 0.3 wire (SPEC section 9), measured on @a2a-js/sdk 1.3.0.
 *
 * The twin of tests/fidelity/python/subscribe.py. `recorder.mjs subscribe [--runs 3]
 * [--only QUERY ...] [--out DIR] [--list]` runs the same server, executor and side
 * channel as `recorder.mjs record`, with a client driver that can also
 *
 * - drop its stream after delivered event k and call SubscribeToTask (0.3:
 *   `tasks/resubscribe`) on the task (`resubscribe=k`),
 * - let a second client call SubscribeToTask after the first client's delivered event
 *   k and read that stream beside the first (`second_client=k`),
 * - speak A2A 0.3 to the SDK's compatibility mode (`wire=0.3`: jsonRpcHandler({...,
 *   legacyCompat: {enabled: true}}) plus a card interface of protocolVersion 0.3; raw
 *   fetch with the 0.3 method names and no A2A-Version header, no timeout of its own,
 *   like the SDK client).
 *
 * Fixtures: tests/fidelity/fixtures/js/subscribe/ (own index.json), one file per
 * stable scenario, in the same format and with the same names as the Python ones.
 */

import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import * as R from './recorder.mjs';

export const SUB_OUT = path.resolve(R.HERE, '..', 'fixtures', 'js', 'subscribe');
const SUB_DEFAULTS = { resubscribe: 'none', second_client: 'none', wire: '1.0' };
const MAX_SUBSCRIPTIONS = 2; // a client re-subscribes at most this often in one run
const RECONNECT_FOR_MS = 15000; // how long a re-subscribing client retries a refused connection

// The same matrix, in the same order, as subscribe.py.
const DEFAULT_EVENTS = 6;
const ENDING_LAST = { fail: 6, input: 6, auth: 6, return: 5, never: 5 };
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
// SPEC section 14, the lifecycle in combination (as subscribe.py): a subscriber on a task that
// asks for input or authorization (subscribed before the question and after, across the
// follow-up turns), a subscriber with a retried submission, and the shapes of agents on other
// stacks (progress, result=last) with cancel, resubscribe and second_client.
export const COMBOS = [
  'interrupt=input&resubscribe=2',
  'interrupt=input&resubscribe=3',
  'interrupt=input&second_client=2',
  'interrupt=input&second_client=3',
  'interrupt=auth&resubscribe=3',
  'interrupt=auth&second_client=3',
  'interrupt=both&resubscribe=3',
  'interrupt=both&second_client=3',
  'interrupt=input&resubscribe=3&wire=0.3',
  'interrupt=input&second_client=3&wire=0.3',
  'interrupt=auth&second_client=3&wire=0.3',
  'retry=on&second_client=2',
  'retry=on&second_client=3',
  'retry=on&resubscribe=3',
  'retry=on&second_client=2&wire=0.3',
  'progress=2&cancel=1',
  'result=last&cancel=1',
  'progress=2&result=last&cancel=1',
  'progress=2&resubscribe=3',
  'result=last&resubscribe=3',
  'progress=2&second_client=3',
  'result=last&second_client=3',
  'progress=2&cancel=1&wire=0.3',
  'result=last&resubscribe=3&wire=0.3',
];

export const MATRIX = [
  ...range(1, DEFAULT_EVENTS).map((k) => `resubscribe=${k}`),
  ...Object.entries(ENDING_LAST).flatMap(([e, last]) => [3, last].map((k) => `ending=${e}&resubscribe=${k}`)),
  ...['memory', 'database'].flatMap((s) => [3, 5].map((k) => `restart=2&store=${s}&resubscribe=${k}`)),
  'cancel=1&resubscribe=3',
  'cancel=1&resubscribe=4',
  'cancel=2&resubscribe=3',
  'late=0&resubscribe=3',
  'late=0&resubscribe=6',
  'late=300&resubscribe=6',
  ...range(1, DEFAULT_EVENTS).map((k) => `second_client=${k}`),
  'ending=input&second_client=3',
  'ending=auth&second_client=3',
  'ending=return&second_client=3',
  'ending=never&second_client=3',
  'late=0&second_client=3',
  'cancel=1&second_client=3',
  // every scenario of the existing matrix on the A2A 0.3 wire
  ...R.MATRIX.map((q) => (q === 'defaults' ? 'wire=0.3' : `${q}&wire=0.3`)),
  'resubscribe=3&wire=0.3',
  'resubscribe=6&wire=0.3',
  'second_client=3&wire=0.3',
  'second_client=6&wire=0.3',
  'ending=auth&resubscribe=6&wire=0.3',
  'restart=2&store=memory&resubscribe=5&wire=0.3',
  'restart=2&store=database&resubscribe=5&wire=0.3',
  ...COMBOS,
];

const V03_KIND = { task: 'task', 'status-update': 'statusUpdate', 'artifact-update': 'artifactUpdate', message: 'message' };
const V03_METHOD = {
  SendStreamingMessage: 'message/stream',
  SendMessage: 'message/send',
  SubscribeToTask: 'tasks/resubscribe',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
};

// A matrix recorder's query: its own keys (`defaults`, each at most once) taken out, the rest
// parsed by recorder.parseScenario. Shared with push.mjs.
export function splitQuery(query, defaults) {
  const extra = { ...defaults };
  const seen = new Set();
  const rest = [];
  for (const pair of query === '' || query === 'defaults' ? [] : query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (key in defaults) {
      if (seen.has(key)) throw new Error(`repeated key ${JSON.stringify(key)}`);
      seen.add(key);
      extra[key] = pair.slice(eq + 1);
    } else rest.push(pair);
  }
  return [R.parseScenario(rest.join('&') || 'defaults'), extra];
}

export function checkShapes(extra) {
  if (!/^\d+$/.test(extra.progress)) throw new Error('progress must be k >= 0');
  if (!['chunks', 'last'].includes(extra.result)) throw new Error('result must be chunks or last');
}

// Keys a fixture's `inputs` holds only when they are set (added after the fixtures of the
// earlier keys were recorded, so re-recording those keeps their `inputs`).
export const LATE_KEYS = { ...R.SHAPE_DEFAULTS, push_followup: 'none' };

/** The lab's keys plus SPEC section 9's three and the shapes of SPEC section 14 (progress, result). */
export function parseQuery(query) {
  const [cfg, extra] = splitQuery(query, { ...SUB_DEFAULTS, ...R.SHAPE_DEFAULTS });
  checkShapes(extra);
  for (const key of ['resubscribe', 'second_client']) {
    if (extra[key] !== 'none' && !(/^\d+$/.test(extra[key]) && Number(extra[key]) >= 1)) {
      throw new Error(`${key} must be none or k >= 1`);
    }
    if (extra[key] !== 'none' && cfg.client !== 'stream') throw new Error(`${key} needs client=stream`);
  }
  if (!['1.0', '0.3'].includes(extra.wire)) throw new Error("wire must be '1.0' or '0.3'");
  return [cfg, extra];
}

const texts = (parts) => (parts ?? []).map((p) => p.text);

/** One wire event (1.0 or 0.3) in the fixtures' form; states in the 1.0 spelling. */
function normEvent(result, terminalSeen) {
  let kind;
  let body;
  if (result && typeof result === 'object' && typeof result.kind === 'string') {
    kind = V03_KIND[result.kind] ?? 'unknown';
    body = result;
  } else {
    [kind, body] = R.kindAndBody(result);
  }
  body ??= {};
  const ev = {
    kind,
    state: kind === 'task' || kind === 'statusUpdate' ? R.normState(body.status?.state) : null,
    artifact_id: kind === 'artifactUpdate' ? (body.artifact?.artifactId ?? null) : null,
    append: kind === 'artifactUpdate' ? Boolean(body.append) : false,
    last_chunk: kind === 'artifactUpdate' ? Boolean(body.lastChunk) : false,
    after_terminal: terminalSeen,
  };
  if ('final' in body) ev.final = body.final;
  if (kind === 'artifactUpdate') ev.parts = texts(body.artifact?.parts);
  if (kind === 'task') {
    const arts = body.artifacts ?? [];
    ev.artifacts = arts.length;
    ev.parts = arts.flatMap((a) => texts(a.parts));
    ev.history = (body.history ?? []).length;
  }
  return ev;
}

function eventsOf(results) {
  const out = [];
  let seen = false;
  for (const r of results) {
    const ev = normEvent(r, seen);
    out.push(ev);
    seen = seen || R.TERMINAL.has(ev.state);
  }
  return out;
}

function bodyItems(raw, contentType) {
  if ((contentType ?? '').includes('text/event-stream')) return R.parseSse(raw).map((e) => e.data);
  try {
    return [JSON.parse(raw.toString('utf8'))];
  } catch {
    return [];
  }
}

const resultsIn = (raw, contentType) =>
  bodyItems(raw, contentType)
    .filter((d) => d && typeof d === 'object' && 'result' in d)
    .map((d) => d.result);

function rpcErrorIn(raw, contentType) {
  for (const it of bodyItems(raw, contentType)) {
    if (it && typeof it === 'object' && it.error && typeof it.error === 'object') {
      return { code: it.error.code ?? null, message: it.error.message ?? null, data: it.error.data ?? null };
    }
  }
  return null;
}

function causeChain(e) {
  const out = [];
  for (let c = e; c && out.length < 8; c = c.cause) out.push(c);
  return out;
}
const isTimeout = (e) => causeChain(e).some((c) => c?.name === 'TimeoutError');
const errFull = (e) => (e ? R.errText(e) + (e.cause ? ` (cause: ${R.errText(e.cause)})` : '') : null);

/** One A2A client on one wire: the SDK's own client (1.0) or raw fetch (0.3). */
class Client {
  constructor(run, name, streaming) {
    this.run = run;
    this.name = name;
    this.streaming = streaming;
    this.wire = run.extra.wire;
    this.rpcId = 0;
  }

  async open() {
    if (this.wire === '1.0') {
      const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } = this.run.sdk;
      this.tee = new R.Tee();
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl: this.tee.fetch })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl: this.tee.fetch }),
        }),
      );
      this.sdkClient = await factory.createFromUrl(this.run.baseUrl);
    }
  }

  message(messageId, { taskId, contextId, text = R.USER_TEXT, metadata } = {}) {
    if (this.wire === '1.0') return this.run.makeRequest(messageId, { taskId, contextId, text, metadata });
    return R.v03Message(messageId, { taskId, contextId, text, metadata });
  }

  v03(method, params) {
    this.rpcId += 1;
    return { jsonrpc: '2.0', id: this.rpcId, method, params };
  }

  /** GetTask / CancelTask: [result or null, JSON-RPC error or null]; throws on transport errors. */
  async unary(method, taskId) {
    if (this.wire === '1.0') {
      const n = this.tee.exchanges.length;
      const opts = { signal: AbortSignal.timeout(10000) };
      try {
        if (method === 'GetTask') await this.sdkClient.getTask(this.run.sdk.GetTaskRequest.fromJSON({ id: taskId }), opts);
        else await this.sdkClient.cancelTask(this.run.sdk.CancelTaskRequest.fromJSON({ id: taskId }), opts);
      } catch (e) {
        const err = this.tee.exchanges.length > n ? R.rpcErrorOf(this.tee.exchanges[n]) : null;
        if (!err) throw e;
        return [null, err];
      }
      return [JSON.parse(R.rawOf(this.tee.exchanges[n]).toString('utf8')).result, null];
    }
    const resp = await fetch(`${this.run.baseUrl}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(this.v03(V03_METHOD[method], { id: taskId })),
      signal: AbortSignal.timeout(10000),
    });
    const obj = JSON.parse(Buffer.from(await resp.arrayBuffer()).toString('utf8'));
    return [obj.result ?? null, obj.error ?? null];
  }

  async getTask(taskId) {
    if (!taskId) return [{ error: 'no task id known' }, null];
    let res;
    let err;
    try {
      [res, err] = await this.unary('GetTask', taskId);
    } catch (e) {
      return [{ error: errFull(e), code: null }, null];
    }
    if (err) {
      if (err.code === -32001) return ['lost', { error: err }];
      return [{ error: err.message, code: err.code }, { error: err }];
    }
    return [R.taskSummary(res), res];
  }

  async cancel(taskId) {
    const out = { sent_at_ms: this.run.ms() };
    try {
      const [res, err] = await this.unary('CancelTask', taskId);
      if (!err) {
        const st = R.normState(res?.status?.state);
        Object.assign(out, { result: st === 'TASK_STATE_CANCELED' ? 'canceled' : 'returned', returned_state: st, code: null, message: null, wire: res });
      } else {
        Object.assign(out, { result: err.code === -32002 ? 'not_cancelable' : 'error', code: err.code ?? null, message: err.message ?? null, wire_error: err });
      }
    } catch (e) {
      if (isTimeout(e)) Object.assign(out, { result: 'hung', code: null, message: 'CancelTask did not answer in 10 s' });
      else Object.assign(out, { result: 'error', code: null, message: errFull(e) });
    }
    out.answered_at_ms = this.run.ms();
    return out;
  }

  /**
   * One SendStreamingMessage / SendMessage / SubscribeToTask under the watchdog.
   * Delivers events one by one (onEvent(count)); dropAfter = k or a predicate: the
   * client drops the connection right after that delivered event.
   */
  async call(role, method, arg, { dropAfter = null, onEvent = null, onResult = null, pushConfig = null } = {}) {
    // pushConfig (push.mjs): the inline config of this send, set on the 1.0 request
    // (configuration.taskPushNotificationConfig) or the 0.3 params (configuration.pushNotificationConfig)
    if (pushConfig && this.wire === '1.0') {
      const json = this.run.sdk.SendMessageRequest.toJSON(arg);
      json.configuration = { ...(json.configuration ?? {}), taskPushNotificationConfig: pushConfig };
      arg = this.run.sdk.SendMessageRequest.fromJSON(json);
    }
    const rec = {
      client: this.name,
      role,
      method: this.wire === '1.0' ? method : V03_METHOD[method],
      started_ms: this.run.ms(),
      http_status: null,
      content_type: '',
      results: [],
      event_ms: [],
      chunks: [],
      end: null,
      end_error: null,
      dropped_wall: null,
    };
    const deliver = (result) => {
      rec.results.push(result);
      rec.event_ms.push(this.run.ms());
      // the run's task is client 1's (a second client's snapshot of the first task must not
      // stand for the task a retry makes)
      if (result && typeof result === 'object' && this.name === 1) this.run.noteTask(result);
      if (onEvent) onEvent(rec.results.length);
      if (onResult) onResult(result);
      const drop =
        dropAfter != null && (typeof dropAfter === 'function' ? dropAfter(result) : rec.results.length >= dropAfter);
      if (drop) rec.dropped_wall = Date.now() / 1000;
      return drop;
    };
    const timeoutSignal = this.run.timeoutMs == null ? null : AbortSignal.timeout(this.run.timeoutMs);
    const withTimeout = (signal) => (timeoutSignal ? AbortSignal.any([signal, timeoutSignal]) : signal);
    let exchange = null;

    const readSdk = async (signal) => {
      const n = this.tee.exchanges.length;
      const opts = { signal: withTimeout(signal) };
      if (method === 'SendMessage') {
        await this.sdkClient.sendMessage(arg, opts);
        exchange = this.tee.exchanges[n];
        for (const r of resultsIn(R.rawOf(exchange), exchange.contentType)) deliver(r);
        return null;
      }
      const gen =
        method === 'SubscribeToTask'
          ? this.sdkClient.resubscribeTask(this.run.sdk.SubscribeToTaskRequest.fromJSON({ id: arg }), opts)
          : this.sdkClient.sendMessageStream(arg, opts);
      for await (const _resp of gen) {
        exchange = this.tee.exchanges[n];
        const got = resultsIn(R.rawOf(exchange), exchange.contentType);
        if (got.length <= rec.results.length) throw new Error('event not found in the raw body');
        if (deliver(got[rec.results.length])) return 'dropped_by_client'; // leaving the loop closes the stream
      }
      exchange = this.tee.exchanges[n] ?? null;
      return null;
    };

    const readV03 = async (signal) => {
      let params =
        method === 'SubscribeToTask'
          ? { id: arg }
          : { message: arg, ...(method === 'SendMessage' ? { configuration: { blocking: true } } : {}) };
      if (pushConfig) params = { ...params, configuration: { ...(params.configuration ?? {}), pushNotificationConfig: pushConfig } };
      const resp = await fetch(`${this.run.baseUrl}/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(method === 'SendMessage' ? {} : { Accept: 'text/event-stream' }) },
        body: JSON.stringify(this.v03(rec.method, params)),
        signal: withTimeout(signal),
      });
      rec.http_status = resp.status;
      rec.content_type = resp.headers.get('content-type') || '';
      const reader = resp.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          rec.chunks.push(Buffer.from(value));
          if (!rec.content_type.includes('text/event-stream')) continue;
          const got = resultsIn(Buffer.concat(rec.chunks), rec.content_type);
          while (rec.results.length < got.length) {
            if (deliver(got[rec.results.length])) {
              await reader.cancel(); // the client drops the connection
              return 'dropped_by_client';
            }
          }
        }
      } finally {
        reader.releaseLock();
      }
      if (!rec.content_type.includes('text/event-stream')) {
        for (const r of resultsIn(Buffer.concat(rec.chunks), rec.content_type)) deliver(r);
      }
      return null;
    };

    const nBefore = this.wire === '1.0' ? this.tee.exchanges.length : 0;
    const { end: end0, failure } = await this.run.watched(this.wire === '1.0' ? readSdk : readV03);
    let end = end0;
    if (this.wire === '1.0') {
      exchange ??= this.tee.exchanges[nBefore] ?? null;
      if (exchange) {
        rec.chunks = exchange.chunks;
        rec.http_status = exchange.status;
        rec.content_type = exchange.contentType;
      }
    }
    const raw = Buffer.concat(rec.chunks);
    const err = rpcErrorIn(raw, rec.content_type);
    rec.raw = raw;
    rec.rpc_error = err;
    rec.buffered_after_drop = end === 'dropped_by_client' ? resultsIn(raw, rec.content_type).length - rec.results.length : 0;
    if (end === 'closed' && failure) {
      if (err) end = 'error';
      else if (timeoutSignal?.aborted || isTimeout(failure)) end = 'timed_out';
      else end = 'broken';
      // no HTTP answer at all: the connection failed (refused, or reset by a dying server)
      rec.no_response = rec.http_status == null && raw.length === 0;
    } else if (end === 'closed' && err) end = 'error';
    if (end === 'closed' && method === 'SendMessage') end = 'returned';
    rec.end = end;
    rec.end_error = errFull(failure);
    rec.ended_ms = this.run.ms();
    return rec;
  }
}

class SubRun extends R.Run {
  constructor(query, cfg, extra, workdir, sdk) {
    super(query, cfg, workdir, R.WATCHDOG_S, sdk);
    this.extra = extra;
    this.shape = Object.fromEntries(Object.entries(R.SHAPE_DEFAULTS).map(([k, v]) => [k, extra[k] ?? v]));
    this.t0 = performance.now();
    this.t0Wall = Date.now() / 1000;
    this.firstStreamHooks = []; // onEvent(count) of client 1's first stream (push.mjs)
    this.moreSideTasks = []; // joined with the cancel / restart ones (push.mjs)
  }

  serverConf() {
    const conf = super.serverConf();
    if (this.extra.wire === '0.3') conf.v03_compat = true;
    if (Object.entries(R.SHAPE_DEFAULTS).some(([k, v]) => this.shape[k] !== v)) conf.scenario = { ...conf.scenario, ...this.shape };
    return conf;
  }

  // --- hooks (push.mjs) ------------------------------------------------------
  makeClient(name, streaming) {
    return new Client(this, name, streaming);
  }

  /** The inline push config a send of this role carries (none here). */
  pushConfigFor(_client, _role) {
    return null;
  }

  /** After the executor's end, before the settled GetTask (push.mjs: the webhook's quiet). */
  async afterSettle() {}

  /**
   * interrupt=* with a streaming client, a subscriber (or a push config): each turn's stream is
   * left open while the client sends the next turn, so what an open stream gets is measured
   * (@a2a-js/sdk ends a message stream it kept open at AUTH_REQUIRED with -32004 then).
   */
  get turnsConcurrent() {
    return (
      this.cfg.interrupt !== 'none' &&
      (this.cfg.client === 'stream' || this.extra.resubscribe !== 'none' || this.extra.second_client !== 'none')
    );
  }

  get baseUrl() {
    return `http://127.0.0.1:${this.port}`;
  }

  noteTask(result) {
    const body = result.kind === 'task' ? result : result.task;
    if (body && typeof body === 'object' && body.id && !this.taskId) {
      this.taskId = body.id;
      this.contextId = body.contextId ?? null;
    }
  }

  /** SubscribeToTask; a call without any HTTP answer (the server is restarting) is retried. */
  async subscribe(client, role, streams, onResult = null, taskId = null) {
    const deadline = performance.now() + RECONNECT_FOR_MS;
    let attempts = 0;
    let rec;
    for (;;) {
      attempts += 1;
      rec = await client.call(role, 'SubscribeToTask', taskId ?? this.taskId, { onResult });
      if (!(rec.end === 'broken' && rec.no_response) || performance.now() > deadline) break;
      await sleep(100);
    }
    rec.connect_attempts = attempts;
    streams.push(rec);
    return rec;
  }

  async execute() {
    const cfg = this.cfg;
    const extra = this.extra;
    this.port = await R.freePort();
    if (cfg.store === 'database') this.migrateDatabase();
    await this.startServer();
    const c1 = this.makeClient(1, this.isStream);
    await c1.open();
    let c2 = null;
    if (extra.second_client !== 'none') {
      // ready before the run starts, so its setup does not delay the run's triggers
      c2 = this.makeClient(2, true);
      await c2.open();
    }
    this.t0 = performance.now();
    this.t0Wall = Date.now() / 1000;
    const streams = [];
    const cancelInfo = {};
    const restartInfo = {};
    const attempts = [];
    let delivered1 = 0;
    const waiters = []; // [k, resolve]
    const second = {};
    let firstDone;
    const firstDonePromise = new Promise((resolve) => {
      firstDone = resolve;
    });
    let secondOpened;
    const secondOpenedPromise = new Promise((resolve) => {
      secondOpened = resolve;
    });
    let firstTaskId = null; // the task client 1's first stream is on (a retry resets this.taskId)
    const onFirstStream = (count) => {
      delivered1 = count;
      firstTaskId ??= this.taskId;
      for (const [k, resolve] of waiters) if (count >= k) resolve(true);
      for (const hook of this.firstStreamHooks) hook(count);
    };

    const { sideTasks, restartTask } = this.startFaults((tid) => c1.cancel(tid), cancelInfo, restartInfo);
    let secondTask = null;
    if (extra.second_client !== 'none') {
      const k = Number.parseInt(extra.second_client, 10);
      secondTask = (async () => {
        const reached = await Promise.race([
          new Promise((resolve) => waiters.push([k, resolve])),
          firstDonePromise.then(() => delivered1 >= k),
        ]);
        if (!reached) {
          second.skipped = `the first stream ended after ${delivered1} events, before event ${k}`;
          secondOpened();
          return;
        }
        try {
          const rec = await this.subscribe(c2, 'second_client', streams, () => secondOpened(), firstTaskId);
          rec.after_event = k;
        } finally {
          secondOpened();
        }
      })();
    }
    if (this.timeoutMs != null) {
      this.notes.push(
        `timeout_ms=${cfg.timeout_ms}: RequestOptions.signal / fetch signal = AbortSignal.timeout(${this.timeoutMs}), ` +
          'a deadline for the whole call',
      );
    }

    const send = this.isStream ? 'SendStreamingMessage' : 'SendMessage';
    const messageId = `msg-${randomUUID()}`;
    const resub = extra.resubscribe === 'none' ? null : Number.parseInt(extra.resubscribe, 10);
    const sending = (role, message, opts = {}) => c1.call(role, send, message, { ...opts, pushConfig: this.pushConfigFor(c1, role) });
    const resubscribing = async (rec, which = 'first stream') => {
      let subs = 0;
      let last = rec;
      // the client re-subscribes after its own drop, and after a stream the server
      // broke (a restart); never after a stream the server closed
      while (subs < MAX_SUBSCRIPTIONS && ['dropped_by_client', 'broken'].includes(last.end)) {
        this.taskId ??= this.taskIdFromSide();
        subs += 1;
        last = await this.subscribe(c1, 'resubscribe', streams);
      }
      if (rec.end !== 'dropped_by_client') {
        this.notes.push(`resubscribe=${resub}: the ${which} ended (${rec.end}) after ${rec.results.length} events, before event ${resub}`);
      }
    };
    if (cfg.retry === 'on') {
      // attempt 1: the connection drops after the first artifact event; the client
      // then re-sends the very same submission (same messageId)
      const firstArtifact = (r) => normEvent(r, false).kind === 'artifactUpdate';
      const a1 = await sending('send', c1.message(messageId), { dropAfter: firstArtifact, onEvent: onFirstStream });
      streams.push(a1);
      attempts.push({ task_id: this.taskId, end: a1.end });
      firstDone();
      this.taskId = null;
      // with resubscribe=k the resent stream drops after its event k and the client
      // subscribes to the task that stream is on
      const a2 = await sending('retry', c1.message(messageId), { dropAfter: resub });
      streams.push(a2);
      attempts.push({ task_id: this.taskId, end: a2.end });
      this.notes.push(
        'retry: attempt 1 dropped by the client after its first artifact event, then the identical ' +
          `request (same messageId ${messageId}) was sent again`,
      );
      if (resub != null) await resubscribing(a2, 'resent stream');
    } else if (cfg.interrupt !== 'none' && this.turnsConcurrent) {
      const secondReady = async () => {
        // a second client that is subscribing: the follow-up waits for its first event
        if (secondTask && delivered1 >= Number.parseInt(extra.second_client, 10)) {
          await Promise.race([secondOpenedPromise, sleep(5000)]);
        }
      };
      await this.turns({ c1, sending, messageId, resub, onFirstStream, firstDone, secondReady, streams, attempts });
    } else if (cfg.interrupt !== 'none') {
      let rec = await sending('send', c1.message(messageId), { onEvent: onFirstStream });
      streams.push(rec);
      attempts.push({ task_id: this.taskId, end: rec.end });
      for (let round = 0; round < 3; round += 1) {
        const [got] = await c1.getTask(this.taskId ?? this.taskIdFromSide());
        const st = got && typeof got === 'object' ? got.state : null;
        const answer = R.followUp(st);
        if (!answer) break;
        const follow = c1.message(`msg-${randomUUID()}`, { taskId: this.taskId, contextId: this.contextId, ...answer });
        rec = await sending('resume', follow);
        streams.push(rec);
        attempts.push({ task_id: this.taskId, end: rec.end, resumed_from: st });
      }
    } else {
      const rec = await sending('send', c1.message(messageId), { dropAfter: resub, onEvent: onFirstStream });
      streams.push(rec);
      firstDone();
      if (resub != null) await resubscribing(rec);
    }
    firstDone();
    const callEndMs = this.ms();

    this.taskId ??= this.taskIdFromSide();
    if (restartTask) await Promise.race([restartTask.catch(() => {}), sleep(30000)]);
    const [getAfter] = await c1.getTask(this.taskId);
    await this.joinSideTasks([...sideTasks, ...(secondTask ? [secondTask] : [])], 20);
    await this.joinSideTasks(this.moreSideTasks, 20);
    await this.settle(cfg);
    await this.afterSettle();
    const [getSettled, settledWire] = await c1.getTask(this.taskId);
    let firstAttempt = null;
    if (cfg.retry === 'on' && attempts.length && attempts[0].task_id) [firstAttempt] = await c1.getTask(attempts[0].task_id);
    await this.server.kill();
    return this.assemble({ streams, getAfter, getSettled, settledWire, cancelInfo, restartInfo, attempts, firstAttempt, callEndMs, second });
  }

  /**
   * interrupt=* with a subscriber or a push config (turnsConcurrent): every turn's stream is read
   * in the background and left open; the follow-up is sent once the task is interrupted (GetTask)
   * and, with resubscribe / second_client, once that subscription has its first event.
   * resubscribe=k: the first stream drops after its event k and the client subscribes at once.
   */
  async turns({ c1, sending, messageId, resub, onFirstStream, firstDone, secondReady, streams, attempts }) {
    const calls = [];
    const watching = () => {
      let resolve;
      const seen = new Promise((r) => {
        resolve = r;
      });
      const onResult = (result) => {
        const st = normEvent(result, false).state;
        if (['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'].includes(st) || R.TERMINAL.has(st)) resolve();
      };
      return { seen, onResult };
    };
    const until = (seen, task, ms) => Promise.race([seen, task, sleep(ms)]);
    const w1 = watching();
    const t1 = sending('send', c1.message(messageId), { dropAfter: resub, onEvent: onFirstStream, onResult: w1.onResult });
    t1.then(() => firstDone());
    calls.push([t1, null]);
    let subTask = null;
    if (resub != null) {
      const rec = await t1;
      if (rec.end === 'dropped_by_client') {
        this.taskId ??= this.taskIdFromSide();
        let opened;
        const openedP = new Promise((r) => {
          opened = r;
        });
        subTask = this.subscribe(c1, 'resubscribe', streams, () => opened());
        await until(openedP, subTask, 5000);
      } else {
        this.notes.push(`resubscribe=${resub}: the first stream ended (${rec.end}) after ${rec.results.length} events, before event ${resub}`);
      }
    } else {
      await until(w1.seen, t1, 10000);
    }
    for (let round = 0; round < 3; round += 1) {
      await secondReady();
      let st = null;
      const deadline = performance.now() + 5000;
      while (performance.now() < deadline) {
        const [got] = await c1.getTask(this.taskId ?? this.taskIdFromSide());
        st = got && typeof got === 'object' ? got.state : null;
        if (['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'].includes(st) || R.TERMINAL.has(st)) break;
        await sleep(50);
      }
      const answer = R.followUp(st);
      if (!answer) break;
      const follow = c1.message(`msg-${randomUUID()}`, { taskId: this.taskId, contextId: this.contextId, ...answer });
      const w = watching();
      const t = sending('resume', follow, { onResult: w.onResult });
      calls.push([t, st]);
      await until(w.seen, t, 10000);
    }
    for (const [t, resumedFrom] of calls) {
      const rec = await t;
      streams.push(rec);
      attempts.push({ task_id: this.taskId, end: rec.end, ...(resumedFrom ? { resumed_from: resumedFrom } : {}) });
    }
    if (subTask) await subTask;
  }

  assemble({ streams, getAfter, getSettled, settledWire, cancelInfo, restartInfo, attempts, firstAttempt, callEndMs, second }) {
    const cfg = this.cfg;
    const side = R.readSide(this.sidePath);
    const sorted = [...streams].sort((a, b) => a.started_ms - b.started_ms || a.client - b.client);
    const outStreams = sorted.map((s) => {
      const evs = eventsOf(s.results);
      evs.forEach((ev, i) => {
        ev.ms = s.event_ms[i];
      });
      const o = {};
      for (const k of ['client', 'role', 'method', 'started_ms', 'ended_ms', 'http_status', 'content_type']) o[k] = s[k];
      if ('after_event' in s) o.after_event = s.after_event;
      o.events = evs;
      o.end = s.end;
      o.end_error = s.end_error;
      o.rpc_error = s.rpc_error;
      if (s.buffered_after_drop) o.buffered_after_drop = s.buffered_after_drop;
      if ((s.connect_attempts ?? 1) > 1) o.connect_attempts = s.connect_attempts;
      o.wire = s.results;
      o._raw = s.raw.toString('utf8');
      return o;
    });
    const c1 = sorted.filter((s) => s.client === 1);
    const wire1 = c1.flatMap((s) => s.results);
    const events = eventsOf(wire1);
    const last1 = c1[c1.length - 1] ?? null;
    let topEnd = null;
    if (last1) {
      topEnd = { broken: 'closed', error: 'closed' }[last1.end] ?? last1.end;
      if (!this.isStream && topEnd === 'closed') topEnd = 'returned';
    }
    const delivered = new Set();
    for (const s of sorted) for (const r of s.results) for (const p of normEvent(r, false).parts ?? []) delivered.add(p);
    if (settledWire && !settledWire.error) for (const a of settledWire.artifacts ?? []) for (const p of texts(a.parts)) delivered.add(p);
    const n = Number.parseInt(cfg.chunks, 10);
    const uniqSorted = (xs) => [...new Set(xs)].sort((a, b) => a - b);
    const doneSteps = uniqSorted(side.filter((r) => r.ev === 'work_done').map((r) => r.i));
    let orphaned = doneSteps.filter((i) => !delivered.has(R.stepText(i, n)));
    if (cfg.restart !== 'none') {
      if (orphaned.length) this.notes.push(`steps lost with the killed process: ${JSON.stringify(orphaned)}`);
      orphaned = [];
    }
    const run = {
      streams: outStreams,
      events, // client 1's events across its streams (each stream holds its own `wire`)
      stream: this.isStream ? topEnd : null,
      call: this.isStream ? null : topEnd,
      end_error: last1 ? last1.end_error : null,
      blocking_result_artifacts: null,
      blocking_result_state: null,
      blocking_result_parts: null,
      get_task_after: getAfter,
      get_task_settled: getSettled,
      get_task_settled_wire: settledWire,
      cancel_result: cancelInfo.result ?? null,
      cancel_error_code: cancelInfo.code ?? null,
      cancel: Object.keys(cancelInfo).length ? cancelInfo : null,
      orphaned_steps: orphaned.length,
      orphaned_step_numbers: orphaned,
      executions: side.filter((r) => r.ev === 'execute_start').length,
      steps_done: doneSteps,
      chunks_enqueued: uniqSorted(side.filter((r) => r.ev === 'enqueued_chunk').map((r) => r.i)),
      call_end_ms: callEndMs,
    };
    if (!this.isStream) {
      const tasks = wire1.map((r) => [r, normEvent(r, false)]).filter(([, e]) => e.kind === 'task');
      if (tasks.length) {
        const [r, e] = tasks[tasks.length - 1];
        const body = r.task ?? r;
        run.blocking_result_artifacts = (body.artifacts ?? []).length;
        run.blocking_result_state = e.state;
        run.blocking_result_parts = R.partsOf(body);
      }
    }
    if (Object.keys(restartInfo).length) run.restart = restartInfo;
    if (attempts.length) {
      run.attempts = attempts;
      const ids = [];
      for (const a of attempts) if (a.task_id && !ids.includes(a.task_id)) ids.push(a.task_id);
      run.distinct_tasks = ids.length;
      if (firstAttempt != null) run.first_attempt_task_settled = firstAttempt;
    }
    if (cfg.interrupt !== 'none') {
      const resumes = side.filter((r) => r.ev === 'resume');
      run.resumed = resumes.length > 0;
      run.resumes = resumes.map((r) => ({ from_state: r.from_state, receipt: r.receipt ?? null }));
      run.states = events.filter((e) => e.state).map((e) => e.state);
    }
    const drop = sorted.find((s) => s.client === 1 && s.dropped_wall != null);
    if (drop && this.extra.resubscribe !== 'none') run.executor_after_drop = executorAfter(side, drop.dropped_wall, this.t0Wall);
    if (second.skipped) this.notes.push(`second_client: ${second.skipped}`);
    run.side_channel = R.sideRecords(side, this.t0Wall);
    run.server_log = R.serverLogLines(this.logPath).slice(0, 30);
    run.notes = this.notes.join('; ');
    return run;
  }
}

/** What the executor did after client 1 dropped its stream (from the side channel). */
function executorAfter(side, droppedWall, t0Wall) {
  const before = side.filter((r) => r.t <= droppedWall);
  const after = side.filter((r) => r.t > droppedWall);
  const finishedBefore = before.some((r) => r.ev === 'execute_end');
  const work = after.filter((r) => ['work_done', 'enqueued_chunk', 'ending', 'ended', 'enqueued_late'].includes(r.ev));
  return {
    dropped_at_ms: Math.round((droppedWall - t0Wall) * 1000),
    executor_finished_before_drop: finishedBefore,
    kept_running: !finishedBefore && work.length > 0,
    cancelled: after.some((r) => r.ev === 'execute_cancelled'),
    after_drop: after.map((r) => r.ev + ('i' in r ? ` ${r.i}` : '')),
  };
}

// ---------------------------------------------------------------------------
// Stability, files, index
// ---------------------------------------------------------------------------

function streamKey(s) {
  return {
    client: s.client,
    role: s.role,
    method: s.method,
    after_event: s.after_event ?? null,
    events: s.events.map(({ ms, ...rest }) => rest),
    end: s.end,
    rpc_error_code: s.rpc_error?.code ?? null,
  };
}

function outcomeKey(run) {
  const o = JSON.parse(R.outcomeKey(run));
  o.streams = run.streams.map(streamKey);
  const ead = run.executor_after_drop;
  o.executor_kept_running = ead ? [ead.executor_finished_before_drop, ead.kept_running] : null;
  return JSON.stringify(R.sortKeys(o));
}

function shortEvent(e) {
  let s = { task: 'T', statusUpdate: 'S', artifactUpdate: 'A', message: 'M' }[e.kind] ?? e.kind;
  if (e.state) s += `:${e.state.replace(/^TASK_STATE_/, '')}`;
  if (e.kind === 'task' && e.parts?.length) s += `[${e.parts.length} parts]`;
  if (e.kind === 'artifactUpdate' && e.artifact_id !== R.TRACKING_ID) s += `(${e.artifact_id})`;
  if (e.final === true) s += '^';
  return s + (e.after_terminal ? '!' : '');
}

export function describe(run) {
  const out = run.streams.map((s) => {
    const ev = s.events.map(shortEvent).join(' ') || '(none)';
    return `c${s.client} ${s.role}: ${ev} -> ${s.end}${s.rpc_error ? ` ${s.rpc_error.code}` : ''}`;
  });
  const g = run.get_task_settled;
  out.push(`GetTask ${typeof g === 'string' ? g : `${String(g.state).replace(/^TASK_STATE_/, '')}/${g.artifacts}`}`);
  const ead = run.executor_after_drop;
  if (ead) out.push(`executor ${executorPhrase(ead)}`);
  return out.join('; ');
}

function executorPhrase(ead) {
  if (ead.executor_finished_before_drop) return 'had finished before the drop';
  if (ead.kept_running) return `kept running after the drop${ead.cancelled ? ' until cancelled' : ''}`;
  return ead.cancelled ? 'was cancelled after the drop' : 'did nothing after the drop';
}

// The fixture head, the unstable variants, the flags and the index.json bookkeeping below are
// shared with push.mjs (the other matrix recorder).

// The fields a matrix recorder's fixture starts with.
export function fixtureHead(query, cfg, extra, watchdogMs, late = LATE_KEYS) {
  const written = Object.entries(extra).filter(([k, v]) => !(k in late) || v !== late[k]);
  return {
    sdk: `@a2a-js/sdk ${R.SDK_VERSION}`,
    node: process.versions.node,
    scenario: query,
    inputs: { ...Object.fromEntries(R.KEY_ORDER.map((k) => [k, cfg[k]])), ...Object.fromEntries(written) },
    step_ms: R.RECORD_STEP_MS,
    watchdog_ms: watchdogMs,
  };
}

// An unstable scenario's distinct outcomes, in order of first appearance: runs and summary of each.
export function variants(keys, results, describeRun) {
  const out = new Map();
  keys.forEach((k, i) => {
    if (!out.has(k)) out.set(k, { runs: 0, summary: describeRun(results[i]) });
    out.get(k).runs += 1;
  });
  return [...out.values()];
}

// The flags, output folder and index.json of a matrix recorder (`recorder.mjs subscribe|push`):
// `await MatrixRecording.start(...)` parses the flags (null after --list), checks every scenario,
// loads the SDK and, with --only, reads the old index.json (`old`) so that its other scenarios are
// kept; entries are listed in the order of the matrix.
export class MatrixRecording {
  static async start(argv, defaultOut, matrix, parseQuery) {
    const args = { runs: 3, only: [], out: defaultOut, list: false };
    for (let i = 0; i < argv.length; i += 1) {
      const a = argv[i];
      if (a === '--runs') args.runs = Number.parseInt(argv[++i], 10);
      else if (a === '--only') args.only.push(argv[++i]);
      else if (a === '--out') args.out = path.resolve(argv[++i]);
      else if (a === '--list') args.list = true;
      else throw new Error(`unknown argument ${a}`);
    }
    if (args.list) {
      console.log(matrix.join('\n'));
      return null;
    }
    if (!(args.runs >= 1)) throw new Error('--runs must be >= 1');
    const queries = args.only.length ? args.only : matrix;
    for (const q of queries) parseQuery(q);
    const sdk = { ...(await import('@a2a-js/sdk')), ...(await import('@a2a-js/sdk/client')) };
    return new MatrixRecording(args, matrix, queries, sdk);
  }

  constructor(args, matrix, queries, sdk) {
    this.args = args;
    this.out = args.out;
    this.queries = queries;
    this.sdk = sdk;
    fs.mkdirSync(this.out, { recursive: true });
    this.indexPath = path.join(this.out, 'index.json');
    this.old = {};
    if (args.only.length && fs.existsSync(this.indexPath)) this.old = JSON.parse(fs.readFileSync(this.indexPath, 'utf8'));
    this.order = new Map(matrix.map((q, i) => [q, i]));
    this.started = performance.now();
    this.combinations = new Map((this.old.combinations ?? []).map((e) => [e.scenario, e]));
  }

  /**
   * SPEC section 14: a combination's entry goes to index.json's own `combinations` list (stable or
   * not; every run is in its file), so the readers of `scenarios` keep what they compare.
   */
  combination(q, name, fx) {
    const entry = { scenario: q, file: name, stable: fx.stable, summary: fx.summary };
    if (!fx.stable) entry.variants = fx.variants;
    this.combinations.set(q, entry);
  }

  ordered(entries) {
    return [...entries].sort((a, b) => (this.order.get(a.scenario) ?? 1000) - (this.order.get(b.scenario) ?? 1000));
  }

  // Writes index.json (`about`: what this recorder ran) and prints the closing line.
  write(about, scenarios, unstable, counts) {
    const index = {
      sdk: `@a2a-js/sdk ${R.SDK_VERSION}`,
      node: process.versions.node,
      packages: R.packageVersions(),
      ...about,
      step_ms: R.RECORD_STEP_MS,
      watchdog_ms: Math.round(R.WATCHDOG_S * 1000),
      runs_per_scenario: this.args.runs,
      scenarios,
      unstable,
    };
    if (this.combinations.size) index.combinations = this.ordered(this.combinations.values());
    fs.writeFileSync(this.indexPath, `${JSON.stringify(index, null, 1)}\n`);
    console.log(
      `recorded ${this.queries.length} scenarios in ${((performance.now() - this.started) / 1000).toFixed(0)}s -> ${this.out} ` +
        `(${counts})`,
    );
    return 0;
  }
}

async function recordOne(query, runs, sdk) {
  const [cfg, extra] = parseQuery(query);
  const base = fixtureHead(query, cfg, extra, Math.round(R.WATCHDOG_S * 1000));
  if (cfg.store === 'database') {
    const missing = R.databaseAvailable();
    if (missing.length) throw new Error(`store=database needs kysely and better-sqlite3: ${missing.join(', ')}`);
  }
  const results = await R.executeRuns(query, runs, 'a2a-subscribe-js-', (dir) => new SubRun(query, cfg, extra, dir, sdk));
  const keys = results.map(outcomeKey);
  const stable = keys.every((k) => k === keys[0]);
  results.forEach((r, j) => {
    for (const s of r.streams) {
      const raw = s._raw;
      delete s._raw;
      if (j === 0) s.raw = raw; // the body exactly as received (SSE or one JSON answer), first run only
    }
  });
  const fx = { ...base, measurable: true, stable, summary: describe(results[0]), runs: results };
  if (!stable) fx.variants = variants(keys, results, describe);
  return fx;
}

export async function record(argv) {
  const mx = await MatrixRecording.start(argv, SUB_OUT, MATRIX, parseQuery);
  if (!mx) return 0;
  const { args } = mx;
  const entries = new Map((mx.old.scenarios ?? []).map((e) => [e.scenario, e]));
  const unstable = new Map((mx.old.unstable ?? []).map((e) => [e.scenario, e]));
  for (const q of mx.queries) {
    const t = performance.now();
    const fx = await recordOne(q, args.runs, mx.sdk);
    const name = `${R.fileStem(q)}.json`;
    entries.delete(q);
    unstable.delete(q);
    if (COMBOS.includes(q)) {
      // SPEC section 14: written whether stable or not (every run; `variants` when they differ),
      // so the lab can show a race instead of picking one
      fs.writeFileSync(path.join(args.out, name), `${JSON.stringify(fx, null, 1)}\n`);
      mx.combination(q, name, fx);
    } else if (fx.stable) {
      fs.writeFileSync(path.join(args.out, name), `${JSON.stringify(fx, null, 1)}\n`);
      entries.set(q, { scenario: q, file: name, summary: fx.summary });
    } else {
      fs.rmSync(path.join(args.out, name), { force: true }); // only stable outcomes are fixtures
      unstable.set(q, { scenario: q, runs: args.runs, variants: fx.variants });
    }
    const secs = ((performance.now() - t) / 1000).toFixed(1).padStart(5);
    console.log(`[${secs}s] ${q}: stable=${fx.stable} ${fx.stable ? fx.summary : JSON.stringify(fx.variants)}`);
  }
  const about = {
    handler: 'DefaultRequestHandler from @a2a-js/sdk/server (the SDK default; its DefaultExecutionEventBusManager)',
    'wire_1.0':
      'the SDK ClientFactory client (JsonRpcTransport over Node global fetch; sendMessageStream / sendMessage / ' +
      'resubscribeTask / getTask / cancelTask), bodies teed byte for byte; a second client is a second ClientFactory client',
    'wire_0.3':
      "jsonRpcHandler({requestHandler, userBuilder, legacyCompat: {enabled: true}}) plus a card interface protocolVersion '0.3'; " +
      'raw fetch (no timeout of its own) sends message/stream, message/send (configuration.blocking true), ' +
      'tasks/resubscribe, tasks/get, tasks/cancel without an A2A-Version header',
    keys: {
      resubscribe:
        'k: client 1 drops its stream right after delivered event k and calls SubscribeToTask (0.3: tasks/resubscribe) ' +
        'on the task; it subscribes again when a stream is broken by the server going away (a restart; refused ' +
        `connections retried until the fresh server answers), at most ${MAX_SUBSCRIPTIONS} subscriptions, never after a stream the server closed`,
      second_client: 'k: after client 1 received event k, a second client calls SubscribeToTask and reads its stream while client 1 reads on',
      wire: '1.0 or 0.3 (see wire_1.0 / wire_0.3)',
    },
  };
  const scenarios = mx.ordered(entries.values());
  const unstableList = mx.ordered(unstable.values());
  return mx.write(about, scenarios, unstableList, `${scenarios.length} stable, ${unstableList.length} unstable`);
}

// For push.mjs (the push notification recorder reuses this client driver and run).
export { Client, SubRun, eventsOf, normEvent, shortEvent, streamKey };
