"""The ``sqlite:`` store: the conformance suite, URLs, and what a crash leaves behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skillstate_testing import StoreConformance, make_host

from skillstate.plugin import StoreError

from .. import parse_sqlite_url


class TestSQLiteStore(StoreConformance):
    @pytest.fixture
    def store_url(self, tmp_path: Path) -> str:
        return f"sqlite:///{tmp_path}/runs.db"


@pytest.mark.parametrize(
    ("url", "path", "timeout"),
    [
        # SQLAlchemy's convention: three slashes relative, four absolute
        ("sqlite:///runs.db", Path("runs.db"), 30.0),
        ("sqlite:///rel/dir/runs.db", Path("rel/dir/runs.db"), 30.0),
        ("sqlite:////abs/dir/runs.db", Path("/abs/dir/runs.db"), 30.0),
        ("sqlite://localhost//abs/runs.db", Path("/abs/runs.db"), 30.0),
        ("sqlite:/abs/runs.db", Path("/abs/runs.db"), 30.0),
        ("sqlite:rel/runs.db", Path("rel/runs.db"), 30.0),
        ("sqlite:runs.db?timeout=2.5", Path("runs.db"), 2.5),
    ],
)
def test_urls(url: str, path: Path, timeout: float) -> None:
    assert parse_sqlite_url(url) == (path, timeout)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite:", "expected sqlite:///relative.db or sqlite:////absolute/path.db"),
        ("sqlite:///", "names no database file"),
        ("sqlite:////", "names no database file"),
        ("sqlite://db.example.com/x.db", "a host ('db.example.com') is not supported"),
        ("sqlite:x.db?mode=ro", "unknown option 'mode'"),
        ("sqlite:x.db?timeout=soon", "timeout must be a number of seconds, got 'soon'"),
    ],
)
def test_bad_urls_are_refused_clearly(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_sqlite_url(url)


def test_opening_is_lazy_and_the_file_uses_wal(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "sub" / "runs.db"
    host = make_host(f"sqlite:///{db}")
    store = host.open_store()
    assert not db.exists()  # nothing touches the disk until the first operation
    assert store.list() == []
    host.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3


def test_unusable_path_fails_clearly(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = make_host().open_store(f"sqlite:///{blocker}/runs.db")
    with pytest.raises(StoreError, match="cannot open SQLite database") as caught:
        store.list()
    assert str(caught.value).endswith(": file is a file, not a directory")


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's /sys")
def test_a_pseudo_filesystem_is_not_called_a_full_disk() -> None:
    # /sys reports no free blocks, like a full disk, but it has no blocks at all.
    store = make_host().open_store("sqlite:////sys/kernel/skillstate-test.db")
    with pytest.raises(StoreError, match="cannot open SQLite database") as caught:
        store.list()
    assert "disk is full" not in str(caught.value)


def test_nul_in_spec_observation_and_journal_round_trips(tmp_path: Path) -> None:
    from skillstate.plugin import JournalEntry, RunRecord

    store = make_host().open_store(f"sqlite:///{tmp_path}/runs.db")
    record = RunRecord(
        id="nul", skill="s", state={"b": 1, "a": 2}, spec="a\x00b", observation="\x00"
    )
    entry = JournalEntry(ts="t", step="init", patch={"k": "x\x00y"}, version=1)
    store.create(record, entry)
    assert store.get("nul") == record
    assert store.journal("nul") == [entry]
    store.close()


def test_a_version_1_database_is_migrated_and_keeps_its_runs(tmp_path: Path) -> None:
    """Schema 1 kept rig's phase and nextAction in columns; schema 2 reads any key of the state."""
    import sqlite3

    from ..backend import MIGRATIONS

    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        record = {"id": "r1", "skill": "s", "version": 1, "state": {"phase": "x", "stage": "y"}}
        conn.execute(
            "INSERT INTO runs (id, skill, version, step, status, created, updated, phase,"
            " next_action, record) VALUES ('r1', 's', 1, 0, 'active', 't', 't', 'x', NULL, ?)",
            (json.dumps(record),),
        )
    host = make_host(f"sqlite:///{db}")
    [summary] = host.open_store().list(keys=("stage", "phase"))
    assert summary.fields == {"stage": "y", "phase": "x"}
    host.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        columns = [row[1] for row in conn.execute("PRAGMA table_info(runs)")]
        assert "phase" not in columns and "next_action" not in columns


def test_a_record_edited_to_hold_half_a_pair_is_damaged_and_skipped(tmp_path: Path) -> None:
    """Text that is not valid Unicode never comes out of the store: the run is reported
    damaged (and a listing skips only it, with a warning naming it)."""
    import sqlite3

    from skillstate_testing import sample_skill

    from skillstate.plugin import create_run

    db = tmp_path / "runs.db"
    host = make_host(f"sqlite:///{db}")
    store = host.open_store()
    for run_id in ("bad", "good"):
        assert create_run(host, store, sample_skill(), run_id, {"counter": 0}).accepted
    with sqlite3.connect(db) as conn:
        text = conn.execute("SELECT record FROM runs WHERE id = 'bad'").fetchone()[0]
        edited = text.replace('"counter":0', '"counter":0,"note":"\\ud83d"')
        conn.execute("UPDATE runs SET record = ? WHERE id = 'bad'", (edited,))
    with pytest.raises(StoreError, match=r"damaged: state\.note: text is not valid Unicode"):
        store.get("bad")
    with pytest.warns(UserWarning, match="skipping run bad") as caught:
        rows = store.list(keys=['odd "key'])  # a key no JSON path can name: records parsed
    assert [row.id for row in rows] == ["good"]
    assert [getattr(w.message, "run_id", None) for w in caught] == ["bad"]
    host.close()
