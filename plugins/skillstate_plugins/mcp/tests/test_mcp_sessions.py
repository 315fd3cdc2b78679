"""The MCP server through a real client over real transports.

Every scenario runs three ways — stdio with the fast transport, stdio with the SDK's
own transport (the two must be indistinguishable), and Streamable HTTP on 127.0.0.1 —
each against a fresh ``skillstate mcp`` subprocess with its own store.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from .support import http_client, start_http, stdio_client_for, text_of

pytestmark = pytest.mark.anyio

SECRET = "SECRET-TEST-REASONING-XYZ-987"
KINDS = ["stdio-fast", "stdio-sdk", "http"]

REFERENCE_REQUIRED = {
    "initialize_skill": {"session_id", "skill_specification"},
    "execute_step": {
        "session_id",
        "reasoning_trace",
        "state_update",
        "action",
        "environment_observation",
    },
    "inject_observation": {"session_id", "observation"},
    "parse_turn_response": {"response_text"},
    "close_session": {"session_id"},
}
REFERENCE_OPTIONAL = {
    "initialize_skill": {"initial_state", "state_schema", "environment"},
    "inject_observation": {"state_patch"},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


Connect = Callable[[], Any]


@pytest.fixture(params=KINDS)
def connect(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A factory of connected clients to ONE server (a fresh process per stdio connection)."""
    kind: str = request.param
    store = f"file:{tmp_path / 'store'}"
    servers: list[Any] = []

    @asynccontextmanager
    async def open_client() -> AsyncIterator[Client]:
        if kind == "http":
            if not servers:
                servers.append(start_http(store, tmp_path))
            client = http_client(servers[0].url)
        else:
            client = stdio_client_for(store, tmp_path, kind.removeprefix("stdio-"))
        async with client as connected:
            yield connected

    yield open_client
    for server in servers:
        server.stop()


def payload(result: Any) -> dict[str, Any]:
    """The structured content of a successful call, checked against its text block."""
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert isinstance(data, dict)
    assert text_of(result) == json.dumps(data, indent=2, ensure_ascii=False)
    return data


def error_text(result: Any) -> str:
    assert result.is_error, result
    assert result.structured_content is None
    return text_of(result)


async def step(
    client: Client, session: str, obs: str, patch: Any, action: Any, reasoning: str = "r"
) -> dict[str, Any]:
    return payload(
        await client.call_tool(
            "execute_step",
            {
                "session_id": session,
                "reasoning_trace": reasoning,
                "state_update": patch,
                "action": action,
                "environment_observation": obs,
            },
        )
    )


async def test_the_session_id_rule_is_in_every_tool_s_input_schema(connect: Connect) -> None:
    """A client validating arguments against ``inputSchema`` (draft 2020-12, ECMA
    patterns) refuses exactly the ids the server refuses; the schema said only
    ``minLength: 1`` before."""
    import jsonschema

    good = ("a", "abc-18", "A.b_c-1", "a" * 80)
    bad = ("", "-x", ".x", "a/b", "../escape", "a..b", "a" * 81, "sp ace", "é")
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        with_ids = [
            (name, key)
            for name, tool in tools.items()
            for key in ("session_id", "new_session_id")
            if key in tool.input_schema["properties"]
        ]
        assert ("execute_step", "session_id") in with_ids and (
            "fork_session",
            "new_session_id",
        ) in with_ids
        for name, key in with_ids:
            rule = tools[name].input_schema["properties"][key]
            for value in good:
                jsonschema.validate(value, rule)
            for value in bad:
                with pytest.raises(jsonschema.ValidationError):
                    jsonschema.validate(value, rule)
        for value in bad[1:]:  # and the server refuses each, with its own message
            done = await client.call_tool("close_session", {"session_id": value})
            assert done.is_error, value


