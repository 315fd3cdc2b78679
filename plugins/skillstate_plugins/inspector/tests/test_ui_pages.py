"""Every page of ``skillstate ui`` over real HTTP, on the file, SQLite and PostgreSQL stores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from skillstate_testing import make_host

from .support import REASONING, UiServer, run_skillstate, seed


@pytest.fixture
def served(store_url: str, tmp_path: Path):
    facts = seed(store_url)
    server = UiServer(store_url, tmp_path)
    try:
        yield store_url, server, facts
    finally:
        server.stop()


def _rows(body: str) -> list[int]:
    return [int(v) for v in re.findall(r'<tr class="version[^"]*" data-version="(\d+)"', body)]


def test_every_page_answers_on_each_store(served, tmp_path: Path) -> None:
    url, server, facts = served
    rig, head = facts["rig"], facts["rig_head"]

    status, headers, body = server.get("/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    for run_id in (rig, "sess-1", "odd-skill"):
        assert f'href="/runs/{run_id}"' in body
    assert ">write tests<" not in body  # the rig run's next action is now the canary
    assert '<td data-label="Phase">green</td>' in body or '<td data-label="Phase">red</td>' in body

    _, _, only_rig = server.get("/?skill=rig-task")
    assert f'href="/runs/{rig}"' in only_rig and 'href="/runs/sess-1"' not in only_rig
    _, _, by_id = server.get("/?q=SESS")
    assert 'href="/runs/sess-1"' in by_id and f'href="/runs/{rig}"' not in by_id
    _, _, closed = server.get("/?status=closed")
    assert "No runs match these filters" in closed

    status, _, page = server.get(f"/runs/{rig}")
    assert status == 200
    assert _rows(page) == list(range(head, 0, -1))
    assert "Download export" in page and 'data-live="1"' in page

    status, _, session = server.get("/runs/sess-1")
    assert status == 200
    assert "P — the skill specification" in session and "given inline" in session
    assert "Environment: mock" in session
    assert "Latest observation" in session
    assert REASONING not in session

    status, _, state = server.get(f"/runs/{rig}/at/2")
    assert status == 200 and "Σ at version 2" in state and '"pass": 2' not in state
    assert "&#34;pass&#34;: 2" in state

    status, _, diff = server.get(f"/runs/{rig}/diff/3")
    assert status == 200 and "Version 2 → 3" in diff and "tests.fail" in diff
    status, _, diff_any = server.get(f"/runs/{rig}/diff?from=1&to={head}")
    assert status == 200 and f"Version 1 → {head}" in diff_any

    status, headers, exported = server.get(f"/runs/{rig}/export")
    assert status == 200
    assert headers["content-disposition"] == f'attachment; filename="{rig}.skillstate.json"'
    cli = run_skillstate("--store", url, "export", rig, cwd=tmp_path)
    assert cli.returncode == 0, cli.stderr
    ours, theirs = json.loads(exported), json.loads(cli.stdout)
    ours.pop("exported"), theirs.pop("exported")
    assert ours == theirs
    (tmp_path / "back.json").write_text(exported, encoding="utf-8")
    imported = run_skillstate(
        "--store", f"file:{tmp_path}/other", "import", str(tmp_path / "back.json"), cwd=tmp_path
    )
    assert imported.returncode == 0, imported.stderr

    status, headers, api = server.get(f"/api/runs/{rig}/versions?after={head - 2}")
    assert status == 200 and headers["content-type"] == "application/json"
    answer = json.loads(api)
    assert answer["head"] == head and [r["version"] for r in answer["rows"]] == [head - 1, head]


def test_bad_requests_get_a_clear_status(served) -> None:
    _, server, facts = served
    rig, head = facts["rig"], facts["rig_head"]
    cases = {
        "/runs/no-such-run": 404,
        f"/runs/{rig}/at/{head + 1}": 404,
        f"/runs/{rig}/at/0": 400,
        f"/runs/{rig}/at/x": 400,
        f"/runs/{rig}/diff?from=abc": 400,
        f"/runs/{rig}/diff": 400,
        "/runs/a..b/export": 400,
        "/runs/..%2Fetc/export": 404,
        "/no/such/page": 404,
        "/static/nope.js": 404,
        f"/api/runs/{rig}/versions?after=-1": 400,
        # digits to str.isdigit but not to int(): superscripts, and non-ASCII decimals
        "/?page=%C2%B2": 400,
        f"/runs/{rig}?page=%C2%B2": 400,
        f"/runs/{rig}/at/%C2%B2": 400,
        f"/runs/{rig}/diff/%E2%91%A0": 400,
        f"/runs/{rig}/diff?from=1&to=%C2%B2": 400,
        f"/api/runs/{rig}/versions?after=%C2%B2": 400,
        f"/runs/{rig}/at/%D9%A1": 400,
    }
    for path, expected in cases.items():
        status, _, body = server.get(path)
        assert status == expected, (path, status, body[:300])
    status, _, body = server.get("/runs/no-such-run")
    assert "no-such-run" in body and "Traceback" not in body
    status, headers, body = server.get("/", method="HEAD")
    assert (status, body) == (200, "")
    for method in ("POST", "PUT", "PATCH", "DELETE", "OPTIONS"):
        status, headers, body = server.get(f"/runs/{rig}", method=method)
        assert status == 405 and headers["allow"] == "GET, HEAD", method
    assert "read-only" in body


def test_the_timeline_and_the_list_are_paged(tmp_path: Path) -> None:
    from skillstate.plugin import Change, create_run, transition

    url = f"file:{tmp_path}/state"
    host = make_host(url)
    store = host.open_store()
    rig = host.skill("rig-task")
    create_run(host, store, rig, "long", {"branch": "b"})
    for n in range(2, 121):
        transition(
            host, store, "long", Change(patch={"tests": {"pass": n}}, label=f"s{n}"), skill=rig
        )
    for n in range(60):
        create_run(host, store, rig, f"r-{n:03}", {"branch": "b"})
    host.close()
    server = UiServer(url, tmp_path)
    try:
        _, _, first = server.get("/runs/long")
        assert _rows(first) == list(range(120, 70, -1)) and "page 1 of 3" in first
        _, _, last = server.get("/runs/long?page=3")
        assert _rows(last) == list(range(20, 0, -1)) and 'data-live="0"' in last
        _, _, beyond = server.get("/runs/long?page=99")
        assert _rows(beyond) == list(range(20, 0, -1))
        _, _, listing = server.get("/")
        assert "page 1 of 2" in listing and listing.count('class="run-link"') == 50
        _, _, second = server.get("/?page=2")
        assert second.count('class="run-link"') == 11
        _, _, searched = server.get("/?q=r-05")
        assert searched.count('class="run-link"') == 10
    finally:
        server.stop()


def test_the_live_endpoint_sees_a_patch_from_another_process(served, tmp_path: Path) -> None:
    url, server, facts = served
    rig, head = facts["rig"], facts["rig_head"]
    _, _, before = server.get(f"/api/runs/{rig}/versions?after={head}")
    assert json.loads(before)["rows"] == []
    done = run_skillstate(
        "--store",
        url,
        "patch",
        rig,
        "--step",
        "live",
        "--json",
        '{"tests": {"fail": 9}}',
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    _, _, after = server.get(f"/api/runs/{rig}/versions?after={head}")
    rows = json.loads(after)["rows"]
    assert [(r["version"], r["label"], r["keys"]) for r in rows] == [(head + 1, "live", ["tests"])]


def test_the_list_is_served_from_a_listing_refreshed_in_the_background(tmp_path: Path) -> None:
    import threading
    import time

    from skillstate.plugin import create_run

    from ..listing import Listing
    from ..queries import list_view

    host = make_host(f"sqlite:///{tmp_path}/runs.db")
    store = host.open_store()
    rig = host.skill("rig-task")
    create_run(host, store, rig, "first", {})
    listing = Listing(ttl=0.2)
    assert list_view(host, store, listing=listing)["total"] == 1
    create_run(host, store, rig, "second", {})
    assert list_view(host, store, listing=listing)["total"] == 1  # still fresh: kept
    before = threading.active_count()
    deadline = time.monotonic() + 10
    total = 1
    while total != 2 and time.monotonic() < deadline:
        time.sleep(0.25)
        total = list_view(host, store, listing=listing)["total"]  # stale: served, refreshed
    assert total == 2
    for _ in range(4):
        time.sleep(0.25)
        list_view(host, store, listing=listing)
    assert threading.active_count() <= before + 1  # one refresher thread, whatever the requests
    host.close()


def test_a_sessions_new_step_shows_its_action_and_outcome(served) -> None:
    from skillstate.plugin.runtime import Runtime

    url, server, _ = served
    _, _, before = server.get("/api/runs/sess-1/versions?after=0")
    head = json.loads(before)["head"]
    host = make_host(url)
    runtime = Runtime(host=host)
    runtime.execute_step("sess-1", "(discarded)", {"count": 3}, "run the linter")
    runtime.close()
    host.close()
    _, _, after = server.get(f"/api/runs/sess-1/versions?after={head}")
    (row,) = json.loads(after)["rows"]
    assert row["action"] == "run the linter" and row["action_status"] == "ok"
    assert row["observation"].startswith("[MOCK ENV")  # the current step's text
    _, _, page = server.get("/runs/sess-1")
    assert '<code>run the linter</code> <span class="note">ok</span>' in page


def test_concurrent_list_pages_all_see_every_run(tmp_path: Path) -> None:
    """Pages are built in worker threads from one shared listing: building one must not
    change what another sees (a list sorted in place looks empty while it is sorted)."""
    import threading

    from skillstate.plugin import create_run

    from ..listing import Listing
    from ..queries import list_view

    host = make_host(f"sqlite:///{tmp_path}/runs.db?durability=process")
    store = host.open_store()
    rig = host.skill("rig-task")
    runs = 3000
    for n in range(runs):
        create_run(host, store, rig, f"r-{n:05d}", {})
    listing = Listing(ttl=3600)
    seen: list[int] = []

    def pages() -> None:
        for _ in range(15):
            seen.append(list_view(host, store, listing=listing)["total"])
            seen.append(list_view(host, store, status="active", listing=listing)["total"])

    workers = [threading.Thread(target=pages) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    store.close()
    host.close()
    assert len(seen) == 120 and set(seen) == {runs}, sorted(set(seen))


def test_a_failing_background_refresh_is_logged_and_the_old_listing_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging
    import time

    from skillstate.plugin import create_run

    from ..listing import Listing

    url = f"sqlite:///{tmp_path}/runs.db"
    host = make_host(url)
    store = host.open_store()
    create_run(host, store, host.skill("rig-task"), "kept", {})
    listing = Listing(ttl=0.05)
    assert [s.id for s in listing.get(host, store)[0]] == ["kept"]
    store.close()  # every later read fails
    caplog.set_level(logging.WARNING, logger=Listing.__module__.rpartition(".")[0])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not caplog.records:
        time.sleep(0.1)
        assert [s.id for s in listing.get(host, store)[0]] == ["kept"]  # still served
    host.close()
    (record, *_) = caplog.records
    assert "listing" in record.getMessage() and "closed" in record.getMessage()
    assert str(tmp_path) not in record.getMessage()  # no server path
