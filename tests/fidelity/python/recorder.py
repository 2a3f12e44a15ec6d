#!/usr/bin/env python3
"""Fidelity recorder: what does the real a2a-sdk 1.3.0 do for the lab's scenarios?

It runs the BBS-1042 order-status executor as a real A2A server (the SDK's own
`DefaultRequestHandler`, JSON-RPC routes and task stores, served by uvicorn in a
child process on 127.0.0.1) and drives it with the SDK's own client, streaming
or blocking. Every scenario of SPEC section 4 is run several times; the wire
events, how the call ended, GetTask, CancelTask, orphaned steps and the number
of executions are written as JSON fixtures under
`tests/fidelity/fixtures/python/` for the Rust fidelity test.

Usage (normally through ./run.sh, which prepares the pinned venv):
    recorder.py record [--runs 3] [--only QUERY ...] [--out DIR] [--probes|--no-probes]
    recorder.py captures [--runs 2] [--wire 1.0|0.3 ...] [--out DIR]   (raw bodies, see README)
    recorder.py subscribe [--runs 3] [--only QUERY ...] [--out DIR]   (SPEC section 9: subscribe.py)
    recorder.py serve CONFIG_JSON        (internal: the server child process)

Scenario keys are the lab's own (SPEC section 4); `step_ms` is shortened to
RECORD_STEP_MS for speed, left out of the scenario key and stored in the fixture.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid

from pathlib import Path
from typing import Any


HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / 'fixtures' / 'python'

RECORD_STEP_MS = 50  # the lab's default is 200; shortened so runs are quick
WATCHDOG_S = 3.0  # a stream or call still open this long after the executor went quiet is "hung"
PROBE_WATCHDOG_S = 8.0  # longer watchdog for the probes of the SDK client's default timeout
SDK_VERSION = '1.3.0'

TERMINAL = {
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_CANCELED',
    'TASK_STATE_REJECTED',
}
INTERRUPTED = {'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'}

TRACKING_ID = 'BBS-1042-tracking'
TRACKING_NAME = 'courier-tracking'
RECEIPT_ID = 'BBS-1042-receipt'
RECEIPT_NAME = 'delivery-receipt'
USER_TEXT = 'Where is my order BBS-1042?'

# ---------------------------------------------------------------------------
# Scenarios (the lab's keys, SPEC section 4)
# ---------------------------------------------------------------------------

DEFAULTS: dict[str, str] = {
    'chunks': '3',
    'ending': 'complete',
    'client': 'stream',
    'timeout_ms': 'none',
    'cancel': 'none',
    'work': 'await',
    'cancel_impl': 'write',
    'late': 'off',
    'restart': 'none',
    'store': 'memory',
    'retry': 'off',
    'interrupt': 'none',
}
KEY_ORDER = list(DEFAULTS)
# Shapes of agents on other stacks (SPEC section 14), read by the `serve` executor only
# (tests/agents/start.sh ... progress=K result=last); not recorded, so neither in
# DEFAULTS nor in a fixture's `inputs`. progress: K WORKING status updates with an agent
# message before each step's chunk (TaskUpdater.update_status(WORKING, message)).
# result: `chunks` (one artifact chunk per step) or `last` (no chunks while working; the
# whole artifact, one part per step, in one artifact update with lastChunk right before
# the ending).
SHAPE_DEFAULTS: dict[str, str] = {'progress': '0', 'result': 'chunks'}
SHAPE_ENUMS = {'result': {'chunks', 'last'}}
ENUMS = {
    'ending': {'complete', 'fail', 'input', 'auth', 'return', 'never', 'raise'},
    'client': {'stream', 'block'},
    'work': {'await', 'to_thread', 'flag'},
    'cancel_impl': {'write', 'raise', 'noop'},
    'store': {'memory', 'database'},
    'retry': {'off', 'on'},
    'interrupt': {'none', 'auth', 'input', 'both'},
}

# Every value of every key at least once against the defaults, plus every
# combination the spec's table names. Order: the spec's table first.
MATRIX: list[str] = [
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
]

# Extra measurements that are not lab scenarios: the SDK client's own default
# timeout (httpx's 5 s) seen with a watchdog longer than it.
PROBES: list[dict[str, Any]] = [
    {
        'name': 'probe-sdk-default-client-timeout_stream',
        'scenario': 'ending=never',
        'watchdog_s': PROBE_WATCHDOG_S,
        'about': 'ending=never with the SDK default client and a watchdog of '
        f'{PROBE_WATCHDOG_S} s: does the client give up by itself?',
    },
    {
        'name': 'probe-sdk-default-client-timeout_block',
        'scenario': 'ending=never&client=block',
        'watchdog_s': PROBE_WATCHDOG_S,
        'about': 'ending=never&client=block with the SDK default client and a '
        f'watchdog of {PROBE_WATCHDOG_S} s: does the client give up by itself?',
    },
]


def parse_scenario(query: str) -> dict[str, str]:
    """Parses a lab query string into the full set of keys (defaults filled)."""
    cfg = dict(DEFAULTS)
    if query in ('', 'defaults'):
        return cfg
    seen = set()
    for pair in query.split('&'):
        if '=' not in pair:
            raise ValueError(f'bad pair {pair!r}')
        key, value = pair.split('=', 1)
        if key not in DEFAULTS:
            raise ValueError(f'unknown key {key!r}')
        if key in seen:
            raise ValueError(f'repeated key {key!r}')
        seen.add(key)
        if key in ENUMS and value not in ENUMS[key]:
            raise ValueError(f'bad value for {key}: {value!r}')
        cfg[key] = value
    chunks = int(cfg['chunks'])
    for key in ('cancel', 'restart'):
        if cfg[key] != 'none' and not 0 <= int(cfg[key]) <= chunks:
            raise ValueError(f'{key} must be none or 0..chunks')
    return cfg


def file_stem(query: str) -> str:
    if query == 'defaults':
        return 'defaults'
    return query.replace('&', '_').replace('=', '-')


def progress_text(i: int, n: int, j: int, k: int) -> str:
    """The agent message of progress update j of k before step i of n."""
    return f'Looking up BBS-1042 (step {i}/{n}' + (f', update {j}/{k})' if k > 1 else ')')


def step_text(i: int, n: int) -> str:
    if i == n:
        what = 'out for delivery'
    elif i == 1:
        what = 'parcel scanned at the Belgavi depot'
    else:
        what = f'in transit, hub {i - 1}'
    return f'BBS-1042 courier step {i}/{n}: {what}'


# ---------------------------------------------------------------------------
# Side channel: the executor appends JSON lines to a file the recorder reads
# ---------------------------------------------------------------------------


class SideChannel:
    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()

    def log(self, ev: str, **fields: Any) -> None:
        rec = {'t': time.time(), 'pid': os.getpid(), 'ev': ev, **fields}
        line = json.dumps(rec) + '\n'
        with self._lock, open(self.path, 'a', encoding='utf-8') as f:
            f.write(line)
            f.flush()


def read_side(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding='utf-8') as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


# ---------------------------------------------------------------------------
# Server side (child process)
# ---------------------------------------------------------------------------


def serve(config_json: str) -> None:  # noqa: PLR0915
    import logging

    import uvicorn

    from starlette.applications import Starlette

    from a2a.helpers.proto_helpers import new_task, new_text_part
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import (
        create_agent_card_routes,
        create_jsonrpc_routes,
    )
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types.a2a_pb2 import (
        AgentCapabilities,
        AgentCard,
        AgentInterface,
        AgentSkill,
        Part,
        TaskState,
    )

    conf = json.loads(config_json)
    sc = conf['scenario']
    step = conf['step_ms'] / 1000.0
    n = int(sc['chunks'])
    progress = int(sc.get('progress', SHAPE_DEFAULTS['progress']))
    result_last = sc.get('result', SHAPE_DEFAULTS['result']) == 'last'
    side = SideChannel(conf['side'])
    logging.basicConfig(
        level=logging.WARNING,
        format='%(levelname)s %(name)s: %(message)s',
        stream=sys.stderr,
    )

    class OrderStatusExecutor(AgentExecutor):
        """The BBS-1042 order-status executor of seed 004."""

        def __init__(self) -> None:
            self.flags: dict[str, threading.Event] = {}

        def _flag(self, task_id: str) -> threading.Event:
            return self.flags.setdefault(task_id, threading.Event())

        async def _progress(self, updater: TaskUpdater, i: int) -> None:
            # progress=K: K status updates that repeat WORKING with an agent
            # message, the SDK's own way (TaskUpdater.update_status + new_agent_message).
            for j in range(1, progress + 1):
                side.log('enqueue_progress', i=i, j=j)
                await updater.update_status(
                    TaskState.TASK_STATE_WORKING,
                    message=updater.new_agent_message(
                        [Part(text=progress_text(i, n, j, progress))]
                    ),
                )

        async def _result(self, updater: TaskUpdater) -> None:
            # result=last: the whole artifact, one part per step, in one
            # artifact update (no append, lastChunk) after the last step.
            if not result_last or n == 0:
                return
            side.log('enqueue_result', parts=n)
            await updater.add_artifact(
                [new_text_part(step_text(i, n)) for i in range(1, n + 1)],
                artifact_id=TRACKING_ID,
                name=TRACKING_NAME,
                last_chunk=True,
            )
            side.log('enqueued_result')

        async def _chunk(self, updater: TaskUpdater, i: int) -> None:
            if result_last:
                return  # result=last: nothing while working
            first, last = i == 1, i == n
            side.log('enqueue_chunk', i=i)
            await updater.add_artifact(
                [new_text_part(step_text(i, n))],
                artifact_id=TRACKING_ID,
                name=TRACKING_NAME,
                # chunk 1: no flags (append on a missing artifact is an error
                # in the SDK); middle: append; last: append + lastChunk.
                append=None if first else True,
                last_chunk=True if last else None,
            )
            side.log('enqueued_chunk', i=i)

        async def _steps(self, updater: TaskUpdater, task_id: str) -> None:
            work = sc['work']
            if work == 'await':
                for i in range(1, n + 1):
                    await self._progress(updater, i)
                    await asyncio.sleep(step)
                    side.log('work_done', i=i)
                    await self._chunk(updater, i)
                await self._result(updater)
                return
            # to_thread / flag: one blocking call in asyncio.to_thread that
            # performs all the steps and hands each chunk back to the
            # coroutine through loop.call_soon_threadsafe + an asyncio.Queue.
            loop = asyncio.get_running_loop()
            handoff: asyncio.Queue[int] = asyncio.Queue()
            flag = self._flag(task_id)

            def blocking_steps() -> None:
                for i in range(1, n + 1):
                    if work == 'flag' and flag.is_set():
                        side.log('flag_seen', before_step=i)
                        return
                    time.sleep(step)
                    side.log('work_done', i=i)
                    loop.call_soon_threadsafe(handoff.put_nowait, i)
                side.log('thread_done')

            if n == 0:
                return
            worker = asyncio.ensure_future(asyncio.to_thread(blocking_steps))
            try:
                for step_no in range(1, n + 1):
                    await self._progress(updater, step_no)
                    i = await handoff.get()
                    await self._chunk(updater, i)
                await worker
                await self._result(updater)
            except asyncio.CancelledError:
                flag.set()
                raise

        async def execute(
            self, context: RequestContext, event_queue: EventQueue
        ) -> None:
            task_id = context.task_id
            current = context.current_task
            state = (
                TaskState.Name(current.status.state) if current else None
            )
            side.log('execute_start', task_id=task_id, current_state=state)
            updater = TaskUpdater(event_queue, task_id, context.context_id)
            try:
                interrupt = sc['interrupt']
                if current is None:
                    await event_queue.enqueue_event(
                        new_task(
                            task_id,
                            context.context_id,
                            TaskState.TASK_STATE_SUBMITTED,
                            history=[context.message],
                        )
                    )
                    await updater.start_work()
                    if interrupt in ('auth', 'both'):
                        side.log('ask', what='auth')
                        await updater.requires_auth(
                            updater.new_agent_message(
                                [
                                    Part(
                                        text='Sign in to the courier portal to '
                                        'see BBS-1042 tracking.'
                                    )
                                ]
                            )
                        )
                        return
                    if interrupt == 'input':
                        side.log('ask', what='input')
                        await updater.requires_input(
                            updater.new_agent_message(
                                [Part(text='Deliver BBS-1042 to home or office?')]
                            )
                        )
                        return
                else:
                    # A follow-up message resumes an interrupted task.
                    receipt = None
                    if context.message is not None:
                        meta = dict(context.message.metadata.items())
                        receipt = meta.get('authorizationReceipt')
                    side.log('resume', from_state=state, receipt=receipt)
                    await updater.start_work()
                    if (
                        state == 'TASK_STATE_AUTH_REQUIRED'
                        and interrupt == 'both'
                    ):
                        side.log('ask', what='input')
                        await updater.requires_input(
                            updater.new_agent_message(
                                [Part(text='Deliver BBS-1042 to home or office?')]
                            )
                        )
                        return

                await self._steps(updater, task_id)

                ending = sc['ending']
                side.log('ending', ending=ending)
                if ending == 'complete':
                    await updater.complete()
                elif ending == 'fail':
                    await updater.failed()
                elif ending == 'input':
                    await updater.requires_input()
                elif ending == 'auth':
                    await updater.requires_auth()
                elif ending == 'return':
                    pass
                elif ending == 'never':
                    side.log('awaiting_forever')
                    await asyncio.Event().wait()
                elif ending == 'raise':
                    # push.py: execute() raises after its last chunk
                    raise RuntimeError('courier lookup failed after the last step')
                side.log('ended', ending=ending)

                if sc['late'] != 'off':
                    late_ms = int(sc['late'])
                    if late_ms > 0:
                        await asyncio.sleep(late_ms / 1000.0)
                    side.log('enqueue_late')
                    await updater.add_artifact(
                        [new_text_part('BBS-1042 receipt: delivered to the front desk')],
                        artifact_id=RECEIPT_ID,
                        name=RECEIPT_NAME,
                        last_chunk=True,
                    )
                    side.log('enqueued_late')
            except asyncio.CancelledError:
                side.log('execute_cancelled')
                self._flag(task_id).set()
                raise
            except BaseException as e:
                side.log('execute_raised', error=repr(e))
                raise
            finally:
                side.log('execute_end')

        async def cancel(
            self, context: RequestContext, event_queue: EventQueue
        ) -> None:
            impl = sc['cancel_impl']
            side.log('cancel_called', impl=impl, task_id=context.task_id)
            if impl == 'write':
                self._flag(context.task_id).set()
                await TaskUpdater(
                    event_queue, context.task_id, context.context_id
                ).cancel()
                side.log('cancel_wrote_canceled')
            elif impl == 'raise':
                raise NotImplementedError('cancel is not supported')
            # noop: does nothing

    class SharedStateExecutor(OrderStatusExecutor):
        """tests/agents defect shared-state / shared-queue: the common bug of an
        executor that keeps the current request's task on itself. The handler has
        one executor for all requests, so when a second request starts while the
        first is still awaiting, every later event of the first is built from the
        second's ids (shared-state) or also goes to the second's event queue
        (shared-queue). Alone it streams exactly what defect none streams (the
        default scenario only: new task, WORKING, chunks, COMPLETED)."""

        async def execute(
            self, context: RequestContext, event_queue: EventQueue
        ) -> None:
            self.task_id = context.task_id
            self.context_id = context.context_id
            self.event_queue = event_queue
            own = context.task_id
            shared_queue = conf['shared_state'] == 'queue'

            def updater() -> TaskUpdater:
                # built afresh for every event from what is on self now
                queue = self.event_queue if shared_queue else event_queue
                return TaskUpdater(queue, self.task_id, self.context_id)

            side.log(
                'execute_start', task_id=own, current_state=None,
                message_id=context.message.message_id if context.message else None,
            )
            try:
                await event_queue.enqueue_event(
                    new_task(
                        self.task_id,
                        self.context_id,
                        TaskState.TASK_STATE_SUBMITTED,
                        history=[context.message],
                    )
                )
                await updater().start_work()
                for i in range(1, n + 1):
                    await asyncio.sleep(step)
                    side.log('work_done', i=i, own=own, as_task=self.task_id)
                    await self._chunk(updater(), i)
                side.log('ending', ending='complete', own=own, as_task=self.task_id)
                await updater().complete()
                side.log('ended', ending='complete', own=own)
            except BaseException as e:
                side.log('execute_raised', own=own, error=repr(e))
                raise
            finally:
                side.log('execute_end', own=own)

    if conf.get('shared_state'):
        OrderStatusExecutor = SharedStateExecutor  # noqa: N806 (one instance, as always)

    port = conf['port']
    card = AgentCard(
        name='Belgavi Book Store order status',
        description='Tells where an order is (BBS-1042 fidelity run).',
        version='1.0.0',
        supported_interfaces=[
            AgentInterface(
                url=f'http://127.0.0.1:{port}/',
                protocol_binding='JSONRPC',
                protocol_version='1.0',
            )
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            AgentSkill(
                id='order-status',
                name='Order status',
                description='Courier tracking for an order',
                tags=['orders'],
            )
        ],
    )

    if conf.get('card') == 'thin':
        # A card whose author left out the description, the skills and the output
        # modes: protobuf's JSON then has no such fields at all.
        for field in ('description', 'skills', 'default_output_modes'):
            card.ClearField(field)

    if sc['store'] == 'database':
        from sqlalchemy.ext.asyncio import create_async_engine

        from a2a.server.tasks import DatabaseTaskStore

        engine = create_async_engine(f'sqlite+aiosqlite:///{conf["db"]}')
        store = DatabaseTaskStore(engine)
    else:
        store = InMemoryTaskStore()

    push_kwargs: dict[str, Any] = {}
    if conf.get('push'):
        # push.py only: push notifications wired as the SDK documents them (an
        # InMemoryPushNotificationConfigStore and a BasePushNotificationSender on
        # an httpx.AsyncClient with its defaults, both given to the handler;
        # the card declares capabilities.push_notifications).
        import httpx

        from a2a.server.tasks import (
            BasePushNotificationSender,
            InMemoryPushNotificationConfigStore,
        )

        card.capabilities.push_notifications = True
        push_store = InMemoryPushNotificationConfigStore()
        push_kwargs = {
            'push_config_store': push_store,
            'push_sender': BasePushNotificationSender(
                httpx.AsyncClient(), config_store=push_store
            ),
        }
    handler = DefaultRequestHandler(
        agent_executor=OrderStatusExecutor(),
        task_store=store,
        agent_card=card,
        **push_kwargs,
    )
    # captures only (recorder.py captures --wire 0.3): the SDK's A2A 0.3
    # compatibility mode on the same endpoint; the fixtures never set it.
    v03_compat = bool(conf.get('v03_compat'))
    if v03_compat:
        card.supported_interfaces.append(
            AgentInterface(
                url=f'http://127.0.0.1:{port}/',
                protocol_binding='JSONRPC',
                protocol_version='0.3',
            )
        )
    jsonrpc_kwargs = {'enable_v0_3_compat': True} if v03_compat else {}
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(
        handler, rpc_url='/', **jsonrpc_kwargs
    )
    # tests/agents only (start.sh ... rest=on|only): the SDK's HTTP+JSON (REST)
    # routes, create_rest_routes(handler, path_prefix='/rest'), beside the
    # JSON-RPC ones (rest=on) or instead of them (rest=only: the card lists only
    # HTTP+JSON and no JSON-RPC route is mounted). The card gets an HTTP+JSON
    # interface at URL/rest (and, on wire 0.3, a second one of protocol version
    # 0.3, which the SDK's card builder turns into the 0.3 card's
    # additionalInterfaces / preferredTransport; the 0.3 REST routes are the
    # SDK's /rest/v1/... ones). The recorders never set it.
    rest = conf.get('rest')
    if rest:
        from a2a.server.routes import create_rest_routes

        rest_interfaces = [
            AgentInterface(
                url=f'http://127.0.0.1:{port}/rest',
                protocol_binding='HTTP+JSON',
                protocol_version=version,
            )
            for version in (['1.0', '0.3'] if v03_compat else ['1.0'])
        ]
        if rest == 'only':
            del card.supported_interfaces[:]
            routes = create_agent_card_routes(card)
        card.supported_interfaces.extend(rest_interfaces)
        routes = routes + create_rest_routes(
            handler, enable_v0_3_compat=v03_compat, path_prefix='/rest'
        )
    # tests/agents only (start.sh ... grpc=on|only): the SDK's gRPC server
    # (GrpcHandler over the same DefaultRequestHandler, so the same task store
    # and executor) on conf['grpc_port'], in this process and event loop. The
    # card's GRPC interface has the bare HOST:PORT the SDK's GrpcTransport hands
    # to ClientConfig.grpc_channel_factory (grpc.aio.insecure_channel takes a
    # gRPC target, not an http:// URL). grpc=only: the card lists only it and
    # no JSON-RPC route is mounted, as rest=only. The recorders never set it.
    grpc_mode = conf.get('grpc')
    if grpc_mode:
        if v03_compat:
            sys.exit('serve: grpc is A2A 1.0 only (no 0.3 gRPC interface is served)')
        if grpc_mode == 'only' and rest:
            sys.exit('serve: grpc=only lists the GRPC interface alone; it cannot go with rest=')
        if grpc_mode == 'only':
            del card.supported_interfaces[:]
            routes = create_agent_card_routes(card)
        card.supported_interfaces.append(
            AgentInterface(
                url=f'127.0.0.1:{conf["grpc_port"]}',
                protocol_binding='GRPC',
                protocol_version='1.0',
            )
        )
    app = Starlette(routes=routes)
    side.log('server_start', store=sc['store'], handler=type(handler).__name__)
    if not grpc_mode:
        uvicorn.run(
            app, host='127.0.0.1', port=port, log_level='warning', access_log=False
        )
        return

    async def serve_both() -> None:
        import grpc

        from a2a.server.request_handlers import GrpcHandler
        from a2a.types import a2a_pb2_grpc

        server = grpc.aio.server()
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
        server.add_insecure_port(f'127.0.0.1:{conf["grpc_port"]}')
        # started before the HTTP server: the launcher takes an answering card
        # to mean the whole agent is ready
        await server.start()
        try:
            await uvicorn.Server(uvicorn.Config(
                app, host='127.0.0.1', port=port, log_level='warning', access_log=False
            )).serve()
        finally:
            await server.stop(grace=None)

    asyncio.run(serve_both())


# ---------------------------------------------------------------------------
# Client side (the recorder process)
# ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class ServerProc:
    def __init__(self, conf: dict[str, Any], log_path: str) -> None:
        self.conf = conf
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.log_path, 'a', encoding='utf-8')  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), 'serve', json.dumps(self.conf)],
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        log.close()

    async def wait_ready(self, timeout: float = 20.0) -> None:
        import httpx

        url = f'http://127.0.0.1:{self.conf["port"]}/.well-known/agent-card.json'
        deadline = time.monotonic() + timeout
        async with httpx.AsyncClient() as c:
            while time.monotonic() < deadline:
                if self.proc and self.proc.poll() is not None:
                    raise RuntimeError(f'server exited: see {self.log_path}')
                try:
                    r = await c.get(url, timeout=0.5)
                    if r.status_code == 200:
                        return
                except Exception:  # noqa: BLE001
                    pass
                await asyncio.sleep(0.05)
        raise RuntimeError('server did not become ready')

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)  # by PID, the child we started
            self.proc.wait()


def make_tee_transport():  # noqa: ANN201
    import httpx

    class TeeStream(httpx.AsyncByteStream):
        def __init__(self, inner: Any, sink: bytearray) -> None:
            self._inner = inner
            self._sink = sink

        async def __aiter__(self):  # noqa: ANN204
            async for chunk in self._inner:
                self._sink.extend(chunk)
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    class TeeTransport(httpx.AsyncBaseTransport):
        """Records the exact bytes of every JSON-RPC exchange."""

        def __init__(self) -> None:
            self._inner = httpx.AsyncHTTPTransport()
            self.exchanges: list[dict[str, Any]] = []

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            method = None
            try:
                body = json.loads(request.content or b'{}')
                method = body.get('method') if isinstance(body, dict) else None
            except Exception:  # noqa: BLE001
                body = None
            ex: dict[str, Any] = {
                'method': method,
                'request': body,
                'raw': bytearray(),
                't': time.monotonic(),
            }
            self.exchanges.append(ex)
            resp = await self._inner.handle_async_request(request)
            ex['status'] = resp.status_code
            ex['content_type'] = resp.headers.get('content-type', '')
            return httpx.Response(
                status_code=resp.status_code,
                headers=resp.headers,
                stream=TeeStream(resp.stream, ex['raw']),
                extensions=resp.extensions,
                request=request,
            )

        async def aclose(self) -> None:
            await self._inner.aclose()

    return TeeTransport()


def parse_sse(raw: bytes) -> list[dict[str, Any]]:
    """W3C SSE parse of the raw bytes: returns [{'event':..,'data':obj|str}]."""
    out: list[dict[str, Any]] = []
    text = raw.decode('utf-8', errors='replace').replace('\r\n', '\n')
    event, data = 'message', []
    for line in text.split('\n'):
        if line == '':
            if data:
                payload = '\n'.join(data)
                try:
                    obj: Any = json.loads(payload)
                except json.JSONDecodeError:
                    obj = payload
                out.append({'event': event, 'data': obj})
            event, data = 'message', []
            continue
        if line.startswith(':'):
            continue
        key, _, val = line.partition(':')
        val = val[1:] if val.startswith(' ') else val
        if key == 'event':
            event = val
        elif key == 'data':
            data.append(val)
    return out


def kind_of(result: dict[str, Any]) -> str:
    for k in ('task', 'statusUpdate', 'artifactUpdate', 'message'):
        if k in result:
            return k
    return 'unknown'


def normalize(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events = []
    terminal_seen = False
    for r in results:
        k = kind_of(r)
        body = r.get(k, {})
        state = None
        if k == 'task':
            state = body.get('status', {}).get('state')
        elif k == 'statusUpdate':
            state = body.get('status', {}).get('state')
        art = body.get('artifact', {}).get('artifactId') if k == 'artifactUpdate' else None
        events.append(
            {
                'kind': k,
                'state': state,
                'artifact_id': art,
                'append': bool(body.get('append', False)) if k == 'artifactUpdate' else False,
                'last_chunk': bool(body.get('lastChunk', False)) if k == 'artifactUpdate' else False,
                'after_terminal': terminal_seen,
            }
        )
        if state in TERMINAL:
            terminal_seen = True
    return events


def task_summary(task: dict[str, Any]) -> dict[str, Any]:
    arts = task.get('artifacts', [])
    return {
        'state': task.get('status', {}).get('state'),
        'artifacts': len(arts),
        'artifact_ids': [a.get('artifactId') for a in arts],
        'parts': sum(len(a.get('parts', [])) for a in arts),
        'history': len(task.get('history', [])),
    }


def rpc_error_of(ex: dict[str, Any]) -> dict[str, Any] | None:
    try:
        obj = json.loads(bytes(ex['raw']))
    except Exception:  # noqa: BLE001
        return None
    if isinstance(obj, dict) and isinstance(obj.get('error'), dict):
        return obj['error']
    return None


def last_exchange(tee: Any, method: str) -> dict[str, Any] | None:
    for ex in reversed(tee.exchanges):
        if ex['method'] == method:
            return ex
    return None


def follow_up(state: str | None) -> dict[str, Any] | None:
    """The client's follow-up to an interrupted task: the text and metadata of the message
    that answers AUTH_REQUIRED or INPUT_REQUIRED; None for any other state. Shared by every
    driver (record, captures, subscribe.py, push.py)."""
    if state in ('TASK_STATE_AUTH_REQUIRED', 'auth-required'):
        return {'text': 'Signed in (authz:7).', 'metadata': {'authorizationReceipt': 'authz:7'}}
    if state in ('TASK_STATE_INPUT_REQUIRED', 'input-required'):
        return {'text': 'Home, please.', 'metadata': None}
    return None


def v03_message(message_id: str, task_id: str | None = None, context_id: str | None = None,
                text: str = USER_TEXT, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A user message on the A2A 0.3 wire (the raw client of captures, subscribe.py, push.py)."""
    msg: dict[str, Any] = {'kind': 'message', 'messageId': message_id, 'role': 'user',
                           'parts': [{'kind': 'text', 'text': text}]}
    if task_id:
        msg['taskId'] = task_id
    if context_id:
        msg['contextId'] = context_id
    if metadata:
        msg['metadata'] = metadata
    return msg


