"""The ``sqlite:`` store's durability levels (``docs/reliability.md``).

- ``full`` is ``synchronous=FULL`` (SQLite syncs the WAL at every commit);
  ``process`` is ``synchronous=NORMAL`` with the WAL handed to the pending syncs.
- ``process`` under a simulated power loss: the WAL as it was at this process's last
  sync of it (the only thing that syncs it between checkpoints, which are turned off
  here so the main file does not change), the main file as it is. Nothing
  acknowledged a window before the cut is lost, and what comes back is a committed
  version exactly. The clock is the test's (:meth:`PendingSyncs.run_due` is what the
  sync thread would do).
- ``SIGKILL`` of a writer loses nothing acknowledged, at either level.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from skillstate.plugin import Change, PendingSyncs, RunNotFound, create_run, transition
from skillstate.testing import SYNC_WINDOW, make_host, observing_syncs, sample_skill
from skillstate.testing.durability import increment, kill_writers

from ..backend import SQLiteStore


def _url(tmp_path: Path, level: str, name: str = "runs.db") -> str:
    return f"sqlite:///{str(tmp_path / name).lstrip('/')}?durability={level}"


@pytest.mark.parametrize(("level", "pragma"), [("full", 2), ("process", 1)])
def test_each_level_sets_its_synchronous_pragma(tmp_path: Path, level: str, pragma: int) -> None:
    store = SQLiteStore(_url(tmp_path, level))
    assert store.durability == level
    assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == pragma
    assert store._conn().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_the_level_comes_from_the_configuration_when_the_url_names_none(tmp_path: Path) -> None:
    url = f"sqlite:///{str(tmp_path / 'runs.db').lstrip('/')}"
    host = make_host(url, durability="process")
    assert host.open_store().durability == "process"
    assert host.open_store(url + "?durability=full").durability == "full"  # the URL wins
    host.close()


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_process_a_power_loss_loses_at_most_the_last_second(tmp_path: Path) -> None:
    url, clock = _url(tmp_path, "process"), Clock()
    wal = tmp_path / "runs.db-wal"
    synced: list[bytes] = [b""]

    def observe(fd: int, directory: bool) -> None:
        if os.readlink(f"/proc/self/fd/{fd}") == str(wal):
            synced.append(wal.read_bytes())

    host = make_host(url)
    store = host.open_store()
    store._syncs = PendingSyncs(thread=False, clock=clock)
    store._conn().execute("PRAGMA wal_autocheckpoint = 0")  # the main file stays as it is
    skill = sample_skill()
    acked: list[tuple[float, int]] = []
    committed: dict[int, Any] = {}
    lost_any = False
    with observing_syncs(observe):
        create_run(host, store, skill, "r", {"counter": 0})
        acked.append((clock.now, 1))
        committed[1] = store.get("r")
        for n in range(1, 41):
            clock.now += 0.05
            store._syncs.run_due()
            assert transition(host, store, "r", Change(patch={"counter": n}), skill=skill).accepted
            acked.append((clock.now, n + 1))
            committed[n + 1] = store.get("r")
            if n % 4:
                continue
            cut = tmp_path / f"cut-{n}"
            cut.mkdir()
            (cut / "runs.db").write_bytes((tmp_path / "runs.db").read_bytes())
            (cut / "runs.db-wal").write_bytes(synced[-1])
            copy = SQLiteStore(f"sqlite:///{str(cut / 'runs.db').lstrip('/')}")
            try:
                got = copy.get("r")
            except RunNotFound:
                version = 0
            else:
                version = got.version
                assert got == committed[version], "a version not exactly as committed"
            finally:
                copy.close()
            due = max((v for t, v in acked if t <= clock.now - SYNC_WINDOW), default=0)
            assert due <= version <= n + 1, f"cut at version {n + 1}: got {version}, due {due}"
            lost_any |= version < n + 1
    host.close()
    assert lost_any, "nothing was ever lost: the WAL was synced on the commit path"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("level", ["full", "process"])
def test_sigkill_of_a_writer_loses_nothing_acknowledged(tmp_path: Path, level: str) -> None:
    url = _url(tmp_path, level)
    host, skill = make_host(url), sample_skill()
    store = host.open_store()
    create_run(host, store, skill, "k", {"counter": 0})
    started = time.perf_counter()
    for _ in range(3):
        increment(host, store, skill)
    commit = (time.perf_counter() - started) / 3
    store.close()
    opened = functools.partial(SQLiteStore, url)  # each child its own connection
    acknowledged = kill_writers(
        host,
        skill,
        child_store=opened,
        fresh_store=opened,
        kills=12,
        acknowledged=4,
        reads=(0, 3),
        pause=2 * commit,
    )
    assert acknowledged > 12, "the writers hardly committed: the test proved little"
    host.close()
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
