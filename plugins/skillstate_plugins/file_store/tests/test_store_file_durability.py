"""Each durability level's promise, exactly (``docs/reliability.md``).

- ``full``: a simulated power loss after any acknowledged commit loses nothing.
- ``process``: the same loss loses at most the commits of the last second (the sync
  window), and what comes back is exactly a committed version — never a mix; a record
  whose unsynced rename reached the disk while its journal lines did not is rolled back
  to its journal. The clock is a fake one driven by the test (what the sync thread
  would do at each moment is :meth:`PendingSyncs.run_due`), so the test is exact and
  fast; one more test lets the real thread sync within the window.
- Both: ``SIGKILL`` of a writer at random moments loses nothing acknowledged.

The power-loss model is :class:`.synced.SyncRecorder` (only what was synced survives).
"""

from __future__ import annotations

import functools
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, sample_skill
from skillstate_testing.durability import increment, kill_writers

from skillstate.plugin import Change, RunNotFound, StoreError, create_run, transition
from skillstate.plugin.history import verify_record

from .. import FileStore
from ..group_sync import SYNC_WINDOW, PendingSyncs
from ..syncs import observing_syncs
from .synced import SyncRecorder

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the power-loss model reads /proc/self/fd"
)

STEP = 0.05  # seconds between two commits on the fake clock: 20 commits a second
COMMITS = 30  # a second and a half of commits: past one window


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _writer(root: Path, level: str, clock: FakeClock) -> tuple[Any, Any, Any]:
    host = make_host(f"file:{root}?durability={level}")
    store = host.open_store()
    assert isinstance(store, FileStore) and store.durability == level
    if level == "process":  # this store's syncs on the test's clock, no thread
        store._syncs = PendingSyncs(thread=False, clock=clock)
    return host, store, sample_skill()


def _recovered(copy: Path, level: str) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        store = FileStore(f"file:{copy}?durability={level}")
        try:
            record = store.get("r")
        except Exception as exc:
            return exc, caught
        assert verify_record(record, store.journal("r")) == []
        return record, caught


def _run(
    tmp_path: Path, level: str, keep: tuple[str, ...], zeros: tuple[str, ...] = ()
) -> tuple[list[tuple[float, int, int]], list[tuple[float, int]]]:
    """Commit COMMITS increments; after each, cut the power and recover a copy.

    Returns, for each cut, (time, last acknowledged version, recovered version), and
    each acknowledgement (time, version).
    """
    root, clock = tmp_path / "state", FakeClock()
    recorder = SyncRecorder(root)
    acked: list[tuple[float, int]] = []
    cuts = []
    with recorder.recording():
        host, store, skill = _writer(root, level, clock)
        assert create_run(host, store, skill, "r", {"counter": 0}).accepted
        acked.append((clock.now, 1))
        committed = {1: store.get("r")}
        for n in range(1, COMMITS + 1):
            clock.now += STEP
            if store._syncs is not None:
                store._syncs.run_due()  # what the sync thread does by now
            outcome = transition(host, store, "r", Change(patch={"counter": n}), skill=skill)
            assert outcome.accepted
            acked.append((clock.now, n + 1))
            committed[n + 1] = store.get("r")
            copy = recorder.cut(tmp_path / f"cut-{n}", keep, zeros)
            got, caught = _recovered(copy, level)
            if isinstance(got, RunNotFound):  # the creation itself was lost
                cuts.append((clock.now, n + 1, 0))
                continue
            assert not isinstance(got, Exception), f"cut after version {n + 1}: {got}"
            assert got == committed[got.version], "a version not exactly as committed"
            if got.version < n + 1 and keep:
                assert any(issubclass(w.category, UserWarning) for w in caught)
            cuts.append((clock.now, n + 1, got.version))
        host.close()
    return cuts, acked


@pytest.mark.parametrize("keep", [(), (".json",)], ids=["synced-only", "record-reached-disk"])
def test_full_a_power_loss_after_any_commit_loses_nothing(tmp_path: Path, keep: Any) -> None:
    for _, acknowledged, recovered in _run(tmp_path, "full", keep)[0]:
        assert recovered == acknowledged


@pytest.mark.parametrize(
    ("keep", "zeros"),
    [((), ()), ((".json",), ()), ((".json",), (".jsonl",))],
    ids=["synced-only", "record-reached-disk", "and-journal-tail-zeroed"],
)
def test_process_a_power_loss_loses_at_most_the_last_second(
    tmp_path: Path, keep: Any, zeros: Any
) -> None:
    cuts, acked = _run(tmp_path, "process", keep, zeros)
    lost_any = False
    for at, acknowledged, recovered in cuts:
        assert recovered <= acknowledged
        # every commit acknowledged at least a window before the cut came back
        due = max((v for t, v in acked if t <= at - SYNC_WINDOW), default=0)
        assert recovered >= due, f"cut at version {acknowledged}: lost more than the window"
        lost_any |= recovered < acknowledged
    assert lost_any, "nothing was ever lost: commits were synced on the commit path"