def side_records(side: list[dict[str, Any]], t0_wall: float, drop: tuple[str, ...] = ('t', 'pid')) -> list[dict[str, Any]]:
    """The side channel as a fixture keeps it: `ms` relative to the client's send."""
    return [{k: v for k, v in r.items() if k not in drop} | {'ms': round((r['t'] - t0_wall) * 1000)} for r in side]


def server_log_lines(log_path: str) -> list[str]:
    """The server's WARNING/ERROR/CRITICAL lines (ids masked), as subscribe.py and push.py keep them."""
    log = Path(log_path).read_text(encoding='utf-8', errors='replace') if Path(log_path).exists() else ''
    return [_UUID.sub('<id>', line) for line in log.splitlines()
            if line.split(' ', 1)[0] in ('WARNING', 'ERROR', 'CRITICAL')]


class Run:
    """One recorded run of one scenario."""

    def __init__(self, query: str, cfg: dict[str, str], workdir: Path, watchdog_s: float) -> None:
        self.query = query
        self.cfg = cfg
        self.workdir = workdir
        self.watchdog_s = watchdog_s
        self.side_path = str(workdir / 'side.jsonl')
        self.db_path = str(workdir / 'tasks.sqlite')
        self.log_path = str(workdir / 'server.log')
        self.port = free_port()
        self.notes: list[str] = []
        self.shape: dict[str, str] = dict(SHAPE_DEFAULTS)  # progress / result (subscribe.py sets them)
        self.server: ServerProc | None = None
        self.task_id: str | None = None
        self.context_id: str | None = None
        self.t0 = 0.0

    def server_conf(self) -> dict[str, Any]:
        return {
            'scenario': self.cfg,
            'step_ms': RECORD_STEP_MS,
            'side': self.side_path,
            'db': self.db_path,
            'port': self.port,
        }

    async def start_server(self) -> None:
        self.server = ServerProc(self.server_conf(), self.log_path)
        self.server.start()
        await self.server.wait_ready()

    async def wait_side(self, pred, timeout: float) -> dict[str, Any] | None:  # noqa: ANN001
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for rec in read_side(self.side_path):
                if pred(rec):
                    return rec
            await asyncio.sleep(0.005)
        return None

    async def watched(self, fn) -> tuple[str, BaseException | None]:  # noqa: ANN001
        """Runs a reading coroutine under the recorder's watchdog: still open `watchdog_s` after the
        executor went quiet (its last side-channel record) = 'hung'. Returns (end, exception):
        fn's own end or 'closed', and what it raised. Shared by every driver."""
        task = asyncio.ensure_future(fn())
        start = time.monotonic()
        while not task.done():
            await asyncio.wait({task}, timeout=0.05)
            recs = read_side(self.side_path)
            last = max([r['t'] for r in recs], default=time.time())
            if not task.done() and time.time() - last > self.watchdog_s and time.monotonic() - start > self.watchdog_s:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
                return 'hung', None
        try:
            return task.result() or 'closed', None
        except Exception as e:  # noqa: BLE001
            return 'closed', e

    def start_faults(self, cancel: Any, cancel_info: dict[str, Any],
                     restart_info: dict[str, Any]) -> tuple[list[asyncio.Future], asyncio.Future | None]:
        """Starts the scenario's `cancel=k` (`cancel(task_id)` returns what the cancel got, kept in
        cancel_info) and `restart=k` (restart_after_chunk) beside the client's calls. Returns the
        side tasks and the restart's own."""
        async def do_cancel(k: int) -> None:
            if not await self.trigger_after_chunk(k):
                cancel_info['result'] = 'not_sent'
                return
            cancel_info.update(await cancel(self.task_id or self.task_id_from_side()))

        side_tasks: list[asyncio.Future] = []
        if self.cfg['cancel'] != 'none':
            side_tasks.append(asyncio.ensure_future(do_cancel(int(self.cfg['cancel']))))
        restart_task = None
        if self.cfg['restart'] != 'none':
            restart_task = asyncio.ensure_future(self.restart_after_chunk(int(self.cfg['restart']), restart_info))
            side_tasks.append(restart_task)
        return side_tasks, restart_task

    async def restart_after_chunk(self, k: int, info: dict[str, Any]) -> None:
        """restart=k: SIGKILLs the server half a step after chunk k and starts a fresh one on the
        same port over the same store; `info` gets killed_at_ms, back_at_ms, done."""
        if not await self.trigger_after_chunk(k):
            info['done'] = False
            return
        self.server.kill()
        info['killed_at_ms'] = round((time.monotonic() - self.t0) * 1000)
        self.server = ServerProc(self.server_conf(), self.log_path)
        self.server.start()
        await self.server.wait_ready()
        info['back_at_ms'] = round((time.monotonic() - self.t0) * 1000)
        info['done'] = True

    async def trigger_after_chunk(self, k: int) -> bool:
        """Waits until chunk k was enqueued (k=0: WORKING), then half a step."""
        if k == 0:
            rec = await self.wait_side(lambda r: r['ev'] == 'execute_start', 10)
            if rec:
                # WORKING follows execute_start immediately; the first step is running.
                await asyncio.sleep(0.005)
        elif self.shape.get('result') == 'last':
            # result=last sends no chunk while working: the only artifact event is the
            # whole result right before the ending, so cancel=k / restart=k (k >= 1) wait
            # for it (a moment "timed from the first artifact" lands after the work)
            rec = await self.wait_side(lambda r: r['ev'] == 'enqueued_result', 10)
        else:
            rec = await self.wait_side(
                lambda r: r['ev'] == 'enqueued_chunk' and r['i'] == k, 10
            )
        if rec is None:
            return False
        await asyncio.sleep(RECORD_STEP_MS / 2000.0)
        return True

    def task_id_from_side(self) -> str | None:
        for rec in read_side(self.side_path):
            if rec['ev'] == 'execute_start':
                return rec['task_id']
        return None

    async def get_task(self, client: Any, tee: Any, task_id: str | None) -> tuple[Any, Any]:
        from a2a.types.a2a_pb2 import GetTaskRequest

        if not task_id:
            return {'error': 'no task id known'}, None
        try:
            await asyncio.wait_for(client.get_task(GetTaskRequest(id=task_id)), 5)
        except Exception as e:  # noqa: BLE001
            ex = last_exchange(tee, 'GetTask')
            err = rpc_error_of(ex) if ex else None
            if err is not None and err.get('code') == -32001:
                # TaskNotFoundError: the task is gone
                return 'lost', {'error': err}
            if err is not None:
                return {'error': err.get('message'), 'code': err.get('code')}, {'error': err}
            return {'error': f'{type(e).__name__}: {e}', 'code': None}, None
        ex = last_exchange(tee, 'GetTask')
        obj = json.loads(bytes(ex['raw']))
        return task_summary(obj['result']), obj['result']

    async def cancel_task(self, client: Any, tee: Any, task_id: str) -> dict[str, Any]:
        from a2a.types.a2a_pb2 import CancelTaskRequest

        t = time.monotonic() - self.t0
        out: dict[str, Any] = {'sent_at_ms': round(t * 1000)}
        try:
            await asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=task_id)), 10)
            ex = last_exchange(tee, 'CancelTask')
            res = json.loads(bytes(ex['raw']))['result']
            st = res.get('status', {}).get('state')
            out.update(result='canceled' if st == 'TASK_STATE_CANCELED' else 'returned',
                       returned_state=st, code=None, message=None, wire=res)
        except TimeoutError:
            out.update(result='hung', code=None, message='CancelTask did not answer in 10 s')
        except Exception as e:  # noqa: BLE001
            ex = last_exchange(tee, 'CancelTask')
            err = rpc_error_of(ex) if ex else None
            code = err.get('code') if err else None
            out.update(
                result='not_cancelable' if code == -32002 else 'error',
                code=code,
                message=(err or {}).get('message', str(e)),
                exception=type(e).__name__,
                wire_error=err,
            )
        out['answered_at_ms'] = round((time.monotonic() - self.t0) * 1000)
        return out

    def make_request(self, message_id: str, task_id: str | None = None,
                     context_id: str | None = None, text: str = USER_TEXT,
                     metadata: dict[str, Any] | None = None):  # noqa: ANN201
        from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

        msg = Message(
            message_id=message_id,
            role=Role.ROLE_USER,
            parts=[Part(text=text)],
        )
        if task_id:
            msg.task_id = task_id
        if context_id:
            msg.context_id = context_id
        if metadata:
            msg.metadata.update(metadata)
        return SendMessageRequest(message=msg)

    async def consume(self, client: Any, req: Any, ctx: Any, stop_after_chunk: int | None = None) -> dict[str, Any]:
        """Runs one SendMessage / SendStreamingMessage call under the watchdog."""
        from a2a.client import A2AClientTimeoutError

        outcome: dict[str, Any] = {'end': None, 'error': None, 'count': 0}

        async def body() -> None:
            gen = client.send_message(req, context=ctx)
            try:
                async for resp in gen:
                    outcome['count'] += 1
                    if resp.HasField('task'):
                        self.task_id = self.task_id or resp.task.id
                        self.context_id = self.context_id or resp.task.context_id
                    if stop_after_chunk is not None and resp.HasField('artifact_update'):
                        # the client drops the connection after this chunk
                        outcome['end'] = 'dropped_by_client'
                        break
            finally:
                await gen.aclose()

        # The watchdog counts from when the executor goes quiet (its last side
        # channel record), so slow steps are never mistaken for a hang.
        end, error = await self.watched(body)
        if end == 'hung':
            outcome['end'] = 'hung'
            return outcome
        if error is None:
            if outcome['end'] is None:
                outcome['end'] = 'closed' if self.cfg['client'] == 'stream' else 'returned'
        elif isinstance(error, A2AClientTimeoutError):
            outcome['end'] = 'timed_out'
            outcome['error'] = f'{type(error).__name__}: {error}'
        else:
            outcome['end'] = 'closed' if self.cfg['client'] == 'stream' else 'returned'
            outcome['error'] = f'{type(error).__name__}: {error}'
        return outcome

    async def join_side_tasks(self, tasks: Any, timeout_s: float) -> None:
        """Waits for each side task (cancel, resubscribe, ...); one that fails or hangs is a note.
        Also used by subscribe.SubRun and push.PushRun."""
        for t in tasks:
            try:
                await asyncio.wait_for(t, timeout_s)
            except Exception as e:  # noqa: BLE001
                self.notes.append(f'side task failed: {e!r}')

    @staticmethod
    async def settle(cfg: dict[str, str]) -> None:
        """Sleeps until the executor's own end: its steps and a late artifact, plus a margin."""
        n = int(cfg['chunks'])
        late = 0 if cfg['late'] == 'off' else int(cfg['late'])
        await asyncio.sleep(max(0.6, (n * RECORD_STEP_MS + late) / 1000.0 + 0.4))

    async def execute(self) -> dict[str, Any]:  # noqa: PLR0912, PLR0915
        import httpx

        from a2a.client import ClientCallContext, ClientConfig, ClientFactory

        cfg = self.cfg
        await self.start_server()
        tee = make_tee_transport()
        # Same defaults as the client the SDK's factory builds for itself
        # (httpx.AsyncClient() -> 5 s timeouts); only the transport is teed.
        http = httpx.AsyncClient(transport=tee)
        factory = ClientFactory(
            ClientConfig(streaming=cfg['client'] == 'stream', httpx_client=http)
        )
        from a2a.client.card_resolver import A2ACardResolver

        card = await A2ACardResolver(http, f'http://127.0.0.1:{self.port}').get_agent_card()
        client = factory.create(card)
        timeout = None if cfg['timeout_ms'] == 'none' else int(cfg['timeout_ms']) / 1000.0
        ctx = ClientCallContext(timeout=timeout) if timeout is not None else None

        message_id = f'msg-{uuid.uuid4()}'
        req = self.make_request(message_id)
        self.t0 = time.monotonic()
        self.t0_wall = time.time()
        cancel_info: dict[str, Any] = {}
        restart_info: dict[str, Any] = {}
        attempts: list[dict[str, Any]] = []
        side_tasks, restart_task = self.start_faults(
            lambda tid: self.cancel_task(client, tee, tid), cancel_info, restart_info)
        if timeout is not None:
            self.notes.append(
                f'timeout_ms={cfg["timeout_ms"]} is ClientCallContext(timeout={timeout}), which the SDK '
                'turns into httpx.Timeout: an inactivity (per-read) timeout, not a deadline for the whole call'
            )

        n_ex_before = 0
        if cfg['retry'] == 'on':
            # attempt 1: the connection drops after chunk 1; the client then
            # re-sends the very same submission (same messageId).
            first = await self.consume(client, req, ctx, stop_after_chunk=1)
            attempts.append({'task_id': self.task_id, 'end': first['end'], 'exchange': len(tee.exchanges) - 1})
            first_task_id = self.task_id
            self.task_id = None
            req2 = self.make_request(message_id)
            outcome = await self.consume(client, req2, ctx)
            attempts.append({'task_id': self.task_id, 'end': outcome['end'], 'exchange': len(tee.exchanges) - 1})
            self.notes.append(
                'retry: attempt 1 dropped by the client after chunk 1, then the identical '
                f'request (same messageId {message_id}) was sent again'
            )
            n_ex_before = attempts[0]['exchange']
        elif cfg['interrupt'] != 'none':
            outcome = await self.consume(client, req, ctx)
            attempts.append({'task_id': self.task_id, 'end': outcome['end'], 'exchange': len(tee.exchanges) - 1})
            n_ex_before = attempts[0]['exchange']
            for _round in range(3):
                got = await self.get_task(client, tee, self.task_id)
                st = got[0]['state'] if isinstance(got[0], dict) else None
                answer = follow_up(st)
                if answer is None:
                    break
                follow = self.make_request(f'msg-{uuid.uuid4()}', self.task_id, self.context_id, **answer)
                outcome = await self.consume(client, follow, ctx)
                attempts.append({'task_id': self.task_id, 'end': outcome['end'],
                                 'exchange': len(tee.exchanges) - 1, 'resumed_from': st})
        else:
            outcome = await self.consume(client, req, ctx)
            n_ex_before = None
        call_end_ms = round((time.monotonic() - self.t0) * 1000)

        if self.task_id is None:
            self.task_id = self.task_id_from_side()
        if restart_task is not None:
            # GetTask "right after" means: as soon as the fresh server answers
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(restart_task), 30)
        get_after, _ = await self.get_task(client, tee, self.task_id)

        # let every actor finish (late artifacts, threads still stepping, ...)
        await self.join_side_tasks(side_tasks, 15)
        await self.settle(cfg)
        get_settled, settled_wire = await self.get_task(client, tee, self.task_id)

        # --- wire: the exact results the client received -----------------
        send_methods = ('SendStreamingMessage', 'SendMessage')
        sends = [ex for ex in tee.exchanges if ex['method'] in send_methods]
        wire: list[dict[str, Any]] = []
        sse_errors: list[Any] = []
        sse_raw = None
        for ex in sends:
            raw = bytes(ex['raw'])
            if 'text/event-stream' in ex.get('content_type', ''):
                sse_raw = (sse_raw or '') + raw.decode('utf-8', errors='replace')
                for ev in parse_sse(raw):
                    d = ev['data']
                    if isinstance(d, dict) and 'result' in d:
                        wire.append(d['result'])
                    else:
                        sse_errors.append({'event': ev['event'], 'data': d})
            else:
                try:
                    obj = json.loads(raw)
                    if 'result' in obj:
                        wire.append(obj['result'])
                    else:
                        sse_errors.append({'event': None, 'data': obj})
                except Exception:  # noqa: BLE001
                    if raw:
                        sse_errors.append({'event': None, 'data': raw.decode('utf-8', 'replace')})
        events = normalize(wire)

        side = read_side(self.side_path)
        executions = sum(1 for r in side if r['ev'] == 'execute_start')
        done_steps = sorted({r['i'] for r in side if r['ev'] == 'work_done'})
        enqueued = sorted({r['i'] for r in side if r['ev'] == 'enqueued_chunk'})
        # a step whose work finished but whose chunk never reached the client
        # or the store is orphaned
        delivered_texts = set()
        for r in wire:
            body = r.get('artifactUpdate')
            if body:
                for p in body.get('artifact', {}).get('parts', []):
                    delivered_texts.add(p.get('text'))
            t = r.get('task')
            if t:
                for a in t.get('artifacts', []):
                    for p in a.get('parts', []):
                        delivered_texts.add(p.get('text'))
        if settled_wire:
            for a in settled_wire.get('artifacts', []):
                for p in a.get('parts', []):
                    delivered_texts.add(p.get('text'))
        n = int(cfg['chunks'])
        orphaned = [i for i in done_steps if step_text(i, n) not in delivered_texts]
        if cfg['restart'] != 'none':
            # with a restart, steps done before the kill that were never
            # delivered died with the process: report them as lost, not orphaned
            lost = orphaned
            orphaned = []
            if lost:
                self.notes.append(f'steps lost with the killed process: {lost}')

        is_stream = cfg['client'] == 'stream'
        run: dict[str, Any] = {
            'events': events,
            'wire': wire,
            'stream': outcome['end'] if is_stream else None,
            'call': outcome['end'] if not is_stream else None,
            'end_error': outcome['error'],
            'blocking_result_artifacts': None,
            'blocking_result_state': None,
            'blocking_result_parts': None,
            'get_task_after': get_after,
            'get_task_settled': get_settled,
            'get_task_settled_wire': settled_wire,
            'cancel_result': None,
            'cancel_error_code': None,
            'cancel': None,
            'orphaned_steps': len(orphaned),
            'orphaned_step_numbers': orphaned,
            'executions': executions,
            'steps_done': done_steps,
            'chunks_enqueued': enqueued,
            'call_end_ms': call_end_ms,
        }
        if not is_stream:
            tasks = [r['task'] for r in wire if 'task' in r]
            if tasks:
                run['blocking_result_artifacts'] = len(tasks[-1].get('artifacts', []))
                run['blocking_result_state'] = tasks[-1].get('status', {}).get('state')
                run['blocking_result_parts'] = parts_of(tasks[-1])
        if cancel_info:
            run['cancel_result'] = cancel_info.get('result')
            run['cancel_error_code'] = cancel_info.get('code')
            run['cancel'] = cancel_info
        if restart_info:
            run['restart'] = restart_info
        if sse_errors:
            run['wire_errors'] = sse_errors
        if attempts:
            for a in attempts:
                a.pop('exchange', None)
            run['attempts'] = attempts
            ids = []
            for a in attempts:
                if a['task_id'] and a['task_id'] not in ids:
                    ids.append(a['task_id'])
            run['distinct_tasks'] = len(ids)
            if cfg['retry'] == 'on' and attempts and attempts[0]['task_id']:
                first_after, _ = await self.get_task(client, tee, attempts[0]['task_id'])
                run['first_attempt_task_settled'] = first_after
        if cfg['interrupt'] != 'none':
            resumes = [r for r in side if r['ev'] == 'resume']
            run['resumed'] = bool(resumes)
            run['resumes'] = [{'from_state': r['from_state'], 'receipt': r.get('receipt')} for r in resumes]
            run['states'] = [e['state'] for e in events if e['state']]
        run['side_channel'] = side_records(side, self.t0_wall)
        log = Path(self.log_path).read_text(encoding='utf-8', errors='replace') if Path(self.log_path).exists() else ''
        interesting = [
            re.sub(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<id>', line)
            for line in log.splitlines()
            if re.match(r'^(WARNING|ERROR|CRITICAL)\b', line)
        ]
        run['server_log'] = interesting[:30]
        run['notes'] = '; '.join(self.notes)
        run['_sse_raw'] = sse_raw
        run['_n_exchanges'] = n_ex_before

        with contextlib.suppress(Exception):
            await client.close()
        with contextlib.suppress(Exception):
            await http.aclose()
        if self.server:
            self.server.kill()
        return run


def parts_of(task: dict[str, Any]) -> int:
    """Every part of every artifact a task holds: an SDK that applies an appended chunk twice shows it
    here, where an artifact count does not."""
    return sum(len(a.get('parts', [])) for a in task.get('artifacts', []))


STABLE_KEYS = (
    'events', 'stream', 'call', 'blocking_result_artifacts', 'blocking_result_state', 'blocking_result_parts',
    'get_task_after', 'get_task_settled', 'cancel_result', 'cancel_error_code',
    'orphaned_steps', 'executions', 'distinct_tasks', 'resumed', 'states',
)


def outcome_key(run: dict[str, Any]) -> str:
    o = {}
    for k in STABLE_KEYS:
        v = run.get(k)
        if k.startswith('get_task') and isinstance(v, dict):
            v = {kk: v[kk] for kk in ('state', 'artifacts')}
        o[k] = v
    return json.dumps(o, sort_keys=True)


def describe_outcome(run: dict[str, Any]) -> str:
    ev = run['events']
    seq = ', '.join(
        (e['kind'] + ('(' + e['state'].removeprefix('TASK_STATE_') + ')' if e['state'] else '')
         + ('[' + e['artifact_id'] + (' +append' if e['append'] else '') + (' +last' if e['last_chunk'] else '') + ']' if e['artifact_id'] else '')
         + (' !after-terminal' if e['after_terminal'] else ''))
        for e in ev
    )
    return f'{len(ev)} events: {seq}'


async def execute_runs(query: str, runs: int, prefix: str, make_run: Any) -> list[dict[str, Any]]:
    """`make_run(dir).execute()` `runs` times, each in a fresh temporary directory (`prefix`).

    A run that raises kills its server and fails the recording with the tail of the
    server's log. Shared by record_scenario, subscribe.py and push.py.
    """
    results = []
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix=prefix) as d:
            run = make_run(Path(d))
            try:
                results.append(await run.execute())
            except Exception as e:  # noqa: BLE001
                if run.server:
                    run.server.kill()
                log = Path(run.log_path).read_text(errors='replace') if Path(run.log_path).exists() else ''
                raise RuntimeError(f'{query} run {i + 1} failed: {e!r}\n{traceback.format_exc()}\n{log[-3000:]}') from e
    return results


