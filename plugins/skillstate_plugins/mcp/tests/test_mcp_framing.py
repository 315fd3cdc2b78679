"""Every JSON-RPC request with an id gets an answer over stdio, even one the SDK cannot parse.

Raw lines on real pipes into a ``skillstate mcp`` subprocess, both stdio transports
(``fast``, and ``sdk``, the SDK's own reader and writer); and the prompt errors the SDK
answers as code 0 with a traceback in the log answered as ``-32602`` instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..framing import reject
from .support import INITIALIZED, raw_initialize, serve_raw

INIT = raw_initialize()

BAD_LINES: list[tuple[bytes, list[Any], int]] = [
    # (line, the ids it must be answered with, the error code)
    (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_session",'
        b'"arguments":{"session_id":"\\ud800"}}}',
        [1],
        -32602,
    ),
    (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":["get_session"]}', [2], -32602),
    (
        b'[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]',
        [3, 4],
        -32600,
    ),
    (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":"\xff\xfe"}}', [5], -32700),
    (b'{"jsonrpc":"2.0","id":"six","method":"pi', [None], -32700),
    (b"\x00\x01garbage", [None], -32700),
    (b'{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}', [None], -32600),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"skill-state://\\ud83d"}}',
        [7],
        -32602,
    ),
    (b"[]", [None], -32600),
]


def _serve(
    tmp_path: Path, transport: str, lines: list[bytes], answers: int
) -> tuple[list[Any], str]:
    return serve_raw(tmp_path, b"\n".join(lines) + b"\n", answers, transport)


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_every_request_with_an_id_is_answered_even_when_the_sdk_cannot_parse_it(
    tmp_path: Path, transport: str
) -> None:
    """A lone surrogate escape, array params, a batch, non-UTF-8 bytes, garbage: each gets
    its error (the request's id where it can be read, ``null`` where it cannot), in order,
    and a ping after all of them is still served."""
    ping = b'{"jsonrpc":"2.0","id":99,"method":"ping"}'
    lines = [INIT, INITIALIZED, *(line for line, _, _ in BAD_LINES), ping]
    expected = [answer for _, ids, _ in BAD_LINES for answer in ids]
    got, stderr = _serve(tmp_path, transport, lines, 1 + len(expected) + 1)
    assert got[0]["id"] == 0 and "result" in got[0]
    errors = got[1:-1]
    assert [e["id"] for e in errors] == expected
    codes = [code for _, ids, code in BAD_LINES for _ in ids]
    assert [e["error"]["code"] for e in errors] == codes
    assert got[-1] == {"jsonrpc": "2.0", "id": 99, "result": {}}
    assert "lone surrogate" in errors[0]["error"]["message"]
    assert "params.arguments.session_id" in errors[0]["error"]["message"]
    assert "must be an object, not an array" in errors[1]["error"]["message"]
    assert "batches are not supported" in errors[2]["error"]["message"]
    assert "not UTF-8" in errors[4]["error"]["message"]
    assert "Traceback" not in stderr


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_bad_prompt_requests_are_invalid_params_without_a_traceback(
    tmp_path: Path, transport: str
) -> None:
    """The SDK answers these as JSON-RPC code 0 ("Error rendering prompt ...") and logs a
    traceback; they are the caller's mistakes, so -32602 naming what was wrong."""

    def get(rid: int, params: dict[str, Any]) -> bytes:
        return json.dumps(
            {"jsonrpc": "2.0", "id": rid, "method": "prompts/get", "params": params}
        ).encode()

    lines = [
        INIT,
        INITIALIZED,
        get(1, {"name": "skill_state_turn", "arguments": {}}),
        get(2, {"name": "skill_state_turn", "arguments": {"session_id": "nope"}}),
        get(3, {"name": "no_such_prompt"}),
        get(4, {"name": "skill_state_paper_turn", "arguments": {"session_id": "x", "extra": "1"}}),
    ]
    got, stderr = _serve(tmp_path, transport, lines, 5)
    errors = {answer["id"]: answer["error"] for answer in got[1:]}
    assert {rid: e["code"] for rid, e in errors.items()} == {
        1: -32602,
        2: -32602,
        3: -32602,
        4: -32602,
    }
    assert (
        errors[1]["message"] == "prompt skill_state_turn needs the argument session_id (a string)"
    )
    assert 'Unknown session "nope"' in errors[2]["message"]
    assert errors[3]["message"].startswith("unknown prompt 'no_such_prompt'; the prompts are: ")
    assert "has no argument 'extra'" in errors[4]["message"]
    assert "Traceback" not in stderr


WRONG_TYPES: list[tuple[dict[str, Any], str]] = [
    # (prompts/get params, the error message)
    (
        {"name": "skill_state_turn", "arguments": {"session_id": 5}},
        "prompt skill_state_turn: the argument session_id must be a string, got a number",
    ),
    (
        {"name": "skill_state_paper_turn", "arguments": {"session_id": "s", "compact": True}},
        "prompt skill_state_paper_turn: the argument compact must be a string ('true' or "
        "'false'), got a boolean",
    ),
    (
        {"name": "skill_state_turn", "arguments": {"session_id": None}},
        "prompt skill_state_turn: the argument session_id must be a string, got null",
    ),
    (
        {"name": "skill_state_turn", "arguments": ["s1"]},
        "prompt skill_state_turn: arguments must be an object of strings, got an array",
    ),
    ({"name": 7}, "prompts/get: name must be a string, got a number"),
    (  # the hint names the values of compact only where the prompt takes compact
        {"name": "skill_state_turn", "arguments": {"session_id": "s", "compact": True}},
        "prompt skill_state_turn: the argument compact must be a string, got a boolean",
    ),
]


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_a_prompt_argument_of_the_wrong_type_is_named_with_the_type_wanted(
    tmp_path: Path, transport: str
) -> None:
    """MCP prompt arguments are strings; the SDK refuses any other type before a handler
    runs with a bare "Invalid request parameters". The answer names the argument."""
    lines = [INIT, INITIALIZED]
    for rid, (params, _) in enumerate(WRONG_TYPES, start=1):
        request = {"jsonrpc": "2.0", "id": rid, "method": "prompts/get", "params": params}
        lines.append(json.dumps(request).encode())
    lines.append(b'{"jsonrpc":"2.0","id":99,"method":"ping"}')
    got, stderr = _serve(tmp_path, transport, lines, len(WRONG_TYPES) + 2)
    answers = {answer["id"]: answer for answer in got[1:]}
    for rid, (_, message) in enumerate(WRONG_TYPES, start=1):
        assert answers[rid]["error"] == {"code": -32602, "message": message}, rid
    assert answers[99]["result"] == {}  # still serving
    assert "Traceback" not in stderr


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_a_prompts_get_notification_of_the_wrong_types_is_dropped_quietly(
    tmp_path: Path, transport: str
) -> None:
    """A notification (no id) has no one to answer: the type check leaves it to the SDK,
    which drops it; an error raised for it was logged with a traceback."""
    note = {
        "jsonrpc": "2.0",
        "method": "prompts/get",
        "params": {"name": "skill_state_turn", "arguments": {"session_id": 5}},
    }
    ping = b'{"jsonrpc":"2.0","id":99,"method":"ping"}'
    got, stderr = _serve(
        tmp_path, transport, [INIT, INITIALIZED, json.dumps(note).encode(), ping], 2
    )
    assert got[-1] == {"jsonrpc": "2.0", "id": 99, "result": {}}
    assert "Traceback" not in stderr and "must be a string" not in stderr


def test_reject_is_bounded_and_names_no_more_than_it_must() -> None:
    huge_key = "k" * 100_000
    line = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {huge_key: "\ud800"}},
        ensure_ascii=True,
    )
    (answer,) = reject(line.encode())
    assert answer["id"] == 1 and answer["error"]["code"] == -32602
    assert len(answer["error"]["message"]) < 500
    assert reject(b'{"jsonrpc":"2.0","method":"notifications/x","params":[1]}') == []
    assert reject(b'{"jsonrpc":"2.0","id":3,"result":{}}') == []
    deep = b'{"jsonrpc":"2.0","id":4,"method":"ping","params":' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert reject(deep)[0]["error"]["code"] == -32700  # too deep to read: id unknown


