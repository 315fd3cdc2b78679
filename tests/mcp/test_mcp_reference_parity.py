"""One client script, run against our server and against the Node stand-in for the reference.

The reference TypeScript server is not installable here, so
``benchmarks/reference_standin/server.mjs`` stands in for it: its behavioural
specification implemented on the same SDK (1.30.0) and zod (3.25.76). The issue asks
that a client written for the reference work unchanged against ours; here the SDK's
``Client`` drives both over real stdio subprocesses with the same calls, and every
answer must agree: the same ``structuredContent`` (keys in the same order) and a ``text``
that is its pretty JSON. The differences ``docs/mcp.md`` lists that these calls meet are
checked as differences: our extra ``meta`` keys, RFC 7396's empty objects, completed
sessions refusing steps, not-found errors that name no other session, and the name of
the archive a reused id's closed session was moved to.

Needs ``node`` and ``npm`` (``npm ci`` installs the stand-in's pinned dependencies on
first use): skipped without them, failed under ``CI=true``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from support import SKILLSTATE, TIMEOUT, require_service, server_env

from benchmarks.bench_mcp import STANDIN, prepare_standin

pytestmark = pytest.mark.anyio


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


OUR_META_KEYS = {"rolled_back", "rejection", "problems"}
"""``execute_step`` meta keys we add (docs/mcp.md, difference 7)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def standin_ready() -> None:
    require_service(shutil.which("node") is not None, "node is not on PATH (the stand-in)")
    problem = prepare_standin()
    require_service(problem is None, f"the reference stand-in is not installed: {problem}")


@asynccontextmanager
async def _client(params: StdioServerParameters, errlog: Path) -> AsyncIterator[Client]:
    with open(errlog, "a") as err:
        async with Client(stdio_client(params, errlog=err), read_timeout_seconds=TIMEOUT) as c:
            yield c


@asynccontextmanager
async def both(tmp_path: Path) -> AsyncIterator[tuple[Client, Client]]:
    """(ours, the stand-in's), each a fresh server process."""
    ours = StdioServerParameters(
        command=SKILLSTATE, args=["mcp"], env=server_env(f"file:{tmp_path / 'store'}")
    )
    theirs = StdioServerParameters(command="node", args=[str(STANDIN / "server.mjs")])
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(_client(ours, tmp_path / "ours.log"))
        b = await stack.enter_async_context(_client(theirs, tmp_path / "standin.log"))
        yield a, b


def answer(result: Any) -> Any:
    """The comparable part of a tool result: its structured content, or its error text."""
    if result.is_error:
        return {"error": text_of(result)}
    data = result.structured_content
    assert json.loads(text_of(result)) == data  # the text is the structured content's JSON
    assert text_of(result) == json.dumps(data, indent=2, ensure_ascii=False)
    meta = data.get("meta")
    if isinstance(meta, dict):
        data = {**data, "meta": {k: v for k, v in meta.items() if k not in OUR_META_KEYS}}
    return data


class Script:
    """Sends the same calls to both servers; each side echoes its own last observation."""

    def __init__(self, ours: Client, theirs: Client) -> None:
        self.sides = (ours, theirs)
        self.observations: list[str | None] = [None, None]

    async def call(self, tool: str, make: Callable[[str | None], dict[str, Any]]) -> list[Any]:
        out = []
        for i, client in enumerate(self.sides):
            result = await client.call_tool(tool, make(self.observations[i]))
            got = answer(result)
            payload = got.get("prompt_payload") if isinstance(got, dict) else None
            if payload:
                self.observations[i] = payload["latest_observation"]
            out.append(got)
        return out

    async def same(self, tool: str, make: Callable[[str | None], dict[str, Any]]) -> Any:
        ours, theirs = await self.call(tool, make)
        assert ours == theirs
        assert list(json.dumps(ours)) == list(json.dumps(theirs))  # key order too
        return ours

    @staticmethod
    def step_args(
        session: str, patch: dict[str, Any], action: Any, observation: str | None = None
    ) -> Callable[[str | None], dict[str, Any]]:
        """``execute_step`` arguments echoing each side's observation, or ``observation``."""
        return lambda seen: {
            "session_id": session,
            "reasoning_trace": "thinking that must not be kept",
            "state_update": patch,
            "action": action,
            "environment_observation": seen if observation is None else observation,
        }

    async def step(
        self, session: str, patch: dict[str, Any], action: Any, observation: str | None = None
    ) -> Any:
        return await self.same("execute_step", self.step_args(session, patch, action, observation))