async def test_surface_and_full_mock_session(connect: Connect) -> None:
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(REFERENCE_REQUIRED) | {"get_session", "list_sessions"} <= set(tools)
        assert {"skills_list", "skill_view", "skill_read"} <= set(tools)
        assert "skill_manage" not in tools  # only with --allow-skill-writes
        for name, required in REFERENCE_REQUIRED.items():
            schema = tools[name].input_schema
            # initialize_skill: skill_specification or (ours) skill_name, checked by the server
            ours = required - {"skill_specification"} if name == "initialize_skill" else required
            assert set(schema["required"]) == ours, name
            assert required | REFERENCE_OPTIONAL.get(name, set()) <= set(schema["properties"])
        for tool in tools.values():
            assert tool.input_schema["additionalProperties"] is False, tool.name
            assert tool.description
        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        assert resources == ["skill-state://sessions"]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == [
            "skill-state://{session_id}",
            "skill-state://{session_id}/history",
            "skill-state://{session_id}/history/{after}",
        ]
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(prompts) == {"skill_state_turn", "skill_state_paper_turn"}

        init = payload(
            await client.call_tool(
                "initialize_skill",
                {
                    "session_id": "test-session-1",
                    "skill_specification": "Do step A then B",
                    "initial_state": {"step": 0, "items": ["apple"]},
                },
            )
        )
        assert list(init) == ["session_id", "environment", "prompt_payload", "meta"]
        assert init["environment"] == "mock"
        assert init["meta"] == {"step": 0, "status": "active", "reasoning_retained": False}
        obs = init["prompt_payload"]["latest_observation"]
        assert obs == (
            'Session "test-session-1" initialized (step 0). Awaiting the first execute_step call.'
        )

        done = await step(
            client, "test-session-1", obs, {"step": 1, "items": ["banana"]}, "pick", SECRET
        )
        assert list(done) == ["session_id", "step", "prompt_payload", "meta"]
        assert done["step"] == done["meta"]["step"] == 1
        assert done["meta"]["action_status"] == "ok"
        assert done["meta"]["rolled_back"] is False
        assert "warning" not in done["meta"]
        assert done["prompt_payload"]["current_state"] == {"step": 1, "items": ["banana"]}
        assert done["prompt_payload"]["latest_observation"] == (
            '[MOCK ENV · step 1] Generic action executed successfully: "pick". No side effects. (mock)'
        )
        assert SECRET not in json.dumps(done)

        injected = payload(
            await client.call_tool(
                "inject_observation",
                {
                    "session_id": "test-session-1",
                    "observation": "External alert: Shipment arrived",
                    "state_patch": {"alarm": True},
                },
            )
        )
        assert list(injected) == ["session_id", "prompt_payload", "meta"]
        assert injected["meta"]["step"] == 1
        assert injected["prompt_payload"]["current_state"]["alarm"] is True

        parsed = payload(
            await client.call_tool(
                "parse_turn_response",
                {
                    "response_text": "Think.\n```json\n"
                    '{"state_patch": {"alarm": null, "step": 2}, "action": "reset-alarm"}\n```'
                },
            )
        )
        assert parsed["state_update"] == {"alarm": None, "step": 2}
        assert parsed["action"] == "reset-alarm"
        assert parsed["reasoning_trace"] == "Think."

        second = await step(
            client,
            "test-session-1",
            "External alert: Shipment arrived",
            parsed["state_update"],
            parsed["action"],
        )
        assert second["prompt_payload"]["current_state"] == {"step": 2, "items": ["banana"]}
        assert "warning" not in second["meta"]
        drifted = await step(client, "test-session-1", "not what was issued", {}, "look")
        assert "possible context drift" in drifted["meta"]["warning"]
        assert drifted["step"] == 3

        read = await client.read_resource("skill-state://test-session-1")
        inspected = json.loads(read.contents[0].text)
        assert inspected["execution_state"] == {"step": 2, "items": ["banana"]}
        assert inspected["metadata"]["stepCount"] == 3
        assert SECRET not in read.contents[0].text
        index = json.loads((await client.read_resource("skill-state://sessions")).contents[0].text)
        assert [s["session_id"] for s in index["sessions"]] == ["test-session-1"]

        paper = await client.get_prompt("skill_state_paper_turn", {"session_id": "test-session-1"})
        text = paper.messages[0].content.text
        for part in ("Instructions:", "Skill Execution State:", "Provide your response with:"):
            assert part in text
        assert '{"step":2,"items":["banana"]}' in text
        assert SECRET not in text
        turn = await client.get_prompt("skill_state_turn", {"session_id": "test-session-1"})
        assert "## Σ_3 — Current Execution State (step 3, status: active)" in (
            turn.messages[0].content.text
        )

        listed = payload(await client.call_tool("list_sessions", {}))
        assert listed["active_sessions"] == 1
        got = payload(await client.call_tool("get_session", {"session_id": "test-session-1"}))
        assert got["metadata"]["stepCount"] == 3

        closed = payload(await client.call_tool("close_session", {"session_id": "test-session-1"}))
        assert closed == {
            "session_id": "test-session-1",
            "closed": True,
            "final_step": 3,
            "final_state": {"step": 2, "items": ["banana"]},
        }
        refused = await client.call_tool(
            "execute_step",
            {
                "session_id": "test-session-1",
                "reasoning_trace": "",
                "state_update": {},
                "action": "go",
                "environment_observation": "",
            },
        )
        assert "is closed" in error_text(refused)
        with pytest.raises(MCPError, match="Unknown session"):
            await client.read_resource("skill-state://nope")