def test_process_a_late_sync_thread_is_caught_up_by_the_writer(tmp_path: Path) -> None:
    """With no sync thread at all, a commit that finds a write a window old syncs first."""
    root, clock = tmp_path / "state", FakeClock()
    host, store, skill = _writer(root, "process", clock)
    create_run(host, store, skill, "r", {"counter": 0})
    syncs = store._syncs
    assert syncs.pending()  # the creation waits for its sync
    clock.now += SYNC_WINDOW / 2
    transition(host, store, "r", Change(patch={"counter": 1}), skill=skill)
    assert syncs.pending() and syncs.syncs == 0
    clock.now += SYNC_WINDOW / 2
    transition(host, store, "r", Change(patch={"counter": 2}), skill=skill)
    assert syncs.syncs == 1  # the oldest write was a window old: synced before acknowledging
    host.close()
    assert not syncs.pending()  # close flushes


def test_process_the_sync_thread_syncs_within_the_window(tmp_path: Path) -> None:
    root = tmp_path / "state"
    recorder = SyncRecorder(root)
    with recorder.recording():
        host = make_host(f"file:{root}?durability=process")
        store, skill = host.open_store(), sample_skill()
        store._syncs = PendingSyncs(window=0.2)  # a real thread, a short window
        create_run(host, store, skill, "r", {"counter": 0})
        transition(host, store, "r", Change(patch={"counter": 1}), skill=skill)
        size = (root / "r.jsonl").stat().st_size
        deadline = time.monotonic() + 5
        while not store._syncs.settled() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert store._syncs.settled()
        synced = recorder.contents.get((root / "r.jsonl").stat().st_ino, b"")
        assert len(synced) == size  # the journal line reached the disk without a close
        host.close()


def test_process_a_failed_deferred_sync_fails_the_next_write_unwritten(tmp_path: Path) -> None:
    root, clock = tmp_path / "state", FakeClock()
    host, store, skill = _writer(root, "process", clock)
    create_run(host, store, skill, "r", {"counter": 0})

    def failing(fd: int, directory: bool) -> None:
        raise OSError(5, "Input/output error")

    with observing_syncs(failing):
        with pytest.raises(StoreError, match="deferred sync failed"):
            store._syncs.flush()
        transition(host, store, "r", Change(patch={"counter": 1}), skill=skill)  # pending again
        store._syncs.run_due(clock.now + 1)  # the thread's sync fails: kept for the writer
    journal = (root / "r.jsonl").read_bytes()
    with pytest.raises(StoreError, match="deferred sync failed"):
        transition(host, store, "r", Change(patch={"counter": 2}), skill=skill)
    assert (root / "r.jsonl").read_bytes() == journal  # nothing written
    assert store.get("r").version == 2
    host.close()


def test_full_refuses_a_record_ahead_of_its_journal_and_repair_rolls_back(tmp_path: Path) -> None:
    root = tmp_path / "state"
    host = make_host(f"file:{root}")
    store, skill = host.open_store(), sample_skill()
    create_run(host, store, skill, "r", {"counter": 0})
    journal = (root / "r.jsonl").read_bytes()
    transition(host, store, "r", Change(patch={"counter": 1}), skill=skill)
    host.close()
    (root / "r.jsonl").write_bytes(journal)  # its last line lost
    with pytest.warns(UserWarning, match=r"journal ends at version 1 .*verify --repair"):
        assert FileStore(f"file:{root}").get("r").version == 2  # read as it is, not mended
    host = make_host(f"file:{root}")
    with (
        pytest.warns(UserWarning),  # the pipeline's read first: the record as it is
        pytest.raises(StoreError, match=r"journal ends at version 1 .*verify --repair"),
    ):
        transition(host, host.open_store(), "r", Change(patch={"counter": 9}), skill=skill)
    host.close()
    assert (root / "r.jsonl").read_bytes() == journal  # refused: nothing written
    assert "rebuilt" in FileStore(f"file:{root}").repair("r")
    assert FileStore(f"file:{root}").get("r").version == 1


def test_process_a_creation_whose_journal_was_lost_is_gone(tmp_path: Path) -> None:
    root = tmp_path / "state"
    host = make_host(f"file:{root}?durability=process")
    store, skill = host.open_store(), sample_skill()
    create_run(host, store, skill, "r", {"counter": 0})
    host.close()
    (root / "r.jsonl").write_bytes(b"")  # the creation's line never reached the disk
    with pytest.warns(UserWarning, match="creation was lost"):
        assert FileStore(f"file:{root}?durability=process").list() == []
    assert not (root / "r.json").exists()


