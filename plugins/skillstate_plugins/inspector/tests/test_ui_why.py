"""The inspector shows why: rejected steps with their attempt and reasons, a fork's
parent as a link, the store an empty list reads (over real HTTP, each bundled store)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from skillstate_testing import make_host

from .support import IMG, SCRIPT, UiServer, run_skillstate

SCHEMA = {"type": "object", "properties": {"count": {"type": "integer"}}}


def _seed_rejections(url: str) -> None:
    """A session with one accepted step, one schema rejection and one environment
    rejection (the mock's ``fail`` with ``reject_transition``), hostile text in both."""
    from skillstate.plugin.runtime import Runtime

    host = make_host(url)
    runtime = Runtime(host=host)
    runtime.initialize_skill("why-1", "P: count.", {"count": 0}, SCHEMA, environment="mock")
    runtime.execute_step("why-1", "r", {"count": 1}, "echo one")
    bad = runtime.execute_step("why-1", "r", {"count": "two"}, f"echo {IMG}")
    assert bad["meta"]["rolled_back"] is True, bad
    failed = runtime.execute_step(
        "why-1",
        "r",
        {"count": 3},
        {"type": "fail", "reason": f"disk full {SCRIPT}", "reject_transition": True},
    )
    assert failed["meta"]["rejection"] is not None, failed
    runtime.close()
    host.close()


def _action_cells(body: str) -> dict[int, str]:
    found = re.findall(
        r'<tr class="version[^"]*" data-version="(\d+)">(.*?)</tr>', body, flags=re.S
    )
    return {
        int(v): re.search(r'<td data-label="Action">(.*?)</td>', row, re.S).group(1)  # type: ignore[union-attr]
        for v, row in found
    }


def test_a_rejected_step_shows_its_attempt_and_reasons(store_url: str, tmp_path: Path) -> None:
    _seed_rejections(store_url)
    server = UiServer(store_url, tmp_path)
    try:
        status, _, page = server.get("/runs/why-1")
        assert status == 200
        cells = _action_cells(page)
        # v1 creation, v2 accepted, v3 schema rollback, v4 environment rollback
        assert "rejected" not in cells[2]
        schema = cells[3]
        assert "rejected (schema)" in schema
        assert f"echo {IMG}" in html.unescape(schema) and IMG not in schema
        assert re.search(r"<li>[^<]*count[^<]*</li>", schema), schema
        env = cells[4]
        assert "rejected (" in env and "reject_transition" in env
        assert f"disk full {SCRIPT}" in html.unescape(env) and SCRIPT not in env, env

        status, _, diff = server.get("/runs/why-1/diff/3")
        assert status == 200
        assert "No change in Σ" not in diff
        assert "records a rejected step" in diff and "rejected (schema)" in diff
        assert f"echo {IMG}" in html.unescape(diff) and IMG not in diff

        _, _, accepted = server.get("/runs/why-1/diff/2")
        assert "rejected" not in accepted

        status, _, answer = server.get("/api/runs/why-1/versions?after=2")
        assert status == 200
        assert '"kind":"schema"' in answer.replace(" ", "")
    finally:
        server.stop()


def test_forked_from_links_to_the_parent_at_its_version(store_url: str, tmp_path: Path) -> None:
    _seed_rejections(store_url)
    done = run_skillstate("--store", store_url, "fork", "--at", "2", "why-1", "why-2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    server = UiServer(store_url, tmp_path)
    try:
        status, _, page = server.get("/runs/why-2")
        assert status == 200
        assert re.search(
            r'<dt>Forked from</dt><dd><a id="forked-from" href="/runs/why-1/at/2">', page
        )
        assert (
            'class="note fork" href="/runs/why-1/at/2">forked from why-1 at version 2</a>' in page
        )
    finally:
        server.stop()


def test_an_empty_store_names_the_store_without_its_path(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/empty.db"
    for args in (("init", "rig-task", "gone"), ("rm", "gone")):
        done = run_skillstate("--store", url, *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    server = UiServer(url, tmp_path)
    try:
        status, _, body = server.get("/")
        assert status == 200
        assert 'No runs in the store <code id="store">sqlite:&lt;store&gt;</code>' in body
        assert str(tmp_path) not in body
    finally:
        server.stop()
