"""What the model saw: ``/runs/RUN/prompt?v=N`` over real HTTP, on the file, SQLite and
PostgreSQL stores, against the prompts the runtime rendered while a session ran."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host

from skillstate.plugin import excerpt

from .support import SID, UiServer, drive_session as drive, shown_prompt


@pytest.fixture
def served(store_url: str, tmp_path: Path):
    seen = drive(store_url)
    server = UiServer(store_url, tmp_path)
    try:
        yield server, seen
    finally:
        server.stop()


def test_every_versions_prompt_is_what_the_runtime_rendered(served: Any) -> None:
    server, seen = served
    assert len(seen) == 7
    for version, prompts in seen.items():
        for style, text in prompts.items():
            q = f"?v={version}" + ("" if style == "paper" else f"&style={style}")
            status, headers, raw = server.get(f"/runs/{SID}/prompt.txt{q}")
            assert status == 200 and headers["content-type"] == "text/plain; charset=utf-8"
            assert raw == text, (version, style)  # the exact text, the CR included
            status, _, page = server.get(f"/runs/{SID}/prompt{q}")
            assert status == 200
            assert shown_prompt(page) == excerpt(text, len(text) + 1), (version, style)
            marked = re.findall(r'data-part="([^"]+)"', page)
            assert marked == ["P", "Σ", "O"]
            assert ('id="prompt-prev"' in page) == (version > 1)
            assert ('id="prompt-next"' in page) == (version < 7)
    # the CR and the override are shown escaped, and the page says so
    _, _, page = server.get(f"/runs/{SID}/prompt?v=6")
    assert "alert\\x0d\nshelf \\u202eA1 &amp; &lt;B2&gt;" in page and 'id="escaped"' in page
    assert "<B2>" not in page and "<b>up</b>" not in page  # an agent's text stays text
    _, _, plain = server.get(f"/runs/{SID}/prompt?v=2")
    assert 'id="escaped"' not in plain and 'id="not-kept"' not in plain
    # no v: the current version; the links keep the style
    _, _, now = server.get(f"/runs/{SID}/prompt?style=turn")
    assert "at version 7 of 7" in now
    assert shown_prompt(now) == excerpt(seen[7]["turn"], 10**6)
    _, _, prev = server.get(f"/runs/{SID}/prompt?v=3&style=turn")
    assert f'href="/runs/{SID}/prompt?v=2&amp;style=turn"' in prev


def test_session_rows_link_their_prompt_and_other_runs_have_none(served: Any) -> None:
    server, _ = served
    _, _, page = server.get(f"/runs/{SID}")
    links = re.findall(rf'href="/runs/{SID}/prompt\?v=(\d+)"', page)
    assert sorted(int(v) for v in links) == [1, 2, 3, 4, 5, 6, 7, 7]  # each row, and "now"
    assert 'data-session="1"' in page
    _, _, other = server.get("/runs/plain-run")
    assert "/prompt" not in other and 'data-session="0"' in other


def test_prompts_that_cannot_be_shown_get_one_clear_line(served: Any) -> None:
    server, _ = served
    for path in ("/runs/plain-run/prompt", "/runs/plain-run/prompt.txt?v=1"):
        status, _, body = server.get(path)
        assert status == 404
        assert "run &#39;plain-run&#39; is not a session (it has no P)" in body
    status, _, body = server.get(f"/runs/{SID}/prompt?v=8")
    assert status == 404 and "has no version 8: its versions are 1 to 7" in body
    assert server.get("/runs/nobody/prompt")[0] == 404
    for query, why in (
        ("v=0", "v must be a whole number &gt;= 1"),
        ("v=x", "v must be a whole number &gt;= 1"),
        ("style=A4", "style must be one of paper, paper-pretty, turn"),
    ):
        status, _, body = server.get(f"/runs/{SID}/prompt?{query}")
        assert status == 400 and why in body, query


def test_an_entry_that_kept_only_a_digest_says_so(tmp_path: Path) -> None:
    """A session journaled before entries kept the observation text: its past prompts
    show the digest in place of the text, and the page says why."""
    import attrs

    url = f"file:{tmp_path}/state"
    source = f"memory:prompt-{tmp_path.name}"
    seen = drive(source)
    host = make_host(source)
    store = host.open_store()
    old = [attrs.evolve(e, observation=None) for e in store.journal(SID)]
    record = store.get(SID)
    target = make_host(url)
    target.open_store().import_run(record, old)
    target.close()
    host.close()
    server = UiServer(url, tmp_path)
    try:
        status, _, page = server.get(f"/runs/{SID}/prompt?v=2")
        assert status == 200 and 'id="not-kept"' in page
        digest = old[1].observation_sha256
        assert f"Observation text not kept (sha256 <code>{digest}</code>)" in page
        assert f"Latest Observation: (observation text not kept: sha256 {digest})" in shown_prompt(
            page
        )
        assert shown_prompt(page) != seen[2]["paper"]
        _, _, head = server.get(f"/runs/{SID}/prompt?v=7")  # the record keeps the latest
        assert 'id="not-kept"' not in head
    finally:
        server.stop()
