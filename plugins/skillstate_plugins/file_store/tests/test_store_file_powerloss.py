"""The file store after a power loss: the journal (the only synced file) rebuilds the record.

A commit syncs its journal line only; the record file is swapped in without a sync.
So after a power loss the record can be any number of versions behind, or empty (its
data never reached the disk). These tests leave the files exactly so — an older record
file, an empty or zeroed one — and open the store afresh (a new process has no
memory of the run) to check that every committed record comes back bit for bit,
environment and observation included. They also cover the store's in-process memory
of runs, which must never hide another process's write.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, sample_skill

from skillstate.plugin import (
    Change,
    JournalEntry,
    StoreError,
    VersionConflict,
    create_run,
    transition,
)
from skillstate.plugin.history import verify_record
from skillstate.plugin.runtime import Runtime

from .. import FileStore
from ..format import encode_record


def _session(root: Path, steps: int) -> tuple[list[bytes], Any]:
    """A mock-environment session with ``steps`` steps; the record file's bytes after each."""
    with Runtime(f"file:{root}") as runtime:
        out = runtime.initialize_skill("s1", "count things", {"counter": 0})
        observation = out["prompt_payload"]["latest_observation"]
        files = [(root / "s1.json").read_bytes()]
        for n in range(1, steps + 1):
            out = runtime.execute_step("s1", "r", {"counter": n}, f"act-{n}", observation)
            observation = out["prompt_payload"]["latest_observation"]
            files.append((root / "s1.json").read_bytes())
    return files, FileStore(f"file:{root}").get("s1")


def _lines(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "s1.jsonl").read_bytes().splitlines()]


@pytest.mark.parametrize("behind", [1, 3, 5])
def test_a_record_left_behind_is_replayed_from_its_journal(tmp_path: Path, behind: int) -> None:
    root = tmp_path / "state"
    files, final = _session(root, 5)
    (root / "s1.json").write_bytes(files[5 - behind])  # the swaps after it never reached disk
    store = FileStore(f"file:{root}")
    record = store.get("s1")
    assert record == final
    assert record.environment == final.environment and record.observation == final.observation
    assert verify_record(record, store.journal("s1")) == []
    saved = json.loads((root / "s1.json").read_bytes())  # brought level on disk, too
    assert saved["version"] == final.version
    assert saved["journalSize"] == (root / "s1.jsonl").stat().st_size


@pytest.mark.parametrize("blank", [b"", b"\x00" * 700])
def test_an_empty_record_is_rebuilt_from_the_whole_journal(tmp_path: Path, blank: bytes) -> None:
    root = tmp_path / "state"
    _, final = _session(root, 4)
    (root / "s1.json").write_bytes(blank)
    store = FileStore(f"file:{root}")
    assert store.get("s1") == final
    assert [summary.id for summary in FileStore(f"file:{root}").list()] == ["s1"]


