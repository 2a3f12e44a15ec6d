#!/usr/bin/env node
/**
 * Fidelity recorder: what does the real @a2a-js/sdk 1.3.0 do for the lab's scenarios?
 *
 * The JavaScript twin of tests/fidelity/python/recorder.py. It runs the BBS-1042
 * order-status executor as a real A2A server (the SDK's own DefaultRequestHandler,
 * InMemoryTaskStore / DatabaseTaskStore and Express handlers, in a child process
 * on 127.0.0.1) and drives it with the SDK's own client (ClientFactory, JSON-RPC
 * transport), streaming or blocking. Every scenario of SPEC section 4 is run
 * several times; the wire events, how the call ended, GetTask, CancelTask,
 * orphaned steps and the number of executions are written as JSON fixtures under
 * tests/fidelity/fixtures/js/, in the same format as the Python fixtures.
 *
 * Usage (normally through ./run.sh, which runs `npm ci` first when needed):
 *   node recorder.mjs record [--runs 3] [--only QUERY ...] [--out DIR]
 *                            [--watchdog S] [--no-probes] [--long-probes]
 *   node recorder.mjs captures [--runs 2] [--wire 1.0|0.3 ...] [--out DIR]   (raw bodies, see README)
 *   node recorder.mjs subscribe [--runs 3] [--only QUERY ...] [--out DIR] [--list]   (SPEC section 9: subscribe.mjs)
 *   node recorder.mjs list
 *   node recorder.mjs serve CONFIG_JSON      (internal: the server child process)
 *
 * Scenario keys are the lab's own (SPEC section 4); step_ms is shortened to
 * RECORD_STEP_MS for speed, left out of the scenario key and stored in the fixture.
 */

import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import util from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const THIS_FILE = fileURLToPath(import.meta.url);
const HERE = path.dirname(THIS_FILE);
const DEFAULT_OUT = path.resolve(HERE, '..', 'fixtures', 'js');

const RECORD_STEP_MS = 50; // the lab's default is 200; shortened so runs are quick
const WATCHDOG_S = 3.0; // a stream or call still open this long after the executor went quiet is "hung"
const PROBE_WATCHDOG_S = 8.0; // the Python probes' watchdog (does the client give up by itself?)
const LONG_PROBE_WATCHDOG_S = 330.0; // beyond undici's default 300 s headers/body timeouts
const SDK_VERSION = '1.3.0';

const TERMINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

const TRACKING_ID = 'BBS-1042-tracking';
const TRACKING_NAME = 'courier-tracking';
const RECEIPT_ID = 'BBS-1042-receipt';
const RECEIPT_NAME = 'delivery-receipt';
const USER_TEXT = 'Where is my order BBS-1042?';

// ---------------------------------------------------------------------------
// Scenarios (the lab's keys, SPEC section 4) -- identical to the Python recorder
// ---------------------------------------------------------------------------

const DEFAULTS = {
  chunks: '3',
  ending: 'complete',
  client: 'stream',
  timeout_ms: 'none',
  cancel: 'none',
  work: 'await',
  cancel_impl: 'write',
  late: 'off',
  restart: 'none',
  store: 'memory',
  retry: 'off',
  interrupt: 'none',
};
const KEY_ORDER = Object.keys(DEFAULTS);
// Shapes of agents on other stacks (SPEC section 14), read by the `serve` executor only
// (tests/agents/start.sh ... progress=K result=last); not recorded, so neither in DEFAULTS
// nor in a fixture's `inputs`; the same as the Python recorder's SHAPE_DEFAULTS. progress: K
// status updates that repeat WORKING with an agent message before each step's chunk.
// result: `chunks` (one artifact chunk per step) or `last` (no chunks while working; the
// whole artifact, one part per step, in one artifact update with lastChunk right before
// the ending).
const SHAPE_DEFAULTS = { progress: '0', result: 'chunks' };
const ENUMS = {
  ending: ['complete', 'fail', 'input', 'auth', 'return', 'never', 'raise'],
  client: ['stream', 'block'],
  work: ['await', 'to_thread', 'flag'],
  cancel_impl: ['write', 'raise', 'noop'],
  store: ['memory', 'database'],
  retry: ['off', 'on'],
  interrupt: ['none', 'auth', 'input', 'both'],
};

// The same matrix, in the same order, as tests/fidelity/python/recorder.py.
const MATRIX = [
  'defaults',
  'ending=return',
  'ending=never',
  'ending=never&client=block',
  'ending=never&cancel=3',
  'late=0',
  'late=300',
  'late=0&client=block',
  'late=300&client=block',
  'cancel=1',
  'cancel=1&work=to_thread',
  'cancel=1&work=flag',
  'cancel=1&cancel_impl=raise',
  'cancel=1&cancel_impl=noop',
  'cancel=3',
  'cancel=0',
  'cancel=1&client=block',
  'restart=2&store=memory',
  'restart=2&store=database',
  'ending=never&timeout_ms=1000',
  'ending=never&client=block&timeout_ms=1000',
  'timeout_ms=1000',
  'chunks=0',
  'chunks=1',
  'chunks=10',
  'ending=fail',
  'ending=fail&client=block',
  'ending=fail&late=300',
  'ending=fail&late=300&client=block',
  'ending=input',
  'ending=input&client=block',
  'ending=auth',
  'ending=auth&client=block',
  'ending=return&client=block',
  'client=block',
  'work=to_thread',
  'work=flag',
  'store=database',
  'retry=on',
  'interrupt=auth',
  'interrupt=input',
  'interrupt=both',
  'interrupt=auth&client=block',
];

function probe(name, scenario, watchdogS, about) {
  return { name, scenario, watchdog_s: watchdogS, about };
}

// The Python recorder's probes (same names): the SDK client's own default
// timeout, seen with a watchdog longer than the Python client's 5 s.
const PROBES = [
  probe(
    'probe-sdk-default-client-timeout_stream',
    'ending=never',
    PROBE_WATCHDOG_S,
    `ending=never with the SDK default client and a watchdog of ${PROBE_WATCHDOG_S} s: does the client give up by itself?`,
  ),
  probe(
    'probe-sdk-default-client-timeout_block',
    'ending=never&client=block',
    PROBE_WATCHDOG_S,
    `ending=never&client=block with the SDK default client and a watchdog of ${PROBE_WATCHDOG_S} s: does the client give up by itself?`,
  ),
];
// Optional (--long-probes, ~5.5 min, both at once): the SDK client has no timeout,
// but it calls Node's global fetch (undici), whose dispatcher has defaults of
// headersTimeout = bodyTimeout = 300 s.
const LONG_PROBES = [
  probe(
    'probe-node-fetch-default-timeout_stream',
    'ending=never',
    LONG_PROBE_WATCHDOG_S,
    `ending=never with the SDK default client (Node's global fetch) and a watchdog of ${LONG_PROBE_WATCHDOG_S} s: does undici's default 300 s bodyTimeout end the silent stream?`,
  ),
  probe(
    'probe-node-fetch-default-timeout_block',
    'ending=never&client=block',
    LONG_PROBE_WATCHDOG_S,
    `ending=never&client=block with the SDK default client (Node's global fetch) and a watchdog of ${LONG_PROBE_WATCHDOG_S} s: does undici's default 300 s headersTimeout end the blocking call?`,
  ),
];

