"""The google-adk agent: a stub BaseAgent (no model, no API key, no network) served by
google-adk's own `to_a2a` (google.adk.a2a.utils.agent_to_a2a) with uvicorn on 127.0.0.1.

    adk_agent.py '{"port": N, "step_ms": 150}'      (started by stacks/launch.py)

Why a stub and not an LlmAgent: an LlmAgent needs a model and a key; what reaches the
wire is decided by ADK's A2aAgentExecutor and a2a-sdk's request handler, which see only
the ADK events, so a BaseAgent that yields the events an LLM agent would is served alike.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

# ADK warns on every A2A call that its A2A layer is experimental; keep the log readable.
os.environ.setdefault('ADK_SUPPRESS_A2A_EXPERIMENTAL_FEATURE_WARNINGS', '1')

import uvicorn  # noqa: E402

from google.adk.a2a.utils.agent_to_a2a import to_a2a  # noqa: E402
from google.adk.agents import BaseAgent  # noqa: E402
from google.adk.events import Event  # noqa: E402
from google.genai import types  # noqa: E402

CONF = json.loads(sys.argv[1])
STEP_S = CONF.get('step_ms', 150) / 1000
# What an LLM agent with a tool says while it works, then its answer: every ADK event
# with content becomes a WORKING status update carrying that text.
PROGRESS = ['Looking up BBS-1042', 'Checking the carrier']
ANSWER = 'BBS-1042 is out for delivery'


class OrderStatusAgent(BaseAgent):
    async def _run_async_impl(self, ctx):  # noqa: ANN001, ANN202
        for i, text in enumerate([*PROGRESS, ANSWER]):
            if i:
                await asyncio.sleep(STEP_S)
            yield Event(
                author=self.name,
                invocation_id=ctx.invocation_id,
                content=types.Content(role='model', parts=[types.Part(text=text)]),
            )


agent = OrderStatusAgent(name='order_status', description='Belgavi Book Store order status (a stub ADK agent, no model)')
# host/port only make the card's URL; uvicorn binds 127.0.0.1 itself.
app = to_a2a(agent, host='127.0.0.1', port=CONF['port'])

if __name__ == '__main__':
    uvicorn.run(app, host='127.0.0.1', port=CONF['port'], log_level='warning')
