"""The ``sqlite:`` store's durability levels (``docs/reliability.md``).

- ``full`` is ``synchronous=FULL`` (SQLite syncs the WAL at every commit);
  ``process`` is ``synchronous=NORMAL`` (SQLite syncs the WAL only at a checkpoint).
- ``process`` under a simulated power loss: the main file as the last checkpoint left
  it, and any prefix of the WAL written since. What comes back is a committed version
  exactly, never older than the checkpoint.
- ``SIGKILL`` of a writer loses nothing acknowledged, at either level.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, sample_skill
from skillstate_testing.durability import increment, kill_writers

from skillstate.plugin import Change, create_run, transition

from ..backend import SQLiteStore


def _url(tmp_path: Path, level: str, name: str = "runs.db") -> str:
    return f"sqlite:///{tmp_path / name}?durability={level}"


@pytest.mark.parametrize(("level", "pragma"), [("full", 2), ("process", 1)])
def test_each_level_sets_its_synchronous_pragma(tmp_path: Path, level: str, pragma: int) -> None:
    store = SQLiteStore(_url(tmp_path, level))
    assert store.durability == level
    assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == pragma
    assert store._conn().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_the_level_comes_from_the_configuration_when_the_url_names_none(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    host = make_host(url, durability="process")
    assert host.open_store().durability == "process"
    assert host.open_store(url + "?durability=full").durability == "full"  # the URL wins
    host.close()


def test_process_a_power_loss_gives_back_a_committed_version_from_the_last_checkpoint_on(
    tmp_path: Path,
) -> None:
    """At ``synchronous=NORMAL`` SQLite syncs the WAL only at a checkpoint: a power loss
    keeps the main file as the last checkpoint left it and any prefix of the WAL (what
    the disk happened to write back). Every such cut opens to a committed version
    exactly, never older than the checkpoint (SQLite's checksums drop a torn frame)."""
    url = _url(tmp_path, "process")
    host = make_host(url)
    store = host.open_store()
    conn = store._conn()
    conn.execute("PRAGMA wal_autocheckpoint = 0")  # only the test's checkpoint
    skill = sample_skill()
    create_run(host, store, skill, "r", {"counter": 0})
    committed: dict[int, Any] = {1: store.get("r")}
    for n in range(1, 6):
        assert transition(host, store, "r", Change(patch={"counter": n}), skill=skill).accepted
        committed[n + 1] = store.get("r")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # version 6 is in the main file now
    main = (tmp_path / "runs.db").read_bytes()
    for n in range(6, 16):
        assert transition(host, store, "r", Change(patch={"counter": n}), skill=skill).accepted
        committed[n + 1] = store.get("r")
    assert (tmp_path / "runs.db").read_bytes() == main  # commits since went to the WAL only
    wal = (tmp_path / "runs.db-wal").read_bytes()
    host.close()
    seen = set()
    for length in [0, 31, *range(32, len(wal), 997), len(wal)]:
        cut = tmp_path / f"cut-{length}"
        cut.mkdir()
        (cut / "runs.db").write_bytes(main)
        if length:
            (cut / "runs.db-wal").write_bytes(wal[:length])
        copy = SQLiteStore(f"sqlite:///{cut / 'runs.db'}")
        try:
            got = copy.get("r")
            assert copy.journal("r")[-1].version == got.version
        finally:
            copy.close()
        assert got == committed[got.version], f"cut at {length} bytes: not a committed version"
        assert 6 <= got.version <= 16, f"cut at {length} bytes: version {got.version}"
        seen.add(got.version)
    assert min(seen) == 6 and max(seen) == 16 and len(seen) > 2, seen


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