# -- SIGKILL: nothing acknowledged is lost, at either level ---------------------------
KILLS = 15


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("level", ["full", "process"])
def test_sigkill_of_a_writer_loses_nothing_acknowledged(tmp_path: Path, level: str) -> None:
    url = f"file:{tmp_path / 'state'}?durability={level}"
    host = make_host(url)
    store, skill = host.open_store(), sample_skill()
    assert create_run(host, store, skill, "k", {"counter": 0}).accepted
    started = time.perf_counter()
    for _ in range(5):
        increment(host, store, skill)
    commit = (time.perf_counter() - started) / 5

    def verified(fresh: FileStore, record: Any) -> None:
        assert verify_record(record, fresh.journal("k")) == []

    # each child writes on the parent's store; each check is a new process's view
    acknowledged = kill_writers(
        host,
        skill,
        child_store=lambda: store,
        fresh_store=functools.partial(FileStore, url),
        kills=KILLS,
        acknowledged=6,
        reads=(0, 3),
        pause=2 * commit,
        check=verified,
    )
    host.close()
    assert acknowledged > KILLS, "the writers hardly committed: the test proved little"


def test_full_opening_a_process_store_after_a_power_loss_never_writes_past_nul_bytes(
    tmp_path: Path,
) -> None:
    """docs/configuration.md: a store written at one level can be opened at the other.

    A power loss at ``process`` can leave the journal with its new size but NUL bytes
    where its last line was. Opened at ``full`` afterwards, a commit must not append
    after those bytes (the run would no longer be readable): it is refused, as a
    record ahead of its journal is at ``full``, and ``repair`` rolls back.
    """
    root = tmp_path / "state"
    host = make_host(f"file:{root}?durability=process")
    store, skill = host.open_store(), sample_skill()
    create_run(host, store, skill, "r", {"counter": 0})
    first = (root / "r.jsonl").read_bytes()
    transition(host, store, "r", Change(patch={"counter": 1}), skill=skill)
    host.close()
    size = (root / "r.jsonl").stat().st_size
    (root / "r.jsonl").write_bytes(first + b"\0" * (size - len(first)))
    journal = (root / "r.jsonl").read_bytes()
    host = make_host(f"file:{root}")  # full
    with (
        warnings.catch_warnings(),
        pytest.raises(StoreError, match=r"journal ends at version 1 .*verify --repair"),
    ):
        warnings.simplefilter("ignore", UserWarning)
        transition(host, host.open_store(), "r", Change(patch={"counter": 9}), skill=skill)
    host.close()
    assert journal.startswith(first)
    assert (root / "r.jsonl").read_bytes() == first  # refused: the NULs cut, nothing added
    FileStore(f"file:{root}").repair("r")
    fresh = FileStore(f"file:{root}")
    record = fresh.get("r")
    assert record.version == 1 and verify_record(record, fresh.journal("r")) == []


def test_process_a_late_sync_that_fails_fails_the_write_that_waited_for_it(
    tmp_path: Path,
) -> None:
    """A writer that finds a write a window old syncs before it is acknowledged; if that
    sync fails, this write fails, unwritten (it is not acknowledged on a failed disk)."""
    root, clock = tmp_path / "state", FakeClock()
    host, store, skill = _writer(root, "process", clock)
    create_run(host, store, skill, "r", {"counter": 0})
    clock.now += SYNC_WINDOW  # the thread is late: the creation is a window old, unsynced
    journal = (root / "r.jsonl").read_bytes()

    def failing(fd: int, directory: bool) -> None:
        raise OSError(5, "Input/output error")

    with observing_syncs(failing):
        with pytest.raises(StoreError, match="deferred sync failed"):
            transition(host, store, "r", Change(patch={"counter": 1}), skill=skill)
    assert (root / "r.jsonl").read_bytes() == journal  # nothing written
    assert FileStore(f"file:{root}?durability=process").get("r").version == 1
    host.close()


@pytest.mark.parametrize("level", ["full", "process"])
def test_the_first_commit_of_a_rig_state_run_creates_its_journal_durably(
    tmp_path: Path, level: str
) -> None:
    """A run the original rig-state wrote without a journal gets one on its first commit:
    its name must reach the disk (a directory sync) within the level's promise."""
    import json

    from skillstate.plugin import SkillDefinition

    root = tmp_path / "state"
    root.mkdir()
    stamp = "2026-09-01T00:00:00.000Z"
    state = {"runId": "pr", "skill": "rig-task", "phase": "spec", "createdAt": stamp}
    (root / "pr.json").write_text(json.dumps({**state, "updatedAt": stamp}, indent=2) + "\n")
    recorder, clock = SyncRecorder(root), FakeClock()
    for path, directory in ((root / "pr.json", False), (root, True)):  # on disk before
        fd = os.open(path, os.O_RDONLY)
        try:
            recorder(fd, directory)
        finally:
            os.close(fd)
    with recorder.recording():
        host, store, _ = _writer(root, level, clock)
        skill = SkillDefinition(name="rig-task", updated_key="updatedAt")
        assert transition(host, store, "pr", Change(patch={"phase": "red"}), skill=skill).accepted
        clock.now += SYNC_WINDOW  # at process: the sync thread's turn
        if level == "process":
            store._syncs.run_due()
    copy = recorder.cut(tmp_path / "cut")
    host.close()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        record = FileStore(f"file:{copy}?durability={level}").get("pr")
    assert (record.version, record.state["phase"]) == (2, "red")
