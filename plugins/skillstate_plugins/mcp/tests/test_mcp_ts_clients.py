"""Clients written for the TypeScript skill-state MCP server, over the real SDK client on stdio.

That server (Derzkiyboomchik/skill-state-mcp-server) checks states with a dialect of
its own (``{"properties": {"attempts": "number"}}``, ``{"id": "string"}``), and lets a
closed session's id be initialized again; its demo client relies on both. The
inputs below are the shapes its demo and its own tests send.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from .support import stdio_client_for, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert isinstance(data, dict)
    return data


async def init(client: Client, session: str, state: Any, schema: Any, spec: str = "P") -> Any:
    args = {"session_id": session, "skill_specification": spec, "initial_state": state}
    if schema is not None:
        args["state_schema"] = schema
    return await client.call_tool("initialize_skill", args)


async def step(client: Client, session: str, obs: str, patch: Any) -> dict[str, Any]:
    return payload(
        await client.call_tool(
            "execute_step",
            {
                "session_id": session,
                "reasoning_trace": "r",
                "state_update": patch,
                "action": "go",
                "environment_observation": obs,
            },
        )
    )


def obs_of(data: dict[str, Any]) -> str:
    return str(data["prompt_payload"]["latest_observation"])


async def test_the_demo_client_s_properties_schema_is_enforced(tmp_path: Path) -> None:
    """``{"properties": {"attempts": "number"}}`` was refused as an invalid JSON Schema."""
    schema = {"required": ["ticket_id", "attempts"], "properties": {"attempts": "number"}}
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path) as client:
        boot = payload(await init(client, "demo", {"ticket_id": "TCK-1", "attempts": 1}, schema))
        bad = await step(client, "demo", obs_of(boot), {"attempts": "invalid"})
        assert bad["step"] == 0 and bad["meta"]["rolled_back"] is True
        assert bad["meta"]["action_status"] == "failed"
        assert bad["prompt_payload"]["current_state"] == {"ticket_id": "TCK-1", "attempts": 1}
        assert obs_of(bad) == (
            '[STATE SCHEMA VIOLATION] State field "attempts" has type "string", expected '
            '"number". State Σ_0 remains unchanged (rollback-retry).'
        )
        missing = await step(client, "demo", obs_of(bad), {"ticket_id": None})  # null: missing
        assert missing["step"] == 0
        assert 'Missing required state field "ticket_id"' in obs_of(missing)
        good = await step(client, "demo", obs_of(missing), {"attempts": 2, "note": "any key"})
        assert good["step"] == 1
        assert good["prompt_payload"]["current_state"] == {
            "ticket_id": "TCK-1",
            "attempts": 2,
            "note": "any key",
        }
        got = payload(await client.call_tool("get_session", {"session_id": "demo"}))
        assert got["metadata"]["stateSchema"] == schema  # kept as given


async def test_required_types_and_no_other_fields(tmp_path: Path) -> None:
    """The TypeScript server's own state test: its schema and its four states."""
    schema = {
        "required": ["id", "count"],
        "properties": {"id": "string", "count": "number", "active": "boolean"},
        "additionalProperties": False,
    }
    cases = [
        ({"id": "abc", "count": 10, "active": True}, None),
        ({"count": 10}, 'Missing required state field "id"'),
        ({"id": "abc", "count": "ten"}, 'State field "count" has type "string", expected "number"'),
        ({"id": "abc", "count": 10, "extra": 123}, 'Unexpected state field "extra" not allowed'),
        ({"id": "abc", "count": 10, "active": None}, None),  # a null property is not checked
    ]
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path) as client:
        for n, (state, error) in enumerate(cases):
            result = await init(client, f"s{n}", state, schema)
            if error is None:
                assert payload(result)["prompt_payload"]["current_state"] == state
            else:
                assert result.is_error
                assert text_of(result).startswith(f"Initial state violates state_schema: {error}")