async def test_a_mock_session_answers_alike(tmp_path: Path, standin_ready: None) -> None:
    async with both(tmp_path) as (ours, theirs):
        s = Script(ours, theirs)
        first = await s.same(
            "initialize_skill",
            lambda _: {
                "session_id": "s1",
                "skill_specification": "Keep a tally; finish when asked.",
                "initial_state": {"a": 1, "o": {"x": 1, "y": 2}, "list": [1, 2]},
            },
        )
        assert first["meta"] == {"step": 0, "status": "active", "reasoning_retained": False}
        await s.step("s1", {"a": 2}, "do it")
        await s.step("s1", {"o": {"y": None, "z": 3}}, {"type": "echo", "message": "hi"})
        await s.step("s1", {}, {"type": "echo"})
        await s.step("s1", {"list": [1, {"y": None}]}, {"type": "noop"})
        failed = await s.step("s1", {"a": 3}, {"type": "fail", "reason": "boom"})
        assert failed["step"] == 5 and failed["meta"]["action_status"] == "failed"
        rolled = await s.step(
            "s1", {"a": 99}, {"type": "fail", "reason": "no", "reject_transition": True}
        )
        assert rolled["step"] == 5 and rolled["prompt_payload"]["current_state"]["a"] == 3
        await s.step("s1", {"o": {"p": {"q": 1}}}, {"type": "other", "k": [1, 2]})
        await s.step("s1", {"a": 4}, {})
        await s.same(
            "inject_observation",
            lambda _: {"session_id": "s1", "observation": "alert!", "state_patch": {"d": 1}},
        )
        drift = await s.step("s1", {"a": 5}, "x", observation="not what the runtime said")
        assert "context drift" in drift["meta"]["warning"]
        reject = {"type": "fail", "reject_transition": True}
        both_warnings = await s.step("s1", {"a": 6}, reject, observation="also not that")
        assert ".; Action was rejected by environment" in both_warnings["meta"]["warning"]
        done = await s.step("s1", {"e": "é ✓"}, {"type": "complete", "summary": "done"})
        assert done["meta"]["status"] == "completed"
        closed = await s.same("close_session", lambda _: {"session_id": "s1"})
        assert closed["closed"] is True and closed["final_step"] == 9


# The reference's merge table (its specification, §5): (Σ, ΔΣ, what the reference makes).
MERGE_TABLE: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    ({"a": 1, "b": 2}, {"b": None}, {"a": 1}),
    ({"a": 1}, {"z": None}, {"a": 1}),
    ({"o": {"x": 1, "y": 2}}, {"o": {"y": None, "z": 3}}, {"o": {"x": 1, "z": 3}}),
    ({}, {"a": {}}, {}),
    ({}, {"a": {"x": None}}, {}),
    ({"a": {"x": 1}}, {"a": {}}, {"a": {"x": 1}}),
    ({"a": {"x": 1}}, {"a": {"x": None}}, {"a": {}}),
    ({"a": 1}, {"a": {}}, {"a": {}}),
    ({"a": "s"}, {"a": {"b": None}}, {"a": {}}),
    ({"a": None}, {"a": {"b": 1}}, {"a": {"b": 1}}),
    ({"a": [1]}, {"a": {"x": 1}}, {"a": {"x": 1}}),
    ({"a": {"x": 1}}, {"a": 5}, {"a": 5}),
    ({"a": {"x": 1}}, {"a": [1, {"y": None}]}, {"a": [1, {"y": None}]}),
    ({"o": {}}, {"o": {"p": {"q": None}}}, {"o": {}}),
    ({}, {"o": {"p": {"q": 1}}}, {"o": {"p": {"q": 1}}}),
    ({"b": 1, "a": 2}, {"c": 3, "a": 4}, {"b": 1, "a": 4, "c": 3}),
]
RFC_7396_ROWS = {4: {"a": {}}, 5: {"a": {}}, 14: {"o": {"p": {}}}}
"""Rows where we follow RFC 7396 and create ``{}`` (docs/mcp.md, difference 18)."""


async def test_the_merge_table_alike_but_for_rfc_7396_empty_objects(
    tmp_path: Path, standin_ready: None
) -> None:
    async with both(tmp_path) as (ours, theirs):
        s = Script(ours, theirs)
        for row, (state, patch, reference) in enumerate(MERGE_TABLE, start=1):
            session = f"row{row}"
            s.observations = [None, None]
            await s.same(
                "initialize_skill",
                lambda _, session=session, state=state: {
                    "session_id": session,
                    "skill_specification": "P",
                    "initial_state": state,
                },
            )
            mine, ref = await s.call("execute_step", s.step_args(session, patch, "go"))
            assert ref["prompt_payload"]["current_state"] == reference, row
            expected = RFC_7396_ROWS.get(row, reference)
            assert mine["prompt_payload"]["current_state"] == expected, row
            assert json.dumps(mine["prompt_payload"]["current_state"]) == json.dumps(expected)
            if row not in RFC_7396_ROWS:
                assert mine == ref, row


async def test_a_warehouse_session_answers_alike(tmp_path: Path, standin_ready: None) -> None:
    async with both(tmp_path) as (ours, theirs):
        s = Script(ours, theirs)
        await s.same(
            "initialize_skill",
            lambda _: {
                "session_id": "w1",
                "skill_specification": "Store what arrives; ship what is ordered.",
                "environment": "warehouse",
            },
        )
        actions = [
            "Store item_1 shelf_3",
            "Store item_2 shelf_3",  # occupied: the environment rolls the patch back
            "Move item_1 shelf_3 shelf_4",
            "Ship item_1 shelf_4",
            "Ship item_9 shelf_4",
            "Wait",
            "store item_7 shelf_1",
            "Store item_5 shelf_9999",
            "Fly to the moon",
            "Done",
        ]
        steps = []
        for i, action in enumerate(actions):
            got = await s.step("w1", {"last": action, "n": i}, action)
            steps.append(got["step"])
        assert steps[1] == steps[0]  # the collision was rolled back on both
        await s.same("close_session", lambda _: {"session_id": "w1"})


