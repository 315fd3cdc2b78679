"""What a caller sent comes back escaped once and bounded, and a bad field is named.

Raw JSON-RPC lines on real pipes into a ``skillstate mcp`` subprocess (both stdio
transports), and the HTTP server's start-up line: an unknown argument key, tool name,
prompt, prompt argument or resource URI holding ESC or U+009B (a terminal's CSI) is
shown as ``\\x1b``/``\\x9b`` (once: never ``\\\\x1b``), never raw; ``tools/call`` and
``resources/read`` params of the wrong type name the field; a history page past any
version is the caller's mistake (-32602), not an internal error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .support import INITIALIZED, raw_initialize, serve_raw, start_http

EVIL = "\x1b[31mX\x9b"
SHOWN = "\\x1b[31mX\\x9b"  # escaped once, as every other message shows it


def _request(rid: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def _serve(tmp_path: Path, transport: str, requests: list[bytes]) -> dict[Any, Any]:
    lines = [raw_initialize(), INITIALIZED, *requests]
    got, stderr = serve_raw(tmp_path, b"\n".join(lines) + b"\n", 1 + len(requests), transport)
    assert "Traceback" not in stderr
    return {answer["id"]: answer for answer in got[1:]}


def _texts(value: Any) -> list[str]:
    """Every string in a decoded JSON answer."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def _message(answer: dict[str, Any]) -> str:
    if "error" in answer:
        return str(answer["error"]["message"])
    assert answer["result"]["isError"] is True, answer
    return str(answer["result"]["content"][0]["text"])


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_a_callers_control_characters_come_back_escaped_once(
    tmp_path: Path, transport: str
) -> None:
    answers = _serve(
        tmp_path,
        transport,
        [
            _request(1, "tools/call", {"name": "execute_step", "arguments": {EVIL: 1}}),
            _request(2, "tools/call", {"name": f"no{EVIL}", "arguments": {}}),
            _request(3, "prompts/get", {"name": f"p{EVIL}"}),
            _request(
                4,
                "prompts/get",
                {"name": "skill_state_turn", "arguments": {"session_id": "s", EVIL: "1"}},
            ),
            _request(5, "resources/read", {"uri": f"skill-state://sessions/a{EVIL}"}),
            _request(6, "tools/call", {"name": "n" * 100_000, "arguments": {}}),
        ],
    )
    assert f'unknown argument "{SHOWN}" (accepted: ' in _message(answers[1])
    assert _message(answers[2]) == f"Unknown tool: no{SHOWN}"
    assert _message(answers[3]).startswith(f"unknown prompt 'p{SHOWN}'; the prompts are: ")
    assert f"has no argument '{SHOWN}' (it takes: session_id)" in _message(answers[4])
    assert answers[5]["error"]["code"] == -32602
    assert _message(answers[5]) == f"Unknown resource: skill-state://sessions/a{SHOWN}"
    assert answers[5]["error"]["data"] == {"uri": f"skill-state://sessions/a{SHOWN}"}
    assert len(_message(answers[6])) < 200  # a long unknown name is cut, not echoed whole
    for answer in answers.values():
        for text in _texts(answer):
            assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), answer
            assert "\\\\x" not in text, answer  # never escaped twice


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_params_of_the_wrong_type_name_the_field(tmp_path: Path, transport: str) -> None:
    """The SDK's answer is -32602 "Invalid request parameters" with data "": no field."""
    answers = _serve(
        tmp_path,
        transport,
        [
            _request(1, "tools/call", {"name": "list_sessions", "arguments": "str"}),
            _request(2, "tools/call", {"name": 7}),
            _request(3, "tools/call", {"arguments": {}}),
            _request(4, "resources/read", {"uri": 5}),
            _request(5, "resources/read", {}),
            _request(6, "tools/call", {"name": "list_sessions", "arguments": None}),
        ],
    )
    assert {rid: answers[rid]["error"] for rid in range(1, 6)} == {
        1: {"code": -32602, "message": "tools/call: arguments must be an object, got a string"},
        2: {"code": -32602, "message": "tools/call: name must be a string, got a number"},
        3: {"code": -32602, "message": "tools/call: name is missing (the tool to call, a string)"},
        4: {"code": -32602, "message": "resources/read: uri must be a string, got a number"},
        5: {
            "code": -32602,
            "message": "resources/read: uri is missing (the resource to read, a string)",
        },
    }
    assert answers[6]["result"]["isError"] is False  # null arguments: none given


@pytest.mark.parametrize("transport", ["fast"])
def test_a_history_page_past_any_version_is_invalid_params(tmp_path: Path, transport: str) -> None:
    """Before: -32603 (an internal error) for after=10^23, and the whole 5,000-digit URI
    echoed in an internal error for a longer one."""
    long = "9" * 5000
    answers = _serve(
        tmp_path,
        transport,
        [
            _request(
                1,
                "tools/call",
                {
                    "name": "initialize_skill",
                    "arguments": {"session_id": "s", "skill_specification": "do x"},
                },
            ),
            _request(2, "resources/read", {"uri": "skill-state://s/history/5"}),
            _request(3, "resources/read", {"uri": "skill-state://s/history/" + "9" * 23}),
            _request(4, "resources/read", {"uri": f"skill-state://s/history/{long}"}),
        ],
    )
    assert answers[2]["error"]["code"] == -32602
    assert answers[2]["error"]["message"] == 'session "s" is at version 1; after=5 is past it'
    assert answers[3]["error"] == {
        "code": -32602,
        "message": f"after={'9' * 23} is past the session's history",
        "data": {"uri": "skill-state://s/history/" + "9" * 23},
    }
    assert answers[4]["error"]["code"] == -32602
    assert answers[4]["error"]["message"] == (
        f"after={'9' * 40}… (5,000 characters) is past the session's history"
    )
    assert len(json.dumps(answers[4])) < 1000


def test_the_start_up_line_shows_the_store_url_escaped(tmp_path: Path) -> None:
    store = f"file:{tmp_path / 'a'}{EVIL}"
    server = start_http(store, tmp_path)
    try:
        banner = server.stderr_path.read_text(encoding="utf-8")
    finally:
        server.stop()
    assert f"(store file:{tmp_path / 'a'}{SHOWN})" in banner
    assert "\x1b" not in banner and "\x9b" not in banner
