"""The HTTP server under hostile clients and failing stores (real sockets on 127.0.0.1).

Framing errors with the request's id, a bounded ``GET /mcp``, idle and slow-trickling
connections dropped, a cap on open connections, ``/health`` answering while a call
waits behind another process's lock and answering 503 for an unreachable store, masked
credentials, the token footguns, and a busy port.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .support import SKILLSTATE, HttpServer, http_client, server_env, start_http, text_of
from .test_mcp_http import request

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[HttpServer]:
    server = start_http(
        f"file:{tmp_path / 'store'}", tmp_path, ["--header-timeout", "1", "--max-connections", "8"]
    )
    yield server
    server.stop()


def _post(server: HttpServer, body: bytes) -> tuple[int, Any]:
    status, _, data = request(server, "POST", "/mcp", body, HEADERS)
    return status, json.loads(data)


def test_a_prompt_argument_of_the_wrong_type_is_named_over_http(served: HttpServer) -> None:
    status, body = _post(
        served,
        b'{"jsonrpc":"2.0","id":21,"method":"prompts/get","params":{"name":"skill_state_turn",'
        b'"arguments":{"session_id":["s1"]}}}',
    )
    assert body["id"] == 21, (status, body)
    assert body["error"] == {
        "code": -32602,
        "message": "prompt skill_state_turn: the argument session_id must be a string, "
        "got an array",
    }


def test_bodies_the_sdk_cannot_parse_get_400_with_the_request_id(served: HttpServer) -> None:
    status, body = _post(
        served,
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get_session",'
        b'"arguments":{"session_id":"\\ud800"}}}',
    )
    assert status == 400 and body["id"] == 11 and body["error"]["code"] == -32602
    assert "lone surrogate" in body["error"]["message"]
    status, body = _post(served, b'{"jsonrpc":"2.0","id":12,"method":"tools/list","params":[]}')
    assert (status, body["id"], body["error"]["code"]) == (400, 12, -32602)
    status, body = _post(
        served,
        b'[{"jsonrpc":"2.0","id":13,"method":"ping"},{"jsonrpc":"2.0","id":14,"method":"ping"}]',
    )
    assert status == 400 and [e["id"] for e in body] == [13, 14]
    assert {e["error"]["code"] for e in body} == {-32600}
    status, body = _post(served, b'{"jsonrpc":"2.0","id":15,"method":"ping","x":"\xff"}')
    assert (status, body["id"], body["error"]["code"]) == (400, 15, -32700)
    status, body = _post(served, b"{nope")
    assert (status, body["id"], body["error"]["code"]) == (400, None, -32700)


def test_a_number_too_long_to_read_gets_400_with_the_request_id(served: HttpServer) -> None:
    """JSON, but over the 4,300 digits the SDK's parser reads: before, ``id: null`` and
    "not JSON text"; now the request's id and where the number is."""
    status, body = _post(
        served,
        b'{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"list_sessions",'
        b'"arguments":{"limit":' + b"9" * 5000 + b"}}}",
    )
    assert (status, body["id"], body["error"]["code"]) == (400, 16, -32602)
    assert body["error"]["message"] == (
        "invalid params of tools/call: params.arguments.limit is a number too long to read "
        "(over 4,300 digits); send a long number as a string"
    )


def test_a_request_with_an_unusable_id_gets_400_with_a_null_id(served: HttpServer) -> None:
    """Before, the SDK took these for notifications: 202 and no body, the client waiting
    for ever. Now each is a -32600 error with ``id: null``; ``1e2`` is the integer 100."""
    for rid in (b"1.5", b"true", b"null", b'{"n":1}', b"NaN", b"-Infinity"):
        status, body = _post(served, b'{"jsonrpc":"2.0","id":' + rid + b',"method":"ping"}')
        assert (status, body["id"], body["error"]["code"]) == (400, None, -32600), rid
        assert 'invalid request: "id" must be a string or an integer' in body["error"]["message"]
    status, body = _post(served, b'{"jsonrpc":"2.0","id":1e2,"method":"ping"}')
    assert (status, body) == (200, {"jsonrpc": "2.0", "id": 100, "result": {}})
    status, body = _post(served, b'{"jsonrpc":"2.0" , "id" : 2.0, "method":"tools/list"}')
    assert status == 200 and body["id"] == 2 and body["result"]["tools"]
    status, _, data = request(
        served, "POST", "/mcp", b'{"jsonrpc":"2.0","method":"notifications/initialized"}', HEADERS
    )
    assert (status, data) == (202, b"")  # a notification is still not answered