async def test_a_type_dictionary_is_enforced(tmp_path: Path) -> None:
    """``{"id": "string"}`` was accepted as an empty JSON Schema and enforced nothing."""
    schema = {"id": "string", "tags": "array", "note": "string?"}
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path) as client:
        refused = await init(client, "t0", {"tags": []}, schema)
        assert text_of(refused) == (
            'Initial state violates state_schema: Missing required state field "id"'
        )
        boot = payload(await init(client, "t1", {"id": "a", "tags": []}, schema))
        bad = await step(client, "t1", obs_of(boot), {"note": 5, "tags": {"x": 1}})
        assert bad["step"] == 0
        assert bad["meta"]["warning"] == (
            'State schema violation: State field "tags" has type "object", expected "array"; '
            'State field "note" has type "number", expected "string"'
        )
        good = await step(client, "t1", obs_of(bad), {"note": "ok", "more": 1})
        assert good["step"] == 1
        # a real JSON Schema keeps its meaning: {"type": "object"} demands no field "type"
        plain = await init(client, "j1", {"n": 1}, {"type": "object"})
        assert payload(plain)["prompt_payload"]["current_state"] == {"n": 1}
        typed = {"type": "object", "properties": {"n": {"type": "integer"}}}
        boot = payload(await init(client, "j2", {"n": 1}, typed))
        assert "n: 1.5 is not of type 'integer'" in obs_of(
            await step(client, "j2", obs_of(boot), {"n": 1.5})
        )


async def test_a_bad_schema_names_the_same_property_in_every_process(tmp_path: Path) -> None:
    """The refusal used to name whichever bad property the hash seed put first."""
    schemas = [
        {"properties": {"a": {"type": "strin"}, "b": {"type": "numbr"}}},
        {"properties": {"b": "integer", "a": "strin"}},
        {"id": "int", "name": "str"},
    ]
    texts: set[str] = set()
    for seed in ("0", "2"):  # two seeds that named different properties before
        store = f"file:{tmp_path / 'store'}"
        env = {"PYTHONHASHSEED": seed}
        async with stdio_client_for(store, tmp_path, env=env) as client:
            answers = [text_of(await init(client, "x", {}, s)) for s in schemas]
        texts.add(json.dumps(answers))
    assert len(texts) == 1, texts
    answers = json.loads(texts.pop())
    assert answers[1] == (
        'state_schema: property "a" names the type "strin", which is not one of any, array, '
        "boolean, number, object, string"
    )
    assert answers[2].startswith('state_schema: field "id" names the type "int"')


async def test_a_closed_session_s_id_can_be_used_again(tmp_path: Path) -> None:
    """The TypeScript server's demo initializes the same id on its second run; the
    closed run is archived whole, never lost."""
    store = f"file:{tmp_path / 'store'}"
    async with stdio_client_for(store, tmp_path) as client:
        boot = payload(await init(client, "demo-1", {"n": 0}, None))
        first = await step(client, "demo-1", obs_of(boot), {"n": 1})
        closed = payload(await client.call_tool("close_session", {"session_id": "demo-1"}))
        assert closed["final_state"] == {"n": 1} and closed["final_step"] == 1
        # a second initialize that its own checks refuse changes nothing
        refused = await init(client, "demo-1", {"n": "x"}, {"n": "number"})
        assert refused.is_error
        assert "previous" not in text_of(refused)
        listed = payload(await client.call_tool("list_sessions", {"include_closed": True}))
        assert [s["session_id"] for s in listed["sessions"]] == ["demo-1"]
        again = payload(await init(client, "demo-1", {"n": 100}, None, spec="P, second run"))
        assert again["meta"]["step"] == 0 and again["meta"]["status"] == "active"
        assert again["meta"]["previous_session_archived_as"] == "demo-1.closed-1"
        assert again["prompt_payload"]["current_state"] == {"n": 100}
        nxt = await step(client, "demo-1", obs_of(again), {"n": 101})
        assert nxt["step"] == 1
    async with stdio_client_for(store, tmp_path) as client:  # a new process: all kept
        old = payload(await client.call_tool("get_session", {"session_id": "demo-1.closed-1"}))
        assert old["skill_spec"] == "P" and old["execution_state"] == {"n": 1}
        assert old["metadata"]["status"] == "closed" and old["metadata"]["stepCount"] == 1
        assert old["metadata"]["lastObservation"] == obs_of(first)
        history = payload(
            await client.call_tool("session_history", {"session_id": "demo-1.closed-1"})
        )
        assert [i["label"] for i in history["items"]] == [
            "initialize_skill",
            "execute_step",
            "close_session",
        ]
        new = payload(await client.call_tool("get_session", {"session_id": "demo-1"}))
        assert new["skill_spec"] == "P, second run" and new["execution_state"] == {"n": 101}
        await client.call_tool("close_session", {"session_id": "demo-1"})
        third = payload(await init(client, "demo-1", {}, None))
        assert third["meta"]["previous_session_archived_as"] == "demo-1.closed-2"
        # an active session's id is still refused
        taken = await init(client, "demo-1", {}, None)
        assert taken.is_error and "already exists" in text_of(taken)