BAD_IDS = [b"1.5", b"true", b"null", b'{"n":1}', b"NaN", b"[1]"]
"""Ids the SDK reads as a notification's (never answered): each gets ``id: null``."""


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_a_request_with_an_unusable_id_gets_an_error_with_a_null_id(
    tmp_path: Path, transport: str
) -> None:
    """A float, a boolean, null, an object, NaN or an array as the id: before, no answer at
    all (the client waited for ever); now a -32600 error with ``id: null`` each, in order.
    ``1e2`` and ``7.0`` are the integers 100 and 7 (as a JavaScript client sends them)."""
    lines = [INIT, INITIALIZED]
    lines += [b'{"jsonrpc":"2.0","id":' + rid + b',"method":"ping"}' for rid in BAD_IDS]
    lines += [b'{"jsonrpc":"2.0","id":1e2,"method":"ping"}']
    lines += [b'{"jsonrpc":"2.0","id":7.0,"method":"tools/list"}']
    lines += [b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}']
    lines += [b'{"jsonrpc":"2.0","id":99,"method":"ping"}']
    got, stderr = _serve(tmp_path, transport, lines, 1 + len(BAD_IDS) + 3)
    errors = got[1 : 1 + len(BAD_IDS)]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(None, -32600)] * len(BAD_IDS)
    kinds = [e["error"]["message"].rsplit("not ", 1)[1] for e in errors]
    assert kinds == [
        "a number with a fraction",
        "a boolean",
        "null",
        "an object",
        "NaN or Infinity",
        "an array",
    ]
    assert got[-3] == {"jsonrpc": "2.0", "id": 100, "result": {}}
    assert got[-2]["id"] == 7 and isinstance(got[-2]["id"], int) and got[-2]["result"]["tools"]
    assert got[-1] == {"jsonrpc": "2.0", "id": 99, "result": {}}  # the notification: nothing
    assert "Traceback" not in stderr