async def record_scenario(query: str, runs: int, watchdog_s: float) -> dict[str, Any]:
    cfg = parse_scenario(query)
    results = await execute_runs(query, runs, 'a2a-fidelity-', lambda d: Run(query, cfg, d, watchdog_s))
    keys = [outcome_key(r) for r in results]
    stable = all(k == keys[0] for k in keys)
    # keep the raw SSE text of the first run only (for the lab's `check` of raw logs)
    for j, r in enumerate(results):
        raw = r.pop('_sse_raw', None)
        r.pop('_n_exchanges', None)
        if j == 0 and raw is not None:
            r['sse_raw'] = raw
    return {
        'sdk': f'a2a-sdk {SDK_VERSION}',
        'python': platform.python_version(),
        'scenario': query,
        'inputs': {k: cfg[k] for k in KEY_ORDER},
        'step_ms': RECORD_STEP_MS,
        'watchdog_ms': round(watchdog_s * 1000),
        'stable': stable,
        'summary': describe_outcome(results[0]),
        'runs': results,
    }


def sdk_versions() -> dict[str, str]:
    from importlib.metadata import version

    out = {}
    for pkg in ('a2a-sdk', 'uvicorn', 'starlette', 'sse-starlette', 'httpx', 'protobuf', 'sqlalchemy', 'aiosqlite'):
        with contextlib.suppress(Exception):
            out[pkg] = version(pkg)
    return out