async def test_warehouse_session_with_collision_rollback(connect: Connect) -> None:
    async with connect() as client:
        init = payload(
            await client.call_tool(
                "initialize_skill",
                {
                    "session_id": "wh-1",
                    "skill_specification": "Keep the inventory in Σ.",
                    "initial_state": {"inv": {}},
                    "environment": "warehouse",
                },
            )
        )
        assert init["environment"] == "warehouse"
        obs = init["prompt_payload"]["latest_observation"]
        first = await step(
            client, "wh-1", obs, {"inv": {"shelf_10": "item_A"}}, "Store item_A shelf_10"
        )
        assert first["step"] == 1
        assert first["prompt_payload"]["latest_observation"] == (
            '[WAREHOUSE · step 1] Success: Stored "item_A" on shelf_10.'
        )
        obs = first["prompt_payload"]["latest_observation"]
        clash = await step(
            client, "wh-1", obs, {"inv": {"shelf_10": "item_B"}}, "Store item_B shelf_10"
        )
        assert clash["step"] == 1
        assert clash["meta"]["action_status"] == "failed"
        assert clash["meta"]["rolled_back"] is True
        assert clash["meta"]["rejection"] == "environment"
        assert clash["meta"]["warning"] == (
            "Action was rejected by environment; state patch rolled back."
        )
        assert clash["prompt_payload"]["current_state"] == {"inv": {"shelf_10": "item_A"}}
        assert clash["prompt_payload"]["latest_observation"] == (
            '[WAREHOUSE · step 2] REJECTED: Shelf "shelf_10" is already occupied by "item_A". '
            'Cannot store "item_B". State transition rejected.'
        )
        obs = clash["prompt_payload"]["latest_observation"]
        shipped = await step(
            client, "wh-1", obs, {"inv": {"shelf_10": None}}, "Ship item_A shelf_10"
        )
        assert shipped["step"] == 2
        assert shipped["prompt_payload"]["current_state"] == {"inv": {}}
        assert "warning" not in shipped["meta"]


async def test_bad_arguments_are_tool_errors(connect: Connect) -> None:
    async with connect() as client:
        init = payload(
            await client.call_tool(
                "initialize_skill", {"session_id": "s1", "skill_specification": "spec"}
            )
        )
        obs = init["prompt_payload"]["latest_observation"]
        good = {
            "session_id": "s1",
            "reasoning_trace": "",
            "state_update": {"a": 1},
            "action": "go",
            "environment_observation": obs,
        }

        async def call(name: str, args: dict[str, Any]) -> str:
            return error_text(await client.call_tool(name, args))

        missing = {k: v for k, v in good.items() if k != "action"}
        assert 'missing required argument "action"' in await call("execute_step", missing)
        extra = await call("execute_step", {**good, "state_patch": {}})
        assert 'unknown argument "state_patch"' in extra
        assert "accepted: session_id, reasoning_trace" in extra
        assert "state_update must be a JSON object, got an array" in await call(
            "execute_step", {**good, "state_update": [1]}
        )
        assert "action must be a non-empty string" in await call(
            "execute_step", {**good, "action": 42}
        )
        assert "not JSON text of an object" in await call(
            "execute_step", {**good, "state_update": "{oops"}
        )
        assert "JSON text of an array" in await call(
            "execute_step", {**good, "state_update": "[1, 2]"}
        )
        assert "environment must be one of" in await call(
            "initialize_skill",
            {"session_id": "s2", "skill_specification": "x", "environment": "Mars"},
        )
        assert "session id" in await call("close_session", {"session_id": "../etc"})
        huge = await call("inject_observation", {"session_id": "s1", "observation": "x" * 500_000})
        assert "observation is 500000 bytes, over the" in huge
        deep: dict[str, Any] = {}
        node = deep
        for _ in range(150):
            node["a"] = {}
            node = node["a"]
        assert "nested too deeply" in await call("execute_step", {**good, "state_update": deep})
        assert "Unknown session" in await call("get_session", {"session_id": "nope"})
        # a JSON string holding an object is accepted (clients that double-encode)
        accepted = await step(client, "s1", obs, '{"b": 2}', "go")
        assert accepted["prompt_payload"]["current_state"] == {"b": 2}
        # the rejected calls changed nothing, and the server is still serving
        got = payload(await client.call_tool("get_session", {"session_id": "s1"}))
        assert got["metadata"]["stepCount"] == 1
        assert got["execution_state"] == {"b": 2}


@pytest.mark.parametrize("transport", ["fast", "sdk"])
async def test_restart_mid_session_then_resume(transport: str, tmp_path: Path) -> None:
    store = f"file:{tmp_path / 'store'}"
    async with stdio_client_for(store, tmp_path, transport) as client:
        init = payload(
            await client.call_tool(
                "initialize_skill",
                {"session_id": "long", "skill_specification": "count", "initial_state": {"n": 0}},
            )
        )
        obs = init["prompt_payload"]["latest_observation"]
        for n in (1, 2):
            obs = (await step(client, "long", obs, {"n": n}, "tick"))["prompt_payload"][
                "latest_observation"
            ]
    # the first server process has exited; a new one resumes from the store
    async with stdio_client_for(store, tmp_path, transport) as client:
        got = payload(await client.call_tool("get_session", {"session_id": "long"}))
        assert got["metadata"]["stepCount"] == 2
        assert got["metadata"]["lastObservation"] == obs
        resumed = await step(client, "long", obs, {"n": 3}, "tick")
        assert resumed["step"] == 3
        assert "warning" not in resumed["meta"]  # the echoed observation survived the restart
        assert resumed["prompt_payload"]["current_state"] == {"n": 3}
