"""The run lock across ``fork``, and the memory of runs against a run deleted and
created again meanwhile.

``flock`` belongs to the open file description, which a forked child's copy of a
descriptor shares. A child that keeps such a copy keeps the lock alive after its
parent lets go of it by closing, or dies holding it. A store keeps every run's lock
file open between commits, so a child forked at any moment would hold copies of them
all: these tests fork a child that never touches the store and check that the lock
still goes away with the holder.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import sample_skill

from skillstate.plugin import create_run
from skillstate.plugin.history import verify_record

from .. import FileStore
from ..locks import RunLock
from .test_store_file_commit import _increment

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and flock (POSIX)")


def _lock_is_free(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def _wait_free(path: Path, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _lock_is_free(path):
            return True
        time.sleep(0.05)
    return False


WRITER = """
import os, sys, time
from skillstate.plugin import Change, create_run, transition
from skillstate_testing import make_host, sample_skill
from skillstate_plugins.file_store import FileStore, commit

url = sys.argv[1]
host = make_host(url); store = FileStore(url); skill = sample_skill()
create_run(host, store, skill, "r", {"counter": 0})
transition(host, store, "r", Change(patch={"counter": 1}), skill=skill)  # keeps the lock open
child = os.fork()
if child == 0:  # a worker that never touches the store
    time.sleep(60)
    os._exit(0)
print(child, flush=True)

def stuck(*args, **kwargs):  # the next commit stops under the lock, where the kill lands
    print("locked", flush=True)
    time.sleep(60)

commit.write_file = stuck
transition(host, store, "r", Change(patch={"counter": 2}), skill=skill)
"""


def test_a_writer_killed_under_the_lock_leaves_it_free_though_its_child_lives(
    tmp_path: Path,
) -> None:
    root = tmp_path / "state"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, f"file:{root}"], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    child = int(writer.stdout.readline())
    try:
        assert writer.stdout.readline() == "locked\n"
        assert not _lock_is_free(root / "r.lock")
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        assert _wait_free(root / "r.lock"), (
            "the run stays locked after its writer was killed: the forked child's copy "
            "of the kept lock descriptor holds it"
        )
    finally:
        writer.kill()
        writer.wait(timeout=30)
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_lock_held_while_another_thread_forks_is_free_once_released(tmp_path: Path) -> None:
    """``hold()`` (create, delete, recovery) released while a child forked meanwhile lives."""
    tmp_path.joinpath("r.lock").touch()
    lock = RunLock(str(tmp_path / "r.lock"))
    held, forked = threading.Event(), threading.Event()

    def holder() -> None:
        with lock.hold():
            held.set()
            forked.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(10)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: lives on without touching the lock
        time.sleep(30)
        os._exit(0)
    try:
        forked.set()
        thread.join(10)
        assert _wait_free(tmp_path / "r.lock"), "the child's copy keeps the released lock held"
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


# -- a run deleted and created again between reading it and remembering it ---------


def _recreate_before_remembering(store: Any, host: Any) -> threading.Thread:
    """Make another store delete the run and create it again with a journal of the same
    length (counter 0 -> 7) just before the next ``remember`` of ``store``: as soon as
    the run's lock lets it (the thread is given 0.3 s)."""
    real = store._open.remember

    def recreate() -> None:
        other = FileStore(store.url)
        other.delete("r")
        assert create_run(host, other, sample_skill(), "r", {"counter": 7}).accepted
        other.close()

    thread = threading.Thread(target=recreate)

    def late(*args: Any, **kwargs: Any) -> Any:
        store._open.remember = real
        thread.start()
        thread.join(0.3)
        return real(*args, **kwargs)

    store._open.remember = late
    return thread


def test_a_get_never_pairs_a_record_with_the_journal_of_the_run_created_after_it(
    host: Any, store: FileStore, root: Path
) -> None:
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    store.close()  # forget it: the next get reads the files
    size = (root / "r.jsonl").stat().st_size
    other = _recreate_before_remembering(store, host)
    assert store.get("r").state["counter"] == 0  # read before the delete: right then
    other.join(10)
    assert (root / "r.jsonl").stat().st_size == size  # the new run's journal: same length
    assert store.get("r").state["counter"] == 7, "the deleted run's record was remembered"
    assert _increment(host, store).state["counter"] == 8
    assert verify_record(FileStore(store.url).get("r"), store.journal("r")) == []


def test_a_creation_never_pairs_its_record_with_the_journal_of_the_run_created_after_it(
    host: Any, store: FileStore, root: Path
) -> None:
    other = _recreate_before_remembering(store, host)
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    other.join(10)
    assert not other.is_alive()
    assert store.get("r").state["counter"] == 7, "the deleted run's record was remembered"


def test_repair_is_never_undone_by_the_record_another_thread_read_meanwhile(
    host: Any, store: FileStore, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``repair`` forgot the run before rebuilding it: a ``get`` by another thread in
    between remembered the damaged record, served after the repair (and built upon)."""
    from .. import store as store_module

    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    _increment(host, store)
    record = root / "r.json"
    record.write_text(record.read_text().replace('"counter": 1', '"counter": 5'))  # a hand edit
    fresh = FileStore(store.url)
    real = store_module.rebuild

    def rebuild(*args: Any) -> int:
        reader = threading.Thread(target=fresh.get, args=("r",))
        reader.start()
        reader.join(10)
        return real(*args)

    monkeypatch.setattr(store_module, "rebuild", rebuild)
    assert "rebuilt" in fresh.repair("r")
    assert fresh.get("r").state["counter"] == 1, "the record from before the repair was kept"
    fresh.close()


def test_a_commit_appends_to_the_journal_at_the_path_after_a_restore_moved_the_old_aside(
    host: Any, store: FileStore, root: Path
) -> None:
    """A restore that moves the journal aside and puts a copy in its place, between a
    writer's ``get`` and its commit: the line must go to the journal at the path."""
    import shutil

    import attrs

    from skillstate.plugin import JournalEntry

    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    _increment(host, store)
    current = store.get("r")  # the writer read the run...
    shutil.copyfile(root / "r.jsonl", root / "r.jsonl.restored")  # ...then a restore:
    os.rename(root / "r.jsonl", root / "r.jsonl.old")
    os.rename(root / "r.jsonl.restored", root / "r.jsonl")
    aside = (root / "r.jsonl.old").read_bytes()
    new = attrs.evolve(current, state={**current.state, "counter": 2}, version=3)
    store.commit(new, JournalEntry(ts="t", step="s", patch={"counter": 2}, version=3), 2)
    assert (root / "r.jsonl.old").read_bytes() == aside, "the line went to the file moved aside"
    fresh = FileStore(store.url)
    assert fresh.get("r").version == 3
    assert verify_record(fresh.get("r"), fresh.journal("r")) == []
