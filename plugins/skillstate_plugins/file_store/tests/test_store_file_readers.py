"""A reader's journal is open read-only; the first commit after a ``get`` upgrades it.

A store remembers a run it read with the journal open ``O_RDONLY`` (a reader — ``skillstate
ui``, ``get`` — holds no write descriptor, so a read-only remount is not blocked by it).
Its first commit opens the path for appending, checks the new descriptor is the same
file and keeps the remembered record: the record file is read once for a ``get`` then
a ``commit``. A journal replaced meanwhile (same length, other inode) is read afresh.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import Any

import attrs
import pytest

from skillstate.plugin import JournalEntry, RunRecord

from .. import FileStore
from ..fileio import OpenJournal


def _created(root: Path) -> str:
    """A run ``r`` at version 1, created by a store that is closed again; the URL."""
    url = f"file:{root}"
    writer = FileStore(url)
    record = RunRecord(id="r", skill="s", state={"counter": 0}, version=1)
    writer.create(
        record, JournalEntry(ts="t0", step="init", patch={}, version=1, base=record.state)
    )
    writer.close()
    return url


def _step(store: FileStore, counter: int) -> RunRecord:
    current = store.get("r")
    new = attrs.evolve(current, state={"counter": counter}, version=current.version + 1)
    entry = JournalEntry(ts="t", step="s", patch={"counter": counter}, version=new.version)
    store.commit(new, entry, current.version)
    return new


def _descriptors_on(root: Path) -> dict[str, int]:
    """This process's open files under ``root``: name → the open file's access mode."""
    found = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if os.path.dirname(target) == str(root):
            found[os.path.basename(target)] = fcntl.fcntl(int(fd), fcntl.F_GETFL) & os.O_ACCMODE
    return found


def _record_opens(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """The names of the files under ``root`` opened from now on (a spy on ``os.open``)."""
    opened: list[str] = []
    real = os.open

    def spy(path: Any, *args: Any, **kwargs: Any) -> int:
        if os.path.dirname(str(path)) == str(root):
            opened.append(os.path.basename(str(path)))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    return opened


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")


@needs_proc
def test_a_reader_holds_its_journal_read_only(root: Path) -> None:
    reader = FileStore(_created(root))
    assert reader.get("r").version == 1
    assert reader.get("r").version == 1  # remembered: the journal is kept open
    assert _descriptors_on(root) == {"r.jsonl": os.O_RDONLY}
    reader.close()
    assert _descriptors_on(root) == {}


@needs_proc
def test_the_first_commit_after_a_get_upgrades_the_journal_without_reading_the_record(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileStore(_created(root))
    opened = _record_opens(monkeypatch, root)
    _step(store, 1)  # a get, then a commit
    assert opened.count("r.json") == 1, opened  # read by the get alone
    # the get: the journal kept, the record, the journal's last byte (one pread); the
    # commit: the lock file, the journal for appending (the upgrade), the next record
    assert opened == ["r.jsonl", "r.json", "r.jsonl", "r.lock", "r.jsonl", "r.json.new"]
    assert _descriptors_on(root) == {"r.jsonl": os.O_RDWR, "r.lock": os.O_RDWR}
    del opened[:]
    _step(store, 2)  # the second commit opens its next record alone, as before
    assert opened == ["r.json.new"]
    monkeypatch.undo()
    fresh = FileStore(store.url)
    assert (fresh.get("r").version, fresh.get("r").state) == (3, {"counter": 2})
    versions = [
        json.loads(line)["version"] for line in (root / "r.jsonl").read_bytes().splitlines()
    ]
    assert versions == [1, 2, 3]
    store.close()


def _replace_journal(root: Path) -> bytes:
    """Move the journal aside and put a copy at its path: same bytes, another inode."""
    path, aside = root / "r.jsonl", root / "r.jsonl.aside"
    before = path.stat().st_ino
    os.rename(path, aside)
    shutil.copyfile(aside, path)
    assert path.stat().st_ino != before and path.stat().st_size == aside.stat().st_size
    return aside.read_bytes()


def _commit_after(store: FileStore, current: RunRecord) -> None:
    new = attrs.evolve(current, state={"counter": 7}, version=2)
    store.commit(new, JournalEntry(ts="t", step="s", patch={"counter": 7}, version=2), 1)


def _check_detected(store: FileStore, root: Path, aside: bytes, opened: list[str]) -> None:
    assert opened.count("r.json") == 2, opened  # the commit read the run afresh
    assert (root / "r.jsonl.aside").read_bytes() == aside  # nothing appended to the old file
    lines = (root / "r.jsonl").read_bytes().splitlines()
    assert [json.loads(line)["version"] for line in lines] == [1, 2]
    assert FileStore(store.url).get("r").state == {"counter": 7}


def test_a_journal_replaced_between_the_get_and_the_commit_is_read_afresh(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileStore(_created(root))
    opened = _record_opens(monkeypatch, root)
    current = store.get("r")
    aside = _replace_journal(root)  # a restore from outside: same length, other inode
    _commit_after(store, current)
    _check_detected(store, root, aside, opened)
    store.close()


def test_a_journal_replaced_between_the_check_and_the_upgrade_is_read_afresh(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path is still the kept file at the ``lstat``, another one at the ``open``: the
    upgrade's ``fstat`` of the new descriptor is what notices."""
    store = FileStore(_created(root))
    opened = _record_opens(monkeypatch, root)
    current = store.get("r")
    real, replaced = OpenJournal.at_path, []

    def then_replaced(journal: OpenJournal) -> bool:
        still = real(journal)
        if still and not replaced:
            replaced.append(_replace_journal(root))
        return still

    monkeypatch.setattr(OpenJournal, "at_path", then_replaced)
    _commit_after(store, current)
    assert replaced, "the commit did not check the kept journal"
    _check_detected(store, root, replaced[0], opened)
    store.close()
