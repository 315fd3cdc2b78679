"""The three transports answer alike: random calls, many of them malformed, sent to all.

The client scenarios in ``test_mcp_sessions.py`` run over both stdio transports and
HTTP. This test adds breadth: a seeded series of tool calls goes, through the SDK's
real client, to three servers, each on its own store: stdio ``fast`` (asyncio pipes),
stdio ``sdk`` (the SDK's ``stdio_server``) and Streamable HTTP. The calls draw from
valid and invalid values for every argument (missing, extra, wrong types, JSON text
instead of objects, blank strings, huge integers), and their order makes real
sessions. Every answer must be the same on the three, timestamps aside, none may be an
internal error, and every success's text block must be ``pretty`` of its
``structuredContent``. The series runs in both client modes: the 2026 protocol
(``auto``) and the 2025 handshake (``legacy``).
"""

from __future__ import annotations

import json
import random
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from skillstate.plugin import pretty

from .support import http_client, start_http, stdio_client_for, text_of

pytestmark = pytest.mark.anyio

CHOICES: dict[str, list[Any]] = {
    "session_id": ["s1", "s1", "s2", "", "bad id", None, 5],
    "reasoning_trace": ["", "thinking", None, 3],
    "state_update": [{}, {"a": 1}, {"a": None}, {"n": {"m": [1, None]}}, [], '{"b":2}', "x"],
    "action": ["go", "", "  ", {"type": "noop"}, {"type": "complete"}, 5, [], None],
    "environment_observation": ["", "obs", None, 1],
    "skill_specification": ["P", "", {}, {"goal": 1}, None, 3, '{"x":1}'],
    "initial_state": [{}, {"a": 1.0}, None, [], '{"a":1}', "text"],
    "environment": ["mock", "warehouse", "Mock", None, 3],
    "observation": ["alert", "", None, 5],
    "state_patch": [{}, {"q": 2**70}, None, [], "{}"],
    "response_text": ['```json\n{"state_patch":{},"action":"go"}\n```', "", "no block"],
}
TOOLS: dict[str, list[str]] = {
    "initialize_skill": ["session_id", "skill_specification", "initial_state", "environment"],
    "execute_step": [
        "session_id",
        "reasoning_trace",
        "state_update",
        "action",
        "environment_observation",
    ],
    "inject_observation": ["session_id", "observation", "state_patch"],
    "close_session": ["session_id"],
    "get_session": ["session_id"],
    "parse_turn_response": ["response_text"],
    "list_sessions": [],
}
WEIGHTS = {"initialize_skill": 2, "execute_step": 4, "inject_observation": 1}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _calls(seed: int, count: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    names = [name for name in TOOLS for _ in range(WEIGHTS.get(name, 1))]
    calls = []
    for _ in range(count):
        tool = rng.choice(names)
        args = {key: rng.choice(CHOICES[key]) for key in TOOLS[tool] if rng.random() < 0.9}
        if rng.random() < 0.1:
            args["unexpected"] = 1
        calls.append((tool, args))
    return calls


def _answer(result: Any) -> Any:
    if result.is_error:
        return {"error": text_of(result)}
    assert text_of(result) == pretty(result.structured_content)

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: strip(v)
                for k, v in value.items()
                if k not in ("createdAt", "updatedAt", "created_at", "updated_at")
            }
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(result.structured_content)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_three_servers_answer_random_calls_alike(tmp_path: Path, mode: str) -> None:
    server = start_http(f"file:{tmp_path / 'http'}", tmp_path)
    try:
        async with AsyncExitStack() as stack:
            clients = {
                transport: await stack.enter_async_context(
                    stdio_client_for(f"file:{tmp_path / transport}", tmp_path, transport, mode=mode)
                )
                for transport in ("fast", "sdk")
            }
            clients["http"] = await stack.enter_async_context(http_client(server.url, mode=mode))
            for tool, args in _calls(seed=20261130, count=150 if mode == "auto" else 80):
                answers = {
                    name: _answer(await client.call_tool(tool, args))
                    for name, client in clients.items()
                }
                texts = {json.dumps(a, sort_keys=True) for a in answers.values()}
                assert len(texts) == 1, (tool, args, answers)
                assert "unexpectedly" not in texts.pop(), (tool, args, answers)
    finally:
        server.stop()
