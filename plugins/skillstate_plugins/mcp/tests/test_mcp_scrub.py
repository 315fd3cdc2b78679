"""Errors sent to MCP clients name no absolute server path and no store credential."""

from __future__ import annotations

from pathlib import Path

import pytest

from .. import scrub
from .support import stdio_client_for, text_of


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_damaged_session_is_reported_without_the_store_path(tmp_path: Path) -> None:
    store = tmp_path / "store"
    async with stdio_client_for(f"file:{store}", tmp_path) as client:
        made = await client.call_tool(
            "initialize_skill", {"session_id": "s1", "skill_specification": "count"}
        )
        assert not made.is_error, text_of(made)
        for damaged in store.rglob("s1.json*"):
            damaged.write_text("garbage{")
        got = await client.call_tool("get_session", {"session_id": "s1"})
    message = text_of(got)
    assert got.is_error and "not valid JSON" in message
    assert str(tmp_path) not in message
    assert "record file <store>/s1.json is not valid JSON" in message
    log = (tmp_path / "server-stderr-fast.log").read_text()
    assert "Traceback" not in log


def test_scrub_replaces_roots_other_paths_and_secrets() -> None:
    try:
        scrub.configure("file:/srv/data/store", ["/srv/skills"])
        assert scrub.scrub("cannot open /srv/data/store/runs/t1.json") == (
            "cannot open <store>/runs/t1.json"
        )
        assert (
            scrub.scrub("no SKILL.md in /srv/skills/a/SKILL.md")
            == "no SKILL.md in <skills>/a/SKILL.md"
        )
        assert scrub.scrub("see /etc/app/conf.toml, a/b and http://h/x/y") == (
            "see <path>, a/b and http://h/x/y"
        )
        scrub.configure("postgresql://u:hunter2secret@db/x?password=hunter2secret")
        assert "hunter2secret" not in scrub.scrub("auth failed: password hunter2secret")
        assert len(scrub.scrub("x" * 100_000)) < scrub.MAX_MESSAGE + 50
    finally:
        scrub.configure()
