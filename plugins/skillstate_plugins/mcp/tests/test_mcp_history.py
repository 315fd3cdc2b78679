"""History over MCP through the real client: get_session at_step, session_history (tool and
paged resource), fork_session, expected_step on execute_step and inject_observation, and the
session cap — over stdio and Streamable HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from .support import http_client, start_http, stdio_client_for, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    store = f"file:{tmp_path / 'store'}"
    servers: list[Any] = []

    @asynccontextmanager
    async def open_client(env: dict[str, str] | None = None) -> AsyncIterator[Client]:
        if request.param == "http":
            servers.append(start_http(store, tmp_path, env=env))
            client = http_client(servers[-1].url)
        else:
            client = stdio_client_for(store, tmp_path, env=env)
        async with client as connected:
            yield connected

    yield open_client
    for server in servers:
        server.stop()


def data(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    return result.structured_content


async def test_history_fork_and_retry_safe_steps(connect: Any) -> None:
    async with connect() as client:
        await client.call_tool(
            "initialize_skill",
            {"session_id": "m1", "skill_specification": "count", "initial_state": {"n": 0}},
        )
        step = {
            "session_id": "m1",
            "reasoning_trace": "SECRET-REASONING",
            "state_update": {"n": 1},
            "action": "go",
            "environment_observation": "",
            "expected_step": 0,
        }
        first = data(await client.call_tool("execute_step", step))
        again = data(await client.call_tool("execute_step", step))
        assert again["meta"].pop("replayed") is True and again == first
        stale = await client.call_tool("execute_step", {**step, "state_update": {"n": 5}})
        assert stale.is_error and "not the expected_step 0" in text_of(stale)
        for bad in ("1", -1, 1.5):
            wrong = await client.call_tool("execute_step", {**step, "expected_step": bad})
            assert wrong.is_error and "expected_step must be a whole number >= 0" in text_of(wrong)
        injected = {"session_id": "m1", "observation": "alert", "expected_step": 1}
        await client.call_tool("inject_observation", injected)
        assert data(await client.call_tool("inject_observation", injected))["meta"]["replayed"]
        await client.call_tool(
            "execute_step", {**step, "state_update": {"n": 2}, "expected_step": 1}
        )

        past = data(await client.call_tool("get_session", {"session_id": "m1", "at_step": 1}))
        assert past["execution_state"] == {"n": 1} and past["metadata"]["atStep"] == 1
        history = data(await client.call_tool("session_history", {"session_id": "m1", "limit": 2}))
        assert [i["version"] for i in history["items"]] == [1, 2] and history["next_after"] == 2
        assert "SECRET-REASONING" not in json.dumps(history)
        resource = await client.read_resource("skill-state://m1/history")
        page = json.loads(resource.contents[0].text)
        assert [i["version"] for i in page["items"]] == [1, 2, 3, 4] and page["next"] is None
        later = await client.read_resource("skill-state://m1/history/3")
        assert [i["version"] for i in json.loads(later.contents[0].text)["items"]] == [4]
        assert "SECRET-REASONING" not in resource.contents[0].text

        fork = data(
            await client.call_tool(
                "fork_session", {"session_id": "m1", "new_session_id": "m2", "at_step": 1}
            )
        )
        assert fork["prompt_payload"]["current_state"] == {"n": 1} and fork["meta"]["step"] == 1
        taken = await client.call_tool("fork_session", {"session_id": "m1", "new_session_id": "m2"})
        assert taken.is_error and "already exists" in text_of(taken)
        journal = [
            e
            for e in (
                await client.call_tool("session_history", {"session_id": "m1"})
            ).structured_content["items"]
        ]
        assert [e["label"] for e in journal].count("execute_step") == 2


async def test_the_session_cap(connect: Any) -> None:
    async with connect({"SKILLSTATE_MAX_ACTIVE_SESSIONS": "1"}) as client:
        await client.call_tool("initialize_skill", {"session_id": "a", "skill_specification": "x"})
        over = await client.call_tool(
            "initialize_skill", {"session_id": "b", "skill_specification": "x"}
        )
        assert over.is_error and "Session limit reached (1 active sessions)" in text_of(over)


async def test_rewind_session_as_for_runs(connect: Any) -> None:
    async with connect({}) as client:
        await client.call_tool(
            "initialize_skill",
            {"session_id": "w", "skill_specification": "x", "initial_state": {"n": 0}},
        )
        for n in (1, 2):
            await client.call_tool(
                "execute_step",
                {
                    "session_id": "w",
                    "reasoning_trace": "r",
                    "state_update": {"n": n},
                    "action": f"go {n}",
                    "environment_observation": "",
                },
            )
        back = data(await client.call_tool("rewind_session", {"session_id": "w", "to_step": 1}))
        assert back["execution_state"] == {"n": 1} and back["rewound_to"] == {
            "step": 1,
            "version": 2,
        }
        assert back["metadata"]["stepCount"] == 2  # a new version; the step does not go back
        history = data(await client.call_tool("session_history", {"session_id": "w"}))
        assert history["items"][-1]["origin"] == {"op": "rewind", "version": 2}
        missing = await client.call_tool("rewind_session", {"session_id": "w", "to_step": 9})
        assert missing.is_error and "has no step 9" in text_of(missing)
        bad = await client.call_tool("rewind_session", {"session_id": "w", "to_step": "1"})
        assert bad.is_error
        await client.call_tool("close_session", {"session_id": "w"})
        closed = await client.call_tool("rewind_session", {"session_id": "w", "to_step": 0})
        assert closed.is_error and "force" in text_of(closed)
        forced = data(
            await client.call_tool(
                "rewind_session", {"session_id": "w", "to_step": 0, "force": True}
            )
        )
        assert forced["execution_state"] == {"n": 0} and forced["metadata"]["status"] == "active"
