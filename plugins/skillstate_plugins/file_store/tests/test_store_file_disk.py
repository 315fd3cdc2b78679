"""The file store on a full disk and on a read-only one (a real, tiny tmpfs).

Mounting needs root (or CAP_SYS_ADMIN); where it is not allowed the tests skip and
say so. Every failed write must raise a StoreError naming the OS reason and the
path, and leave the previous record and journal byte for byte as they were.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from skillstate.plugin import JournalEntry, RunRecord, StoreError

from .. import FileStore

PAGE = 4096


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs mounted for this test only."""
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no 'mount' command to set up a tiny tmpfs")
    point = tmp_path / "mnt"
    point.mkdir()
    result = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", str(point)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here ({result.stderr.strip() or result.returncode}); "
            "needs root or CAP_SYS_ADMIN"
        )
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def _run(store: FileStore, size: int = 100) -> RunRecord:
    record = RunRecord(id="run-1", skill="s", state={"text": "a" * size}, version=1)
    store.create(record, JournalEntry(ts="t0", step="init", patch={}, version=1, base=record.state))
    return record


def _next(record: RunRecord, size: int) -> tuple[RunRecord, JournalEntry]:
    state = {"text": "b" * size}
    new = attrs.evolve(record, state=state, version=record.version + 1)
    return new, JournalEntry(ts="t1", step="big", patch=state, version=new.version)


def _fill(point: Path) -> Path:
    """Fill the file system completely, in whole pages."""
    filler = point / "filler"
    with open(filler, "wb", buffering=0) as out:
        while True:
            try:
                out.write(b"\0" * PAGE)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                break
    return filler


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def test_full_disk_refuses_the_commit_and_keeps_the_record(tiny_fs: Path) -> None:
    store = FileStore(f"file:{tiny_fs / 'state'}")
    record = _run(store)
    filler = _fill(tiny_fs)
    before = _snapshot(tiny_fs / "state")
    with pytest.raises(StoreError) as caught:
        store.commit(*_next(record, 100), expected_version=1)
    message = str(caught.value)
    assert "No space left on device" in message and str(tiny_fs / "state" / "run-1") in message
    assert _snapshot(tiny_fs / "state") == before  # no .json.new left, nothing changed
    assert store.get("run-1") == record
    filler.unlink()
    store.commit(*_next(record, 100), expected_version=1)  # the store is not wedged
    assert store.get("run-1").version == 2


def test_disk_full_during_the_journal_append_undoes_the_partial_line(tiny_fs: Path) -> None:
    """Room for the next record but not for its journal line: the partial append is cut off."""
    store = FileStore(f"file:{tiny_fs / 'state'}")
    record = _run(store)
    new, entry = _next(record, 3 * PAGE)  # both the record and the line take 4 pages
    filler = _fill(tiny_fs)
    os.truncate(filler, filler.stat().st_size - 4 * PAGE)  # free exactly 4 pages
    before = _snapshot(tiny_fs / "state")
    with pytest.raises(StoreError) as caught:
        store.commit(new, entry, expected_version=1)
    message = str(caught.value)
    assert message.startswith("cannot append to the journal ")
    assert "run-1.jsonl: No space left on device" in message
    assert _snapshot(tiny_fs / "state") == before
    assert store.get("run-1") == record
    assert len(store.journal("run-1")) == 1


def _remount_read_only(point: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", "-o", "remount,ro", str(point)], capture_output=True, text=True)


def test_read_only_disk_refuses_writes_and_still_reads(tiny_fs: Path) -> None:
    writer = FileStore(f"file:{tiny_fs / 'state'}")
    record = _run(writer)
    # A writer keeps the journal it writes open for appending, and Linux refuses to make
    # a file system read-only while a file on it is open for writing: close it first.
    writer.close()
    store = FileStore(f"file:{tiny_fs / 'state'}")
    # A reader's journal is open read-only: remembering the run does not block the remount.
    assert store.get("run-1") == record
    before = _snapshot(tiny_fs / "state")
    remount = _remount_read_only(tiny_fs)
    if remount.returncode != 0:
        store.close()
        assert _remount_read_only(tiny_fs).returncode != 0, (
            f"the reader's open files blocked the read-only remount: {remount.stderr.strip()}"
        )
        pytest.skip(f"cannot remount the tmpfs read-only: {remount.stderr.strip()}")
    try:
        with pytest.raises(StoreError, match=r"Read-only file system") as caught:
            store.commit(*_next(record, 10), expected_version=1)
        assert str(tiny_fs / "state" / "run-1") in str(caught.value)
        with pytest.raises(StoreError, match=r"Read-only file system"):
            store.delete("run-1")
        with pytest.raises(StoreError, match=r"Read-only file system"):
            store.create(attrs.evolve(record, id="run-2"), JournalEntry("t", "", {}, 1))
        assert store.get("run-1") == record
        assert [s.id for s in store.list()] == ["run-1"]
        assert len(store.journal("run-1")) == 1
        assert _snapshot(tiny_fs / "state") == before
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(tiny_fs)], check=False)
