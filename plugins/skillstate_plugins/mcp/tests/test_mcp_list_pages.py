"""``list_sessions`` in pages (issue 26, item 6), over the real SDK client on stdio."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .support import stdio_client_for, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def test_list_sessions_pages_with_limit_and_cursor(tmp_path: Path) -> None:
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path) as client:
        for n in range(7):
            await client.call_tool(
                "initialize_skill", {"session_id": f"s{n}", "skill_specification": "P"}
            )
        await client.call_tool("close_session", {"session_id": "s3"})
        whole = _data(await client.call_tool("list_sessions", {}))
        assert "next_cursor" not in whole  # unpaged: the reference's shape
        assert [s["session_id"] for s in whole["sessions"]] == ["s0", "s1", "s2", "s4", "s5", "s6"]
        seen, cursor, pages = [], None, 0
        while True:
            args: dict[str, Any] = {"limit": 4}
            if cursor is not None:
                args["cursor"] = cursor
            page = _data(await client.call_tool("list_sessions", args))
            pages += 1
            assert len(page["sessions"]) <= 4
            assert page["active_sessions"] == len(page["sessions"])
            seen += [s["session_id"] for s in page["sessions"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert (pages, seen) == (2, ["s0", "s1", "s2", "s4", "s5", "s6"])
        closed = _data(
            await client.call_tool(
                "list_sessions", {"limit": 2, "cursor": "s2", "include_closed": True}
            )
        )
        assert [s["session_id"] for s in closed["sessions"]] == ["s3", "s4"]
        assert closed["next_cursor"] == "s4"
        assert closed["active_sessions"] == 1  # s3 is listed, but closed
        for limit, got in ((0, "0"), (True, "a boolean"), (-1, "-1")):
            bad = await client.call_tool("list_sessions", {"limit": limit})
            assert bad.is_error and text_of(bad) == (  # one message for every bad limit
                f"Invalid arguments for tool list_sessions: limit must be a whole number >= 1, "
                f"got {got}"
            )


async def test_active_sessions_counts_no_closed_session(tmp_path: Path) -> None:
    """Before: ``active_sessions: 1`` beside a single, closed session."""
    async with stdio_client_for(f"file:{tmp_path / 'store'}", tmp_path) as client:
        await client.call_tool("initialize_skill", {"session_id": "s", "skill_specification": "P"})
        await client.call_tool("close_session", {"session_id": "s"})
        listed = _data(await client.call_tool("list_sessions", {"include_closed": True}))
        assert [s["status"] for s in listed["sessions"]] == ["closed"]
        assert listed["active_sessions"] == 0
