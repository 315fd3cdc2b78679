"""The file store's commit through the descriptors it keeps open, and its encoders.

A store that remembers a run commits through the lock file and the journal it keeps
open (``cache.py``): these tests hold it to the promises of a fresh open — deletion
and re-creation by another process, a commit by another process in between, threads
sharing one store, a ``fork``'s child — and check that the faster encoders give the
bytes and answers of the plain ones.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings, strategies as st
from skillstate_testing import sample_skill

from skillstate.plugin import (
    Change,
    JournalEntry,
    RunRecord,
    VersionConflict,
    compact,
    create_run,
    transition,
)
from skillstate.plugin.history import verify_record

from .. import FileStore
from ..format import encode_entry
from ..locks import RunLock, close_lock
from ..replay import MERGE_KEY, _patch_between, _same, implied_record, record_delta

# -- helpers ---------------------------------------------------------------------


def _increment(host: Any, store: FileStore, run_id: str = "r") -> RunRecord:
    while True:
        current = store.get(run_id)
        try:
            outcome = transition(
                host,
                store,
                run_id,
                Change(patch={"counter": current.state["counter"] + 1}),
                skill=sample_skill(),
                expected_version=current.version,
            )
        except VersionConflict:
            continue
        assert outcome.accepted and outcome.record is not None
        return outcome.record


def _in_another_process(root: Path, code: str) -> None:
    """Run ``code`` in a fresh interpreter with ``store`` open on ``root``."""
    prelude = (
        "from skillstate_plugins.file_store import FileStore\n"
        "from skillstate.plugin import Change, create_run, transition\n"
        "from skillstate_testing import make_host, sample_skill\n"
        f"url = {f'file:{root}'!r}\n"
        "host = make_host(url); store = FileStore(url)\n"
    )
    subprocess.run([sys.executable, "-c", prelude + code], check=True, timeout=60)


def _journal_versions(root: Path, run_id: str = "r") -> list[int]:
    lines = (root / f"{run_id}.jsonl").read_bytes().splitlines()
    return [json.loads(line)["version"] for line in lines]


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """Record the first argument of every ``os.<name>`` call from now on."""
    calls: list[str] = []
    real = getattr(os, name)

    def counted(path: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, name, counted)
    return calls


# -- the commit through kept descriptors -------------------------------------------


def test_a_remembered_run_is_committed_opening_only_its_next_record(
    host: Any, store: FileStore, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    _increment(host, store)  # the lock file is opened once, and kept
    current = store.get("r")
    opened, stats = _counting(monkeypatch, "open"), _counting(monkeypatch, "lstat")
    new = attrs.evolve(current, state={"counter": 5}, version=current.version + 1)
    store.commit(new, JournalEntry(ts="t", step="s", patch={"counter": 5}, version=3), 2)
    monkeypatch.undo()
    assert [Path(p).name for p in opened] == ["r.json.new"]
    # under the lock one path looked up: is the kept journal still the file at its path?
    assert [Path(p).name for p in stats] == ["r.jsonl"]
    assert not (root / "r.json.new").exists()
    assert json.loads((root / "r.json").read_text())["state"] == {"counter": 5}
    assert FileStore(store.url).get("r") == new


def test_a_kept_lock_is_given_up_when_another_process_deletes_and_recreates_the_run(
    host: Any, store: FileStore, root: Path
) -> None:
    """The kept lock file is unlinked by the delete; the new run's lock must exclude us.

    The commit comes without a ``get`` first (which would notice the new journal and
    forget the run, kept lock and all): the kept descriptor itself must be found dead.
    """
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    _increment(host, store)  # keeps the lock file and the journal open
    _in_another_process(
        root, "store.delete('r')\ncreate_run(host, store, sample_skill(), 'r', {'counter': 100})\n"
    )
    reborn = FileStore(store.url).get("r")  # what a caller got from somewhere else
    new = attrs.evolve(reborn, state={**reborn.state, "counter": 101}, version=2)
    entry = JournalEntry(ts="t", step="s", patch={"counter": 101}, version=2)
    holder = RunLock(str(root / "r.lock")).acquire()  # the new run's lock, held by "another"
    done = threading.Event()
    writer = threading.Thread(target=lambda: (store.commit(new, entry, 1), done.set()))
    writer.start()
    try:
        assert not done.wait(0.5), "the commit went ahead without the lock at the path"
    finally:
        close_lock(holder)
    writer.join(timeout=30)
    assert done.is_set()
    record = FileStore(store.url).get("r")
    assert (record.version, record.state["counter"]) == (2, 101)  # the new run, stepped once
    assert _journal_versions(root) == [1, 2]
    assert verify_record(record, store.journal("r")) == []
    assert _increment(host, store).state["counter"] == 102


def test_a_commit_by_another_process_between_two_of_ours_is_never_lost(
    host: Any, store: FileStore, root: Path
) -> None:
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    ours = _increment(host, store)  # version 2, remembered
    _in_another_process(
        root, "transition(host, store, 'r', Change(patch={'counter': 50}), skill=sample_skill())\n"
    )
    stale = attrs.evolve(ours, state={"counter": 2}, version=3)
    journal = (root / "r.jsonl").read_bytes()
    with pytest.raises(VersionConflict):  # the kept journal grew: the record is read again
        store.commit(stale, JournalEntry(ts="t", step="s", patch={"counter": 2}, version=3), 2)
    assert (root / "r.jsonl").read_bytes() == journal  # nothing written
    assert store.get("r").state["counter"] == 50
    assert _increment(host, store).state["counter"] == 51
    assert _journal_versions(root) == [1, 2, 3, 4]
    assert verify_record(FileStore(store.url).get("r"), store.journal("r")) == []


def test_threads_sharing_one_store_lose_no_update(host: Any, store: FileStore) -> None:
    """One store, one run, four threads: the kept lock is lent to one commit at a time."""
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    workers, each = 4, 15

    def work() -> None:
        for _ in range(each):
            _increment(host, store)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    record = FileStore(store.url).get("r")
    assert record.state["counter"] == workers * each
    assert [e.version for e in store.journal("r")] == list(range(1, workers * each + 2))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_never_shares_the_parents_kept_lock(
    host: Any, store: FileStore, root: Path
) -> None:
    """After ``fork`` the child's copy of a kept descriptor shares the parent's ``flock``:
    a child that used it would commit while the parent holds the lock."""
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    _increment(host, store)
    kept = store._open._runs["r"].lock  # the parent mid-commit: holding its kept lock
    assert kept >= 0
    fcntl.flock(kept, fcntl.LOCK_EX)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.close(read_end)
            _increment(host, store)
            os.write(write_end, b"done")
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        ready, _, _ = select.select([read_end], [], [], 0.5)
        assert not ready, "the child committed while the parent held the lock"
    finally:
        fcntl.flock(kept, fcntl.LOCK_UN)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.read(read_end, 10) == b"done"
    os.close(read_end)
    assert _journal_versions(root) == [1, 2, 3]
    assert _increment(host, store).state["counter"] == 3  # the parent sees the child's


def test_a_creation_over_a_left_over_journal_makes_a_new_file(
    host: Any, store: FileStore, root: Path
) -> None:
    """A delete cut short leaves a journal without a record; the run created again gets a
    new journal file, so a store remembering the old run can never take it for its own."""
    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    _increment(host, store)
    old = os.stat(root / "r.jsonl").st_ino
    (root / "r.json").unlink()  # another process's delete, killed after its first unlink
    other = FileStore(store.url)
    assert create_run(host, other, sample_skill(), "r", {"counter": 7}).accepted
    assert os.stat(root / "r.jsonl").st_ino != old
    assert store.get("r").state["counter"] == 7
    assert _increment(host, store).state["counter"] == 8
    assert _journal_versions(root) == [1, 2]
    other.close()


def test_a_run_removed_under_a_remembering_store_is_not_found_and_leaves_no_lock(
    host: Any, store: FileStore, root: Path
) -> None:
    from skillstate.plugin import RunNotFound

    assert create_run(host, store, sample_skill(), "r", {"counter": 0}).accepted
    current = _increment(host, store)
    FileStore(store.url).delete("r")
    new = attrs.evolve(current, version=current.version + 1)
    with pytest.raises(RunNotFound):
        store.commit(new, JournalEntry(ts="t", step="s", patch={}, version=new.version), 2)
    assert sorted(p.name for p in root.iterdir()) == []


# -- the encoders: the same bytes and answers as the plain ones -------------------

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=40,
)


def _twin(value: Any, data: st.DataObject) -> Any:
    """A copy of ``value`` that is ``==`` to it but may differ as JSON text: keys
    reordered, ``1`` as ``1.0`` or ``True``, ``0.0`` as ``-0.0``; parts shared or copied."""
    if data.draw(st.integers(0, 3)) == 0:
        return value  # shared: the same object
    if isinstance(value, dict):
        items = [(k, _twin(v, data)) for k, v in value.items()]
        if len(items) > 1 and data.draw(st.booleans()):
            items = data.draw(st.permutations(items))
        return dict(items)
    if isinstance(value, list):
        return [_twin(v, data) for v in value]
    if type(value) is int and data.draw(st.booleans()):
        if value in (0, 1) and data.draw(st.booleans()):
            return bool(value)
        if abs(value) < 2**53:
            return float(value)
    if type(value) is bool and data.draw(st.booleans()):
        return int(value)
    if type(value) is float and value == 0 and data.draw(st.booleans()):
        return -value
    return value


@settings(max_examples=400)
@given(value=_values, data=st.data())
def test_the_structural_same_json_check_agrees_with_encoding_both(
    value: Any, data: st.DataObject
) -> None:
    twin = _twin(value, data)
    assert _same(value, twin) == (compact(value) == compact(twin))
    other = data.draw(_values)
    assert _same(value, other) == (compact(value) == compact(other))


def _reference_delta(
    before: RunRecord | None, after: RunRecord, entry: JournalEntry
) -> dict[str, Any] | None:
    """record_delta as first written: the implied record built, both sides encoded."""

    def same(a: Any, b: Any) -> bool:
        return a is b or compact(a) == compact(b)

    implied = implied_record(after.id, before, entry)
    delta: dict[str, Any] = {}
    patches: dict[str, Any] = {}
    for name in (
        "skill",
        "step",
        "status",
        "created",
        "updated",
        "spec",
        "environment",
        "observation",
        "schema",
        "meta",
    ):
        new, old = getattr(after, name), getattr(implied, name)
        if new is old or (new == old and (not isinstance(new, dict) or same(new, old))):
            continue
        patch = (
            _patch_between(old, new)
            if before is not None and name in ("environment", "meta")
            else None
        )
        if patch is not None:
            patches[name] = patch
        else:
            delta[name] = new
    if after.state != implied.state or not same(after.state, implied.state):
        delta["state"] = after.state
    if patches:
        delta[MERGE_KEY] = patches
    return delta or None


_objects = st.dictionaries(st.text(max_size=5), _values, max_size=4)


@settings(max_examples=300)
@given(
    state=_objects,
    patch=_objects,
    environment=st.none() | _objects,
    meta=_objects,
    turn=st.none() | st.integers(0, 5),
    status=st.none() | st.sampled_from(["active", "done"]),
    creation=st.booleans(),
    data=st.data(),
)
def test_record_delta_is_what_the_implied_record_gives(
    state: dict[str, Any],
    patch: dict[str, Any],
    environment: dict[str, Any] | None,
    meta: dict[str, Any],
    turn: int | None,
    status: str | None,
    creation: bool,
    data: st.DataObject,
) -> None:
    before = RunRecord(
        id="r", skill="s", state=state, version=4, step=2, environment=environment, meta=meta
    )
    entry = JournalEntry(ts="t2", step="s", patch=patch, version=5, turn=turn, status=status)
    implied = implied_record("r", None if creation else before, entry)
    after = attrs.evolve(
        implied,
        state=_twin(implied.state, data) if data.draw(st.booleans()) else data.draw(_objects),
        environment=_twin(environment, data) if data.draw(st.booleans()) else data.draw(_objects),
        meta=_twin(meta, data),
        observation=data.draw(st.none() | st.text(max_size=5)),
        skill=data.draw(st.sampled_from(["s", "t"])),
    )
    got = record_delta(None if creation else before, after, entry)
    want = _reference_delta(None if creation else before, after, entry)
    assert compact(got) == compact(want)
    assert encode_entry(entry, got) == encode_entry(entry, want)
