"""The ``tools/call`` fast path (plugins/skillstate_plugins/mcp/sdk.py, ``install_call_fast_path``) answers
exactly as the SDK's own path does.

Two servers, each over its own memory store, get the same seeded series of calls (every
tool, valid and invalid arguments, as in the transport differential test): one through
the runner's patched ``_on_request`` (the fast path), one through the SDK's original
``_on_request`` (``__wrapped__``: the request context, both params validations, the
middleware chain, ``MCPServer._handle_call_tool``, the tool manager). The wire dicts
must be the same, key order included, timestamps aside. Requests the fast path must
not take (``_meta``, ``requestState``, an unknown tool, a tool that is not skillstate's,
a connection not yet initialized, the 2026 era, extra middleware, a ``call_tool`` of the
server or its tool manager replaced — an audit hook the fast path must not go around)
must reach the SDK.
"""

from __future__ import annotations

import json
import random
import zlib
from typing import Any

import pytest
from mcp.server.connection import Connection
from mcp.server.mcpserver import MCPServer
from mcp.server.runner import ServerRunner
from mcp.shared.transport_context import TransportContext
from mcp_types import CallToolResult, TextContent
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_MODERN_VERSION

from skillstate_plugins.mcp import sdk
from skillstate_plugins.mcp.server import build_server
from skillstate_plugins.mcp.tooling import StrictTool
from skillstate.runtime import Runtime

pytestmark = pytest.mark.anyio

CHOICES: dict[str, list[Any]] = {
    "session_id": ["s1", "s1", "s2", "", "bad id", None, 5],
    "reasoning_trace": ["", "thinking", None, 3],
    "state_update": [{}, {"a": 1}, {"a": None}, {"n": {"m": [1, None]}}, [], '{"b":2}', "x"],
    "action": ["go", "", "  ", {"type": "noop"}, {"type": "complete"}, 5, [], None],
    "environment_observation": ["", "obs", None, 1],
    "skill_specification": ["P", "", {}, {"goal": 1}, None, 3, '{"x":1}'],
    "initial_state": [{}, {"a": 1.5}, None, [], '{"a":1}', "text"],
    "environment": ["mock", "warehouse", "Mock", None, 3],
    "observation": ["alert", "", None, 5],
    "state_patch": [{}, {"q": 2**70}, None, [], "{}"],
    "response_text": ['```json\n{"state_patch":{},"action":"go"}\n```', "", "no block"],
    "at_step": [0, 1, -1, "1", None],
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
    "get_session": ["session_id", "at_step"],
    "parse_turn_response": ["response_text"],
    "list_sessions": [],
}
STAMPS = ("createdAt", "updatedAt", "created_at", "updated_at", "at", "time")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _Context:
    """The dispatch context a request arrives with (no back channel, as JSON-mode HTTP)."""

    def __init__(self, request_id: int) -> None:
        import anyio

        self.transport = TransportContext(kind="test", can_send_request=False)
        self.request_id = request_id
        self.message_metadata = None
        self.progress_token = None
        self.cancel_requested = anyio.Event()
        self.can_send_request = False

    async def send_raw_request(self, method: str, params: Any, opts: Any = None) -> Any:
        raise AssertionError("no server-to-client requests here")

    async def notify(self, method: str, params: Any, opts: Any = None) -> None:
        return None

    async def progress(self, *args: Any) -> None:
        return None


def _runner(version: str = HANDSHAKE_PROTOCOL_VERSIONS[-1]) -> ServerRunner[Any]:
    server = build_server(Runtime("memory:"), offload=False)
    lowlevel = sdk.lowlevel_server(server)
    connection = Connection.from_envelope(version, None, None)
    return ServerRunner(lowlevel, connection, None)


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in STAMPS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _comparable(answer: dict[str, Any]) -> Any:
    """The wire dict, with the text block parsed (when JSON) and timestamps dropped."""
    out = dict(answer)
    blocks = []
    for block in answer["content"]:
        block = dict(block)
        try:
            block["text"] = _strip(json.loads(block["text"]))
        except ValueError:
            pass
        blocks.append(block)
    out["content"] = blocks
    if "structuredContent" in out:
        out["structuredContent"] = _strip(out["structuredContent"])
    return out