async def record(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    queries = args.only or MATRIX
    for q in queries:
        parse_scenario(q)  # fail fast on a typo
    index_path = out / 'index.json'
    index: dict[str, Any] = {}
    if args.only and index_path.exists():
        index = json.loads(index_path.read_text())
    entries = {e['scenario']: e for e in index.get('scenarios', [])}
    probe_entries = {e['name']: e for e in index.get('probes', [])}
    started = time.monotonic()
    for q in queries:
        t = time.monotonic()
        fx = await record_scenario(q, args.runs, args.watchdog)
        name = file_stem(q) + '.json'
        (out / name).write_text(json.dumps(fx, indent=1) + '\n', encoding='utf-8')
        entries[q] = {'scenario': q, 'file': name, 'stable': fx['stable'], 'summary': fx['summary']}
        print(f'[{time.monotonic() - t:5.1f}s] {q}: stable={fx["stable"]} {fx["summary"]}', flush=True)
    if args.probes and not args.only:
        (out / 'probes').mkdir(exist_ok=True)
        for p in PROBES:
            t = time.monotonic()
            fx = await record_scenario(p['scenario'], 1, p['watchdog_s'])
            fx['probe'] = p['name']
            fx['about'] = p['about']
            name = f'probes/{p["name"]}.json'
            (out / name).write_text(json.dumps(fx, indent=1) + '\n', encoding='utf-8')
            r = fx['runs'][0]
            probe_entries[p['name']] = {
                'name': p['name'], 'scenario': p['scenario'], 'file': name,
                'about': p['about'], 'stream': r['stream'], 'call': r['call'],
                'end_error': r['end_error'], 'call_end_ms': r['call_end_ms'],
            }
            print(f'[{time.monotonic() - t:5.1f}s] probe {p["name"]}: {r["stream"] or r["call"]} at {r["call_end_ms"]} ms ({r["end_error"]})', flush=True)
    order = {q: i for i, q in enumerate(MATRIX)}
    index = {
        'sdk': f'a2a-sdk {SDK_VERSION}',
        'python': platform.python_version(),
        'packages': sdk_versions(),
        'handler': 'a2a.server.request_handlers.DefaultRequestHandler (= DefaultRequestHandlerV2 in 1.3.0)',
        'transport': 'JSON-RPC over HTTP (SSE for streaming), uvicorn on 127.0.0.1, SDK ClientFactory client',
        'step_ms': RECORD_STEP_MS,
        'watchdog_ms': round(args.watchdog * 1000),
        'runs_per_scenario': args.runs,
        'defaults': DEFAULTS,
        'scenarios': sorted(entries.values(), key=lambda e: order.get(e['scenario'], 1_000)),
        'probes': list(probe_entries.values()),
    }
    index_path.write_text(json.dumps(index, indent=1) + '\n', encoding='utf-8')
    print(f'recorded {len(queries)} scenarios in {time.monotonic() - started:.0f}s -> {out}')
    return 0


# ---------------------------------------------------------------------------
# Captures (recorder.py captures): raw bodies as a user captures them
# ---------------------------------------------------------------------------
#
# Not fixtures of the lab's scenarios but raw traffic for the capture reader
# (SPEC section 8): the exact response bodies of real SDK servers, on the A2A 1.0
# wire (the SDK's own client, bodies recorded by the teeing transport) and on the
# A2A 0.3 wire (the SDK's 0.3 compatibility mode, create_jsonrpc_routes(...,
# enable_v0_3_compat=True), driven by a raw httpx client with 0.3 method names
# and no A2A-Version header). Bodies are written exactly as sent.

CAPTURE_SCENARIOS = ['defaults', 'late=0', 'ending=return', 'ending=fail', 'cancel=1',
                     'interrupt=auth', 'chunks=10']
CAPTURE_OUT = HERE.parent / 'captures' / 'python'
V03_KIND = {'task': 'task', 'status-update': 'statusUpdate',
            'artifact-update': 'artifactUpdate', 'message': 'message'}
V03_TERMINAL = {'completed', 'failed', 'canceled', 'rejected'}
V03_INTERRUPTED = {'input-required', 'auth-required'}


def capture_event(result: Any) -> dict[str, Any]:
    """One wire event (1.0 or 0.3) as {kind, state, artifact_id, append, last_chunk, final}."""
    if not isinstance(result, dict):
        return {'kind': 'unknown'}
    if isinstance(result.get('kind'), str):  # A2A 0.3: flat, tagged by kind
        body, kind = result, V03_KIND.get(result['kind'], 'unknown')
    else:
        kind = kind_of(result)
        body = result.get(kind, {})
    ev: dict[str, Any] = {'kind': kind}
    if kind in ('task', 'statusUpdate'):
        ev['state'] = body.get('status', {}).get('state')
        if 'final' in body:
            ev['final'] = body['final']
    if kind == 'task':
        ev['artifacts'] = len(body.get('artifacts', []))
        ev['parts'] = sum(len(a.get('parts', [])) for a in body.get('artifacts', []))
    if kind == 'artifactUpdate':
        ev['artifact_id'] = body.get('artifact', {}).get('artifactId')
        ev['append'] = bool(body.get('append', False))
        ev['last_chunk'] = bool(body.get('lastChunk', False))
        ev['parts'] = [p.get('text') for p in body.get('artifact', {}).get('parts', [])]
    return ev


def is_terminal(state: str | None) -> bool:
    return state in TERMINAL or state in V03_TERMINAL


def observe_body(raw: bytes, content_type: str) -> dict[str, Any]:
    """What a reader sees in one body: events, final state, terminal end, errors."""
    items: list[Any] = []
    if 'text/event-stream' in content_type:
        items = [ev['data'] for ev in parse_sse(raw)]
    else:
        with contextlib.suppress(Exception):
            items = [json.loads(raw)]
    events, errors = [], []
    for it in items:
        if isinstance(it, dict) and 'result' in it:
            events.append(capture_event(it['result']))
        elif isinstance(it, dict) and 'error' in it:
            errors.append({'code': it['error'].get('code'), 'message': it['error'].get('message')})
        else:
            errors.append({'code': None, 'message': f'not a JSON-RPC response: {str(it)[:80]}'})
    states = [e.get('state') for e in events if e.get('state')]
    last_status = next((e for e in reversed(events) if e['kind'] in ('task', 'statusUpdate')), None)
    return {
        'events': len(events),
        'kinds': [e['kind'] for e in events],
        'states': states,
        'final_state': states[-1] if states else None,
        'ended_with_terminal_status': bool(events) and events[-1]['kind'] in ('task', 'statusUpdate')
        and is_terminal(events[-1].get('state')),
        'terminal_seen': any(is_terminal(s) for s in states),
        'final_flags': [e['final'] for e in events if 'final' in e],
        'first_event': events[0] if events else None,
        'artifact_parts': [p for e in events if e['kind'] == 'artifactUpdate' for p in e['parts']],
        'events_detail': events,
        'errors': errors,
        'error_code': errors[0]['code'] if errors else None,
        'last_status_state': last_status.get('state') if last_status else None,
    }


_UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
_TS = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?')


def masked(raw: bytes) -> str:
    """The body with uuids and timestamps masked, to see what else differs run to run."""
    t = raw.decode('utf-8', 'replace')
    return _TS.sub('<ts>', _UUID.sub('<id>', t))


class CaptureRun(Run):
    """One server (fresh per capture) and one client session on one wire."""

    def __init__(self, query: str, workdir: Path, wire: str) -> None:
        super().__init__(query, parse_scenario(query), workdir, WATCHDOG_S)
        self.wire = wire
        self.rpc_id = 0

    def server_conf(self) -> dict[str, Any]:
        conf = super().server_conf()
        conf['v03_compat'] = self.wire == '0.3'
        return conf

    @property
    def url(self) -> str:
        return f'http://127.0.0.1:{self.port}/'

    async def watched_text(self, coro_fn) -> tuple[str, str | None]:  # noqa: ANN001
        """Run.watched with the exception as text, as the capture index keeps it."""
        end, error = await self.watched(coro_fn)
        return end, (f'{type(error).__name__}: {error}' if error is not None else None)

    # --- A2A 0.3: raw JSON-RPC over httpx, no A2A-Version header -----------
    def v03_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.rpc_id += 1
        return {'jsonrpc': '2.0', 'id': self.rpc_id, 'method': method, 'params': params}

    @staticmethod
    def v03_message(task_id: str | None = None, context_id: str | None = None,
                    text: str = USER_TEXT, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        return v03_message(f'msg-{uuid.uuid4()}', task_id, context_id, text, metadata)

    async def v03_stream(self, http: Any, body: dict[str, Any], drop_after_artifact: bool = False) -> dict[str, Any]:
        rec: dict[str, Any] = {'method': body['method'], 'raw': bytearray(), 'content_type': '', 'status': None}

        async def read() -> str | None:
            async with http.stream('POST', self.url, json=body,
                                   headers={'Accept': 'text/event-stream'}) as resp:
                rec['status'] = resp.status_code
                rec['content_type'] = resp.headers.get('content-type', '')
                async for chunk in resp.aiter_raw():
                    rec['raw'].extend(chunk)
                    for ev in parse_sse(bytes(rec['raw'])):
                        d = ev['data']
                        if isinstance(d, dict) and isinstance(d.get('result'), dict):
                            r = d['result']
                            if r.get('kind') == 'task' and not self.task_id:
                                self.task_id, self.context_id = r['id'], r.get('contextId')
                            if drop_after_artifact and r.get('kind') == 'artifact-update':
                                return 'dropped_by_client'  # leaving the block closes the connection
            return None

        rec['end'], rec['error'] = await self.watched_text(read)
        return rec

    async def v03_call(self, http: Any, body: dict[str, Any]) -> dict[str, Any]:
        resp = await http.post(self.url, json=body, timeout=10)
        return {'method': body['method'], 'raw': bytearray(resp.content), 'status': resp.status_code,
                'content_type': resp.headers.get('content-type', ''), 'end': 'returned', 'error': None}

    # --- A2A 1.0: the SDK client, bodies from the teeing transport ---------
    async def sdk_stream(self, client: Any, tee: Any, agen_fn, drop_after_artifact: bool = False) -> dict[str, Any]:  # noqa: ANN001
        n_before = len(tee.exchanges)

        async def read() -> str | None:
            gen = agen_fn()
            try:
                async for resp in gen:
                    if resp.HasField('task') and not self.task_id:
                        self.task_id, self.context_id = resp.task.id, resp.task.context_id
                    if drop_after_artifact and resp.HasField('artifact_update'):
                        return 'dropped_by_client'
            finally:
                await gen.aclose()
            return None

        end, error = await self.watched_text(read)
        ex = tee.exchanges[n_before] if len(tee.exchanges) > n_before else {'method': None, 'raw': bytearray(), 'content_type': '', 'status': None}
        return {'method': ex['method'], 'raw': ex['raw'], 'content_type': ex.get('content_type', ''),
                'status': ex.get('status'), 'end': end, 'error': error}

    async def session(self, kind: str) -> list[dict[str, Any]]:  # noqa: PLR0912, PLR0915
        """kind: stream (the scenario), resubscribe, cancel-finished. Returns the bodies in order."""
        import httpx

        from a2a.client import ClientConfig, ClientFactory
        from a2a.client.card_resolver import A2ACardResolver
        from a2a.types.a2a_pb2 import CancelTaskRequest, SubscribeToTaskRequest

        await self.start_server()
        self.t0, self.t0_wall = time.monotonic(), time.time()
        bodies: list[dict[str, Any]] = []
        cancel_info: dict[str, Any] = {}
        try:
            if self.wire == '1.0':
                tee = make_tee_transport()
                http = httpx.AsyncClient(transport=tee)
                card = await A2ACardResolver(http, self.url.rstrip('/')).get_agent_card()
                client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)

                def send(req):  # noqa: ANN001, ANN202
                    return lambda: client.send_message(req)

                async def cancel(tid: str) -> dict[str, Any]:
                    n = len(tee.exchanges)
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=tid)), 10)
                    ex = tee.exchanges[n]
                    return {'method': ex['method'], 'raw': ex['raw'], 'status': ex.get('status'),
                            'content_type': ex.get('content_type', ''), 'end': 'returned', 'error': None}

                first = self.make_request(f'msg-{uuid.uuid4()}')
                stream = lambda req, drop=False: self.sdk_stream(client, tee, send(req), drop)  # noqa: E731
                subscribe = lambda tid: self.sdk_stream(  # noqa: E731
                    client, tee, lambda: client.subscribe(SubscribeToTaskRequest(id=tid)))
                resume = lambda: self.make_request(  # noqa: E731
                    f'msg-{uuid.uuid4()}', self.task_id, self.context_id, **follow_up('TASK_STATE_AUTH_REQUIRED'))
            else:
                http = httpx.AsyncClient(timeout=httpx.Timeout(5.0, read=None))
                client = None

                async def cancel(tid: str) -> dict[str, Any]:
                    return await self.v03_call(http, self.v03_request('tasks/cancel', {'id': tid}))

                first = self.v03_request('message/stream', {'message': self.v03_message()})
                stream = lambda req, drop=False: self.v03_stream(http, req, drop)  # noqa: E731
                subscribe = lambda tid: self.v03_stream(  # noqa: E731
                    http, self.v03_request('tasks/resubscribe', {'id': tid}))
                resume = lambda: self.v03_request('message/stream', {'message': self.v03_message(  # noqa: E731
                    self.task_id, self.context_id, **follow_up('TASK_STATE_AUTH_REQUIRED'))})

            side: list[asyncio.Future] = []
            if kind == 'stream' and self.cfg['cancel'] != 'none':
                async def do_cancel(k: int) -> None:
                    if await self.trigger_after_chunk(k):
                        r = await cancel(self.task_id or self.task_id_from_side())
                        cancel_info.update(observe_body(bytes(r['raw']), r['content_type']))
                        cancel_info['raw'] = bytes(r['raw']).decode('utf-8', 'replace')
                side.append(asyncio.ensure_future(do_cancel(int(self.cfg['cancel']))))

            if kind == 'stream':
                b = await stream(first)
                b['role'] = 'stream'
                bodies.append(b)
                if self.cfg['interrupt'] != 'none':
                    obs = observe_body(bytes(b['raw']), b['content_type'])
                    if obs['last_status_state'] in ('TASK_STATE_AUTH_REQUIRED', 'auth-required'):
                        b2 = await stream(resume())
                        b2['role'] = 'resumed'
                        bodies.append(b2)
            elif kind == 'resubscribe':
                b = await stream(first, True)
                b['role'] = 'dropped'
                bodies.append(b)
                b2 = await subscribe(self.task_id)
                b2['role'] = 'resubscribed'
                bodies.append(b2)
            elif kind == 'cancel-finished':
                b = await stream(first)
                await asyncio.sleep(0.3)
                b2 = await cancel(self.task_id)
                b2['role'] = 'error'
                b2['stream_before'] = observe_body(bytes(b['raw']), b['content_type'])
                bodies.append(b2)
            for t in side:
                await asyncio.wait_for(t, 15)
            for b in bodies:
                b['cancel'] = cancel_info or None
            with contextlib.suppress(Exception):
                if client is not None:
                    await client.close()
            with contextlib.suppress(Exception):
                await http.aclose()
        finally:
            if self.server:
                self.server.kill()
        return bodies