function parseScenario(query) {
  const cfg = { ...DEFAULTS };
  if (query === '' || query === 'defaults') return cfg;
  const seen = new Set();
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new Error(`bad pair ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (!(key in DEFAULTS)) throw new Error(`unknown key ${JSON.stringify(key)}`);
    if (seen.has(key)) throw new Error(`repeated key ${JSON.stringify(key)}`);
    seen.add(key);
    if (ENUMS[key] && !ENUMS[key].includes(value)) {
      throw new Error(`bad value for ${key}: ${JSON.stringify(value)}`);
    }
    cfg[key] = value;
  }
  const chunks = Number.parseInt(cfg.chunks, 10);
  for (const key of ['cancel', 'restart']) {
    if (cfg[key] !== 'none') {
      const k = Number.parseInt(cfg[key], 10);
      if (!(k >= 0 && k <= chunks)) throw new Error(`${key} must be none or 0..chunks`);
    }
  }
  return cfg;
}

function fileStem(query) {
  if (query === 'defaults') return 'defaults';
  return query.replaceAll('&', '_').replaceAll('=', '-');
}

/** The agent message of progress update j of k before step i of n. */
function progressText(i, n, j, k) {
  return `Looking up BBS-1042 (step ${i}/${n}${k > 1 ? `, update ${j}/${k}` : ''})`;
}

function stepText(i, n) {
  let what;
  if (i === n) what = 'out for delivery';
  else if (i === 1) what = 'parcel scanned at the Belgavi depot';
  else what = `in transit, hub ${i - 1}`;
  return `BBS-1042 courier step ${i}/${n}: ${what}`;
}

// ---------------------------------------------------------------------------
// Side channel: the executor appends JSON lines to a file the recorder reads
// ---------------------------------------------------------------------------

function sideLog(file, ev, fields = {}) {
  const rec = { t: Date.now() / 1000, pid: process.pid, ev, ...fields };
  fs.appendFileSync(file, `${JSON.stringify(rec)}\n`);
}

function readSide(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a line being written right now
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// work=to_thread / work=flag: the steps run in a worker thread (blocking sleeps
// via Atomics.wait) that hands each finished step back with postMessage. The
// thread cannot be interrupted; with work=flag it checks a shared cancel flag
// before each step.
// ---------------------------------------------------------------------------

function stepsWorker({ n, stepMs, work, flag, side }) {
  const flagArr = new Int32Array(flag);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 1; i <= n; i += 1) {
    if (work === 'flag' && Atomics.load(flagArr, 0) === 1) {
      sideLog(side, 'flag_seen', { before_step: i });
      parentPort.postMessage({ done: true, stopped: true });
      return;
    }
    Atomics.wait(sleeper, 0, 0, stepMs); // a blocking sleep, like time.sleep
    sideLog(side, 'work_done', { i });
    parentPort.postMessage({ i });
  }
  sideLog(side, 'thread_done');
  parentPort.postMessage({ done: true, stopped: false });
}

// ---------------------------------------------------------------------------
// Server side (child process)
// ---------------------------------------------------------------------------

function installLogPrefixes() {
  // WARNING/ERROR prefixes like the Python recorder's log lines, so the
  // recorder can pick the server's warnings and errors out of its log.
  const write = (level) => (...args) => {
    process.stderr.write(`${level} ${util.format(...args)}\n`);
  };
  console.error = write('ERROR');
  console.warn = write('WARNING');
  console.info = write('INFO');
  console.log = write('INFO');
  console.debug = write('DEBUG');
}

async function serve(configJson) {
  installLogPrefixes();
  const conf = JSON.parse(configJson);
  const sc = conf.scenario;
  const step = conf.step_ms;
  const n = Number.parseInt(sc.chunks, 10);
  const progress = Number.parseInt(sc.progress ?? SHAPE_DEFAULTS.progress, 10);
  const resultLast = (sc.result ?? SHAPE_DEFAULTS.result) === 'last';
  const side = conf.side;
  const log = (ev, fields) => sideLog(side, ev, fields);

  const { default: express } = await import('express');
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
  const { UserBuilder, agentCardHandler, jsonRpcHandler } = await import('@a2a-js/sdk/server/express');
  const { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent, taskStateToJSON } = await import(
    '@a2a-js/sdk'
  );

  const statusEvent = (taskId, contextId, state, messageText) => {
    const status = { state, timestamp: new Date().toISOString() };
    if (messageText) {
      status.message = {
        messageId: randomUUID(),
        role: 'ROLE_AGENT',
        parts: [{ text: messageText }],
        taskId,
        contextId,
      };
    }
    return AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status }));
  };
  const artifactEvent = (taskId, contextId, artifactId, name, text, append, lastChunk) =>
    AgentEvent.artifactUpdate(
      TaskArtifactUpdateEvent.fromJSON({
        taskId,
        contextId,
        artifact: { artifactId, name, parts: [{ text }] },
        ...(append ? { append: true } : {}),
        ...(lastChunk ? { lastChunk: true } : {}),
      }),
    );

  /** The BBS-1042 order-status executor of seed 004. */
  class OrderStatusExecutor {
    constructor() {
      this.flags = new Map(); // taskId -> Int32Array over a SharedArrayBuffer
      this.contexts = new Map(); // taskId -> contextId (cancelTask only gets the task id)
    }

    flag(taskId) {
      let f = this.flags.get(taskId);
      if (!f) {
        f = new Int32Array(new SharedArrayBuffer(4));
        this.flags.set(taskId, f);
      }
      return f;
    }

    /** progress=K: K status updates that repeat WORKING with a message of role agent. */
    progress(bus, taskId, contextId, i) {
      for (let j = 1; j <= progress; j += 1) {
        log('enqueue_progress', { i, j });
        bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING', progressText(i, n, j, progress)));
      }
    }

    /** result=last: the whole artifact, one part per step, in one artifact update (no append, lastChunk). */
    result(bus, taskId, contextId) {
      if (!resultLast || n === 0) return;
      log('enqueue_result', { parts: n });
      const parts = [];
      for (let i = 1; i <= n; i += 1) parts.push({ text: stepText(i, n) });
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            taskId,
            contextId,
            artifact: { artifactId: TRACKING_ID, name: TRACKING_NAME, parts },
            lastChunk: true,
          }),
        ),
      );
      log('enqueued_result');
    }

    chunk(bus, taskId, contextId, i) {
      if (resultLast) return; // result=last: nothing while working
      const first = i === 1;
      const last = i === n;
      log('enqueue_chunk', { i });
      // chunk 1: no flags; middle: append; last: append + lastChunk (the same
      // flags as the Python recorder, which must not `append` to a missing artifact)
      bus.publish(artifactEvent(taskId, contextId, TRACKING_ID, TRACKING_NAME, stepText(i, n), !first, last));
      log('enqueued_chunk', { i });
    }

    /** Returns true when the steps were stopped early by the cancel flag. */
    async steps(bus, taskId, contextId) {
      const work = sc.work;
      if (work === 'await') {
        for (let i = 1; i <= n; i += 1) {
          this.progress(bus, taskId, contextId, i);
          await sleep(step);
          log('work_done', { i });
          this.chunk(bus, taskId, contextId, i);
        }
        this.result(bus, taskId, contextId);
        return false;
      }
      if (n === 0) return false;
      const flag = this.flag(taskId);
      const worker = new Worker(THIS_FILE, {
        workerData: { role: 'steps', n, stepMs: step, work, flag: flag.buffer, side },
      });
      const inbox = [];
      let wake = null;
      const push = (m) => {
        inbox.push(m);
        if (wake) {
          wake();
          wake = null;
        }
      };
      worker.on('message', push);
      worker.on('error', (e) => push({ error: String(e) }));
      let nextStep = 1;
      for (;;) {
        if (nextStep <= n) {
          this.progress(bus, taskId, contextId, nextStep);
          nextStep += 1;
        }
        while (inbox.length === 0) {
          await new Promise((resolve) => {
            wake = resolve;
          });
        }
        const m = inbox.shift();
        if (m.error) throw new Error(`steps worker failed: ${m.error}`);
        if (m.done) {
          if (m.stopped) {
            log('steps_stopped_by_flag');
            return true;
          }
          this.result(bus, taskId, contextId);
          return false;
        }
        this.chunk(bus, taskId, contextId, m.i);
      }
    }

    async execute(requestContext, bus) {
      const taskId = requestContext.taskId;
      const contextId = requestContext.contextId;
      this.contexts.set(taskId, contextId);
      const current = requestContext.task;
      const state = current?.status ? taskStateToJSON(current.status.state) : null;
      log('execute_start', { task_id: taskId, current_state: state });
      try {
        const interrupt = sc.interrupt;
        if (!current) {
          const task = Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } });
          task.history = [requestContext.userMessage];
          bus.publish(AgentEvent.task(task));
          bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING'));
          if (interrupt === 'auth' || interrupt === 'both') {
            log('ask', { what: 'auth' });
            bus.publish(
              statusEvent(
                taskId,
                contextId,
                'TASK_STATE_AUTH_REQUIRED',
                'Sign in to the courier portal to see BBS-1042 tracking.',
              ),
            );
            return;
          }
          if (interrupt === 'input') {
            log('ask', { what: 'input' });
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_INPUT_REQUIRED', 'Deliver BBS-1042 to home or office?'));
            return;
          }
        } else {
          // A follow-up message resumes an interrupted task. The JS SDK requires
          // every execute() to publish a `task` (or `message`) first, follow-up
          // turns included (AgentExecutor doc comment; a stream that begins with a
          // statusUpdate is rejected), so the resumed turn re-publishes the task.
          const receipt = requestContext.userMessage?.metadata?.authorizationReceipt ?? null;
          log('resume', { from_state: state, receipt });
          if (conf.resume_first !== 'status') {
            bus.publish(AgentEvent.task(structuredClone(current)));
          }
          bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING'));
          if (state === 'TASK_STATE_AUTH_REQUIRED' && interrupt === 'both') {
            log('ask', { what: 'input' });
            bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_INPUT_REQUIRED', 'Deliver BBS-1042 to home or office?'));
            return;
          }
        }

        const stopped = await this.steps(bus, taskId, contextId);
        if (stopped) return; // work=flag: cancelTask set the flag; nothing more to say

        const ending = sc.ending;
        log('ending', { ending });
        if (ending === 'complete') bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED'));
        else if (ending === 'fail') bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_FAILED'));
        else if (ending === 'input') bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_INPUT_REQUIRED'));
        else if (ending === 'auth') bus.publish(statusEvent(taskId, contextId, 'TASK_STATE_AUTH_REQUIRED'));
        else if (ending === 'never') {
          log('awaiting_forever');
          await new Promise(() => {});
        } else if (ending === 'raise') {
          // push.mjs: execute() throws after its last chunk
          throw new Error('courier lookup failed after the last step');
        }
        log('ended', { ending });

        if (sc.late !== 'off') {
          const lateMs = Number.parseInt(sc.late, 10);
          if (lateMs > 0) await sleep(lateMs);
          log('enqueue_late');
          bus.publish(
            artifactEvent(taskId, contextId, RECEIPT_ID, RECEIPT_NAME, 'BBS-1042 receipt: delivered to the front desk', false, true),
          );
          log('enqueued_late');
        }
      } catch (e) {
        log('execute_raised', { error: String(e) });
        throw e;
      } finally {
        log('execute_end');
      }
    }

    async cancelTask(taskId, bus) {
      const impl = sc.cancel_impl;
      log('cancel_called', { impl, task_id: taskId });
      if (impl === 'write') {
        Atomics.store(this.flag(taskId), 0, 1);
        bus.publish(statusEvent(taskId, this.contexts.get(taskId) ?? '', 'TASK_STATE_CANCELED'));
        log('cancel_wrote_canceled');
      } else if (impl === 'raise') {
        log('cancel_raising');
        throw new Error('cancel is not supported');
      }
      // noop: does nothing
      log('cancel_returned');
    }
  }

  /**
   * tests/agents defect shared-state / shared-queue: the common bug of an executor that
   * keeps the current request's task on itself. The handler has one executor for all
   * requests, so when a second request starts while the first is still awaiting, every
   * later event of the first is built from the second's ids (shared-state) or also goes
   * to the second's event bus (shared-queue). Alone it streams exactly what defect none
   * streams (the default scenario only: new task, WORKING, chunks, COMPLETED).
   */
  class SharedStateExecutor extends OrderStatusExecutor {
    async execute(requestContext, bus) {
      this.taskId = requestContext.taskId;
      this.contextId = requestContext.contextId;
      this.bus = bus;
      this.contexts.set(this.taskId, this.contextId);
      const own = requestContext.taskId;
      const out = () => (conf.shared_state === 'queue' ? this.bus : bus);
      log('execute_start', { task_id: own, current_state: null, message_id: requestContext.userMessage?.messageId ?? null });
      try {
        const task = Task.fromJSON({ id: this.taskId, contextId: this.contextId, status: { state: 'TASK_STATE_SUBMITTED' } });
        task.history = [requestContext.userMessage];
        out().publish(AgentEvent.task(task));
        out().publish(statusEvent(this.taskId, this.contextId, 'TASK_STATE_WORKING'));
        for (let i = 1; i <= n; i += 1) {
          await sleep(step);
          log('work_done', { i, own, as_task: this.taskId });
          this.chunk(out(), this.taskId, this.contextId, i);
        }
        log('ending', { ending: 'complete', own, as_task: this.taskId });
        out().publish(statusEvent(this.taskId, this.contextId, 'TASK_STATE_COMPLETED'));
        log('ended', { ending: 'complete', own });
      } catch (e) {
        log('execute_raised', { own, error: String(e) });
        throw e;
      } finally {
        log('execute_end', { own });
      }
    }
  }
  const Executor = conf.shared_state ? SharedStateExecutor : OrderStatusExecutor;

  const port = conf.port;
  const card = {
    name: 'Belgavi Book Store order status',
    description: 'Tells where an order is (BBS-1042 fidelity run).',
    version: '1.0.0',
    supportedInterfaces: [{ url: `http://127.0.0.1:${port}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'order-status', name: 'Order status', description: 'Courier tracking for an order', tags: ['orders'] },
    ],
  };

  if (conf.card === 'thin') {
    // A card whose author left out the description and the output modes and listed
    // no skill: served as it is.
    delete card.description;
    delete card.defaultOutputModes;
    card.skills = [];
  }

  let store;
  let storeName;
  if (sc.store === 'database') {
    const { DatabaseTaskStore } = await import('@a2a-js/sdk/server/database');
    const { Kysely, SqliteDialect } = await import('kysely');
    const { default: Database } = await import('better-sqlite3');
    const db = new Kysely({ dialect: new SqliteDialect({ database: new Database(conf.db) }) });
    store = new DatabaseTaskStore(db);
    storeName = 'DatabaseTaskStore(kysely SqliteDialect, better-sqlite3)';
  } else {
    store = new InMemoryTaskStore();
    storeName = 'InMemoryTaskStore';
  }

  // captures only (recorder.mjs captures --wire 0.3): the SDK's A2A 0.3 compatibility
  // mode, which needs a card interface of protocolVersion 0.3; the fixtures never set it.
  const v03Compat = Boolean(conf.v03_compat);
  if (v03Compat) {
    card.supportedInterfaces.push({ url: `http://127.0.0.1:${port}/`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
  }
  // push.mjs only: push notifications wired as the SDK's README documents them
  // (capabilities.pushNotifications on the card; an InMemoryPushNotificationStore and a
  // DefaultPushNotificationSender given to DefaultRequestHandler). With the 0.3
  // compatibility mode on, the sender is the compat layer's
  // createLegacyAwarePushNotificationSender (@a2a-js/sdk/compat/v0_3/server), which
  // adds the v0.3 serializer for configs registered over the 0.3 wire.
  let pushStore;
  let pushSender;
  if (conf.push) {
    const { InMemoryPushNotificationStore, DefaultPushNotificationSender } = await import('@a2a-js/sdk/server');
    card.capabilities.pushNotifications = true;
    pushStore = new InMemoryPushNotificationStore();
    if (v03Compat) {
      const { createLegacyAwarePushNotificationSender } = await import('@a2a-js/sdk/compat/v0_3/server');
      pushSender = createLegacyAwarePushNotificationSender(pushStore);
    } else {
      pushSender = new DefaultPushNotificationSender(pushStore);
    }
  }
  const handler = conf.push
    ? new DefaultRequestHandler(card, store, new Executor(), undefined, pushStore, pushSender)
    : new DefaultRequestHandler(card, store, new Executor());
  const app = express();
  // tests/agents only (start.sh ... rest=on|only): the SDK's HTTP+JSON (REST) router,
  // restHandler(), mounted at /rest before the other routes, beside JSON-RPC (rest=on) or
  // instead of it (rest=only: the card lists only HTTP+JSON and no JSON-RPC route is
  // mounted). On wire 0.3 the REST router and the card get the SDK's legacyCompat too
  // (its 0.3 REST routes /rest/v1/..., and a 0.3-shaped card for a request without
  // A2A-Version, as the SDK's compat-v1-server sample does). The recorders never set it.
  const restMode = conf.rest;
  if (restMode) {
    const { restHandler } = await import('@a2a-js/sdk/server/express');
    const restInterfaces = (v03Compat ? ['1.0', '0.3'] : ['1.0']).map((protocolVersion) => ({
      url: `http://127.0.0.1:${port}/rest`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion,
    }));
    if (restMode === 'only') card.supportedInterfaces.length = 0;
    card.supportedInterfaces.push(...restInterfaces);
    const legacy = v03Compat ? { legacyCompat: { enabled: true } } : {};
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, ...legacy }));
    app.use(
      '/rest',
      restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...legacy }),
    );
  }
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  if (restMode !== 'only') {
    app.use(
      '/',
      jsonRpcHandler({
        requestHandler: handler,
        userBuilder: UserBuilder.noAuthentication,
        ...(v03Compat ? { legacyCompat: { enabled: true } } : {}),
      }),
    );
  }
  const server = app.listen(port, '127.0.0.1', (err) => {
    if (err) {
      console.error(`listen failed: ${err}`);
      process.exit(3);
    }
    log('server_start', { store: sc.store, store_impl: storeName, handler: handler.constructor.name });
  });
  server.on('error', (e) => {
    console.error(`server error: ${e}`);
    process.exit(3);
  });
}

