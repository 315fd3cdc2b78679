"""Stores under load, with real processes: no lost update, no hole in a journal.

- 8 processes x 250 increments on one run (sqlite, postgresql): counter 2,000,
  journal versions 1..2001, the record equal to the replay of its journal;
- two runtimes on two connections interleaving on one PostgreSQL run;
- a writer killed (SIGKILL) inside an open transaction: the run stays at its last
  committed version and the next writer proceeds;
- PostgreSQL connections terminated by the server while idle: the next operation
  reconnects and succeeds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pgservice import PG_URL, fresh_schema_url
from skillstate_testing import make_host, sample_skill

from skillstate.journal import verify_record
from skillstate.pipeline import Change, create_run, transition

WORKER = str(Path(__file__).with_name("store_worker.py"))


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/runs.db"
    else:
        yield from fresh_schema_url()


@pytest.fixture
def pg_url() -> Iterator[str]:
    yield from fresh_schema_url()


def _new_run(url: str, run_id: str = "shared") -> None:
    host = make_host(url)
    outcome = create_run(host, host.open_store(), sample_skill(), run_id, {"counter": 0})
    assert outcome.accepted, outcome.problems
    host.close()


def _check_run(url: str, counter: int, run_id: str = "shared") -> Any:
    host = make_host(url)
    store = host.open_store()
    record = store.get(run_id)
    entries = store.journal(run_id)
    host.close()
    assert record.state["counter"] == counter
    assert [e.version for e in entries] == list(range(1, counter + 2))
    assert verify_record(record, entries) == []
    return record


@pytest.mark.slow
def test_eight_processes_times_250_increments_lose_nothing(url: str) -> None:
    _new_run(url)
    procs = [
        subprocess.Popen(
            [sys.executable, WORKER, "increment", url, "shared", "250"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    attempts = 0
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        attempts += int(out.split()[-1])
    assert attempts >= 2000
    _check_run(url, 2000)


def test_two_runtimes_interleave_on_one_postgres_run(pg_url: str) -> None:
    """Two hosts, two pools (two server connections), alternating steps on one run."""
    _new_run(pg_url)
    a, b = make_host(pg_url), make_host(pg_url)
    stores = [a.open_store(), b.open_store()]
    skill = sample_skill()
    for n in range(1, 41):
        host, store = ((a, stores[0]), (b, stores[1]))[n % 2]
        note = f"{'ab'[n % 2]}{n}"
        current = store.get("shared")
        patch = {"counter": current.state["counter"] + 1, "notes": [note]}
        outcome = transition(host, store, "shared", Change(patch=patch), skill=skill)
        assert outcome.accepted and outcome.record.version == n + 1
        # the other runtime sees the step at once
        assert stores[(n + 1) % 2].get("shared").state["notes"] == [note]
    a.close()
    b.close()
    _check_run(pg_url, 40)


def _hold_and_kill(url: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, WORKER, "hold", url, "shared"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.strip() == "holding", proc.stderr.read() if proc.stderr else ""
        # while the transaction is open, readers see the last committed version
        host = make_host(url)
        assert host.open_store().get("shared").version == 4
        host.close()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def test_writer_killed_mid_transaction_leaves_the_last_committed_version(url: str) -> None:
    _new_run(url)
    out = subprocess.run(
        [sys.executable, WORKER, "increment", url, "shared", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    _hold_and_kill(url)
    record = _check_run(url, 3)
    assert record.version == 4
    # the lock died with the writer: the next writer commits version 5 right away
    out = subprocess.run(
        [sys.executable, WORKER, "increment", url, "shared", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert _check_run(url, 4).version == 5


def _terminate_backends(url: str) -> int:
    import psycopg

    name = url.split("application_name=")[1].split("&")[0]
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return len(rows)


@pytest.mark.parametrize("operation", ["read", "write"])
def test_dropped_connections_reconnect_and_lose_nothing(pg_url: str, operation: str) -> None:
    url = pg_url + "&pool_min=2&pool_max=2"
    _new_run(url)
    host = make_host(url)
    store, skill = host.open_store(), sample_skill()
    assert transition(host, store, "shared", Change(patch={"counter": 1}), skill=skill).accepted
    assert _terminate_backends(url) >= 1  # every connection of the store's pool is gone
    if operation == "read":
        assert store.get("shared").state["counter"] == 1
    else:
        outcome = transition(host, store, "shared", Change(patch={"counter": 2}), skill=skill)
        assert outcome.accepted and outcome.record.version == 3
    for _ in range(3):  # and it stays usable
        current = store.get("shared")
        patch = {"counter": current.state["counter"] + 1}
        assert transition(host, store, "shared", Change(patch=patch), skill=skill).accepted
    host.close()
    _check_run(url, 4 if operation == "read" else 5)


@pytest.mark.parametrize("dies", ["before the write", "after the commit"])
def test_connection_dying_around_a_commit_applies_it_exactly_once(pg_url: str, dies: str) -> None:
    """The server ends the session inside the operation; the store's retry must not double it."""
    import attrs

    from skillstate.records import JournalEntry

    _new_run(pg_url)
    host = make_host(pg_url)
    store = host.open_store()
    current = store.get("shared")
    record = attrs.evolve(current, state={**current.state, "counter": 1}, version=2)
    entry = JournalEntry(ts="t", step="s", patch={"counter": 1}, version=2)
    calls: list[int] = []

    def work(conn: Any) -> None:
        calls.append(1)
        suicide = "SELECT pg_terminate_backend(pg_backend_pid())"
        if dies == "before the write" and len(calls) == 1:
            conn.execute(suicide)
        store._cas(conn, record, entry, 1)
        if dies == "after the commit":
            conn.execute(suicide)

    store._run("commit", work, store._entry_landed("shared", entry))
    assert len(calls) == (2 if dies == "before the write" else 1)
    assert [e.version for e in store.journal("shared")] == [1, 2]
    assert store.get("shared") == record
    host.close()
