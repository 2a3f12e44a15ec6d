"""The fasta2a agent: pydantic's FastA2A app with its InMemoryBroker and InMemoryStorage and
a Worker of our own that runs the task without any model, served by uvicorn on 127.0.0.1.

    fasta2a_agent.py '{"port": N, "step_ms": 150, "artifact": "last", "skills": "none"}'

artifact  last (default): one whole artifact right before the end, as an LLM agent
          sends its answer; none: no artifact at all (the answer only in the history)
skills    none (default): FastA2A() without `skills`, as its README and
          fasta2a.pydantic_ai.agent_to_a2a leave it (the card says "skills": []);
          one: a skill, for a card that is complete
"""

from __future__ import annotations

import json
import sys
import uuid

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import uvicorn

from fasta2a import FastA2A, Worker
from fasta2a.broker import InMemoryBroker
from fasta2a.schema import Artifact, Message, Part, Skill, TaskIdParams, TaskSendParams
from fasta2a.storage import InMemoryStorage

CONF = json.loads(sys.argv[1])
STEP_S = CONF.get('step_ms', 150) / 1000
PROGRESS = ['Looking up BBS-1042', 'Checking the carrier']
ANSWER = 'BBS-1042 is out for delivery'
ENDED = {'completed', 'canceled', 'failed', 'rejected'}


def agent_message(text: str) -> Message:
    return Message(role='agent', parts=[Part(text=text)], message_id=str(uuid.uuid4()))


class OrderStatusWorker(Worker[list[Message]]):
    """What a worker looks like when written from fasta2a's README: state in storage,
    progress and the result published on the broker's event bus; the library itself
    publishes the final state read back from storage once run_task returns."""

    async def run_task(self, params: TaskSendParams) -> None:
        task_id, ctx = params['id'], params['context_id']
        await self.storage.update_task(task_id, state='working')
        await self.publish_status(task_id, ctx, 'working')
        for text in PROGRESS:
            await anyio.sleep(STEP_S)
            await self.publish_status(task_id, ctx, 'working', agent_message(text))
        await anyio.sleep(STEP_S)
        answer = agent_message(ANSWER)
        artifacts = []
        if CONF.get('artifact', 'last') == 'last':
            artifacts = self.build_artifacts(ANSWER)
            await self.publish_artifact(task_id, ctx, artifacts[0])
        await self.storage.update_task(task_id, state='completed', new_artifacts=artifacts, new_messages=[answer])

    async def cancel_task(self, params: TaskIdParams) -> None:
        # Guarded, as a careful worker would be: never move a finished task. (The
        # InMemoryBroker hands operations to the worker one at a time, so a cancel for a
        # running task only reaches here once its run_task has returned.)
        task = await self.storage.load_task(params['id'])
        if task is not None and task['status']['state'] not in ENDED:
            await self.storage.update_task(params['id'], state='canceled')

    def build_message_history(self, history: list[Message]) -> list[Any]:
        return history

    def build_artifacts(self, result: Any) -> list[Artifact]:
        return [Artifact(artifact_id=str(uuid.uuid4()), name='result', parts=[Part(text=str(result))])]


storage: InMemoryStorage = InMemoryStorage()
broker = InMemoryBroker()
worker = OrderStatusWorker(broker=broker, storage=storage)


@asynccontextmanager
async def lifespan(app: FastA2A) -> AsyncIterator[None]:
    async with app.task_manager, worker.run():
        yield


skills = None
if CONF.get('skills') == 'one':
    skills = [Skill(id='order-status', name='Order status', description='Where an order is', tags=['orders'],
                    input_modes=['text/plain'], output_modes=['text/plain'])]
app = FastA2A(
    storage=storage, broker=broker, lifespan=lifespan,
    name='Belgavi Book Store order status', description='Order status (a fasta2a worker, no model)',
    url=f'http://127.0.0.1:{CONF["port"]}', skills=skills,
    default_input_modes=['text/plain'], default_output_modes=['text/plain'],
)

if __name__ == '__main__':
    uvicorn.run(app, host='127.0.0.1', port=CONF['port'], log_level='warning')