// ---------------------------------------------------------------------------
// Client side (the recorder process)
// ---------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

class ServerProc {
  constructor(conf, logPath) {
    this.conf = conf;
    this.logPath = logPath;
    this.proc = null;
  }

  start() {
    const fd = fs.openSync(this.logPath, 'a');
    this.proc = spawn(process.execPath, [THIS_FILE, 'serve', JSON.stringify(this.conf)], {
      stdio: ['ignore', fd, fd],
      detached: true, // its own session, like the Python recorder's start_new_session
      cwd: HERE,
    });
    this.exited = new Promise((resolve) => this.proc.once('exit', resolve));
    fs.closeSync(fd);
  }

  alive() {
    return this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  async waitReady(timeoutMs = 20000) {
    const url = `http://127.0.0.1:${this.conf.port}/.well-known/agent-card.json`;
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (!this.alive()) throw new Error(`server exited: see ${this.logPath}`);
      try {
        const r = await fetch(url, { signal: AbortSignal.timeout(500) });
        await r.arrayBuffer();
        if (r.status === 200) return;
      } catch {
        // not up yet
      }
      await sleep(50);
    }
    throw new Error('server did not become ready');
  }

  async kill() {
    if (this.alive()) {
      process.kill(this.proc.pid, 'SIGKILL'); // by PID: the child we started
      await this.exited;
    }
  }
}

/** A fetch for the SDK client that records the exact bytes of every exchange. */
class Tee {
  constructor() {
    this.exchanges = [];
    this.fetch = this.fetch.bind(this);
  }

  async fetch(input, init = {}) {
    let body = null;
    let method = null;
    try {
      body = typeof init.body === 'string' ? JSON.parse(init.body) : null;
      method = body && typeof body === 'object' ? (body.method ?? null) : null;
    } catch {
      body = null;
    }
    const ex = { method, request: body, chunks: [], t: performance.now(), status: null, contentType: '' };
    this.exchanges.push(ex);
    const resp = await fetch(input, init);
    ex.status = resp.status;
    ex.contentType = resp.headers.get('content-type') || '';
    if (!resp.body || [101, 204, 205, 304].includes(resp.status)) return resp;
    const reader = resp.body.getReader();
    const stream = new ReadableStream({
      async pull(ctrl) {
        let r;
        try {
          r = await reader.read();
        } catch (e) {
          ex.error = `${e?.name}: ${e?.message}`;
          ctrl.error(e);
          return;
        }
        if (r.done) {
          ex.done = true;
          ctrl.close();
          return;
        }
        ex.chunks.push(Buffer.from(r.value));
        ctrl.enqueue(r.value);
      },
      cancel(reason) {
        ex.canceled = true;
        return reader.cancel(reason); // a client that drops the stream closes the connection
      },
    });
    return new Response(stream, { status: resp.status, statusText: resp.statusText, headers: resp.headers });
  }

  last(method) {
    for (let i = this.exchanges.length - 1; i >= 0; i -= 1) {
      if (this.exchanges[i].method === method) return this.exchanges[i];
    }
    return null;
  }
}

const rawOf = (ex) => Buffer.concat(ex.chunks);

/** W3C SSE parse of the raw bytes: returns [{event, data: obj|str}]. */
function parseSse(raw) {
  const out = [];
  const text = raw.toString('utf8').replaceAll('\r\n', '\n');
  let event = 'message';
  let data = [];
  for (const line of text.split('\n')) {
    if (line === '') {
      if (data.length) {
        const payload = data.join('\n');
        let obj;
        try {
          obj = JSON.parse(payload);
        } catch {
          obj = payload;
        }
        out.push({ event, data: obj });
      }
      event = 'message';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const key = colon < 0 ? line : line.slice(0, colon);
    let val = colon < 0 ? '' : line.slice(colon + 1);
    if (val.startsWith(' ')) val = val.slice(1);
    if (key === 'event') event = val;
    else if (key === 'data') data.push(val);
  }
  return out;
}

// Older (v0.3) spellings, in case a wire speaks them: normalized to A2A 1.0.
const LEGACY_KIND = {
  task: 'task',
  'status-update': 'statusUpdate',
  'artifact-update': 'artifactUpdate',
  message: 'message',
};
function normState(s) {
  if (s == null) return null;
  if (typeof s !== 'string') return String(s);
  if (s.startsWith('TASK_STATE_')) return s;
  return `TASK_STATE_${s.replaceAll('-', '_').toUpperCase()}`;
}

function kindAndBody(result) {
  for (const k of ['task', 'statusUpdate', 'artifactUpdate', 'message']) {
    if (result && typeof result === 'object' && k in result) return [k, result[k]];
  }
  if (result && typeof result === 'object' && typeof result.kind === 'string' && LEGACY_KIND[result.kind]) {
    return [LEGACY_KIND[result.kind], result];
  }
  return ['unknown', {}];
}

function normalize(results) {
  const events = [];
  let terminalSeen = false;
  for (const r of results) {
    const [k, body] = kindAndBody(r);
    let state = null;
    if (k === 'task' || k === 'statusUpdate') state = normState(body?.status?.state);
    const art = k === 'artifactUpdate' ? (body?.artifact?.artifactId ?? null) : null;
    events.push({
      kind: k,
      state,
      artifact_id: art,
      append: k === 'artifactUpdate' ? Boolean(body.append) : false,
      last_chunk: k === 'artifactUpdate' ? Boolean(body.lastChunk) : false,
      after_terminal: terminalSeen,
    });
    if (TERMINAL.has(state)) terminalSeen = true;
  }
  return events;
}

function taskSummary(task) {
  const arts = task.artifacts ?? [];
  return {
    state: normState(task.status?.state),
    artifacts: arts.length,
    artifact_ids: arts.map((a) => a.artifactId),
    parts: arts.reduce((s, a) => s + (a.parts?.length ?? 0), 0),
    history: (task.history ?? []).length,
  };
}

function rpcErrorOf(ex) {
  if (!ex) return null;
  try {
    const obj = JSON.parse(rawOf(ex).toString('utf8'));
    if (obj && typeof obj === 'object' && obj.error && typeof obj.error === 'object') return obj.error;
  } catch {
    // not JSON
  }
  return null;
}

const errText = (e) => (e ? `${e.name ?? 'Error'}: ${e.message ?? String(e)}` : null);
const maskIds = (s) => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');

/**
 * The client's follow-up to an interrupted task: the text and metadata of the message that
 * answers AUTH_REQUIRED or INPUT_REQUIRED; null for any other state. Shared by every driver
 * (record, captures, subscribe.mjs, push.mjs).
 */
function followUp(state) {
  if (state === 'TASK_STATE_AUTH_REQUIRED' || state === 'auth-required') {
    return { text: 'Signed in (authz:7).', metadata: { authorizationReceipt: 'authz:7' } };
  }
  if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'input-required') return { text: 'Home, please.' };
  return null;
}