def test_an_empty_record_whose_journal_cannot_rebuild_it_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "state"
    _session(root, 2)
    stripped = [{k: v for k, v in line.items() if k != "record"} for line in _lines(root)]
    (root / "s1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in stripped))
    (root / "s1.json").write_bytes(b"")
    journal_before = (root / "s1.jsonl").read_bytes()
    with pytest.raises(StoreError, match=r"s1\.json is empty and journal .*s1\.jsonl does not"):
        FileStore(f"file:{root}").commit(*_any_commit(), expected_version=3)
    assert (root / "s1.jsonl").read_bytes() == journal_before  # nothing written


def _any_commit() -> tuple[Any, JournalEntry]:
    from skillstate.plugin import RunRecord

    record = RunRecord(id="s1", skill="skill-state", state={}, version=4)
    return record, JournalEntry(ts="t", step="s", patch={}, version=4)


def test_journal_lines_hold_only_what_the_entry_does_not_imply(tmp_path: Path) -> None:
    root = tmp_path / "state"
    _session(root, 2)
    creation, step, _ = _lines(root)
    assert {"skill", "spec", "environment", "observation", "meta", "created"} <= set(
        creation["record"]
    )
    assert set(step["record"]) == {"observation", "merge"}
    # what changed in the environment and meta, as merge patches: the mock's step count
    assert step["record"]["merge"]["environment"] == {"state": {"executed": 1}}
    assert set(step["record"]["merge"]["meta"]) == {"last_action"}
    assert "reasoning" not in json.dumps(_lines(root))  # the reasoning trace is never kept

    rig = tmp_path / "rig"
    host = make_host(f"file:{rig}")
    store = host.open_store()
    create_run(host, store, sample_skill(), "r1", {"counter": 0})
    transition(host, store, "r1", Change(patch={"counter": 1}), skill=sample_skill())
    host.close()
    patch_line = json.loads((rig / "r1.jsonl").read_bytes().splitlines()[1])
    assert list(patch_line)[:3] == ["ts", "step", "patch"] and "record" not in patch_line


def test_a_store_never_serves_a_run_another_process_changed(tmp_path: Path) -> None:
    root = tmp_path / "state"
    host = make_host(f"file:{root}")
    mine, theirs = FileStore(f"file:{root}"), FileStore(f"file:{root}")
    create_run(host, mine, sample_skill(), "r1", {"counter": 0})
    transition(host, mine, "r1", Change(patch={"counter": 1}), skill=sample_skill())
    assert mine.get("r1").state["counter"] == 1  # remembered now
    transition(host, theirs, "r1", Change(patch={"counter": 2}), skill=sample_skill())
    assert mine.get("r1").state["counter"] == 2
    # deleted and created again with a journal of exactly the same length
    size = (root / "r1.jsonl").stat().st_size
    mine.get("r1")
    theirs.delete("r1")
    create_run(host, theirs, sample_skill(), "r1", {"counter": 0})
    transition(host, theirs, "r1", Change(patch={"counter": 7}), skill=sample_skill())
    transition(host, theirs, "r1", Change(patch={"counter": 8}), skill=sample_skill())
    assert (root / "r1.jsonl").stat().st_size == size
    assert mine.get("r1").state["counter"] == 8
    host.close()


def test_a_remembered_run_still_refuses_a_stale_version(tmp_path: Path) -> None:
    root = tmp_path / "state"
    host = make_host(f"file:{root}")
    store = FileStore(f"file:{root}")
    record = create_run(host, store, sample_skill(), "r1", {"counter": 0}).record
    assert record is not None and store.get("r1") == record
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    stale = JournalEntry(ts="t", step="s", patch={"counter": 5}, version=3)
    with pytest.raises(VersionConflict):
        store.commit(record, stale, expected_version=2)
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before
    host.close()


def test_a_record_without_its_journal_size_is_brought_level_when_opened(tmp_path: Path) -> None:
    """Without ``journalSize`` (a record written by hand) the record is not known to be level."""
    root = tmp_path / "state"
    host = make_host(f"file:{root}")
    store = FileStore(f"file:{root}")
    create_run(host, store, sample_skill(), "r1", {"counter": 0})
    old = transition(host, store, "r1", Change(patch={"counter": 1}), skill=sample_skill())
    assert old.record is not None
    (root / "r1.json").write_bytes(encode_record(old.record))  # no journalSize
    fresh = FileStore(f"file:{root}")
    assert fresh.get("r1") == old.record
    size = (root / "r1.jsonl").stat().st_size
    assert json.loads((root / "r1.json").read_bytes())["journalSize"] == size  # recovered
    transition(host, fresh, "r1", Change(patch={"counter": 2}), skill=sample_skill())
    saved = json.loads((root / "r1.json").read_bytes())
    assert saved["journalSize"] == (root / "r1.jsonl").stat().st_size
    assert FileStore(f"file:{root}").get("r1").state["counter"] == 2
    host.close()


def test_a_warehouse_journal_grows_by_what_each_step_changed(tmp_path: Path) -> None:
    root = tmp_path / "state"
    with Runtime(f"file:{root}") as runtime:
        out = runtime.initialize_skill("w", "warehouse", {"inventory": {}}, environment="warehouse")
        observation = out["prompt_payload"]["latest_observation"]
        for n in range(60):
            out = runtime.execute_step(
                "w",
                "r",
                {"inventory": {f"shelf_{n}": f"item_{n}"}},
                f"Store item_{n} shelf_{n}",
                observation,
            )
            observation = out["prompt_payload"]["latest_observation"]
        final = runtime.store.get("w")
    lines = (root / "w.jsonl").read_bytes().splitlines()
    assert len(final.environment["state"]["shelves"]) == 60  # type: ignore[index]
    assert len(lines[-1]) < len(lines[2]) + 40  # not the whole warehouse on every line
    (root / "w.json").write_bytes(b"")
    assert FileStore(f"file:{root}").get("w") == final


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": None}),  # a null RFC 7396 cannot set
        ({"a": 1, "b": 2}, {"b": 2, "a": 5}),  # keys reordered
        ({"a": {"x": 1, "y": 2}}, {"a": {"y": 2, "x": 1}}),  # equal, but another order
        ({"a": 1}, {"a": 1.0}),  # equal in Python, not as JSON text
        ({"a": {"x": [1, {"k": None}]}}, {"a": {"x": [2]}, "b": {}}),  # a plain patch
    ],
)
def test_record_fields_replay_exactly_key_order_and_nulls_included(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    from skillstate.plugin import RunRecord, compact

    from ..replay import apply_line, record_delta

    before = RunRecord(id="r", skill="s", state={}, version=1, environment=old, meta=old)
    after = RunRecord(id="r", skill="s", state={}, version=2, environment=new, meta=new)
    entry = JournalEntry(ts="t", step="s", patch={}, version=2)
    delta = json.loads(json.dumps(record_delta(before, after, entry)))  # through the file
    replayed = apply_line("r", before, entry, delta)
    assert compact(replayed.environment) == compact(new)
    assert compact(replayed.meta) == compact(new)


def test_a_store_dropped_without_close_leaves_no_journal_open(tmp_path: Path) -> None:
    import gc
    import os

    root = tmp_path / "state"
    host = make_host(f"file:{root}")
    create_run(host, FileStore(f"file:{root}"), sample_skill(), "r1", {"counter": 0})
    gc.collect()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        FileStore(f"file:{root}").get("r1")  # each remembers the run: one open journal
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) == before
    host.close()


def test_a_store_remembers_at_most_64_runs_and_rereads_the_others(tmp_path: Path) -> None:
    import os

    root = tmp_path / "state"
    host = make_host(f"file:{root}")
    writer, reader = FileStore(f"file:{root}"), FileStore(f"file:{root}")
    for n in range(70):
        create_run(host, writer, sample_skill(), f"r{n}", {"counter": n})
    writer.close()
    before = len(os.listdir("/proc/self/fd"))
    for n in range(70):  # the first six are forgotten again by the end
        assert reader.get(f"r{n}").state["counter"] == n
    assert len(os.listdir("/proc/self/fd")) == before + 64
    transition(host, writer, "r0", Change(patch={"counter": 100}), skill=sample_skill())
    assert reader.get("r0").state["counter"] == 100  # forgotten: read from disk
    assert reader.get("r69").state["counter"] == 69  # remembered, journal unchanged
    reader.close()
    writer.close()  # it remembered r0 again by writing it
    assert len(os.listdir("/proc/self/fd")) == before
    host.close()
