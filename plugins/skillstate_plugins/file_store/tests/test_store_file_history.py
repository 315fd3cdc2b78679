"""The file store's history: lines found by bisection, snapshots as a journal key, checked
by ``verify``; rig-state journals, hand-edited ones and torn lines still read right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, snapshot_interval

from skillstate.plugin import StoreError
from skillstate.plugin.history import verify_record

from .. import FileStore
from .test_store_file import _create, _patch
from .test_store_file_legacy import RIG_PATCHES, _write_rig_run


@pytest.fixture
def store(tmp_path: Path) -> Any:
    host = make_host(f"file:{tmp_path / 'state'}")
    yield host, host.open_store()
    host.close()


@pytest.fixture(autouse=True)
def every_fourth_version() -> Any:
    with snapshot_interval(4, FileStore):
        yield


def _long(host: Any, store: FileStore, n: int = 11) -> None:
    _create(host, store)
    for counter in range(1, n):
        _patch(host, store, "run-1", {"counter": counter, "notes": ['"snapshot":{"x":1}']})


def test_snapshots_are_a_journal_key_that_verify_checks(store: Any, tmp_path: Path) -> None:
    host, files = store
    _long(host, files)
    path = tmp_path / "state" / "run-1.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["version"] for line in lines if "snapshot" in line] == [4, 8]
    assert lines[3]["snapshot"]["state"]["counter"] == 3
    # the mark inside a patch value is not taken for a snapshot
    assert [s.version for s in files.snapshots("run-1")] == [4, 8]
    assert files.snapshot("run-1", 7).version == 4 and files.snapshot("run-1", 3) is None
    record = files.get("run-1")
    replayed = host.open_store("memory:")  # the base class's history: a replay from version 1
    replayed.import_run(record, files.journal("run-1"))
    full = list(replayed.history("run-1"))
    assert [item.version for item in full] == list(range(1, record.version + 1))
    assert list(files.history("run-1")) == full
    assert verify_record(record, files.journal("run-1"), snapshots=files.snapshots("run-1")) == []
    # a snapshot changed by hand is reported
    raw = path.read_text().splitlines(keepends=True)
    line = json.loads(raw[3])
    line["snapshot"]["state"]["counter"] = 9  # same length: the record stays level
    raw[3] = json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n"
    path.write_text("".join(raw))
    fresh = FileStore(f"file:{tmp_path / 'state'}")
    problems = verify_record(
        fresh.get("run-1"), fresh.journal("run-1"), snapshots=fresh.snapshots("run-1")
    )
    assert problems == ["the snapshot of version 4 differs from the replay's state"]


def test_a_torn_last_line_is_left_out(store: Any, tmp_path: Path) -> None:
    host, files = store
    _create(host, files)
    _patch(host, files, "run-1", {"counter": 1})
    path = tmp_path / "state" / "run-1.jsonl"
    with path.open("ab") as handle:
        handle.write(b'{"ts":"t","step":"x","patch":{"coun')  # a writer killed mid-append
    assert [e.version for e in FileStore(f"file:{tmp_path / 'state'}").journal_range("run-1")] == [
        1,
        2,
    ]


def test_rig_state_journals_and_hand_edited_ones_are_read_whole(store: Any, tmp_path: Path) -> None:
    host, files = store
    root = tmp_path / "state"
    _write_rig_run(root, "abc-18", RIG_PATCHES)
    items = list(files.history("abc-18"))
    assert [i.version for i in items] == list(range(1, len(RIG_PATCHES) + 2))
    assert items[-1].state == files.get("abc-18").state
    assert files.state_at("abc-18", 2).entry.step == "s1"
    # lines not one per version (changed by hand): replay refuses the gap, clearly
    _create(host, files, "gap")
    _patch(host, files, "gap", {"counter": 1})
    _patch(host, files, "gap", {"counter": 2})
    path = root / "gap.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + lines[2])
    (root / "gap.json").write_text(
        (root / "gap.json").read_text().replace('"journalSize"', '"journalSizeX"')
    )
    fresh = FileStore(f"file:{root}")
    with pytest.raises(StoreError):
        list(fresh.history("gap"))


def test_an_imported_run_is_written_at_once_and_rebuilt_after_a_power_loss(
    store: Any, tmp_path: Path
) -> None:
    host, files = store
    _long(host, files)
    record, entries = files.get("run-1"), files.journal("run-1")
    copy = FileStore(f"file:{tmp_path / 'copy'}")
    copy.import_run(record, entries)
    assert [s.version for s in copy.snapshots("run-1")] == [4, 8]
    (tmp_path / "copy" / "run-1.json").write_bytes(b"")  # what a power loss can leave
    again = FileStore(f"file:{tmp_path / 'copy'}")
    assert again.get("run-1") == record and again.journal("run-1") == entries


def test_a_rig_state_run_has_its_history_from_version_1(store: Any, tmp_path: Path) -> None:
    """rig-state records no starting phase: version 1 is the run as rig-state created it
    (the skill's first phase), not the run's current phase, and verify agrees."""
    _, files = store
    root = tmp_path / "state"
    written = _write_rig_run(root, "abc-18", RIG_PATCHES)
    first = files.state_at("abc-18", 1)
    assert first.state["phase"] == "spec" and first.state["branch"] == "alice/abc-18"
    assert first.state["createdAt"] == first.state["updatedAt"] == written["createdAt"]
    phases = [item.state["phase"] for item in files.history("abc-18")]
    assert phases[0] == "spec" and phases[-1] == written["phase"]
    record = files.get("abc-18")
    entries = files.journal("abc-18")
    assert verify_record(record, entries, snapshots=files.snapshots("abc-18")) == []
    assert phases == ["spec", "red", "green"]