/** A user message on the A2A 0.3 wire (the raw client of captures, subscribe.mjs, push.mjs). */
function v03Message(messageId, { taskId = null, contextId = null, text = USER_TEXT, metadata = null } = {}) {
  const msg = { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text }] };
  if (taskId) msg.taskId = taskId;
  if (contextId) msg.contextId = contextId;
  if (metadata) msg.metadata = metadata;
  return msg;
}

/** The side channel as a fixture keeps it: `ms` relative to the client's send, without `drop`'s fields. */
function sideRecords(side, t0Wall, drop = ['t', 'pid']) {
  return side.map((r) => {
    const rest = Object.fromEntries(Object.entries(r).filter(([k]) => !drop.includes(k)));
    return { ...rest, ms: Math.round((r.t - t0Wall) * 1000) };
  });
}

/** The server's log ('' when it has none). */
function readLog(logPath) {
  try {
    return fs.readFileSync(logPath, 'utf8');
  } catch {
    return '';
  }
}

/** The server's WARNING/ERROR/CRITICAL lines, ids masked (record and subscribe.mjs). */
function serverLogLines(logPath) {
  return readLog(logPath)
    .split('\n')
    .filter((line) => /^(WARNING|ERROR|CRITICAL)\b/.test(line))
    .map(maskIds);
}

class Run {
  constructor(query, cfg, workdir, watchdogS, sdk) {
    this.query = query;
    this.cfg = cfg;
    this.workdir = workdir;
    this.watchdogS = watchdogS;
    this.sdk = sdk;
    this.sidePath = path.join(workdir, 'side.jsonl');
    this.dbPath = path.join(workdir, 'tasks.sqlite');
    this.logPath = path.join(workdir, 'server.log');
    this.notes = [];
    this.shape = { ...SHAPE_DEFAULTS }; // progress / result (subscribe.mjs sets them)
    this.server = null;
    this.taskId = null;
    this.contextId = null;
    this.t0 = 0;
    this.t0Wall = 0;
    this.isStream = cfg.client === 'stream';
    this.timeoutMs = cfg.timeout_ms === 'none' ? null : Number.parseInt(cfg.timeout_ms, 10);
  }

  ms() {
    return Math.round(performance.now() - this.t0);
  }

  // Waits for each side task (cancel, resubscribe, ...) at most timeoutS seconds; one that fails
  // or hangs is a note. Also used by SubRun (subscribe.mjs) and PushRun (push.mjs).
  async joinSideTasks(tasks, timeoutS) {
    for (const t of tasks) {
      try {
        await Promise.race([
          t,
          sleep(timeoutS * 1000).then(() => {
            throw new Error(`side task did not finish in ${timeoutS} s`);
          }),
        ]);
      } catch (e) {
        this.notes.push(`side task failed: ${errText(e)}`);
      }
    }
  }

  // Sleeps until the executor's own end: its steps and a late artifact, plus a margin.
  async settle(cfg) {
    const n = Number.parseInt(cfg.chunks, 10);
    const late = cfg.late === 'off' ? 0 : Number.parseInt(cfg.late, 10);
    await sleep(Math.max(600, n * RECORD_STEP_MS + late + 400));
  }

  serverConf() {
    return {
      scenario: this.cfg,
      step_ms: RECORD_STEP_MS,
      side: this.sidePath,
      db: this.dbPath,
      port: this.port,
      // experiment knob (not used for the fixtures): A2A_FIDELITY_JS_RESUME_FIRST=status makes a
      // resumed execute() start with WORKING, like the Python executor, instead of the task
      resume_first: process.env.A2A_FIDELITY_JS_RESUME_FIRST === 'status' ? 'status' : 'task',
    };
  }

  migrateDatabase() {
    // The DatabaseTaskStore needs its table; the SDK ships the a2a-db CLI for that.
    const cli = path.join(HERE, 'node_modules', '@a2a-js', 'sdk', 'dist', 'cli', 'a2a_db.js');
    const r = spawnSync(process.execPath, [cli, 'upgrade', '--url', `sqlite:${this.dbPath}`], {
      cwd: HERE,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`a2a-db upgrade failed: ${r.stderr || r.stdout}`);
  }

  async startServer() {
    this.server = new ServerProc(this.serverConf(), this.logPath);
    this.server.start();
    await this.server.waitReady();
  }

  async waitSide(pred, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      for (const rec of readSide(this.sidePath)) if (pred(rec)) return rec;
      await sleep(5);
    }
    return null;
  }

  /**
   * Runs a reader under the recorder's watchdog: still open watchdogS after the executor went
   * quiet (its last side-channel record) = 'hung'; the reader gets an abort signal. Returns
   * { end: the reader's own end or 'closed', failure: what it threw }. Shared by every driver.
   */
  async watched(readFn) {
    const ac = new AbortController();
    let done = false;
    let failure = null;
    let end = null;
    const body = readFn(ac.signal).then(
      (e) => {
        done = true;
        end = e;
      },
      (e) => {
        done = true;
        failure = e;
      },
    );
    const start = performance.now();
    while (!done) {
      await Promise.race([body, sleep(50)]);
      if (done) break;
      const recs = readSide(this.sidePath);
      const last = recs.length ? Math.max(...recs.map((r) => r.t)) : Date.now() / 1000;
      if (Date.now() / 1000 - last > this.watchdogS && (performance.now() - start) / 1000 > this.watchdogS) {
        ac.abort(new Error('watchdog'));
        await body;
        return { end: 'hung', failure: null };
      }
    }
    if (failure) return { end: 'closed', failure };
    return { end: end ?? 'closed', failure: null };
  }

  /**
   * Starts the scenario's cancel=k (cancel(taskId) resolves to what the cancel got, kept in
   * cancelInfo) and restart=k (restartAfterChunk) beside the client's calls.
   * Returns { sideTasks, restartTask }.
   */
  startFaults(cancel, cancelInfo, restartInfo) {
    const sideTasks = [];
    if (this.cfg.cancel !== 'none') {
      sideTasks.push(
        (async () => {
          if (!(await this.triggerAfterChunk(Number.parseInt(this.cfg.cancel, 10)))) {
            cancelInfo.result = 'not_sent';
            return;
          }
          Object.assign(cancelInfo, await cancel(this.taskId ?? this.taskIdFromSide()));
        })(),
      );
    }
    let restartTask = null;
    if (this.cfg.restart !== 'none') {
      restartTask = this.restartAfterChunk(Number.parseInt(this.cfg.restart, 10), restartInfo);
      sideTasks.push(restartTask);
    }
    return { sideTasks, restartTask };
  }

  /** restart=k: kills the server half a step after chunk k and starts a fresh one on the same port and store. */
  async restartAfterChunk(k, info) {
    if (!(await this.triggerAfterChunk(k))) {
      info.done = false;
      return;
    }
    await this.server.kill();
    info.killed_at_ms = this.ms();
    this.server = new ServerProc(this.serverConf(), this.logPath);
    this.server.start();
    await this.server.waitReady();
    info.back_at_ms = this.ms();
    info.done = true;
  }

  /** Waits until chunk k was enqueued (k=0: execute started), then half a step. */
  async triggerAfterChunk(k) {
    let rec;
    if (k === 0) {
      rec = await this.waitSide((r) => r.ev === 'execute_start', 10000);
      if (rec) await sleep(5); // WORKING follows execute_start at once; step 1 is running
    } else if (this.shape.result === 'last') {
      // result=last sends no chunk while working: the only artifact event is the whole
      // result right before the ending, so cancel=k / restart=k (k >= 1) wait for it
      // (a moment "timed from the first artifact" lands after the work), as recorder.py
      rec = await this.waitSide((r) => r.ev === 'enqueued_result', 10000);
    } else {
      rec = await this.waitSide((r) => r.ev === 'enqueued_chunk' && r.i === k, 10000);
    }
    if (!rec) return false;
    await sleep(RECORD_STEP_MS / 2);
    return true;
  }

  taskIdFromSide() {
    for (const rec of readSide(this.sidePath)) if (rec.ev === 'execute_start') return rec.task_id;
    return null;
  }

  makeRequest(messageId, { taskId, contextId, text = USER_TEXT, metadata } = {}) {
    const msg = { messageId, role: 'ROLE_USER', parts: [{ text }] };
    if (taskId) msg.taskId = taskId;
    if (contextId) msg.contextId = contextId;
    if (metadata) msg.metadata = metadata;
    return this.sdk.SendMessageRequest.fromJSON({ message: msg });
  }

  async getTask(client, tee, taskId) {
    if (!taskId) return [{ error: 'no task id known' }, null];
    try {
      await client.getTask(this.sdk.GetTaskRequest.fromJSON({ id: taskId }), { signal: AbortSignal.timeout(5000) });
    } catch (e) {
      const err = rpcErrorOf(tee.last('GetTask'));
      if (err && err.code === -32001) return ['lost', { error: err }]; // TaskNotFoundError: the task is gone
      if (err) return [{ error: err.message, code: err.code }, { error: err }];
      return [{ error: errText(e), code: null }, null];
    }
    const obj = JSON.parse(rawOf(tee.last('GetTask')).toString('utf8'));
    return [taskSummary(obj.result), obj.result];
  }

