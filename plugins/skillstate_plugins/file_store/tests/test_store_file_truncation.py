"""A journal truncated by another process while the history reader has it open: the
reader gets a clean StoreError (or the versions still there), never a SIGBUS crash
(the reader used to memory-map the file; a mapped page past the new end faults)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from skillstate_testing import make_host

from .test_store_file import _create, _patch


def _long_run(tmp_path: Path, versions: int = 400) -> Path:
    host = make_host(f"file:{tmp_path / 'state'}")
    store = host.open_store()
    _create(host, store)
    for counter in range(1, versions):
        _patch(host, store, "run-1", {"counter": counter})
    host.close()
    return tmp_path / "state" / "run-1.jsonl"


READER = textwrap.dedent(
    """
    import os, sys
    from skillstate_plugins.file_store.history import JournalView
    from skillstate.plugin import StoreError

    path = sys.argv[1]
    with JournalView(path) as view:
        os.truncate(path, 10)  # what another process does while the view is open
        try:
            view.entries(0, None)
            view.snapshots()
            view.offset_of(300)
        except StoreError as exc:
            print("STORE ERROR", exc)
    print("SURVIVED")
    """
)


def test_a_journal_truncated_while_open_gives_an_error_not_a_crash(tmp_path: Path) -> None:
    journal = _long_run(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", READER, str(journal)], capture_output=True, text=True
    )
    assert out.returncode == 0, (out.returncode, out.stderr[-500:])  # -7 is SIGBUS
    assert "SURVIVED" in out.stdout and "Traceback" not in out.stderr
    assert "STORE ERROR" in out.stdout and "shorter while it was read" in out.stdout


CONCURRENT = textwrap.dedent(
    """
    import sys
    from skillstate.plugin import StoreError
    from skillstate_plugins.file_store import FileStore

    store = FileStore("file:" + sys.argv[1])
    reads = errors = 0
    for _ in range(int(sys.argv[2])):
        try:
            list(store.history("run-1", after=100, limit=20))
            store.state_at("run-1", 250)
            reads += 1
        except StoreError:
            errors += 1
        except Exception as exc:  # RunNotFound once the record is gone, etc.
            errors += 1
    print("DONE", reads, errors)
    """
)


def test_reads_while_another_process_truncates_the_journal(tmp_path: Path) -> None:
    journal = _long_run(tmp_path)
    data = journal.read_bytes()
    reader = subprocess.Popen(
        [sys.executable, "-c", CONCURRENT, str(tmp_path / "state"), "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cuts = 0
    while reader.poll() is None and cuts < 3000:
        with journal.open("r+b") as handle:  # cut it, then put it back, over and over
            handle.truncate(len(data) // 3)
            handle.seek(0)
            handle.write(data)
        cuts += 1
    stdout, stderr = reader.communicate(timeout=300)
    assert reader.returncode == 0, (reader.returncode, stderr[-500:])  # -7 is SIGBUS
    assert stdout.startswith("DONE")


def test_the_block_reader_finds_what_bytes_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """find/rfind over blocks equal bytes.find/rfind, matches across block edges included."""
    import os
    import random

    from .. import history

    rng = random.Random(7)
    for block in (5, 16, 64):
        monkeypatch.setattr(history, "BLOCK", block)
        for trial in range(10):
            data = bytes(rng.choice(b'ab\n"') for _ in range(rng.randint(0, 200)))
            path = tmp_path / f"j{block}-{trial}"
            path.write_bytes(data)
            fd = os.open(path, os.O_RDONLY)
            try:
                blocks = history._Blocks(fd, len(data), str(path))
                for sub in (b"\n", b'"a', b'ab"b', b'\n"a\nb'):
                    for start in range(0, 205, 3):
                        assert blocks.find(sub, start) == data.find(sub, start)
                        for low in (0, 5, 60):
                            assert blocks.rfind(sub, low, start) == data.rfind(sub, low, start)
                assert blocks.read(3, 40) == data[3:40]
            finally:
                os.close(fd)
