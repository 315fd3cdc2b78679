"""The HTTP transport's gate and ``/health``, and several server processes sharing one store."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .support import HttpServer, http_client, initialize_request, start_http, text_of

TOKEN = "s3cret-token"
INIT = initialize_request(1)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[HttpServer]:
    server = start_http(
        f"file:{tmp_path / 'store'}",
        tmp_path,
        ["--token", TOKEN, "--max-body", "4096", "--allowed-host", "mcp.example.test"],
    )
    yield server
    server.stop()


def request(
    server: HttpServer,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP request; ``Host`` defaults to the server's own address."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    sent = {"Host": f"127.0.0.1:{server.port}", **(headers or {})}
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for name, value in sent.items():
        conn.putheader(name, value)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "Authorization": f"Bearer {TOKEN}",
}


def test_gate_host_origin_token_and_body_limit(guarded: HttpServer) -> None:
    body = json.dumps(INIT).encode()
    status, _, data = request(guarded, "POST", "/mcp", body, MCP_HEADERS)
    assert status == 200, data
    assert json.loads(data)["result"]["serverInfo"]["name"] == "skillstate"

    status, _, _ = request(guarded, "POST", "/mcp", body, {**MCP_HEADERS, "Host": "evil.test"})
    assert status == 421
    status, _, _ = request(
        guarded, "POST", "/mcp", body, {**MCP_HEADERS, "Host": "mcp.example.test:8080"}
    )
    assert status == 200  # --allowed-host
    status, _, _ = request(
        guarded, "POST", "/mcp", body, {**MCP_HEADERS, "Origin": "http://evil.test"}
    )
    assert status == 403
    status, _, _ = request(
        guarded, "POST", "/mcp", body, {**MCP_HEADERS, "Origin": "http://localhost:5173"}
    )
    assert status == 200

    no_token = {k: v for k, v in MCP_HEADERS.items() if k != "Authorization"}
    status, headers, data = request(guarded, "POST", "/mcp", body, no_token)
    assert status == 401
    assert "bearer token" in json.loads(data)["error"]
    assert headers["www-authenticate"].startswith("Bearer")
    status, _, _ = request(
        guarded, "POST", "/mcp", body, {**MCP_HEADERS, "Authorization": "Bearer wrong"}
    )
    assert status == 401
    status, _, _ = request(guarded, "GET", "/health")
    assert status == 401  # the token guards every path

    big = json.dumps({**INIT, "padding": "x" * 5000}).encode()
    status, _, data = request(guarded, "POST", "/mcp", big, MCP_HEADERS)
    assert status == 413
    assert "over the 4096-byte limit" in json.loads(data)["error"]

    # a body the SDK cannot parse (nested past its parser's limit) is refused; the
    # server keeps serving
    deep = b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"a":'
    deep += b"[" * 1500 + b"]" * 1500 + b"}}"
    status, _, data = request(guarded, "POST", "/mcp", deep, MCP_HEADERS)
    assert status == 400, data
    status, _, data = request(
        guarded, "GET", "/health", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert status == 200


@pytest.mark.anyio
async def test_health_and_a_session_with_token(guarded: HttpServer, tmp_path: Path) -> None:
    status, headers, data = request(
        guarded, "GET", "/health", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert status == 200
    assert headers["content-type"].startswith("application/json")
    health = json.loads(data)
    assert health["status"] == "ok"
    assert health["version"] == health["server"]["version"]
    assert health["store"] == "file:<store>"  # as in errors: no server path to a client
    assert str(tmp_path) not in data.decode()
    assert health["durability"] == "full"  # the open store's level (docs/reliability.md)
    assert health["active_skill_sessions"] == 0

    async with http_client(guarded.url, TOKEN) as client:
        result = await client.call_tool(
            "initialize_skill", {"session_id": "h1", "skill_specification": "spec"}
        )
        assert not result.is_error, text_of(result)
    _, _, data = request(guarded, "GET", "/health", headers={"Authorization": f"Bearer {TOKEN}"})
    assert json.loads(data)["active_skill_sessions"] == 1

    with pytest.raises(Exception):  # noqa: B017 - the client surfaces the 401 as some error
        async with http_client(guarded.url) as client:
            await client.list_tools()


async def _step(client: Any, n: int, obs: str) -> dict[str, Any]:
    result = await client.call_tool(
        "execute_step",
        {
            "session_id": "shared",
            "reasoning_trace": "",
            "state_update": {"n": n, f"k{n}": n},
            "action": f"tick {n}",
            "environment_observation": obs,
        },
    )
    assert not result.is_error, text_of(result)
    data: dict[str, Any] = result.structured_content
    return data


@pytest.mark.anyio
@pytest.mark.parametrize("scheme", ["file", "sqlite"])
async def test_two_servers_serve_one_session_alternately(scheme: str, tmp_path: Path) -> None:
    store = f"file:{tmp_path / 'store'}" if scheme == "file" else f"sqlite:{tmp_path / 's.db'}"
    servers = [start_http(store, tmp_path), start_http(store, tmp_path)]
    try:
        async with http_client(servers[0].url) as a, http_client(servers[1].url) as b:
            init = await a.call_tool(
                "initialize_skill",
                {"session_id": "shared", "skill_specification": "count", "initial_state": {}},
            )
            obs = init.structured_content["prompt_payload"]["latest_observation"]
            for n in range(1, 11):
                done = await _step(a if n % 2 else b, n, obs)
                assert done["step"] == n
                assert "warning" not in done["meta"]  # each saw the other's observation
                obs = done["prompt_payload"]["latest_observation"]
            final = await b.call_tool("get_session", {"session_id": "shared"})
            state = final.structured_content["execution_state"]
            assert final.structured_content["metadata"]["stepCount"] == 10
            assert state == {"n": 10, **{f"k{n}": n for n in range(1, 11)}}
    finally:
        for server in servers:
            server.stop()


@pytest.mark.anyio
async def test_restart_between_http_servers_with_token_from_environment(tmp_path: Path) -> None:
    store = f"file:{tmp_path / 'store'}"
    env = {"SKILLSTATE_MCP_TOKEN": TOKEN}
    first = start_http(store, tmp_path, env=env)
    try:
        status, _, _ = request(first, "GET", "/health")
        assert status == 401  # the environment's token is required
        async with http_client(first.url, TOKEN) as client:
            init = await client.call_tool(
                "initialize_skill", {"session_id": "r1", "skill_specification": "count"}
            )
            obs = init.structured_content["prompt_payload"]["latest_observation"]
            obs = (await _step_on(client, "r1", 1, obs))["prompt_payload"]["latest_observation"]
    finally:
        first.stop()
    second = start_http(store, tmp_path, env=env)
    try:
        async with http_client(second.url, TOKEN) as client:
            resumed = await _step_on(client, "r1", 2, obs)
            assert resumed["step"] == 2
            assert "warning" not in resumed["meta"]
    finally:
        second.stop()


async def _step_on(client: Any, session: str, n: int, obs: str) -> dict[str, Any]:
    result = await client.call_tool(
        "execute_step",
        {
            "session_id": session,
            "reasoning_trace": "",
            "state_update": {"n": n},
            "action": "tick",
            "environment_observation": obs,
        },
    )
    assert not result.is_error, text_of(result)
    data: dict[str, Any] = result.structured_content
    return data


def test_health_names_a_sqlite_store_without_its_path(tmp_path: Path) -> None:
    """Before, /health showed ``sqlite:////abs/path/runs.db``; now the path is ``<store>``,
    as error messages already had it, and the options stay."""
    server = start_http(f"sqlite:///{tmp_path}/runs.db?durability=process", tmp_path, [])
    try:
        status, _, data = request(server, "GET", "/health")
    finally:
        server.stop()
    assert status == 200
    assert json.loads(data)["store"] == "sqlite:<store>?durability=process"
    assert str(tmp_path) not in data.decode()