  async cancelTask(client, tee, taskId) {
    const out = { sent_at_ms: this.ms() };
    try {
      await client.cancelTask(this.sdk.CancelTaskRequest.fromJSON({ id: taskId }), {
        signal: AbortSignal.timeout(10000),
      });
      const res = JSON.parse(rawOf(tee.last('CancelTask')).toString('utf8')).result;
      const st = normState(res?.status?.state);
      Object.assign(out, {
        result: st === 'TASK_STATE_CANCELED' ? 'canceled' : 'returned',
        returned_state: st,
        code: null,
        message: null,
        wire: res,
      });
    } catch (e) {
      if (e?.name === 'TimeoutError') {
        Object.assign(out, { result: 'hung', code: null, message: 'CancelTask did not answer in 10 s' });
      } else {
        const ex = tee.last('CancelTask');
        const err = rpcErrorOf(ex);
        const code = err ? err.code : null;
        Object.assign(out, {
          result: code === -32002 ? 'not_cancelable' : 'error',
          code,
          message: err?.message ?? String(e?.message ?? e),
          exception: e?.constructor?.name ?? e?.name ?? null,
          http_status: ex?.status ?? null,
          wire_error: err,
        });
      }
    }
    out.answered_at_ms = this.ms();
    return out;
  }

  /** Runs one SendMessage / SendStreamingMessage call under the watchdog. */
  async consume(client, params, { stopAfterChunk = null } = {}) {
    const outcome = { end: null, error: null, count: 0 };
    const timeoutSignal = this.timeoutMs == null ? null : AbortSignal.timeout(this.timeoutMs);
    const noteTask = (t) => {
      if (t && typeof t === 'object' && 'status' in t && t.id) {
        this.taskId ??= t.id;
        this.contextId ??= t.contextId;
      }
    };
    // The watchdog counts from when the executor goes quiet (its last side
    // channel record), so slow steps are never mistaken for a hang.
    const { end, failure } = await this.watched(async (watchdog) => {
      const opts = { signal: timeoutSignal ? AbortSignal.any([watchdog, timeoutSignal]) : watchdog };
      if (this.isStream) {
        for await (const resp of client.sendMessageStream(params, opts)) {
          outcome.count += 1;
          const p = resp?.payload;
          if (p?.$case === 'task') noteTask(p.value);
          if (stopAfterChunk != null && p?.$case === 'artifactUpdate') {
            outcome.end = 'dropped_by_client'; // the client drops the connection after this chunk
            break;
          }
        }
      } else {
        const res = await client.sendMessage(params, opts);
        outcome.count = 1;
        noteTask(res);
      }
    });
    if (end === 'hung') {
      outcome.end = 'hung';
      return outcome;
    }
    if (failure) {
      if (timeoutSignal?.aborted) outcome.end = 'timed_out';
      else outcome.end = this.isStream ? 'closed' : 'returned';
      outcome.error = errText(failure);
      if (failure?.cause) outcome.error += ` (cause: ${errText(failure.cause)})`;
    } else if (outcome.end == null) {
      outcome.end = this.isStream ? 'closed' : 'returned';
    }
    return outcome;
  }

  async execute() {
    const cfg = this.cfg;
    const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } = this.sdk;
    this.port = await freePort();
    if (cfg.store === 'database') this.migrateDatabase();
    await this.startServer();
    const tee = new Tee();
    // The SDK's default factory, with only the fetch teed (the SDK's default
    // fetch is Node's global fetch; no timeout of its own).
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: tee.fetch })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: tee.fetch }),
      }),
    );
    const client = await factory.createFromUrl(`http://127.0.0.1:${this.port}`);

    const messageId = `msg-${randomUUID()}`;
    const req = this.makeRequest(messageId);
    this.t0 = performance.now();
    this.t0Wall = Date.now() / 1000;
    const cancelInfo = {};
    const restartInfo = {};
    const attempts = [];
    const { sideTasks, restartTask } = this.startFaults((tid) => this.cancelTask(client, tee, tid), cancelInfo, restartInfo);
    if (cfg.cancel !== 'none' && cfg.work === 'await') {
      this.notes.push(
        'work=await: the SDK calls cancelTask(taskId, eventBus) only and gives execute() no AbortSignal ' +
          'or cancellation, so the awaiting steps cannot be stopped by the cancel',
      );
    }
    if (this.timeoutMs != null) {
      this.notes.push(
        `timeout_ms=${cfg.timeout_ms}: the JS SDK client has no timeout setting; the call gets ` +
          `RequestOptions.signal = AbortSignal.timeout(${this.timeoutMs}) (as the SDK README suggests), ` +
          'a deadline for the whole call, not an inactivity timeout',
      );
    }

    let outcome;
    if (cfg.retry === 'on') {
      // attempt 1: the connection drops after chunk 1; the client then
      // re-sends the very same submission (same messageId).
      const first = await this.consume(client, req, { stopAfterChunk: 1 });
      attempts.push({ task_id: this.taskId, end: first.end });
      this.taskId = null;
      const req2 = this.makeRequest(messageId);
      outcome = await this.consume(client, req2);
      attempts.push({ task_id: this.taskId, end: outcome.end });
      this.notes.push(
        'retry: attempt 1 dropped by the client after chunk 1, then the identical ' +
          `request (same messageId ${messageId}) was sent again`,
      );
    } else if (cfg.interrupt !== 'none') {
      outcome = await this.consume(client, req);
      attempts.push({ task_id: this.taskId, end: outcome.end });
      for (let round = 0; round < 3; round += 1) {
        const [got] = await this.getTask(client, tee, this.taskId ?? this.taskIdFromSide());
        const st = got && typeof got === 'object' ? got.state : null;
        const answer = followUp(st);
        if (!answer) break;
        const follow = this.makeRequest(`msg-${randomUUID()}`, { taskId: this.taskId, contextId: this.contextId, ...answer });
        outcome = await this.consume(client, follow);
        attempts.push({ task_id: this.taskId, end: outcome.end, resumed_from: st });
      }
    } else {
      outcome = await this.consume(client, req);
    }
    const callEndMs = this.ms();

    if (this.taskId == null) this.taskId = this.taskIdFromSide();
    if (restartTask) {
      // GetTask "right after" means: as soon as the fresh server answers
      await Promise.race([restartTask.catch(() => {}), sleep(30000)]);
    }
    const [getAfter] = await this.getTask(client, tee, this.taskId);

    // let every actor finish (late artifacts, threads still stepping, ...)
    await this.joinSideTasks(sideTasks, 15);
    await this.settle(cfg);
    const [getSettled, settledWire] = await this.getTask(client, tee, this.taskId);

    // --- wire: the exact results the client received ---------------------
    const sends = tee.exchanges.filter((ex) => ex.method === 'SendStreamingMessage' || ex.method === 'SendMessage');
    const wire = [];
    const wireErrors = [];
    let sseRaw = null;
    for (const ex of sends) {
      const raw = rawOf(ex);
      if (ex.contentType.includes('text/event-stream')) {
        sseRaw = (sseRaw ?? '') + raw.toString('utf8');
        for (const ev of parseSse(raw)) {
          const d = ev.data;
          if (d && typeof d === 'object' && 'result' in d) wire.push(d.result);
          else wireErrors.push({ event: ev.event, data: d });
        }
      } else {
        try {
          const obj = JSON.parse(raw.toString('utf8'));
          if ('result' in obj) wire.push(obj.result);
          else wireErrors.push({ event: null, data: obj });
        } catch {
          if (raw.length) wireErrors.push({ event: null, data: raw.toString('utf8') });
        }
      }
    }
    const events = normalize(wire);

    const side = readSide(this.sidePath);
    const executions = side.filter((r) => r.ev === 'execute_start').length;
    const uniqSorted = (xs) => [...new Set(xs)].sort((a, b) => a - b);
    const doneSteps = uniqSorted(side.filter((r) => r.ev === 'work_done').map((r) => r.i));
    const enqueued = uniqSorted(side.filter((r) => r.ev === 'enqueued_chunk').map((r) => r.i));
    // a step whose work finished but whose chunk never reached the client or
    // the store is orphaned
    const delivered = new Set();
    for (const r of wire) {
      const [k, body] = kindAndBody(r);
      if (k === 'artifactUpdate') for (const p of body?.artifact?.parts ?? []) delivered.add(p.text);
      if (k === 'task') for (const a of body?.artifacts ?? []) for (const p of a.parts ?? []) delivered.add(p.text);
    }
    if (settledWire && !settledWire.error) {
      for (const a of settledWire.artifacts ?? []) for (const p of a.parts ?? []) delivered.add(p.text);
    }
    const n = Number.parseInt(cfg.chunks, 10);
    let orphaned = doneSteps.filter((i) => !delivered.has(stepText(i, n)));
    if (cfg.restart !== 'none') {
      // with a restart, steps done before the kill that were never delivered
      // died with the process: report them as lost, not orphaned
      const lost = orphaned;
      orphaned = [];
      if (lost.length) this.notes.push(`steps lost with the killed process: ${JSON.stringify(lost)}`);
    }

    const run = {
      events,
      wire,
      stream: this.isStream ? outcome.end : null,
      call: this.isStream ? null : outcome.end,
      end_error: outcome.error,
      blocking_result_artifacts: null,
      blocking_result_state: null,
      blocking_result_parts: null,
      get_task_after: getAfter,
      get_task_settled: getSettled,
      get_task_settled_wire: settledWire,
      cancel_result: null,
      cancel_error_code: null,
      cancel: null,
      orphaned_steps: orphaned.length,
      orphaned_step_numbers: orphaned,
      executions,
      steps_done: doneSteps,
      chunks_enqueued: enqueued,
      call_end_ms: callEndMs,
    };
    if (!this.isStream) {
      const tasks = wire.filter((r) => r && typeof r === 'object' && 'task' in r).map((r) => r.task);
      if (tasks.length) {
        const last = tasks[tasks.length - 1];
        run.blocking_result_artifacts = (last.artifacts ?? []).length;
        run.blocking_result_state = normState(last.status?.state);
        run.blocking_result_parts = partsOf(last);
      }
    }
    if (Object.keys(cancelInfo).length) {
      run.cancel_result = cancelInfo.result ?? null;
      run.cancel_error_code = cancelInfo.code ?? null;
      run.cancel = cancelInfo;
    }
    if (Object.keys(restartInfo).length) run.restart = restartInfo;
    if (wireErrors.length) run.wire_errors = wireErrors;
    if (attempts.length) {
      run.attempts = attempts;
      const ids = [];
      for (const a of attempts) if (a.task_id && !ids.includes(a.task_id)) ids.push(a.task_id);
      run.distinct_tasks = ids.length;
      if (cfg.retry === 'on' && attempts[0].task_id) {
        const [firstAfter] = await this.getTask(client, tee, attempts[0].task_id);
        run.first_attempt_task_settled = firstAfter;
      }
    }
    if (cfg.interrupt !== 'none') {
      const resumes = side.filter((r) => r.ev === 'resume');
      run.resumed = resumes.length > 0;
      run.resumes = resumes.map((r) => ({ from_state: r.from_state, receipt: r.receipt ?? null }));
      run.states = events.filter((e) => e.state).map((e) => e.state);
    }
    run.side_channel = sideRecords(side, this.t0Wall);
    run.server_log = serverLogLines(this.logPath)
      .slice(0, 30);
    run.notes = this.notes.join('; ');
    run._sse_raw = sseRaw;
    await this.server.kill();
    return run;
  }
}

