"""A session's ``state_schema`` patterns over a real server: bounded in time, named when bad.

A pattern such as ``(a|aa)+$`` takes exponential time on a string that almost matches.
With Python's :mod:`re` one such check froze the whole server (a ``/health`` sent at the
same time waited for it); the schema check now gives up on the pattern and refuses the
state in one line. A pattern that is not a regular expression is refused with the
schema, naming where it is; ECMA-262's ``\\p{L}`` is one.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .support import start_http, stdio_client_for, text_of

pytestmark = pytest.mark.anyio

SLOW = "(a|aa)+$"
NEAR_MISS = "a" * 60 + "!"  # about 2**40 ways to fail under re


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _schema(pattern: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}


async def _initialize(client: Any, session: str, pattern: str, value: str) -> Any:
    return await client.call_tool(
        "initialize_skill",
        {
            "session_id": session,
            "skill_specification": "x",
            "state_schema": _schema(pattern),
            "initial_state": {"s": value},
        },
    )


async def test_a_catastrophic_pattern_is_refused_in_bounded_time(tmp_path: Path) -> None:
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path, "fast") as client:
        start = time.monotonic()
        refused = await _initialize(client, "re1", SLOW, NEAR_MISS)
        took = time.monotonic() - start
        assert refused.is_error
        text = text_of(refused)
        assert "took over 50 ms on one string; checking stopped" in text, text
        assert took < 20, took  # under re this is days, not seconds
        ok = await _initialize(client, "re2", SLOW, "aaaa")  # the same pattern, matching
        assert not ok.is_error, text_of(ok)
        listed = await client.call_tool("list_sessions", {})
        assert "re1" not in text_of(listed)  # the refused session was never written


async def test_a_pattern_that_is_no_regular_expression_is_named(tmp_path: Path) -> None:
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path, "fast") as client:
        bad = await _initialize(client, "re3", "(", "x")
        assert bad.is_error
        text = text_of(bad)
        assert "at properties/s/pattern: '(' is not a 'regex'" in text, text
        assert "failed unexpectedly" not in text
        unicode = await _initialize(client, "re4", r"^\p{L}+$", "héllo")
        assert not unicode.is_error, text_of(unicode)
        digits = await _initialize(client, "re5", r"^\p{L}+$", "h3llo")
        assert digits.is_error and "does not match" in text_of(digits)


async def test_unevaluated_properties_beside_pattern_properties_is_refused(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x": {"type": "string"}},
        "unevaluatedProperties": False,
    }
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path, "fast") as client:
        refused = await client.call_tool(
            "initialize_skill",
            {"session_id": "re6", "skill_specification": "x", "state_schema": schema},
        )
        assert refused.is_error
        assert "unevaluatedProperties beside patternProperties" in text_of(refused)


def test_other_clients_are_not_held_up_over_http(tmp_path: Path) -> None:
    """The server answers ``/health`` promptly while a slow pattern is being refused."""
    import threading

    server = start_http(f"file:{tmp_path / 'store'}", tmp_path)
    try:
        results: dict[str, Any] = {}

        def call() -> None:
            import anyio

            from .support import http_client

            async def go() -> None:
                async with http_client(server.url) as client:
                    results["refused"] = await _initialize(client, "re7", SLOW, "a" * 80 + "!")

            anyio.run(go)

        worker = threading.Thread(target=call)
        worker.start()
        time.sleep(0.3)
        start = time.monotonic()
        health = server.base + "/health"
        with urllib.request.urlopen(health, timeout=30) as answer:
            json.loads(answer.read())
        waited = time.monotonic() - start
        worker.join(timeout=60)
        assert not worker.is_alive()
        assert results["refused"].is_error
        assert waited < 10, waited
    finally:
        server.stop()
