"""The ``tools/call`` fast path, proved equal to the SDK's path on the wire: real
``skillstate mcp`` processes over stdio and Streamable HTTP.

Two servers get the same raw JSON-RPC messages: one as shipped (the call fast path on,
and counted: a ``sitecustomize`` on ``PYTHONPATH`` logs each call it serves), one with
only the call fast path kept off (its ``sitecustomize`` marks it installed before the
server is built), so every call takes the SDK's ``_on_request`` — everything else (the
fast stdio transport, the result fast path) is the same on both. The answers must be the
same JSON-RPC messages, timestamps aside, each request with an id answered once. The
messages are those where the two paths could part: calls before ``initialize`` and
before ``notifications/initialized``, arguments missing, null, not an object or of the
wrong type, an unknown tool, a name that is not a string, ``_meta`` with a progress
token, ``requestState``, ``task``, a cancellation of a call in flight, calls still in
flight when stdin closes, error text holding paths, and ``prompts/get`` with the wrong
argument type (the middleware the fast path lets through) between calls.
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp_support import SKILLSTATE, initialize_request, server_env, start_http
from mcp_types.jsonrpc import CONNECTION_CLOSED
from test_mcp_http import request

MARK = "skillstate-call-fast-path:"
SITES = {
    "fast": f"""
import sys
import skillstate_plugins.mcp.sdk as sdk

_served = sdk._run_fast

async def _counted(runner, tool, params):
    print("{MARK}", params["name"], file=sys.stderr, flush=True)
    return await _served(runner, tool, params)

sdk._run_fast = _counted
""",
    "sdk": """
import skillstate_plugins.mcp.sdk as sdk