def test_get_mcp_ends_at_once_instead_of_holding_an_event_stream(served: HttpServer) -> None:
    start = time.monotonic()
    status, headers, data = request(served, "GET", "/mcp", None, {"Accept": "text/event-stream"})
    assert status == 405 and "POST" in headers["allow"]
    assert "stateless" in json.loads(data)["error"]
    assert time.monotonic() - start < 5


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(1024):
            pass
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_silent_and_slow_trickling_connections_are_dropped(served: HttpServer) -> None:
    silent = socket.create_connection(("127.0.0.1", served.port))
    trickle = socket.create_connection(("127.0.0.1", served.port))

    def drip() -> None:
        try:
            for byte in b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 40:
                trickle.send(bytes([byte]))
                time.sleep(0.2)
        except OSError:
            pass

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    assert _closed_within(silent, 15), "a connection that sent nothing was kept open"
    assert _closed_within(trickle, 15), "a connection trickling its headers was kept open"
    silent.close()
    trickle.close()
    status, _, _ = request(served, "GET", "/health")
    assert status == 200


def test_open_connections_are_capped(served: HttpServer) -> None:
    """--max-connections 8: while 8 are open, one more request gets 503, not a ninth slot."""
    held = [socket.create_connection(("127.0.0.1", served.port)) for _ in range(8)]
    try:
        time.sleep(0.2)
        status, _, _ = request(served, "GET", "/health")
        assert status == 503
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        status, _, _ = request(served, "GET", "/health")
        if status == 200:
            break
        time.sleep(0.1)
    assert status == 200


