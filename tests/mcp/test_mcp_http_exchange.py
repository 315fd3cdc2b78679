"""The single exchange answers stateless POSTs exactly as the SDK's path does.

plugins/skillstate_plugins/mcp/exchange.py answers a 2025-era POST of one JSON-RPC request itself,
with the SDK's pieces, instead of letting the SDK build a connection for it. Here one
seeded series of raw requests goes over real HTTP on 127.0.0.1 to two servers, one
with the exchange and one with ``SKILLSTATE_MCP_HTTP_EXCHANGE=off``: the handshake in
several versions, every list, every tool with good and bad arguments, unknown tools and
methods, prompts with arguments of the wrong type, resources, ping, odd ids, malformed
and batched bodies, notifications, wrong ``Content-Type`` and ``Accept`` headers, a
missing, old, unknown or 2026-era ``MCP-Protocol-Version``. Status, headers and body
must be the same on both, byte for byte once timestamps are masked.

A second test runs the app in process and counts what the exchange answered, so the
comparison cannot pass by the exchange never being taken.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.server.mcpserver import Context
from mcp_support import start_http
from test_mcp_http import request
from test_mcp_transport_differential import CHOICES, TOOLS

from skillstate_plugins.mcp import exchange as exchange_module
from skillstate_plugins.mcp import sdk

pytestmark = pytest.mark.anyio

JSON = "application/json"
ACCEPT = "application/json, text/event-stream"
BASE = {"Content-Type": JSON, "Accept": ACCEPT}

INIT_PARAMS = {"capabilities": {}, "clientInfo": {"name": "diff", "version": "0"}}
BAD_BODIES = [
    b"{",
    b"",
    b"[]",
    b"null",
    b"5",
    b'"text"',
    b'{"jsonrpc":"2.0","id":1}',
    b'{"jsonrpc":"1.0","id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
    b'{"jsonrpc":"2.0","id":7,"result":{}}',
    b'{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
    b'{"jsonrpc":"2.0","method":"no/such/notification"}',
    b'{"jsonrpc":"2.0","id":3,"method":"ping","params":[]}',
    b'{"jsonrpc":"2.0","id":4,"method":"ping","params":null}',
]
CONTENT_TYPES = [
    None,
    "text/plain",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "application/json-seq",
    "text/plain, application/json",
    "application/jsonx",
]
ACCEPTS = [None, "text/html", "*/*", "application/*", "text/event-stream", "application/json;q=0.5"]
VERSIONS = [None, "2025-03-26", "2025-06-18", "2025-11-25", "2024-11-05", "2026-07-28", "bogus", ""]


def _rpc(request_id: Any, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def _tool_call(rng: random.Random, request_id: int) -> bytes:
    tool = rng.choice(list(TOOLS))
    arguments = {key: rng.choice(CHOICES[key]) for key in TOOLS[tool] if rng.random() < 0.9}
    if rng.random() < 0.1:
        arguments["unexpected"] = 1
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if rng.random() < 0.1:
        params["_meta"] = {"progressToken": f"p{request_id}"}
    return _rpc(request_id, "tools/call", params)


def _fixed(rng: random.Random) -> list[tuple[str, dict[str, str], bytes]]:
    """The requests every run sends (in a seeded order among the tool calls)."""
    pv = {"MCP-Protocol-Version": "2025-06-18"}
    cases: list[tuple[str, dict[str, str], bytes]] = []
    for version in ["2025-06-18", "2025-03-26", "2024-11-05", "2099-01-01", 5]:
        params = {"protocolVersion": version, **INIT_PARAMS}
        cases.append((f"initialize {version}", BASE, _rpc(1, "initialize", params)))
    cases.append(("initialize without params", BASE, _rpc(2, "initialize")))
    cases.append(("initialize with {}", BASE, _rpc(2, "initialize", {})))
    methods: list[tuple[str, Any]] = [
        ("ping", None),
        ("ping", {}),
        ("tools/list", None),
        ("tools/list", {"cursor": "x"}),
        ("prompts/list", None),
        ("resources/list", None),
        ("resources/templates/list", None),
        ("resources/read", {"uri": "skill-state://s1"}),
        ("resources/read", {"uri": "skill-state://nope/history"}),
        ("resources/read", {"uri": "nope://x"}),
        ("resources/read", {"uri": 5}),
        ("prompts/get", {"name": "skill_state_turn", "arguments": {"session_id": "s1"}}),
        ("prompts/get", {"name": "skill_state_turn", "arguments": {"session_id": ["s1"]}}),
        ("prompts/get", {"name": "skill_state_turn", "arguments": {"session_id": 5}}),
        ("prompts/get", {"name": "skill_state_turn"}),
        (
            "prompts/get",
            {
                "name": "skill_state_paper_turn",
                "arguments": {"session_id": "s1", "compact": "maybe"},
            },
        ),
        ("prompts/get", {"name": "no_such_prompt", "arguments": {}}),
        ("prompts/get", {"name": 5}),
        ("tools/call", None),
        ("tools/call", {"name": 5}),
        ("tools/call", {"name": "no_such_tool", "arguments": {}}),
        ("tools/call", {"name": "get_session", "arguments": "s1"}),
        ("tools/call", {"name": "get_session", "arguments": {"session_id": "s1"}, "extra": 1}),
        ("tools/call", {"name": "list_sessions"}),
        ("logging/setLevel", {"level": "debug"}),
        (
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "skill_state_turn"},
                "argument": {"name": "session_id", "value": "s"},
            },
        ),
        ("no/such/method", None),
        ("initialized", {}),
    ]
    for index, (method, params) in enumerate(methods):
        for request_id in (100 + index, f"id-{index}"):
            cases.append((f"{method} {params}", {**BASE, **pv}, _rpc(request_id, method, params)))
    cases.append(("id 0", {**BASE, **pv}, _rpc(0, "ping")))
    cases.append(("id -1", {**BASE, **pv}, _rpc(-1, "ping")))
    cases.append(("id 1.0", {**BASE, **pv}, b'{"jsonrpc":"2.0","id":1.0,"method":"ping"}'))
    cases.append(("id 2**70", {**BASE, **pv}, _rpc(2**70, "ping")))
    for body in BAD_BODIES:
        cases.append((f"body {body[:40]!r}", {**BASE, **pv}, body))
    for content_type in CONTENT_TYPES:
        headers = {"Accept": ACCEPT, **pv}
        if content_type is not None:
            headers["Content-Type"] = content_type
        cases.append((f"content-type {content_type}", headers, _rpc(5, "tools/list")))
    for accept in ACCEPTS:
        headers = {"Content-Type": JSON, **pv}
        if accept is not None:
            headers["Accept"] = accept
        cases.append((f"accept {accept}", headers, _rpc(6, "ping")))
    for version in VERSIONS:
        headers = dict(BASE) if version is None else {**BASE, "MCP-Protocol-Version": version}
        cases.append((f"version {version}", headers, _tool_call(rng, 7)))
        cases.append((f"version {version} tools/list", headers, _rpc(8, "tools/list")))
    for origin in ["http://127.0.0.1:9", "http://evil.example", "null"]:
        cases.append((f"origin {origin}", {**BASE, **pv, "Origin": origin}, _rpc(9, "ping")))
    cases.append(("session id sent", {**BASE, **pv, "Mcp-Session-Id": "abc"}, _rpc(10, "ping")))
    return cases


def series(seed: int, calls: int) -> list[tuple[str, dict[str, str], bytes]]:
    """The fixed requests and ``calls`` random tool calls, interleaved in a seeded order."""
    rng = random.Random(seed)
    cases = _fixed(rng)
    for number in range(calls):
        version = rng.choice(["2025-06-18", "2025-03-26", "2025-11-25", None])
        headers = dict(BASE) if version is None else {**BASE, "MCP-Protocol-Version": version}
        cases.append((f"call {number}", headers, _tool_call(rng, 1000 + number)))
    head, tail = cases[:7], cases[7:]  # the handshakes first, as clients send them
    rng.shuffle(tail)
    return head + tail


TIMESTAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")


def _seen(status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    masked = TIMESTAMP.sub(b"<time>", body)
    shown = {k: v for k, v in headers.items() if k not in ("date", "content-length")}
    if masked == body:
        shown["content-length"] = headers.get("content-length")
    return {"status": status, "headers": shown, "body": masked}


@pytest.mark.parametrize(("store", "seed"), [("memory", 20261201), ("file", 18)])
def test_the_exchange_answers_every_request_as_the_sdk_path(
    tmp_path: Path, store: str, seed: int
) -> None:
    def url(name: str) -> str:
        return "memory:" if store == "memory" else f"file:{tmp_path / name}"

    on = start_http(url("on"), tmp_path)
    off = start_http(url("off"), tmp_path, env={exchange_module.EXCHANGE_ENV: "off"})
    try:
        answered = 0
        for label, headers, body in series(seed=seed, calls=120):
            mine = _seen(*request(on, "POST", "/mcp", body, headers))
            theirs = _seen(*request(off, "POST", "/mcp", body, headers))
            assert mine == theirs, (label, headers, body)
            assert b"Internal Server Error" not in mine["body"], label
            answered += mine["status"] == 200
        assert answered > 150  # most of the series reached a handler
    finally:
        on.stop()
        off.stop()


async def test_the_exchange_takes_single_requests_and_nothing_else(tmp_path: Path) -> None:
    """In process: which requests the exchange answered, and that it is on by default."""
    from skillstate_plugins.mcp.http import http_app
    from skillstate_plugins.mcp.server import build_server
    from skillstate.runtime import Runtime

    assert sdk.internals_allowed(), "the suite runs on an SDK version skillstate knows"
    server = build_server(Runtime("memory:"))
    gate = http_app(server)
    assert gate.exchange is not None
    taken: list[str] = []
    answer = gate.exchange.answer

    async def counted(scope: Any, receive: Any, message: Any) -> Any:
        response = await answer(scope, receive, message)
        if response is not None:
            taken.append(getattr(message, "method", "?"))
        return response

    gate.exchange.answer = counted  # type: ignore[method-assign]
    inner: Any = gate.app
    transport = httpx2.ASGITransport(app=gate)
    async with inner.router.lifespan_context(inner):
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:

            async def post(body: bytes, **headers: str) -> int:
                response = await client.post("/mcp", content=body, headers={**BASE, **headers})
                return response.status_code

            assert (
                await post(_rpc(1, "initialize", {"protocolVersion": "2025-06-18", **INIT_PARAMS}))
                == 200
            )
            assert (
                await post(_rpc(2, "tools/list"), **{"MCP-Protocol-Version": "2025-06-18"}) == 200
            )
            assert await post(_rpc(3, "ping")) == 200
            assert taken == ["initialize", "tools/list", "ping"]
            assert await post(b'{"jsonrpc":"2.0","method":"notifications/initialized"}') == 202
            assert await post(_rpc(4, "ping"), **{"MCP-Protocol-Version": "2026-07-28"}) in (
                200,
                400,
            )
            assert await post(_rpc(5, "ping"), **{"Content-Type": "text/plain"}) == 400
            assert await post(_rpc(6, "ping"), **{"Accept": "text/html"}) == 406
            assert await post(b'{"jsonrpc":"2.0","id":7,"result":{}}') == 202
            assert taken == ["initialize", "tools/list", "ping"]


def test_the_exchange_is_off_by_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillstate_plugins.mcp.http import http_app
    from skillstate_plugins.mcp.server import build_server
    from skillstate.runtime import Runtime

    for value in ("off", "0", "false", "no"):
        monkeypatch.setenv(exchange_module.EXCHANGE_ENV, value)
        assert http_app(build_server(Runtime("memory:"))).exchange is None
    monkeypatch.setenv(exchange_module.EXCHANGE_ENV, "on")
    assert http_app(build_server(Runtime("memory:"))).exchange is not None


def _probe_server() -> Any:
    """A server whose handlers reach what skillstate's own never do: progress and log
    notifications, a server-initiated request, an exception the dispatcher maps to
    code 0, and a result the transport cannot encode (a lone surrogate)."""
    from mcp.server import MCPServer
    from pydantic import BaseModel

    class Answer(BaseModel):
        x: int

    server: Any = MCPServer("probe")

    @server.tool()
    async def chatty(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "half")
        await ctx.debug("a log line")
        return "done"

    @server.tool()
    async def wait() -> str:
        await anyio.sleep_forever()
        return "never"

    @server.tool()
    async def ask(ctx: Context) -> str:
        return str(await ctx.elicit("x?", Answer))

    async def odd(ctx: Any, call_next: Any) -> Any:
        name = (ctx.params or {}).get("name") if ctx.method == "tools/call" else None
        if name == "explode":
            raise RuntimeError("boom")
        if name == "unencodable":
            return {"x": "\ud800"}
        return await call_next(ctx)

    server.middleware.append(odd)
    return server


async def _answers(gate: Any, bodies: list[bytes]) -> list[tuple[int, str, bytes]]:
    inner: Any = gate.app
    headers = {**BASE, "MCP-Protocol-Version": "2025-06-18"}
    seen: list[tuple[int, str, bytes]] = []
    async with inner.router.lifespan_context(inner):
        transport = httpx2.ASGITransport(app=gate)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            for body in bodies:
                response = await client.post("/mcp", content=body, headers=headers)
                seen.append(
                    (response.status_code, response.headers["content-type"], response.content)
                )
    return seen


async def test_the_exchange_answers_odd_handlers_as_the_sdk_path() -> None:
    """Progress, log lines, a back-channel request, a code-0 error and a reply that cannot
    be encoded: the SDK's answer each time (the last one a 500 with a JSON-RPC error, not
    an exception out of the app — uvicorn's text/plain 500 and a traceback)."""
    from skillstate_plugins.mcp.http import http_app

    def call(request_id: int, name: str) -> bytes:
        params = {"name": name, "arguments": {}, "_meta": {"progressToken": "t"}}
        return _rpc(request_id, "tools/call", params)

    bodies = [call(1, "chatty"), call(2, "ask"), call(3, "explode"), call(4, "unencodable")]
    on = http_app(_probe_server())
    assert on.exchange is not None
    off = http_app(_probe_server())
    off.exchange = None
    mine = await _answers(on, bodies)
    theirs = await _answers(off, bodies)
    assert mine == theirs
    assert [status for status, _, _ in mine] == [200, 200, 200, 500]
    assert json.loads(mine[3][2])["error"]["code"] == -32603