// Every part of every artifact a task holds: an SDK that applies an
// appended chunk twice shows it here, where an artifact count does not.
export function partsOf(task) {
  return (task?.artifacts ?? []).reduce((n, a) => n + (a.parts ?? []).length, 0);
}

const STABLE_KEYS = [
  'events',
  'stream',
  'call',
  'blocking_result_artifacts',
  'blocking_result_state',
  'blocking_result_parts',
  'get_task_after',
  'get_task_settled',
  'cancel_result',
  'cancel_error_code',
  'orphaned_steps',
  'executions',
  'distinct_tasks',
  'resumed',
  'states',
];

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = sortKeys(v[k]);
    return o;
  }
  return v;
}

function outcomeKey(run) {
  const o = {};
  for (const k of STABLE_KEYS) {
    let v = run[k] ?? null;
    if (k.startsWith('get_task') && v && typeof v === 'object' && 'state' in v) {
      v = { state: v.state, artifacts: v.artifacts };
    }
    o[k] = v;
  }
  return JSON.stringify(sortKeys(o));
}

function describeOutcome(run) {
  const ev = run.events;
  const seq = ev
    .map(
      (e) =>
        e.kind +
        (e.state ? `(${e.state.replace(/^TASK_STATE_/, '')})` : '') +
        (e.artifact_id
          ? `[${e.artifact_id}${e.append ? ' +append' : ''}${e.last_chunk ? ' +last' : ''}]`
          : '') +
        (e.after_terminal ? ' !after-terminal' : ''),
    )
    .join(', ');
  return `${ev.length} events: ${seq}`;
}

function databaseAvailable() {
  const missing = [];
  for (const m of ['kysely', 'better-sqlite3']) {
    try {
      const req = createRequireHere();
      req.resolve(m);
      if (m === 'better-sqlite3') {
        // the native binding must load, too
        const Db = req('better-sqlite3');
        new Db(':memory:').close();
      }
    } catch (e) {
      missing.push(`${m} (${String(e?.message ?? e).split('\n')[0]})`);
    }
  }
  return missing;
}

let _require = null;
function createRequireHere() {
  _require ??= createRequire(path.join(HERE, 'package.json'));
  return _require;
}

