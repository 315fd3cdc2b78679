"""The group sync of ``durability=process`` (:mod:`..group_sync`): what is pending is
synced in order once due, by its thread without another write, at the interpreter's
exit, and a failed sync is said once (``docs/reliability.md``)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillstate.plugin import StoreError

from ..group_sync import PendingSyncs
from ..syncs import observing_syncs


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def seen() -> Iterator[list[tuple[str, bool]]]:
    """Every sync from here on, as (path, is a directory)."""
    synced: list[tuple[str, bool]] = []
    with observing_syncs(lambda fd, d: synced.append((os.readlink(f"/proc/self/fd/{fd}"), d))):
        yield synced


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd")
def test_pending_syncs_sync_files_before_directories_once_due(
    tmp_path: Path, seen: list[tuple[str, bool]]
) -> None:
    clock = Clock()
    syncs = PendingSyncs(window=1.0, thread=False, clock=clock)
    (tmp_path / "a").write_bytes(b"x")
    syncs.add(str(tmp_path), directory=True)
    syncs.add(str(tmp_path / "a"))
    syncs.add(str(tmp_path / "a"))  # once, however often it was written
    syncs.add(str(tmp_path / "gone"))  # removed since: nothing to sync
    clock.now = 0.4
    assert not syncs.run_due() and not seen  # not due before half the window
    clock.now = 0.5
    assert syncs.run_due()
    assert seen == [(str(tmp_path / "a"), False), (str(tmp_path), True)]
    assert syncs.settled() and syncs.syncs == 1


def test_pending_syncs_thread_syncs_without_another_write(tmp_path: Path) -> None:
    done = threading.Event()
    with observing_syncs(lambda fd, d: done.set()):
        syncs = PendingSyncs(window=0.1)
        (tmp_path / "a").write_bytes(b"x")
        started = time.monotonic()
        syncs.add(str(tmp_path / "a"))
        assert done.wait(5), "the sync thread never synced"
        assert time.monotonic() - started < 5


def test_a_failed_sync_is_raised_once_by_the_next_check(tmp_path: Path) -> None:
    syncs = PendingSyncs(thread=False, clock=Clock())
    syncs.add(str(tmp_path / "missing-dir" / "x"), directory=True)  # ENOENT: skipped
    syncs.flush()
    (tmp_path / "f").write_bytes(b"")
    syncs.add(str(tmp_path / "f"), directory=True)  # not a directory: ENOTDIR
    syncs.run_due(10.0)
    with pytest.raises(StoreError, match="a deferred sync failed"):
        syncs.check()
    syncs.check()  # once


PACKAGE = __name__.rsplit(".tests.", 1)[0]
"""This file store's package, under whatever name it is installed (the lifted copy's too)."""

EXIT_SCRIPT = """
import os, sys
from skillstate_testing import make_host, sample_skill
from skillstate.plugin import Change, create_run, transition
from PACKAGE import group_sync
from PACKAGE.syncs import observing_syncs
root = sys.argv[1]
def seen(fd, directory):
    sys.stderr.write("synced " + os.readlink(f"/proc/self/fd/{fd}") + "\\n")
syncs = group_sync.pending_syncs()
syncs.window = syncs.delay = 600.0  # the thread will not sync before the exit does
observing = observing_syncs(seen)
observing.__enter__()  # still observing while the interpreter exits
host = make_host(f"file:{root}?durability=process")
store = host.open_store()
create_run(host, store, sample_skill(), "r", {"counter": 0})
transition(host, store, "r", Change(patch={"counter": 1}), skill=sample_skill())
sys.stderr.write("acknowledged\\n")
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd")
def test_what_is_pending_is_synced_when_the_interpreter_exits(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = tmp_path / "state"
    done = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT.replace("PACKAGE", PACKAGE), str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    after = done.stderr.split("acknowledged\n", 1)[1]  # no close(): the exit flushes
    assert f"synced {root / 'r.jsonl'}" in after and f"synced {root}\n" in after


EXIT_FAILING_SCRIPT = """
import sys
from skillstate_testing import make_host, sample_skill
from skillstate.plugin import Change, create_run, transition
from PACKAGE import group_sync
from PACKAGE.syncs import observing_syncs
syncs = group_sync.pending_syncs()
syncs.window = syncs.delay = 600.0  # only the exit syncs
def failing(fd, directory):
    raise OSError(5, "Input/output error")
host = make_host(f"file:{sys.argv[1]}?durability=process")
store = host.open_store()
create_run(host, store, sample_skill(), "r", {"counter": 0})
transition(host, store, "r", Change(patch={"counter": 1}), skill=sample_skill())
sys.stderr.write("acknowledged\\n")
observing = observing_syncs(failing)
observing.__enter__()  # every sync from here on fails: the exit's too
"""


def test_a_sync_that_fails_at_the_interpreter_exit_is_reported(tmp_path: Path) -> None:
    """A command has no next write to fail: the exit's failed sync must still be said."""
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            EXIT_FAILING_SCRIPT.replace("PACKAGE", PACKAGE),
            str(tmp_path / "state"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    after = done.stderr.split("acknowledged\n", 1)[1]
    assert "a deferred sync failed" in after and "Input/output error" in after, done.stderr
    assert "Traceback" not in done.stderr