_HOLD_LOCK = """
import fcntl, sys, time
fd = open(sys.argv[1], "a")
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.mark.anyio
async def test_health_answers_while_a_call_waits_on_another_process_lock(tmp_path: Path) -> None:
    """Another process holds the run's flock (as a commit would): the execute_step waits
    for it on a worker thread, and /health and other calls are answered meanwhile."""
    import anyio

    server = start_http(f"file:{tmp_path / 'store'}", tmp_path)
    try:
        async with http_client(server.url) as client:
            made = await client.call_tool(
                "initialize_skill", {"session_id": "s1", "skill_specification": "count"}
            )
            assert not made.is_error, text_of(made)
            (lock,) = (tmp_path / "store").rglob("s1*.lock")
            holder = subprocess.Popen(
                [sys.executable, "-c", _HOLD_LOCK, str(lock)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            results: list[Any] = []

            async def step() -> None:
                results.append(
                    await client.call_tool(
                        "execute_step",
                        {
                            "session_id": "s1",
                            "reasoning_trace": "",
                            "state_update": {"n": 1},
                            "action": "noop",
                            "environment_observation": "",
                        },
                    )
                )

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(step)
                await anyio.sleep(1.0)  # the step is now waiting on the lock
                assert not results
                with anyio.fail_after(10):
                    status, _, data = await anyio.to_thread.run_sync(
                        request, server, "GET", "/health"
                    )
                    assert status == 200, data
                    parsed = await client.call_tool(
                        "parse_turn_response",
                        {"response_text": '```json\n{"state_patch": {}, "action": "go"}\n```'},
                    )
                    assert not parsed.is_error
                assert not results  # still waiting: the lock is held
                assert holder.stdin is not None
                holder.stdin.close()
                holder.wait(10)
            assert results and not results[0].is_error, text_of(results[0])
    finally:
        server.stop()


def _step_body(request_id: int) -> bytes:
    arguments = {
        "session_id": "s1",
        "reasoning_trace": "",
        "state_update": {"n": 1},
        "action": "noop",
        "environment_observation": "",
    }
    params = {"name": "execute_step", "arguments": arguments}
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    ).encode()


def test_a_forced_shutdown_answers_a_call_in_flight_with_json_and_logs_no_traceback(
    tmp_path: Path,
) -> None:
    """Ctrl-C twice while a call waits on another process's lock: the call is answered
    (its result, or the transport's 500 with a JSON-RPC error) once the lock is free,
    never with uvicorn's text/plain 500 and an "Exception in ASGI application"."""
    import signal

    server = start_http(f"file:{tmp_path / 'store'}", tmp_path)
    headers = {**HEADERS, "MCP-Protocol-Version": "2025-06-18"}
    made = {
        "name": "initialize_skill",
        "arguments": {"session_id": "s1", "skill_specification": "c"},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": made})
    holder = None
    try:
        assert request(server, "POST", "/mcp", body.encode(), headers)[0] == 200
        (lock,) = (tmp_path / "store").rglob("s1*.lock")
        holder = subprocess.Popen(
            [sys.executable, "-c", _HOLD_LOCK, str(lock)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        answers: list[Any] = []

        def step() -> None:
            try:
                answers.append(request(server, "POST", "/mcp", _step_body(2), headers))
            except OSError as exc:
                answers.append(exc)

        caller = threading.Thread(target=step)
        caller.start()
        time.sleep(1.0)  # the step waits on the lock
        server.proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        server.proc.send_signal(signal.SIGINT)  # forced: uvicorn no longer waits
        time.sleep(0.5)
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
        caller.join(20)
        server.proc.wait(20)
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
        server.stop()
    assert len(answers) == 1 and not isinstance(answers[0], Exception), answers
    status, answer_headers, data = answers[0]
    assert answer_headers["content-type"] == "application/json", (status, data)
    answer = json.loads(data)
    assert ("result" in answer and status == 200) or (
        status == 500 and answer["error"]["code"] == -32603
    ), answer
    log = server.stderr_path.read_text()
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log


def test_an_unreachable_store_is_a_503_with_json_and_the_password_is_masked(
    tmp_path: Path,
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://app:hunter2secret@127.0.0.1:{port}/db?password=hunter2secret&connect_timeout=1"
    server = start_http(url, tmp_path)
    try:
        banner = server.stderr_path.read_text()
        assert "hunter2secret" not in banner and "***" in banner
        status, headers, data = request(server, "GET", "/health")
        assert status == 503 and headers["content-type"] == "application/json"
        body = json.loads(data)
        assert body["status"] == "unavailable" and body["error"]
        assert "hunter2secret" not in data.decode()
    finally:
        server.stop()
    log = server.stderr_path.read_text()
    assert "Traceback" not in log and "hunter2secret" not in log


def _run(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SKILLSTATE, "mcp", "--http", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=server_env(f"file:{tmp_path / 'store'}", **(env or {})),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_busy_port_is_one_line_and_exit_3(tmp_path: Path) -> None:
    server = start_http(f"file:{tmp_path / 'store'}", tmp_path)
    try:
        done = _run(tmp_path, "--port", str(server.port))
    finally:
        server.stop()
    assert done.returncode == 3, done.stderr
    assert done.stderr == (
        f"skillstate: cannot listen on 127.0.0.1:{server.port}: the address is already in use "
        "(another server is there; choose another --port, or 0 for any free port)\n"
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--token", ""], {}, '--token is empty (is the variable in --token "$TOKEN" unset?)'),
        (["--host", "0.0.0.0"], {}, "refusing to serve on 0.0.0.0 without a token"),
        (
            ["--host", "0.0.0.0", "--token-file", "missing.txt"],
            {},
            "--token-file missing.txt: cannot read it",
        ),
        (["--token", "a", "--token-file", "t.txt"], {}, "give --token or --token-file, not both"),
    ],
)
def test_token_footguns_are_usage_errors(
    tmp_path: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    done = _run(tmp_path, "--port", "0", *args, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"skillstate: {message}") and done.stderr.count("\n") == 1
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(
    ("value", "shown"),
    [("abc", "'abc'"), ("99999", "'99999'"), ("-1", "'-1'"), (" 3215 ", "' 3215 '"),
     ("1\x1b[31m", "'1\\x1b[31m'"), ("1\u009b", "'1\\x9b'")],
)  # fmt: skip
def test_a_bad_skill_state_port_is_one_line_and_exit_2(
    tmp_path: Path, value: str, shown: str
) -> None:
    """Not silently port 3211, as ``--port abc`` is not: the variable and its value named."""
    done = _run(tmp_path, env={"SKILL_STATE_PORT": value})
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "skillstate: $SKILL_STATE_PORT: expected a port number 0-65535 (0 = any free port), "
        f"got {shown}\n"
    )
    assert not (tmp_path / "store").exists()


def test_the_token_comes_from_a_file_or_the_environment(tmp_path: Path) -> None:
    (tmp_path / "token.txt").write_text("file-token-123\n")
    for args, env, token in (
        (["--token-file", "token.txt"], {}, "file-token-123"),
        ([], {"SKILLSTATE_MCP_TOKEN": "env-token-456"}, "env-token-456"),
    ):
        server = start_http(f"file:{tmp_path / 'store'}", tmp_path, args, env)
        try:
            assert "token required" in server.stderr_path.read_text()
            assert request(server, "GET", "/health")[0] == 401
            assert (
                request(server, "GET", "/health", None, {"Authorization": f"Bearer {token}"})[0]
                == 200
            )
        finally:
            server.stop()


def test_oauth_discovery_is_a_404_with_or_without_a_token(tmp_path: Path) -> None:
    """No OAuth is configured: the discovery documents are 404 (a 401 there makes MCP
    Inspector 2.x start an OAuth login instead of asking for the bearer token)."""
    paths = (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    )
    for args in (["--token", "t-123"], []):
        server = start_http(f"file:{tmp_path / 'store'}", tmp_path, args, {})
        try:
            for path in paths:
                status, _headers, body = request(server, "GET", path)
                assert status == 404, (args, path, status)
                assert "does not use OAuth" in json.loads(body)["error"]
            if args:  # the token still guards everything else
                assert request(server, "GET", "/health")[0] == 401
        finally:
            server.stop()


def test_allow_no_token_is_the_explicit_way_to_serve_a_public_address() -> None:
    import argparse

    from ..command import HttpUsageError, add_http_options, http_settings

    parser = argparse.ArgumentParser()
    add_http_options(parser)
    with pytest.raises(HttpUsageError, match=r"refusing to serve on 192\.0\.2\.1 without a token"):
        http_settings(parser.parse_args(["--host", "192.0.2.1"]), {})
    allowed = http_settings(parser.parse_args(["--host", "192.0.2.1", "--allow-no-token"]), {})
    assert allowed.token is None and allowed.host == "192.0.2.1"
    assert http_settings(parser.parse_args(["--host", "::1"]), {}).token is None
    from_env = http_settings(
        parser.parse_args(["--host", "0.0.0.0"]), {"SKILLSTATE_MCP_TOKEN": "t"}
    )
    assert from_env.token == "t"
    with pytest.raises(HttpUsageError):  # an empty variable is unset, not "no auth"
        http_settings(parser.parse_args(["--host", "0.0.0.0"]), {"SKILLSTATE_MCP_TOKEN": ""})


def test_health_and_the_banner_mask_a_postgresql_password(tmp_path: Path) -> None:
    """``user:pw@`` and ``?password=`` in the store URL: ``***`` in /health and the start-up
    line (the local server trusts, so the password is accepted and ignored)."""
    from urllib.parse import urlsplit

    from skillstate_testing.helpers import postgres_url, require_postgres

    require_postgres()
    base = urlsplit(postgres_url())
    user = base.username or "postgres"
    netloc = f"{user}:hunter2secret@{base.hostname}:{base.port or 5432}"
    url = f"postgresql://{netloc}{base.path}?password=hunter2secret"
    server = start_http(url, tmp_path)
    try:
        banner = server.stderr_path.read_text()
        assert "hunter2secret" not in banner
        assert f"postgresql://{user}:***@" in banner and "password=***" in banner
        status, _, data = request(server, "GET", "/health")
        assert status == 200, data
        body = json.loads(data)
        assert "hunter2secret" not in data.decode()
        assert body["store"].endswith("?password=***") and ":***@" in body["store"]
    finally:
        server.stop()