// `makeRun(dir).execute()` `runs` times, each in a fresh temporary directory (`prefix`). A run
// that throws kills its server (then `onFail(run)`, if given) and fails the recording with the
// tail of the server's log. Shared by recordScenario, subscribe.mjs and push.mjs.
async function executeRuns(query, runs, prefix, makeRun, onFail = null) {
  const results = [];
  for (let i = 0; i < runs; i += 1) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    const run = makeRun(dir);
    try {
      results.push(await run.execute());
    } catch (e) {
      if (run.server) await run.server.kill().catch(() => {});
      if (onFail) await onFail(run);
      let log = '';
      try {
        log = fs.readFileSync(run.logPath, 'utf8');
      } catch {
        log = '';
      }
      throw new Error(`${query} run ${i + 1} failed: ${e?.stack ?? e}\n${log.slice(-3000)}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}

async function recordScenario(query, runs, watchdogS, sdk) {
  const cfg = parseScenario(query);
  const base = {
    sdk: `@a2a-js/sdk ${SDK_VERSION}`,
    node: process.versions.node,
    scenario: query,
    inputs: Object.fromEntries(KEY_ORDER.map((k) => [k, cfg[k]])),
    step_ms: RECORD_STEP_MS,
    watchdog_ms: Math.round(watchdogS * 1000),
  };
  if (cfg.store === 'database') {
    const missing = databaseAvailable();
    if (missing.length) {
      return {
        ...base,
        measurable: false,
        stable: null,
        summary: 'not measurable: the optional peers of @a2a-js/sdk/server/database are not installed',
        note:
          '@a2a-js/sdk 1.3.0 ships DatabaseTaskStore in @a2a-js/sdk/server/database, but it needs the ' +
          `optional peer packages kysely and a driver (better-sqlite3 for SQLite); missing here: ${missing.join(', ')}. ` +
          'Install them (npm ci with optional dependencies; better-sqlite3 builds from source when no prebuilt ' +
          'binary can be downloaded) and re-record this scenario.',
        runs: [],
      };
    }
  }
  const results = await executeRuns(query, runs, 'a2a-fidelity-js-', (dir) => new Run(query, cfg, dir, watchdogS, sdk));
  const keys = results.map(outcomeKey);
  const stable = keys.every((k) => k === keys[0]);
  // keep the raw SSE text of the first run only (for the lab's `check` of raw logs)
  results.forEach((r, j) => {
    const raw = r._sse_raw;
    delete r._sse_raw;
    if (j === 0 && raw != null) r.sse_raw = raw;
  });
  const fx = { ...base, measurable: true, stable, summary: describeOutcome(results[0]) };
  if (cfg.store === 'database') {
    fx.note =
      'store=database is @a2a-js/sdk/server/database DatabaseTaskStore on SQLite (kysely SqliteDialect + ' +
      'better-sqlite3, the optional peers), schema created with the SDK CLI `a2a-db upgrade`';
  }
  fx.runs = results;
  return fx;
}

function packageVersions() {
  const out = {};
  for (const pkg of ['@a2a-js/sdk', 'express', 'kysely', 'better-sqlite3']) {
    try {
      const p = JSON.parse(fs.readFileSync(path.join(HERE, 'node_modules', pkg, 'package.json'), 'utf8'));
      out[pkg] = p.version;
    } catch {
      // not installed
    }
  }
  return out;
}

function parseArgs(argv) {
  const args = {
    runs: 3,
    only: [],
    out: DEFAULT_OUT,
    watchdog: WATCHDOG_S,
    probes: true,
    longProbes: false,
    probesOnly: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      i += 1;
      return argv[i];
    };
    if (a === '--runs') args.runs = Number.parseInt(val(), 10);
    else if (a.startsWith('--runs=')) args.runs = Number.parseInt(a.slice(7), 10);
    else if (a === '--only') args.only.push(val());
    else if (a.startsWith('--only=')) args.only.push(a.slice(7));
    else if (a === '--out') args.out = path.resolve(val());
    else if (a.startsWith('--out=')) args.out = path.resolve(a.slice(6));
    else if (a === '--watchdog') args.watchdog = Number.parseFloat(val());
    else if (a.startsWith('--watchdog=')) args.watchdog = Number.parseFloat(a.slice(11));
    else if (a === '--probes') args.probes = true;
    else if (a === '--no-probes') args.probes = false;
    else if (a === '--long-probes') args.longProbes = true;
    else if (a === '--probes-only') args.probesOnly = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write(
        'usage: recorder.mjs record [--runs N] [--only QUERY]... [--out DIR] [--watchdog S] ' +
          '[--no-probes] [--long-probes] [--probes-only]\n       recorder.mjs list\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!(args.runs >= 1)) throw new Error('--runs must be >= 1');
  return args;
}

async function recordProbe(p, sdk, out) {
  const t = performance.now();
  const fx = await recordScenario(p.scenario, 1, p.watchdog_s, sdk);
  fx.probe = p.name;
  fx.about = p.about;
  const name = `probes/${p.name}.json`;
  fs.writeFileSync(path.join(out, name), `${JSON.stringify(fx, null, 1)}\n`);
  const r = fx.runs[0];
  const entry = {
    name: p.name,
    scenario: p.scenario,
    file: name,
    about: p.about,
    stream: r.stream,
    call: r.call,
    end_error: r.end_error,
    call_end_ms: r.call_end_ms,
  };
  const secs = ((performance.now() - t) / 1000).toFixed(1).padStart(5);
  console.log(`[${secs}s] probe ${p.name}: ${r.stream ?? r.call} at ${r.call_end_ms} ms (${r.end_error})`);
  return entry;
}

async function record(argv) {
  const args = parseArgs(argv);
  const sdkRoot = await import('@a2a-js/sdk');
  const sdkClient = await import('@a2a-js/sdk/client');
  const sdk = { ...sdkRoot, ...sdkClient };
  const out = args.out;
  fs.mkdirSync(out, { recursive: true });
  const queries = args.probesOnly ? [] : args.only.length ? args.only : MATRIX;
  for (const q of queries) parseScenario(q); // fail fast on a typo
  const indexPath = path.join(out, 'index.json');
  let index = {};
  if (fs.existsSync(indexPath)) {
    try {
      index = JSON.parse(fs.readFileSync(indexPath, 'utf8'));
    } catch {
      index = {};
    }
  }
  const entries = new Map();
  if (args.only.length || args.probesOnly) for (const e of index.scenarios ?? []) entries.set(e.scenario, e);
  // probes are kept from the previous index while their file still exists
  // (the long probes are only recorded on request)
  const probeEntries = new Map();
  for (const e of index.probes ?? []) {
    if (fs.existsSync(path.join(out, e.file))) probeEntries.set(e.name, e);
  }
  const started = performance.now();
  for (const q of queries) {
    const t = performance.now();
    const fx = await recordScenario(q, args.runs, args.watchdog, sdk);
    const name = `${fileStem(q)}.json`;
    fs.writeFileSync(path.join(out, name), `${JSON.stringify(fx, null, 1)}\n`);
    const entry = { scenario: q, file: name, stable: fx.stable, summary: fx.summary };
    if (!fx.measurable) entry.measurable = false;
    entries.set(q, entry);
    const secs = ((performance.now() - t) / 1000).toFixed(1).padStart(5);
    console.log(`[${secs}s] ${q}: stable=${fx.stable} ${fx.summary}`);
  }
  const probes = [];
  if (args.probes && !args.only.length) probes.push(...PROBES); // (--probes-only: queries is empty)
  if (args.longProbes) probes.push(...LONG_PROBES);
  if (probes.length) {
    fs.mkdirSync(path.join(out, 'probes'), { recursive: true });
    // the probes are mostly waiting: run them side by side
    const got = await Promise.all(probes.map((p) => recordProbe(p, sdk, out)));
    for (const e of got) probeEntries.set(e.name, e);
  }
  const order = new Map(MATRIX.map((q, i) => [q, i]));
  const newIndex = {
    sdk: `@a2a-js/sdk ${SDK_VERSION}`,
    node: process.versions.node,
    packages: packageVersions(),
    handler: 'DefaultRequestHandler from @a2a-js/sdk/server (the SDK default; its DefaultExecutionEventBusManager)',
    store: 'InMemoryTaskStore; store=database: DatabaseTaskStore from @a2a-js/sdk/server/database on SQLite (kysely + better-sqlite3)',
    transport:
      'JSON-RPC over HTTP (SSE for streaming), jsonRpcHandler + agentCardHandler from @a2a-js/sdk/server/express ' +
      'on express 5, 127.0.0.1; SDK ClientFactory client (JsonRpcTransport over Node global fetch)',
    wire: 'A2A 1.0 ProtoJSON: one key of task/statusUpdate/artifactUpdate/message, TASK_STATE_* states, no kind/final',
    step_ms: RECORD_STEP_MS,
    watchdog_ms: Math.round(args.watchdog * 1000),
    runs_per_scenario: args.probesOnly ? (index.runs_per_scenario ?? args.runs) : args.runs,
    defaults: DEFAULTS,
    scenarios: [...entries.values()].sort(
      (a, b) => (order.get(a.scenario) ?? 1000) - (order.get(b.scenario) ?? 1000),
    ),
    probes: [...probeEntries.values()],
  };
  fs.writeFileSync(indexPath, `${JSON.stringify(newIndex, null, 1)}\n`);
  console.log(`recorded ${queries.length} scenarios in ${((performance.now() - started) / 1000).toFixed(0)}s -> ${out}`);
  return 0;
}

// ---------------------------------------------------------------------------
// Captures (recorder.mjs captures): raw bodies as a user captures them
// ---------------------------------------------------------------------------
//
// Not fixtures of the lab's scenarios but raw traffic for the capture reader
// (SPEC section 8): the exact response bodies of a real @a2a-js/sdk server, on the
// A2A 1.0 wire (the SDK's own client, bodies recorded by the teeing fetch) and on the
// A2A 0.3 wire (jsonRpcHandler({..., legacyCompat: {enabled: true}}) with a card
// interface of protocolVersion 0.3, driven by raw fetch with 0.3 method names and no
// A2A-Version header). Bodies are written exactly as sent.

const CAPTURE_SCENARIOS = ['defaults', 'late=0', 'ending=return', 'ending=fail', 'cancel=1', 'interrupt=auth', 'chunks=10'];
const CAPTURE_OUT = path.resolve(HERE, '..', 'captures', 'js');
const V03_TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
const isTerminalState = (s) => TERMINAL.has(s) || V03_TERMINAL.has(s);

function captureEvent(result) {
  if (!result || typeof result !== 'object') return { kind: 'unknown' };
  const [kind, body] = kindAndBody(result);
  const ev = { kind };
  if (kind === 'task' || kind === 'statusUpdate') {
    ev.state = body?.status?.state ?? null;
    if ('final' in body) ev.final = body.final;
  }
  if (kind === 'task') {
    ev.artifacts = (body.artifacts ?? []).length;
    ev.parts = (body.artifacts ?? []).reduce((n, a) => n + (a.parts ?? []).length, 0);
  }
  if (kind === 'artifactUpdate') {
    ev.artifact_id = body?.artifact?.artifactId ?? null;
    ev.append = Boolean(body.append);
    ev.last_chunk = Boolean(body.lastChunk);
    ev.parts = (body?.artifact?.parts ?? []).map((p) => p.text);
  }
  return ev;
}

function observeBody(raw, contentType) {
  let items = [];
  if ((contentType ?? '').includes('text/event-stream')) items = parseSse(raw).map((e) => e.data);
  else {
    try {
      items = [JSON.parse(raw.toString('utf8'))];
    } catch {
      items = [];
    }
  }
  const events = [];
  const errors = [];
  for (const it of items) {
    if (it && typeof it === 'object' && 'result' in it) events.push(captureEvent(it.result));
    else if (it && typeof it === 'object' && it.error) errors.push({ code: it.error.code ?? null, message: it.error.message ?? null });
    else errors.push({ code: null, message: `not a JSON-RPC response: ${String(JSON.stringify(it)).slice(0, 80)}` });
  }
  const states = events.filter((e) => e.state).map((e) => e.state);
  const statusEvents = events.filter((e) => e.kind === 'task' || e.kind === 'statusUpdate');
  const lastEv = events[events.length - 1];
  return {
    events: events.length,
    kinds: events.map((e) => e.kind),
    states,
    final_state: states.length ? states[states.length - 1] : null,
    ended_with_terminal_status:
      Boolean(lastEv) && (lastEv.kind === 'task' || lastEv.kind === 'statusUpdate') && isTerminalState(lastEv.state),
    terminal_seen: states.some(isTerminalState),
    final_flags: events.filter((e) => 'final' in e).map((e) => e.final),
    first_event: events[0] ?? null,
    artifact_parts: events.filter((e) => e.kind === 'artifactUpdate').flatMap((e) => e.parts),
    errors,
    error_code: errors.length ? errors[0].code : null,
    last_status_state: statusEvents.length ? statusEvents[statusEvents.length - 1].state : null,
  };
}

const masked = (raw) =>
  maskIds(raw.toString('utf8')).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?/g, '<ts>');

const SUMMARY_KEYS = ['events', 'kinds', 'states', 'final_state', 'ended_with_terminal_status', 'final_flags', 'errors'];
const summarizeObs = (o) => Object.fromEntries(SUMMARY_KEYS.map((k) => [k, o[k]]));

class CaptureRun extends Run {
  constructor(query, workdir, wire, sdk) {
    super(query, parseScenario(query), workdir, WATCHDOG_S, sdk);
    this.wire = wire;
    this.rpcId = 0;
  }

  serverConf() {
    return { ...super.serverConf(), v03_compat: this.wire === '0.3' };
  }

  get url() {
    return `http://127.0.0.1:${this.port}/`;
  }

  /** Run.watched with the failure as text, as the capture index keeps it. */
  async watchedText(readFn) {
    const { end, failure } = await this.watched(readFn);
    if (failure) return { end, error: errText(failure) + (failure?.cause ? ` (cause: ${errText(failure.cause)})` : '') };
    return { end, error: null };
  }

  // --- A2A 0.3: raw JSON-RPC over fetch, no A2A-Version header ---------------
  v03Request(method, params) {
    this.rpcId += 1;
    return { jsonrpc: '2.0', id: this.rpcId, method, params };
  }

  static v03Message(taskId = null, contextId = null, { text = USER_TEXT, metadata = null } = {}) {
    return v03Message(`msg-${randomUUID()}`, { taskId, contextId, text, metadata });
  }

  async v03Stream(body, dropAfterArtifact = false) {
    const rec = { method: body.method, chunks: [], contentType: '', status: null };
    const r = await this.watchedText(async (signal) => {
      const resp = await fetch(this.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify(body),
        signal,
      });
      rec.status = resp.status;
      rec.contentType = resp.headers.get('content-type') || '';
      const reader = resp.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return null;
          rec.chunks.push(Buffer.from(value));
          for (const ev of parseSse(Buffer.concat(rec.chunks))) {
            const res = ev.data?.result;
            if (!res || typeof res !== 'object') continue;
            if (res.kind === 'task' && !this.taskId) {
              this.taskId = res.id;
              this.contextId = res.contextId;
            }
            if (dropAfterArtifact && res.kind === 'artifact-update') {
              await reader.cancel(); // the client drops the connection
              return 'dropped_by_client';
            }
          }
        }
      } finally {
        reader.releaseLock();
      }
    });
    return { ...rec, raw: Buffer.concat(rec.chunks), ...r };
  }

  async v03Call(body) {
    const resp = await fetch(this.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10000),
    });
    const raw = Buffer.from(await resp.arrayBuffer());
    return { method: body.method, raw, status: resp.status, contentType: resp.headers.get('content-type') || '', end: 'returned', error: null };
  }

  // --- A2A 1.0: the SDK client, bodies from the teeing fetch ---------------
  async sdkStream(tee, genFn, dropAfterArtifact = false) {
    const nBefore = tee.exchanges.length;
    const r = await this.watchedText(async (signal) => {
      for await (const resp of genFn({ signal })) {
        const p = resp?.payload;
        if (p?.$case === 'task' && !this.taskId) {
          this.taskId = p.value.id;
          this.contextId = p.value.contextId;
        }
        if (dropAfterArtifact && p?.$case === 'artifactUpdate') return 'dropped_by_client';
      }
      return null;
    });
    const ex = tee.exchanges[nBefore] ?? { method: null, chunks: [], contentType: '', status: null };
    return { method: ex.method, raw: rawOf(ex), contentType: ex.contentType, status: ex.status, ...r };
  }

  async session(kind) {
    this.port = await freePort();
    await this.startServer();
    this.t0 = performance.now();
    this.t0Wall = Date.now() / 1000;
    const bodies = [];
    const cancelInfo = {};
    try {
      let stream;
      let subscribe;
      let cancel;
      let first;
      let resume;
      if (this.wire === '1.0') {
        const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } = this.sdk;
        const tee = new Tee();
        const factory = new ClientFactory(
          ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
            transports: [new JsonRpcTransportFactory({ fetchImpl: tee.fetch })],
            cardResolver: new DefaultAgentCardResolver({ fetchImpl: tee.fetch }),
          }),
        );
        const client = await factory.createFromUrl(`http://127.0.0.1:${this.port}`);
        first = this.makeRequest(`msg-${randomUUID()}`);
        stream = (req, drop = false) => this.sdkStream(tee, (opts) => client.sendMessageStream(req, opts), drop);
        subscribe = (tid) =>
          this.sdkStream(tee, (opts) => client.resubscribeTask(this.sdk.SubscribeToTaskRequest.fromJSON({ id: tid }), opts));
        cancel = async (tid) => {
          const n = tee.exchanges.length;
          try {
            await client.cancelTask(this.sdk.CancelTaskRequest.fromJSON({ id: tid }), { signal: AbortSignal.timeout(10000) });
          } catch {
            // the body is what we keep
          }
          const ex = tee.exchanges[n];
          return { method: ex.method, raw: rawOf(ex), status: ex.status, contentType: ex.contentType, end: 'returned', error: null };
        };
        resume = () =>
          this.makeRequest(`msg-${randomUUID()}`, {
            taskId: this.taskId,
            contextId: this.contextId,
            ...followUp('TASK_STATE_AUTH_REQUIRED'),
          });
      } else {
        first = this.v03Request('message/stream', { message: CaptureRun.v03Message() });
        stream = (req, drop = false) => this.v03Stream(req, drop);
        subscribe = (tid) => this.v03Stream(this.v03Request('tasks/resubscribe', { id: tid }));
        cancel = (tid) => this.v03Call(this.v03Request('tasks/cancel', { id: tid }));
        resume = () =>
          this.v03Request('message/stream', {
            message: CaptureRun.v03Message(this.taskId, this.contextId, followUp('TASK_STATE_AUTH_REQUIRED')),
          });
      }
      const side = [];
      if (kind === 'stream' && this.cfg.cancel !== 'none') {
        side.push(
          (async () => {
            if (await this.triggerAfterChunk(Number.parseInt(this.cfg.cancel, 10))) {
              const r = await cancel(this.taskId ?? this.taskIdFromSide());
              Object.assign(cancelInfo, observeBody(r.raw, r.contentType), { raw: r.raw.toString('utf8') });
            }
          })(),
        );
      }
      if (kind === 'stream') {
        const b = await stream(first);
        b.role = 'stream';
        bodies.push(b);
        if (this.cfg.interrupt !== 'none') {
          const obs = observeBody(b.raw, b.contentType);
          if (['TASK_STATE_AUTH_REQUIRED', 'auth-required'].includes(obs.last_status_state)) {
            const b2 = await stream(resume());
            b2.role = 'resumed';
            bodies.push(b2);
          }
        }
      } else if (kind === 'resubscribe') {
        const b = await stream(first, true);
        b.role = 'dropped';
        bodies.push(b);
        const b2 = await subscribe(this.taskId);
        b2.role = 'resubscribed';
        bodies.push(b2);
      } else if (kind === 'cancel-finished') {
        const b = await stream(first);
        await sleep(300);
        const b2 = await cancel(this.taskId);
        b2.role = 'error';
        b2.streamBefore = observeBody(b.raw, b.contentType);
        bodies.push(b2);
      }
      await Promise.all(side);
      for (const b of bodies) b.cancel = Object.keys(cancelInfo).length ? cancelInfo : null;
    } finally {
      await this.server.kill();
    }
    return bodies;
  }
}