LONG = b"1" * 5000
"""An integer over 4,300 digits: JSON, but more than the SDK's parser (or ``int``) reads."""

LONG_NUMBER_LINES: list[tuple[bytes, Any, int, str]] = [
    # (line, the id it must be answered with, the error code, what the message says)
    (
        b'{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"get_session",'
        b'"arguments":{"session_id":' + LONG + b"}}}",
        31,
        -32602,
        "invalid params of tools/call: params.arguments.session_id is a number too long to "
        "read (over 4,300 digits); send a long number as a string",
    ),
    (
        b'{"jsonrpc":"2.0","id":"s32","method":"ping","params":{"a":[0,-' + LONG + b".5]}}",
        "s32",
        -32602,
        "invalid params of ping: params.a[1] is a number too long to read (over 4,300 "
        "digits); send a long number as a string",
    ),
    (
        b'{"jsonrpc":"2.0","id":' + LONG + b',"method":"ping"}',
        None,
        -32600,
        'invalid request: "id" must be a string or an integer, not a number over 4,300 digits',
    ),
]


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_a_number_too_long_to_read_is_named_with_the_request_id(
    tmp_path: Path, transport: str
) -> None:
    """Before: ``id: null`` and "the message is not JSON text" (it is JSON): a client
    waited for ever for its answer. Now the request's id and where the number is."""
    lines = [INIT, INITIALIZED, *(line for line, _, _, _ in LONG_NUMBER_LINES)]
    lines += [b'{"jsonrpc":"2.0","id":99,"method":"ping"}']
    got, stderr = _serve(tmp_path, transport, lines, 1 + len(LONG_NUMBER_LINES) + 1)
    assert [
        (e["id"], e["error"]["code"], e["error"]["message"])
        for e in got[1 : 1 + len(LONG_NUMBER_LINES)]
    ] == [(rid, code, message) for _, rid, code, message in LONG_NUMBER_LINES]
    assert got[-1] == {"jsonrpc": "2.0", "id": 99, "result": {}}
    assert "Traceback" not in stderr