def _calls(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    names = [name for name in TOOLS for _ in range(3 if name == "execute_step" else 1)]
    calls = []
    for _ in range(count):
        tool = rng.choice(names)
        args = {key: rng.choice(CHOICES[key]) for key in TOOLS[tool] if rng.random() < 0.9}
        if rng.random() < 0.1:
            args["unexpected"] = 1
        params: dict[str, Any] = {"name": tool, "arguments": args}
        if rng.random() < 0.1:
            params = {"name": tool} if not args else {"name": tool, "arguments": None}
        calls.append(params)
    return calls


def test_the_call_fast_path_is_installed_here() -> None:
    _runner()
    assert hasattr(ServerRunner._on_request, "__wrapped__")
    assert sdk.install_call_fast_path(StrictTool) is True


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
async def test_the_fast_path_answers_as_the_sdk(version: str) -> None:
    fast, reference = _runner(version), _runner(version)
    original = ServerRunner._on_request.__wrapped__  # type: ignore[attr-defined]
    taken = 0
    # crc32, not hash(): str hashes change with each process (PYTHONHASHSEED)
    for index, params in enumerate(_calls(seed=zlib.crc32(version.encode()), count=160)):
        assert sdk._fast_tool(fast, params, StrictTool) is not None
        taken += 1
        mine = await fast._on_request(_Context(index), "tools/call", params)
        theirs = await original(reference, _Context(index), "tools/call", params)
        assert list(mine) == list(theirs), params
        assert _comparable(mine) == _comparable(theirs), params
    assert taken == 160


@pytest.mark.parametrize(
    "params",
    [
        {"name": "list_sessions", "arguments": {}, "_meta": {"progressToken": 1}},
        {"name": "list_sessions", "arguments": {}, "requestState": "x"},
        {"name": "list_sessions", "arguments": {}, "task": {"ttl": 1}},
        {"name": "no_such_tool", "arguments": {}},
        {"name": 5, "arguments": {}},
        {"name": "list_sessions", "arguments": []},
        {"arguments": {}},
        {},
    ],
)
async def test_other_calls_go_to_the_sdk(params: dict[str, Any]) -> None:
    runner = _runner()
    assert sdk._fast_tool(runner, params, StrictTool) is None


def test_the_sdks_own_tools_middleware_and_eras_go_to_the_sdk() -> None:
    params = {"name": "list_sessions", "arguments": {}}
    modern = _runner(LATEST_MODERN_VERSION)
    assert sdk._fast_tool(modern, params, StrictTool) is None

    fresh = _runner()
    fresh.connection = Connection.for_loop(object(), session_id=None)  # type: ignore[arg-type]
    assert not fresh.connection.initialize_accepted
    assert sdk._fast_tool(fresh, params, StrictTool) is None

    traced = _runner()

    async def middleware(ctx: Any, call_next: Any) -> Any:
        return await call_next(ctx)

    traced.server.middleware.append(middleware)
    assert sdk._fast_tool(traced, params, StrictTool) is None

    plain = _runner()
    owner = plain.server.get_request_handler("tools/call").handler.__self__

    @owner.tool()
    def echo(text: str) -> str:
        return text

    assert sdk._fast_tool(plain, {"name": "echo", "arguments": {"text": "x"}}, StrictTool) is None


def _refusal(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _owner(runner: ServerRunner[Any]) -> Any:
    return runner.server.get_request_handler("tools/call").handler.__self__


async def _both(runner: ServerRunner[Any], params: dict[str, Any]) -> tuple[Any, Any]:
    original = ServerRunner._on_request.__wrapped__  # type: ignore[attr-defined]
    mine = await runner._on_request(_Context(1), "tools/call", params)
    theirs = await original(runner, _Context(2), "tools/call", params)
    return mine, theirs


async def test_a_call_tool_patched_on_the_server_is_not_gone_around() -> None:
    """An audit hook on ``server.call_tool`` (which ``_handle_call_tool`` calls) must see
    every call on the fast path's server too: the fast path gives way to it."""
    runner = _runner()
    server = _owner(runner)
    original = server.call_tool
    seen: list[str] = []

    async def audited(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        seen.append(name)
        if name == "close_session":
            return _refusal("refused by the audit hook")
        return await original(name, arguments, context)

    server.call_tool = audited
    params = {"name": "close_session", "arguments": {"session_id": "s1"}}
    assert sdk._fast_tool(runner, params, StrictTool) is None
    mine, theirs = await _both(runner, params)
    assert mine == theirs
    assert mine["content"][0]["text"] == "refused by the audit hook"
    assert seen == ["close_session", "close_session"]


async def test_a_call_tool_overridden_in_a_server_subclass_is_not_gone_around() -> None:
    class Audited(MCPServer[Any]):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            return _refusal(f"{name} refused by the subclass")

    from skillstate_plugins.mcp.server import skillstate_tools

    server = Audited("audited", tools=skillstate_tools(Runtime("memory:"), offload=False))
    sdk.drop_tracing(server)  # as build_server does: only the pass-through middleware left
    runner: ServerRunner[Any] = ServerRunner(
        sdk.lowlevel_server(server), Connection.from_envelope("2025-06-18", None, None), None
    )
    params = {"name": "list_sessions", "arguments": {}}
    assert sdk._fast_tool(runner, params, StrictTool) is None
    mine, theirs = await _both(runner, params)
    assert mine == theirs
    assert mine["content"][0]["text"] == "list_sessions refused by the subclass"


async def test_a_tool_manager_call_tool_replaced_is_not_gone_around() -> None:
    runner = _runner()
    manager = _owner(runner)._tool_manager

    async def refuse(name: str, arguments: Any, context: Any, convert_result: bool = False) -> Any:
        return _refusal(f"{name} refused by the tool manager")

    manager.call_tool = refuse
    params = {"name": "list_sessions", "arguments": {}}
    assert sdk._fast_tool(runner, params, StrictTool) is None
    mine, theirs = await _both(runner, params)
    assert mine == theirs
    assert mine["content"][0]["text"] == "list_sessions refused by the tool manager"


def test_a_runner_subclass_or_another_params_type_goes_to_the_sdk() -> None:
    params = {"name": "list_sessions", "arguments": {}}
    plain = _runner()
    assert sdk._fast_tool(plain, params, StrictTool) is not None

    class MyRunner(ServerRunner[Any]):
        pass

    mine = MyRunner(plain.server, plain.connection, None)
    assert sdk._fast_tool(mine, params, StrictTool) is None

    from pydantic import BaseModel

    class Loose(BaseModel):
        name: str
        arguments: dict[str, Any] | None = None

    entry = plain.server.get_request_handler("tools/call")
    plain.server.add_request_handler("tools/call", Loose, entry.handler)
    assert sdk._fast_tool(plain, params, StrictTool) is None


def _raising_tool(exc: BaseException) -> StrictTool:
    """A StrictTool whose function raises ``exc`` (make_tool's guard taken off): the fast
    path's safety net for an exception out of a tool must answer and log as the SDK does."""
    from skillstate_plugins.mcp.args import Param
    from skillstate_plugins.mcp.tooling import make_tool

    def fail(args: dict[str, Any]) -> CallToolResult:
        raise exc

    tool = make_tool("boom", "Boom", "Raises.", [Param("x", "text", "x", required=False)], fail)
    object.__setattr__(tool, "fn", fail)
    tool.offload = False
    return tool


def _validation_error() -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import BaseModel, ValidationError

    class Shape(BaseModel):
        size: int

    try:
        Shape.model_validate({"size": "secret-value"})
    except ValidationError as cause:
        try:
            raise ToolError(f"Error executing tool boom: {cause}") from cause  # as Tool.run
        except ToolError as exc:
            return exc
    raise AssertionError("unreachable")


def _raised() -> list[Exception]:
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

    try:
        raise UnexpectedToolError("Error executing tool boom") from KeyError("k")
    except UnexpectedToolError as unexpected:
        crash = unexpected
    return [RuntimeError("disk gone"), ToolError("told you"), crash, _validation_error()]


@pytest.mark.parametrize("exc", _raised(), ids=lambda e: type(e).__name__)
async def test_an_exception_out_of_a_tool_is_answered_and_logged_as_the_sdk_does(
    exc: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    runner = _runner()
    sdk.tool_table(_owner(runner))["boom"] = _raising_tool(exc)  # type: ignore[index]
    params = {"name": "boom", "arguments": {}}
    assert sdk._fast_tool(runner, params, StrictTool) is not None
    original = ServerRunner._on_request.__wrapped__  # type: ignore[attr-defined]
    logs = []
    for call in (runner._on_request, lambda *a: original(runner, *a)):
        caplog.clear()
        with caplog.at_level("INFO", logger="mcp.server.mcpserver.server"):
            answer = await call(_Context(1), "tools/call", params)
        logs.append([(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records])
        assert answer["isError"] is True
        assert answer["content"][0]["text"] == str(exc)
    assert logs[0] == logs[1]
    assert "secret-value" not in repr(logs)  # the SDK logs the fields, not the values