function captureName(wire, kind, query, role, nBodies, i) {
  if (kind === 'resubscribe') return `v${wire}_resubscribe-${role}.sse`;
  if (kind === 'cancel-finished') return `v${wire}_cancel-finished-task.json`;
  const stem = fileStem(query);
  return nBodies > 1 ? `v${wire}_${stem}.turn-${i + 1}.sse` : `v${wire}_${stem}.sse`;
}

async function captures(argv) {
  let runs = 2;
  let out = CAPTURE_OUT;
  const wires = [];
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--runs') runs = Number.parseInt(argv[++i], 10);
    else if (a === '--out') out = path.resolve(argv[++i]);
    else if (a === '--wire') wires.push(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!wires.length) wires.push('1.0', '0.3');
  const sdkRoot = await import('@a2a-js/sdk');
  const sdkClient = await import('@a2a-js/sdk/client');
  const sdk = { ...sdkRoot, ...sdkClient };
  fs.mkdirSync(out, { recursive: true });
  const items = [];
  for (const wire of wires) {
    for (const q of CAPTURE_SCENARIOS) items.push([wire, 'stream', q]);
    items.push([wire, 'resubscribe', 'defaults'], [wire, 'cancel-finished', 'defaults']);
  }
  const entries = [];
  const started = performance.now();
  for (const [wire, kind, query] of items) {
    const all = [];
    for (let r = 0; r < runs; r += 1) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'a2a-capture-js-'));
      try {
        all.push(await new CaptureRun(query, dir, wire, sdk).session(kind));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    const firstRun = all[0];
    firstRun.forEach((b, i) => {
      const name = captureName(wire, kind, query, b.role, firstRun.length, i);
      fs.writeFileSync(path.join(out, name), b.raw);
      const obs = observeBody(b.raw, b.contentType);
      const perRun = all.map((r) => (r[i] ? { end: r[i].end, ...summarizeObs(observeBody(r[i].raw, r[i].contentType)) } : null));
      const same = (x, y) => maskIds(JSON.stringify(x)) === maskIds(JSON.stringify(y)); // error messages may name the task
      const sameObs = perRun.every((p) => p && same(p, perRun[0]));
      const sameMasked = all.every((r) => r[i] && masked(r[i].raw) === masked(b.raw));
      const sameBytes = all.every((r) => r[i] && Buffer.compare(r[i].raw, b.raw) === 0);
      const kindName = { stream: 'stream', resumed: 'stream', dropped: 'dropped', resubscribed: 'resubscribed', error: 'error' }[b.role];
      const entry = {
        file: name,
        sdk: `@a2a-js/sdk ${SDK_VERSION}`,
        wire,
        scenario: query,
        kind: kindName,
        request_method: b.method,
        http_status: b.status,
        content_type: b.contentType,
        bytes: b.raw.length,
        observed: {
          end: b.end,
          end_error: b.error,
          ...summarizeObs(obs),
          last_status_state: obs.last_status_state,
          error_code: obs.error_code,
          first_event: obs.first_event,
          artifact_parts: obs.artifact_parts,
        },
        runs,
        stable_observation: sameObs,
        stable_bytes_masked: sameMasked,
        identical_bytes: sameBytes,
      };
      if (!sameObs) entry.observations_per_run = perRun;
      if (b.cancel) {
        let answerState = null;
        try {
          answerState = JSON.parse(b.cancel.raw)?.result?.status?.state ?? null;
        } catch {
          answerState = null;
        }
        entry.cancel_during_stream = {
          answer_state: answerState,
          error_code: b.cancel.error_code,
          errors: b.cancel.errors,
          raw: b.cancel.raw,
        };
      }
      if (b.streamBefore) entry.stream_before = summarizeObs(b.streamBefore);
      if (firstRun.length > 1 && kind === 'stream') {
        entry.session = `v${wire}_${fileStem(query)}: turn ${i + 1} of ${firstRun.length} (read the turns in order as one capture)`;
      }
      if (kind === 'resubscribe') entry.session = `v${wire}_resubscribe: read -dropped then -resubscribed as one capture`;
      entries.push(entry);
      const secs = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
      console.log(
        `[${secs}s] ${name}: ${obs.events} events, final ${obs.final_state}, end ${b.end}, errors ${JSON.stringify(obs.errors.map((e) => e.code))}, stable=${sameObs}, masked-bytes-stable=${sameMasked}`,
      );
    });
  }
  const index = {
    sdk: `@a2a-js/sdk ${SDK_VERSION}`,
    node: process.versions.node,
    packages: packageVersions(),
    step_ms: RECORD_STEP_MS,
    watchdog_ms: Math.round(WATCHDOG_S * 1000),
    'wire_1.0': 'the SDK ClientFactory client (JsonRpcTransport, sendMessageStream / resubscribeTask / cancelTask; sends A2A-Version: 1.0); bodies recorded byte for byte by its teeing fetch',
    'wire_0.3':
      "jsonRpcHandler({requestHandler, userBuilder, legacyCompat: {enabled: true}}) with a card interface {protocolBinding: 'JSONRPC', protocolVersion: '0.3'} added; raw fetch sends 0.3 method names (message/stream, tasks/resubscribe, tasks/cancel) without an A2A-Version header",
    files: entries,
  };
  fs.writeFileSync(path.join(out, 'index.json'), `${JSON.stringify(index, null, 1)}\n`);
  console.log(`${entries.length} captures in ${((performance.now() - started) / 1000).toFixed(0)}s -> ${out}`);
  return 0;
}

async function main() {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'serve') {
    await serve(rest[0]);
    return null; // keep serving
  }
  if (cmd === 'list') {
    console.log(MATRIX.join('\n'));
    return 0;
  }
  if (cmd === 'record') return record(rest);
  if (cmd === 'captures') return captures(rest);
  if (cmd === 'subscribe') return (await import('./subscribe.mjs')).record(rest);
  if (cmd === 'push') return (await import('./push.mjs')).record(rest);
  process.stderr.write('usage: recorder.mjs record|captures|subscribe|push|list|serve (see the header of this file)\n');
  return 2;
}

function isEntryPoint() {
  try {
    return fs.realpathSync(path.resolve(process.argv[1])) === fs.realpathSync(THIS_FILE);
  } catch {
    return false;
  }
}

// For subscribe.mjs (which imports this file; main() runs only when this file is the entry point).
export {
  HERE,
  KEY_ORDER,
  MATRIX,
  RECORD_STEP_MS,
  Run,
  SDK_VERSION,
  SHAPE_DEFAULTS,
  ServerProc,
  TERMINAL,
  TRACKING_ID,
  Tee,
  USER_TEXT,
  WATCHDOG_S,
  databaseAvailable,
  errText,
  executeRuns,
  followUp,
  readLog,
  serverLogLines,
  sideRecords,
  v03Message,
  fileStem,
  freePort,
  kindAndBody,
  maskIds,
  normState,
  outcomeKey,
  packageVersions,
  parseScenario,
  parseSse,
  rawOf,
  readSide,
  rpcErrorOf,
  sortKeys,
  stepText,
  taskSummary,
};

if (!isMainThread) {
  if (workerData?.role === 'steps') stepsWorker(workerData);
} else if (isEntryPoint()) {
  main().then(
    (code) => {
      if (code != null) process.exit(code);
    },
    (e) => {
      process.stderr.write(`${e?.stack ?? e}\n`);
      process.exit(1);
    },
  );
}