sdk._call_installed.append(object())  # install_call_fast_path then patches nothing
""",
}
STAMPS = ("createdAt", "updatedAt", "created_at", "updated_at", "at", "time")
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _env(tmp_path: Path, kind: str, store: str) -> dict[str, str]:
    site = tmp_path / f"site-{kind}"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITES[kind], encoding="utf-8")
    return server_env(f"file:{tmp_path / store}", PYTHONPATH=str(site))


def _call(request_id: int, name: Any, arguments: Any = ..., **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not ...:
        params["arguments"] = arguments
    params.update(extra)
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
SPEC = {"session_id": "s1", "skill_specification": "P", "initial_state": {"a": 1}}
STEP = {
    "session_id": "s1",
    "reasoning_trace": "r",
    "state_update": {"b": 2},
    "action": "go",
    "environment_observation": "o",
}
ARGUMENT_FORMS = [
    _call(10, "list_sessions"),
    _call(11, "list_sessions", None),
    _call(12, "list_sessions", []),
    _call(13, "list_sessions", "{}"),
    _call(14, "list_sessions", 5),
    _call(15, "no_such_tool", {}),
    _call(16, 5, {}),
    {"jsonrpc": "2.0", "id": 17, "method": "tools/call"},
    {"jsonrpc": "2.0", "id": 18, "method": "tools/call", "params": None},
    _call(19, "list_sessions", {"include_closed": "yes"}),
    _call(20, "get_session", {"session_id": 5}),
    _call(21, "execute_step", {**STEP, "state_update": "not json"}),
    _call(22, "execute_step", {**STEP, "action": []}),
    _call(23, "get_session", {"session_id": "/home/someone/.secret/state.db"}),
    _call(24, "initialize_skill", {**SPEC, "session_id": "s2", "environment": "/etc/passwd"}),
    _call(25, "list_sessions", {}, _meta={"progressToken": 7}),
    _call(26, "list_sessions", {}, _meta={}),
    _call(27, "list_sessions", {}, requestState="sealed?"),
    _call(28, "list_sessions", {}, task={"ttl": 1000}),
    {
        "jsonrpc": "2.0",
        "id": 29,
        "method": "prompts/get",
        "params": {"name": "skill_state_turn", "arguments": {"session_id": ["s1"]}},
    },
    _call(30, "initialize_skill", SPEC),
    _call(31, "execute_step", STEP),
    _call(32, "execute_step", {**STEP, "unexpected": 1}),
    _call(33, "get_session", {"session_id": "s1", "at_step": "1"}),
    _call(34, "close_session", {"session_id": "s1"}),
    _call(35, "execute_step", STEP),
]


TOOLS = {
    "list_sessions",
    "get_session",
    "execute_step",
    "initialize_skill",
    "close_session",
    "inject_observation",
    "parse_turn_response",
}


def _plain(messages: list[dict[str, Any]]) -> int:
    """How many of ``messages`` the fast path serves on an initialized connection: calls of
    a skillstate tool with params ``name`` and ``arguments`` (an object, null or absent)."""
    return sum(
        1
        for m in messages
        if m.get("method") == "tools/call"
        and isinstance(m.get("params"), dict)
        and set(m["params"]) <= {"name", "arguments"}
        and m["params"].get("name") in TOOLS
        and isinstance(m["params"].get("arguments", {}), dict | None)
    )


def _comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in STAMPS}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    if isinstance(value, str) and value.startswith("{"):
        try:
            return _comparable(json.loads(value))
        except ValueError:
            pass
    return value


def _stdio(
    tmp_path: Path, kind: str, messages: list[dict[str, Any]], *, in_turn: bool
) -> tuple[list[Any], str]:
    """``messages`` sent to a stdio server, then stdin closed; (its answers, its stderr).

    ``in_turn``: each request's answer is read before the next message is sent (the
    answers then do not depend on how concurrent calls interleave); otherwise all are
    written at once and stdin closes with calls still in flight."""
    log = tmp_path / f"stderr-{kind}-{len(messages)}.log"
    with open(log, "wb") as errors:
        proc = subprocess.Popen(
            [SKILLSTATE, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=_env(tmp_path, kind, f"store-{kind}-{len(messages)}"),
            cwd=tmp_path,
        )
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(120, proc.kill)  # an unanswered request fails, not hangs
    watchdog.start()
    try:
        answers = []
        lines = [json.dumps(m).encode() + b"\n" for m in messages]
        if in_turn:
            for message, line in zip(messages, lines, strict=True):
                proc.stdin.write(line)
                proc.stdin.flush()
                if "id" in message:
                    answers.append(json.loads(proc.stdout.readline()))
            lines = []
        out, _ = proc.communicate(b"".join(lines))
    finally:
        watchdog.cancel()
    stderr = log.read_text(errors="replace")
    assert proc.returncode == 0, stderr
    answers += [json.loads(line) for line in out.splitlines() if line.strip()]
    return answers, stderr


def _by_id(answers: list[Any]) -> dict[Any, Any]:
    ids = [answer.get("id") for answer in answers]
    assert len(ids) == len(set(ids)), f"a request answered twice: {ids}"
    return {answer.get("id"): _comparable(answer) for answer in answers}


def _both_stdio(
    tmp_path: Path, messages: list[dict[str, Any]], *, in_turn: bool
) -> tuple[dict[Any, Any], dict[Any, Any], int]:
    fast, fast_log = _stdio(tmp_path, "fast", messages, in_turn=in_turn)
    slow, slow_log = _stdio(tmp_path, "sdk", messages, in_turn=in_turn)
    assert MARK not in slow_log
    assert "Traceback" not in fast_log + slow_log, fast_log + slow_log
    return _by_id(fast), _by_id(slow), fast_log.count(MARK)


def test_stdio_answers_alike_with_and_without_the_call_fast_path(tmp_path: Path) -> None:
    opening = [
        _call(1, "list_sessions", {}),  # before initialize
        initialize_request(0),
        _call(2, "list_sessions", {}),  # before notifications/initialized
        INITIALIZED,
    ]
    fast, slow, served = _both_stdio(tmp_path, [*opening, *ARGUMENT_FORMS], in_turn=True)
    assert fast == slow
    wanted = {1, 2, 0} | {m["id"] for m in ARGUMENT_FORMS}
    assert set(fast) == wanted
    assert fast[1]["error"]["code"] == -32602  # no call before initialize
    assert fast[12]["error"]["code"] == fast[16]["error"]["code"] == -32602
    assert fast[29]["error"]["message"].startswith("prompt skill_state_turn: the argument")
    assert "/home/someone" not in json.dumps(fast) and "/etc/passwd" not in json.dumps(fast)
    assert served == 1 + _plain(ARGUMENT_FORMS)  # id 2 and the plain calls took the fast path


def test_a_cancelled_call_and_calls_in_flight_at_eof_are_answered_alike(tmp_path: Path) -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    burst = [_call(100 + n, "initialize_skill", {**SPEC, "session_id": f"b{n}"}) for n in range(30)]
    turn = '```json\n{"state_patch":{},"action":"go"}\n```'
    messages = [
        initialize_request(0),
        INITIALIZED,
        _call(1, "initialize_skill", SPEC),
        cancel,
        _call(2, "parse_turn_response", {"response_text": turn}),
        *burst,  # stdin closes with these still in flight
    ]
    fast, slow, served = _both_stdio(
        tmp_path, messages, in_turn=False
    )  # _by_id: no id answered twice
    # the cancelled call: no answer if the cancel landed in time, else its result
    for answers in (fast, slow):
        assert "error" not in answers.pop(1, {})
    assert fast[0] == slow[0] and fast[2] == slow[2]
    # in flight when stdin closed: the result, or CONNECTION_CLOSED for what the
    # dispatcher cancelled at end of input, on either path; equal where both have results
    for request_id in (m["id"] for m in burst):
        outcomes = [answers.get(request_id) for answers in (fast, slow)]
        for outcome in outcomes:
            assert (
                outcome is None
                or "result" in outcome
                or (outcome["error"]["code"] == CONNECTION_CLOSED)
            ), outcome
        if all(outcome is not None and "result" in outcome for outcome in outcomes):
            assert outcomes[0] == outcomes[1]
    assert 1 <= served <= _plain(messages)


@pytest.mark.parametrize("version", [None, "2025-03-26", "2025-06-18", "2025-11-25"])
def test_http_answers_alike_with_and_without_the_call_fast_path(
    tmp_path: Path, version: str | None
) -> None:
    headers = dict(HEADERS)
    if version is not None:
        headers["mcp-protocol-version"] = version
    servers = {
        kind: start_http(f"file:{tmp_path / kind}", tmp_path, env=_env(tmp_path, kind, kind))
        for kind in ("fast", "sdk")
    }
    try:
        answers: dict[str, list[Any]] = {"fast": [], "sdk": []}
        for message in ARGUMENT_FORMS:
            body = json.dumps(message).encode()
            for kind, server in servers.items():
                status, _, data = request(server, "POST", "/mcp", body, headers)
                answers[kind].append((status, _comparable(json.loads(data))))
        for got, wanted in zip(answers["fast"], answers["sdk"], strict=True):
            assert got == wanted
        assert "/home/someone" not in json.dumps(answers["fast"])
    finally:
        for server in servers.values():
            server.stop()
    fast_log = servers["fast"].stderr_path.read_text(errors="replace")
    slow_log = servers["sdk"].stderr_path.read_text(errors="replace")
    assert MARK not in slow_log and fast_log.count(MARK) == _plain(ARGUMENT_FORMS)
