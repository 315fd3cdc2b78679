"""Fuzz: raw JSON-RPC lines into a real ``skillstate mcp`` stdio subprocess.

Each input is one line — a request with hostile params (surrogates, deep and huge
values, arrays, strings), a batch, duplicate keys, an odd id, bytes that are not
UTF-8, a truncated or garbled message — followed by a ``ping`` with a fresh id. The
test asserts that every request with an id gets exactly one well-formed answer, that
the server is still serving (the ping is answered), that the store's bytes are the
same after a line whose every answer was an error, and, at the end, that the server
logged no traceback and exits cleanly at end of input.

Examples per test: ``SKILLSTATE_FUZZ_EXAMPLES`` (``tests/fuzzing.py``).
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzzing import (
    FUZZ,
    HOSTILE_IDS,
    MCP_METHODS,
    MCP_PARAMS,
    hostile_text,
    tree_hash,
)
from hypothesis import given, strategies as st
from support import SKILLSTATE, server_env

pytestmark = pytest.mark.fuzz

ANSWER_TIMEOUT = float(os.environ.get("SKILLSTATE_FUZZ_ANSWER_TIMEOUT", "60"))
_ids = itertools.count(1)


def _good_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) < 2**53
    return isinstance(value, str) and not any("\ud800" <= c <= "\udfff" for c in value)


def expected_ids(line: bytes) -> list[Any]:
    """The ids that must be answered: every request (an object with a method) with a good id."""
    text = line.decode("utf-8", "replace")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return []
    items = value if isinstance(value, list) else [value]
    return [
        item["id"]
        for item in items
        if isinstance(item, dict) and "method" in item and "id" in item and _good_id(item["id"])
    ]


def _encode(value: Any, ascii_only: bool) -> bytes:
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0"]))}
    message["id"] = draw(st.one_of(st.just(next(_ids)), st.just(next(_ids)), HOSTILE_IDS))
    message["method"] = draw(MCP_METHODS)
    if draw(st.booleans()) or message["method"] in ("tools/call", "prompts/get"):
        message["params"] = draw(MCP_PARAMS)
    return message


def _deep(depth: int) -> bytes:
    rid = next(_ids)
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_session",'
        b'"arguments":{"session_id":' % rid + b"[" * depth + b"]" * depth + b"}}}"
    )


def _huge(size: int) -> bytes:
    rid = next(_ids)
    return (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"parse_turn_response",'
        b'"arguments":{"response_text":"' % rid + b"x," * (size // 2) + b'"}}}'
    )


def _garble(data: bytes, cut: int, junk: bytes) -> bytes:
    cut = cut % (len(data) + 1)
    return data[:cut] + junk + data[cut:]


LINES = st.one_of(
    st.builds(_encode, requests(), st.booleans()),
    st.builds(_encode, st.lists(requests(), max_size=3), st.booleans()),
    st.builds(
        lambda method: (
            f'{{"jsonrpc":"2.0","id":{next(_ids)},"method":{json.dumps(method)},"id":{next(_ids)}}}'
        ).encode(),
        st.sampled_from(["ping", "tools/list", "prompts/list"]),
    ),
    st.builds(
        _garble,
        st.builds(_encode, requests(), st.just(True)),
        st.integers(min_value=0),
        st.binary(max_size=8),
    ),
    st.builds(
        lambda data, cut: data[: cut % (len(data) + 1)],
        st.builds(_encode, requests(), st.just(True)),
        st.integers(min_value=0),
    ),
    st.builds(_deep, st.sampled_from([50, 300, 3000])),
    st.builds(_huge, st.sampled_from([100_000, 1_500_000])),
    st.binary(max_size=40),
    st.builds(lambda t: t.encode("utf-8", "surrogatepass"), hostile_text),
)
"""One input line (newlines inside become spaces: one line is one message)."""


class StdioServer:
    """A ``skillstate mcp`` subprocess on pipes; answers and stderr collected by threads."""

    def __init__(self, tmp: Path, transport: str) -> None:
        self.store = tmp / "store"
        self.proc = subprocess.Popen(
            [SKILLSTATE, "mcp", "--transport", transport],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp,
            env=server_env(f"file:{self.store}"),
        )
        self.answers: queue.Queue[bytes] = queue.Queue()
        self.stderr: list[bytes] = []
        self.seen: dict[Any, list[dict[str, Any]]] = {}
        self.null_answers = 0
        threading.Thread(
            target=self._pump, args=(self.proc.stdout, self.answers.put), daemon=True
        ).start()
        threading.Thread(
            target=self._pump, args=(self.proc.stderr, self.stderr.append), daemon=True
        ).start()

    @staticmethod
    def _pump(stream: Any, sink: Any) -> None:
        for line in iter(stream.readline, b""):
            sink(line)

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n")
        self.proc.stdin.flush()

    def wait_for(self, ids: list[Any]) -> None:
        """Read answers until each of ``ids`` has one (failing after a timeout)."""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while any(rid not in self.seen for rid in ids):
            left = deadline - time.monotonic()
            if left <= 0:
                missing = [rid for rid in ids if rid not in self.seen]
                raise AssertionError(f"no answer for the request(s) {missing!r}")
            try:
                raw = self.answers.get(timeout=left)
            except queue.Empty:
                continue
            answer = json.loads(raw)  # every line the server writes is JSON
            assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0", raw[:300]
            assert ("result" in answer) != ("error" in answer), raw[:300]
            if answer.get("id") is None:
                self.null_answers += 1
            else:
                self.seen.setdefault(answer["id"], []).append(answer)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        rid = f"setup-{next(_ids)}"
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        self.wait_for([rid])
        return self.seen[rid][0]

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(60)
        time.sleep(0.2)
        return code, b"".join(self.stderr).decode("utf-8", "replace")


@pytest.fixture(scope="module", params=["fast", "sdk"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StdioServer]:
    served = StdioServer(tmp_path_factory.mktemp(f"fuzz-mcp-{request.param}"), request.param)
    opened = served.request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        },
    )
    assert "result" in opened
    served.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    made = served.request(
        "tools/call",
        {
            "name": "initialize_skill",
            "arguments": {
                "session_id": "s1",
                "skill_specification": "count",
                "initial_state": {"n": 0},
            },
        },
    )
    assert made["result"].get("isError") is not True, made
    yield served
    code, stderr = served.close()
    assert code == 0, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    for rid, answers in served.seen.items():
        unique = isinstance(rid, int) and 0 < rid < 2**53  # the ids of _ids, never reused
        if unique or str(rid).startswith(("sentinel-", "setup-")):
            assert len(answers) == 1, f"request {rid!r} was answered {len(answers)} times"


def _failed(answer: dict[str, Any]) -> bool:
    return "error" in answer or answer["result"].get("isError") is True


@FUZZ
@given(line=LINES)
def test_every_request_is_answered_and_a_rejection_changes_nothing(
    server: StdioServer, line: bytes
) -> None:
    before = tree_hash(server.store)
    ids = expected_ids(line.replace(b"\n", b" ").replace(b"\r", b" "))
    sentinel = f"sentinel-{next(_ids)}"
    known = set(server.seen)
    server.send(line)
    server.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}).encode())
    server.wait_for([*ids, sentinel])
    assert server.seen[sentinel][0]["result"] == {}
    answers = [
        a for rid, got in server.seen.items() if rid not in known and rid != sentinel for a in got
    ]
    if all(_failed(answer) for answer in answers):
        assert tree_hash(server.store) == before, (
            f"a rejected line changed the store: {line[:200]!r}"
        )