def capture_items() -> list[tuple[str, str, str]]:
    items = []
    for wire in ('1.0', '0.3'):
        items += [(wire, 'stream', q) for q in CAPTURE_SCENARIOS]
        items += [(wire, 'resubscribe', 'defaults'), (wire, 'cancel-finished', 'defaults')]
    return items


def capture_name(wire: str, kind: str, query: str, role: str, n_bodies: int, i: int) -> str:
    if kind == 'resubscribe':
        return f'v{wire}_resubscribe-{role}.sse'
    if kind == 'cancel-finished':
        return f'v{wire}_cancel-finished-task.json'
    stem = 'defaults' if query == 'defaults' else file_stem(query)
    if n_bodies > 1:
        return f'v{wire}_{stem}.turn-{i + 1}.sse'
    return f'v{wire}_{stem}.sse'


def summarize_obs(obs: dict[str, Any]) -> dict[str, Any]:
    keep = ('events', 'kinds', 'states', 'final_state', 'ended_with_terminal_status', 'final_flags', 'errors')
    return {k: obs[k] for k in keep}


async def captures(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wires = args.wire or ['1.0', '0.3']
    entries: list[dict[str, Any]] = []
    started = time.monotonic()
    for wire, kind, query in [it for it in capture_items() if it[0] in wires]:
        runs = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix='a2a-capture-') as d:
                runs.append(await CaptureRun(query, Path(d), wire).session(kind))
        first = runs[0]
        for i, b in enumerate(first):
            name = capture_name(wire, kind, query, b['role'], len(first), i)
            raw = bytes(b['raw'])
            (out / name).write_bytes(raw)
            obs = observe_body(raw, b['content_type'])
            per_run = []
            for r in runs:
                rb = r[i] if i < len(r) else None
                if rb is None:
                    per_run.append(None)
                    continue
                o = observe_body(bytes(rb['raw']), rb['content_type'])
                per_run.append({'end': rb['end'], **summarize_obs(o), 'masked': masked(bytes(rb['raw']))})
            def obs_key(p: dict[str, Any]) -> str:  # error messages may name the task
                return _UUID.sub('<id>', json.dumps({k: v for k, v in p.items() if k != 'masked'}, sort_keys=True))
            same_obs = all(p and obs_key(p) == obs_key(per_run[0]) for p in per_run)
            same_masked = all(p and p['masked'] == per_run[0]['masked'] for p in per_run)
            same_bytes = all(i < len(r) and bytes(r[i]['raw']) == raw for r in runs)
            entry: dict[str, Any] = {
                'file': name,
                'sdk': f'a2a-sdk {SDK_VERSION}',
                'wire': wire,
                'scenario': query,
                'kind': {'stream': 'stream', 'resumed': 'stream', 'dropped': 'dropped',
                         'resubscribed': 'resubscribed', 'error': 'error'}[b['role']],
                'request_method': b['method'],
                'http_status': b['status'],
                'content_type': b['content_type'],
                'bytes': len(raw),
                'observed': {
                    'end': b['end'],
                    'end_error': b['error'],
                    **summarize_obs(obs),
                    'last_status_state': obs['last_status_state'],
                    'error_code': obs['error_code'],
                    'first_event': obs['first_event'],
                    'artifact_parts': obs['artifact_parts'],
                },
                'runs': args.runs,
                'stable_observation': same_obs,
                'stable_bytes_masked': same_masked,
                'identical_bytes': same_bytes,
            }
            if not same_obs:
                entry['observations_per_run'] = [{k: v for k, v in p.items() if k != 'masked'} if p else None
                                                 for p in per_run]
            if b.get('cancel'):
                c = b['cancel']
                answer: Any = None
                with contextlib.suppress(Exception):
                    answer = json.loads(c['raw']).get('result', {}).get('status', {}).get('state')
                entry['cancel_during_stream'] = {'answer_state': answer, 'error_code': c['error_code'],
                                                 'errors': c['errors'], 'raw': c['raw']}
            if b.get('stream_before'):
                entry['stream_before'] = summarize_obs(b['stream_before'])
            if len(first) > 1 and kind == 'stream':
                entry['session'] = f'v{wire}_{file_stem(query)}: turn {i + 1} of {len(first)} (read the turns in order as one capture)'
            if kind == 'resubscribe':
                entry['session'] = f'v{wire}_resubscribe: read -dropped then -resubscribed as one capture'
            entries.append(entry)
            print(f'[{time.monotonic() - started:6.1f}s] {name}: {obs["events"]} events, final {obs["final_state"]}, '
                  f'end {b["end"]}, errors {[e["code"] for e in obs["errors"]]}, stable={same_obs}, '
                  f'masked-bytes-stable={same_masked}', flush=True)
    index_path = out / 'index.json'
    index = {
        'sdk': f'a2a-sdk {SDK_VERSION}',
        'python': platform.python_version(),
        'packages': sdk_versions(),
        'step_ms': RECORD_STEP_MS,
        'watchdog_ms': round(WATCHDOG_S * 1000),
        'wire_1.0': 'the SDK ClientFactory client (JSON-RPC, streaming; sends A2A-Version: 1.0); bodies recorded byte for byte by its teeing transport',
        'wire_0.3': 'create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=True); a raw httpx client sends 0.3 method names (message/stream, tasks/resubscribe, tasks/cancel) without an A2A-Version header',
        'files': entries,
    }
    index_path.write_text(json.dumps(index, indent=1) + '\n', encoding='utf-8')
    print(f'{len(entries)} captures in {time.monotonic() - started:.0f}s -> {out}')
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    rec = sub.add_parser('record', help='record the fixtures')
    rec.add_argument('--runs', type=int, default=3)
    rec.add_argument('--only', action='append', help='record only this scenario (repeatable)')
    rec.add_argument('--out', default=str(DEFAULT_OUT))
    rec.add_argument('--watchdog', type=float, default=WATCHDOG_S)
    rec.add_argument('--probes', dest='probes', action='store_true', default=True)
    rec.add_argument('--no-probes', dest='probes', action='store_false')
    srv = sub.add_parser('serve', help='internal: run the A2A server child')
    srv.add_argument('config')
    cap = sub.add_parser('captures', help='record raw capture bodies (tests/fidelity/captures/python/)')
    cap.add_argument('--runs', type=int, default=2)
    cap.add_argument('--out', default=str(CAPTURE_OUT))
    cap.add_argument('--wire', action='append', choices=['1.0', '0.3'], help='only this wire (repeatable)')
    # subscribe.py and push.py: the same flags, each its own matrix and fixture folder
    for cmd, about in (('subscribe', 'record the resubscribe / second_client / wire=0.3 fixtures '
                                     '(tests/fidelity/fixtures/python/subscribe/, see subscribe.py)'),
                       ('push', 'record the push notification fixtures '
                                '(tests/fidelity/fixtures/python/push/, see push.py)')):
        mx = sub.add_parser(cmd, help=about)
        mx.add_argument('--runs', type=int, default=3)
        mx.add_argument('--only', action='append', help='record only this scenario (repeatable; merges into index.json)')
        mx.add_argument('--out', default=None)
        mx.add_argument('--list', action='store_true', help='print the matrix and exit')
    lst = sub.add_parser('list', help='print the scenario matrix')
    del lst
    args = ap.parse_args()
    if args.cmd == 'serve':
        serve(args.config)
        return 0
    if args.cmd == 'list':
        print('\n'.join(MATRIX))
        return 0
    if args.cmd == 'captures':
        return asyncio.run(captures(args))
    if args.cmd in ('subscribe', 'push'):
        import importlib  # noqa: PLC0415

        mod = importlib.import_module(args.cmd)  # subscribe.py / push.py (they import this file as `recorder`)
        if args.list:
            print('\n'.join(mod.MATRIX))
            return 0
        args.out = args.out or str(mod.SUB_OUT if args.cmd == 'subscribe' else mod.PUSH_OUT)
        return asyncio.run(mod.record(args))
    return asyncio.run(record(args))


if __name__ == '__main__':
    sys.exit(main())