async def test_an_answer_in_flight_at_shutdown_ends_as_the_sdk_path_ends_it() -> None:
    """The lifespan's end (the session manager's task group cancelled, on the SDK's path)
    ends the exchange's answers too: the transport's 500 with a JSON-RPC error, and the
    shutdown waits for them; answers that finished leave nothing behind."""
    from skillstate_plugins.mcp.http import http_app

    gate: Any = http_app(_probe_server())
    exchange = gate.exchange
    assert exchange is not None
    headers = {**BASE, "MCP-Protocol-Version": "2025-06-18"}
    seen: list[Any] = []
    inner: Any = gate.app
    async with inner.router.lifespan_context(inner):
        transport = httpx2.ASGITransport(app=gate)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            assert (await client.post("/mcp", content=_rpc(1, "ping"), headers=headers)).json()
            assert not exchange._in_flight

            async def waiting() -> None:
                body = _rpc(2, "tools/call", {"name": "wait", "arguments": {}})
                seen.append(await client.post("/mcp", content=body, headers=headers))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(waiting)
                with anyio.fail_after(10):
                    while not exchange._in_flight:
                        await anyio.sleep(0.01)
                    await exchange.close()
    (response,) = seen
    assert response.status_code == 500
    assert response.headers["content-type"] == JSON
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32603, "message": "Session terminated before the request completed"},
    }
    assert not exchange._in_flight