async def test_documented_differences_show_as_documented(
    tmp_path: Path, standin_ready: None
) -> None:
    async with both(tmp_path) as (ours, theirs):
        s = Script(ours, theirs)
        await s.same(
            "initialize_skill", lambda _: {"session_id": "d1", "skill_specification": "P."}
        )
        # RFC 7396 (docs/mcp.md, difference 18): a new key given {} or all-null members
        # becomes {}; the reference creates nothing.
        mine, ref = await s.call(
            "execute_step", s.step_args("d1", {"b": {}, "c": {"x": None}}, "go")
        )
        assert mine["prompt_payload"]["current_state"] == {"b": {}, "c": {}}
        assert ref["prompt_payload"]["current_state"] == {}
        assert {k: v for k, v in mine.items() if k != "prompt_payload"} == {
            k: v for k, v in ref.items() if k != "prompt_payload"
        }
        # A completed session refuses further steps here (difference 5); the reference steps on.
        await s.call("execute_step", s.step_args("d1", {}, {"type": "complete"}))
        mine, ref = await s.call("execute_step", s.step_args("d1", {}, "more"))
        assert "completed" in mine["error"] and "accepts no more steps" in mine["error"]
        assert ref["step"] == 3
        # Not-found errors name no other session (difference 3).
        mine, ref = await s.call("execute_step", s.step_args("nope", {}, "x", observation=""))
        assert mine == {"error": 'Unknown session "nope". Call initialize_skill first.'}
        assert ref == {
            "error": 'Unknown SKILL.state session "nope". Active sessions: d1. '
            "Call initialize_skill first."
        }


async def test_our_extra_meta_keys_are_there(tmp_path: Path, standin_ready: None) -> None:
    async with both(tmp_path) as (ours, _):
        await ours.call_tool("initialize_skill", {"session_id": "m1", "skill_specification": "P"})
        result = await ours.call_tool(
            "execute_step",
            {
                "session_id": "m1",
                "reasoning_trace": "",
                "state_update": {"a": 1},
                "action": {"type": "fail", "reject_transition": True},
                "environment_observation": "",
            },
        )
        meta = result.structured_content["meta"]
        assert meta["rolled_back"] is True and meta["rejection"] == "environment"
        assert set(meta) >= OUR_META_KEYS


async def test_its_schema_dialect_and_a_reused_id_answer_alike(
    tmp_path: Path, standin_ready: None
) -> None:
    """What the reference's demo client and its state tests send: the type-name schemas
    (mode A and mode B), then the same id initialized again after close_session."""
    mode_a = {
        "required": ["id", "count"],
        "properties": {"id": "string", "count": "number", "active": "boolean"},
        "additionalProperties": False,
    }
    inits = [
        ({"id": "abc", "count": 10, "active": True}, mode_a),
        ({"count": 10}, mode_a),
        ({"id": "abc", "count": "ten"}, mode_a),
        ({"id": "abc", "count": 10, "extra": 123}, mode_a),
        ({"note": "x"}, {"id": "string", "note": "string?"}),
        ({"id": "a", "tags": {}}, {"id": "string", "tags": "array"}),
    ]
    async with both(tmp_path) as (ours, theirs):
        s = Script(ours, theirs)
        for n, (state, schema) in enumerate(inits):
            await s.same(
                "initialize_skill",
                lambda _, n=n, state=state, schema=schema: {
                    "session_id": f"v{n}",
                    "skill_specification": "P",
                    "initial_state": state,
                    "state_schema": schema,
                },
            )
        demo_schema = {"required": ["ticket_id", "attempts"], "properties": {"attempts": "number"}}
        for run in (1, 2):  # the demo's second run initializes the same id again
            first = await s.call(
                "initialize_skill",
                lambda _: {
                    "session_id": "demo",
                    "skill_specification": "Resolve the ticket.",
                    "initial_state": {"ticket_id": "TCK-1", "attempts": 1},
                    "state_schema": demo_schema,
                },
            )
            archived = first[0]["meta"].pop("previous_session_archived_as", None)
            assert archived == (None if run == 1 else "demo.closed-1")
            assert first[0] == first[1]
            rolled = await s.step("demo", {"attempts": "invalid"}, "retry")
            assert rolled["step"] == 0 and rolled["meta"]["action_status"] == "failed"
            await s.step("demo", {"attempts": 2}, "reply")
            closed = await s.same("close_session", lambda _: {"session_id": "demo"})
            assert closed["final_state"] == {"ticket_id": "TCK-1", "attempts": 2}
