"""The file store: conformance suite, on-disk layout, URLs, recovery states, ids.

Crash and concurrency tests are in ``test_store_file_crash.py``; full and read-only
disks in ``test_store_file_disk.py``; power loss in ``test_store_file_powerloss.py``;
rig-state's files in ``test_store_file_legacy.py``.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings, strategies as st
from skillstate_testing import StoreConformance, make_host, sample_skill

from skillstate.plugin import (
    Change,
    InvalidRunId,
    JournalEntry,
    RunExists,
    RunNotFound,
    RunRecord,
    SkillDefinition,
    StoreError,
    VersionConflict,
    create_run,
    transition,
)
from skillstate.plugin.history import verify_record

from .. import FileStore, root_from_url
from ..format import encode_entry, encode_record
from ..replay import record_delta


class TestFileStore(StoreConformance):
    @pytest.fixture
    def store_url(self, tmp_path: Path) -> str:
        return f"file:{tmp_path / 'state'}"


# -- helpers -------------------------------------------------------------------


def _create(host: Any, store: FileStore, run_id: str = "run-1", counter: int = 0) -> RunRecord:
    outcome = create_run(host, store, sample_skill(), run_id, {"counter": counter})
    assert outcome.accepted and outcome.record is not None
    return outcome.record


def _patch(host: Any, store: FileStore, run_id: str, patch: dict[str, Any]) -> RunRecord:
    outcome = transition(host, store, run_id, Change(patch=patch), skill=sample_skill())
    assert outcome.accepted and outcome.record is not None
    return outcome.record


def _next(record: RunRecord, counter: int) -> tuple[RunRecord, JournalEntry]:
    """The record and journal entry a commit of ``{"counter": counter}`` would write."""
    new = attrs.evolve(
        record, state={**record.state, "counter": counter}, version=record.version + 1
    )
    return new, JournalEntry(ts="t", step="s", patch={"counter": counter}, version=new.version)


def _files(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir())


# -- layout and URLs -----------------------------------------------------------


def test_layout_is_a_pretty_record_and_a_compact_journal(
    host: Any, store: FileStore, root: Path
) -> None:
    record = _create(host, store)
    _patch(host, store, "run-1", {"counter": 1, "info": {"title": None}})
    assert _files(root) == ["run-1.json", "run-1.jsonl", "run-1.lock"]
    text = (root / "run-1.json").read_text("utf-8")
    assert text.startswith('{\n  "id": "run-1",\n  "skill": "sample",\n  "version": 2,')
    assert text.endswith("}\n")
    assert json.loads(text)["state"]["counter"] == 1
    lines = (root / "run-1.jsonl").read_text("utf-8").splitlines()
    assert len(lines) == 2
    assert (
        lines[1].startswith('{"ts":"') and '"patch":{"counter":1,"info":{"title":null}}' in lines[1]
    )
    assert list(json.loads(lines[1]))[:4] == ["ts", "step", "patch", "version"]
    assert json.loads(lines[0])["base"]["runId"] == record.id


def test_url_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert root_from_url("file:rel/dir") == str(tmp_path / "rel" / "dir")
    assert root_from_url("file:") == str(tmp_path / ".skillstate" / "state")
    assert root_from_url("file:///abs/a%20b") == "/abs/a b"
    assert root_from_url("file://localhost/abs") == "/abs"
    with pytest.raises(StoreError, match="names the host 'elsewhere'"):
        root_from_url("file://elsewhere/x")
    with pytest.raises(StoreError, match=r"^file store URL 'file://\[x/y': Invalid IPv6 URL$"):
        root_from_url("file://[x/y")


def test_file_store_is_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from skillstate_testing.helpers import PLUGIN_SELECTION

    from skillstate.plugin import Host
    from skillstate.plugin.cli import load_config

    monkeypatch.chdir(tmp_path)
    env = {k: v for k, v in os.environ.items() if k in PLUGIN_SELECTION}  # no store configured
    host = Host.from_config(load_config(env=env))
    store = host.open_store()
    assert isinstance(store, FileStore)
    assert store.root == str(tmp_path / ".skillstate" / "state")
    _create(host, store)
    assert (tmp_path / ".skillstate" / "state" / "run-1.json").is_file()
    host.close()


def test_file_store_fixture_gives_an_empty_file_store(file_store: Any) -> None:
    assert isinstance(file_store, FileStore)
    assert file_store.list() == []
    host = make_host(file_store.url)
    _create(host, file_store)
    assert os.path.isfile(os.path.join(file_store.root, "run-1.json"))


def test_reading_a_missing_root_creates_nothing(store: FileStore, root: Path) -> None:
    assert store.list() == []
    with pytest.raises(RunNotFound):
        store.get("x")
    with pytest.raises(RunNotFound):
        store.journal("x")
    assert store.delete("x") is False
    assert not root.exists()


# -- ids and symlinks ----------------------------------------------------------


@pytest.mark.parametrize("bad", ["../x", "a/b", ".hidden", "a" * 81, "", "a\x00b", "x/../../y"])
def test_bad_ids_write_nothing_anywhere(store: FileStore, tmp_path: Path, bad: str) -> None:
    record = RunRecord(id=bad, skill="sample", state={}, version=1)
    entry = JournalEntry(ts="t", step="init", patch={}, version=1)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    for call in (
        lambda: store.create(record, entry),
        lambda: store.commit(record, entry, 1),
        lambda: store.exists(bad),
        lambda: store.get(bad),
        lambda: store.journal(bad),
        lambda: store.delete(bad),
    ):
        with pytest.raises(InvalidRunId, match=r"must be alphanumeric with \. _ -, under 80 chars"):
            call()
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_an_id_of_80_characters_is_fine(host: Any, store: FileStore) -> None:
    run_id = "a" * 80
    _create(host, store, run_id)
    assert store.get(run_id).id == run_id


def test_symlinked_record_is_refused(
    host: Any, store: FileStore, root: Path, tmp_path: Path
) -> None:
    _create(host, store, "real")
    target = tmp_path / "elsewhere.json"
    target.write_bytes((root / "real.json").read_bytes().replace(b'"real"', b'"link"'))
    (root / "link.json").symlink_to(target)
    original = target.read_bytes()
    with pytest.raises(StoreError, match="symbolic link"):
        store.get("link")
    with pytest.raises(StoreError, match="symbolic link"):
        store.commit(
            attrs.evolve(store.get("real"), id="link", version=2),
            JournalEntry(ts="t", step="", patch={}, version=2),
            1,
        )
    with pytest.warns(UserWarning, match=r"link\.json.*symbolic link"):
        assert [s.id for s in store.list()] == ["real"]
    assert target.read_bytes() == original  # untouched


# -- listing -------------------------------------------------------------------


def test_listing_skips_foreign_files_with_a_warning(
    host: Any, store: FileStore, root: Path
) -> None:
    _create(host, store, "good")
    (root / "array.json").write_text("[1, 2]\n")
    (root / "broken.json").write_text('{"id": ')
    (root / "other.json").write_text(
        '{"id": "someone-else", "skill": "x", "version": 1, "state": {}}'
    )
    (root / ".hidden.json").write_text("{}")
    (root / "notes.txt").write_text("not a run")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        listed = store.list()
    assert [s.id for s in listed] == ["good"]
    messages = sorted(str(w.message) for w in caught if issubclass(w.category, UserWarning))
    assert len(messages) == 4
    assert messages[0].startswith("skipping .hidden.json: '.hidden.json' is not named after")
    assert "skipping array.json:" in messages[1] and "not a run record" in messages[1]
    assert "skipping broken.json:" in messages[2] and "not valid JSON" in messages[2]
    assert "belongs to run 'someone-else'" in messages[3]


def test_listing_summarises_the_keys_asked_for(host: Any, store: FileStore) -> None:
    skill = SkillDefinition(name="free", phases=("a", "b"), phase_key="stage")
    assert create_run(host, store, skill, "n1", {"nextAction": "write tests"}).accepted
    [summary] = store.list(skill="free", keys=("stage", "nextAction", "phase"))
    assert (summary.id, summary.fields) == ("n1", {"stage": "a", "nextAction": "write tests"})


# -- recovery: every state a killed commit can leave behind ---------------------


def _half_commit(store: FileStore, root: Path, run_id: str, stage: str) -> RunRecord:
    """Leave run ``run_id`` as a commit killed at ``stage`` would: the same bytes, cut short."""
    current = store.get(run_id)
    new, entry = _next(current, current.state["counter"] + 1)
    line = encode_entry(entry, record_delta(current, new, entry))
    size = (root / f"{run_id}.jsonl").stat().st_size + len(line)
    (root / f"{run_id}.json.new").write_bytes(encode_record(new, size))
    with open(root / f"{run_id}.jsonl", "ab") as journal:
        if stage == "torn-line":
            journal.write(line[: len(line) // 2])
        elif stage == "line-without-newline":
            journal.write(line[:-1])
        elif stage == "line-written":
            journal.write(line)
    return new


@pytest.mark.parametrize(
    ("stage", "rolled_forward"),
    [
        ("next-record-written", False),
        ("torn-line", False),
        ("line-without-newline", True),
        ("line-written", True),
    ],
)
def test_an_interrupted_commit_is_finished_or_discarded_on_open(
    host: Any, store: FileStore, root: Path, stage: str, rolled_forward: bool
) -> None:
    _create(host, store)
    before = _patch(host, store, "run-1", {"counter": 1})
    new = _half_commit(store, root, "run-1", stage)
    record = store.get("run-1")
    assert record == (new if rolled_forward else before)
    assert verify_record(record, store.journal("run-1")) == []
    assert not (root / "run-1.json.new").exists()
    assert (root / "run-1.jsonl").read_bytes().endswith(b"\n")
    assert _patch(host, store, "run-1", {"counter": 9}).version == record.version + 1


def test_a_lost_next_record_is_rebuilt_from_the_journal(
    host: Any, store: FileStore, root: Path
) -> None:
    """``.json.new`` emptied (a disk that lied about fsync) while the journal line survived."""
    _create(host, store)
    new = _half_commit(store, root, "run-1", "line-written")
    (root / "run-1.json.new").write_bytes(b"")
    record = store.get("run-1")
    assert (record.version, record.state) == (new.version, new.state)
    assert verify_record(record, store.journal("run-1")) == []


@pytest.mark.parametrize("journaled", [False, True])
def test_an_interrupted_creation(host: Any, store: FileStore, root: Path, journaled: bool) -> None:
    root.mkdir()
    record = RunRecord(id="fresh", skill="sample", state={"counter": 0}, version=1)
    entry = JournalEntry(ts="t", step="init", patch={}, version=1, base={"counter": 0})
    line = encode_entry(entry, record_delta(None, record, entry))  # as create writes them
    (root / "fresh.json.new").write_bytes(encode_record(record, len(line)))
    if journaled:
        (root / "fresh.jsonl").write_bytes(line)
        assert [s.id for s in store.list()] == ["fresh"]  # listing finishes the creation
        assert store.get("fresh") == record
    else:
        assert store.list() == []
        with pytest.raises(RunNotFound):
            store.get("fresh")
        _create(host, store, "fresh")
    assert not (root / "fresh.json.new").exists()


def test_journal_and_record_out_of_step_refuses_to_commit(
    host: Any, store: FileStore, root: Path
) -> None:
    _create(host, store)
    _patch(host, store, "run-1", {"counter": 1})
    journal = root / "run-1.jsonl"
    journal.write_bytes(journal.read_bytes().splitlines(keepends=True)[0])  # lose entry 2
    before = (root / "run-1.json").read_bytes()
    with pytest.warns(UserWarning, match="could not be brought level with its journal"):
        stale = store.get("run-1")  # readers still get the record, with a warning
    with pytest.raises(
        StoreError, match="journal ends at version 1 but its record is at version 2"
    ):
        store.commit(*_next(stale, 5), expected_version=2)
    assert (root / "run-1.json").read_bytes() == before
    assert len(journal.read_bytes().splitlines()) == 1
    with pytest.warns(UserWarning):
        assert verify_record(store.get("run-1"), store.journal("run-1")) != []


def test_reading_and_committing_look_only_at_the_journal_tail(
    host: Any, store: FileStore, root: Path
) -> None:
    """A damaged early line does not matter to get/commit (they seek to the end) but does to journal()."""
    _create(host, store)
    for n in range(1, 4):
        _patch(host, store, "run-1", {"counter": n})
    journal = root / "run-1.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"#" * (len(lines[0]) - 1) + b"\n" + b"".join(lines[1:]))
    assert store.get("run-1").version == 4
    assert _patch(host, store, "run-1", {"counter": 4}).version == 5
    with pytest.raises(StoreError, match=r"run-1.jsonl line 1 is damaged"):
        store.journal("run-1")


def test_stale_commit_and_duplicate_create_leave_files_untouched(
    host: Any, store: FileStore, root: Path
) -> None:
    record = _create(host, store)
    _patch(host, store, "run-1", {"counter": 1})
    snapshot = {name: (root / name).read_bytes() for name in _files(root)}
    with pytest.raises(VersionConflict):
        store.commit(*_next(record, 7), expected_version=1)
    with pytest.raises(RunExists):
        store.create(record, JournalEntry(ts="t", step="init", patch={}, version=1))
    assert {name: (root / name).read_bytes() for name in _files(root)} == snapshot


def test_commit_to_a_missing_run_leaves_no_file(host: Any, store: FileStore, root: Path) -> None:
    _create(host, store, "keep")
    ghost = RunRecord(id="ghost", skill="sample", state={}, version=2)
    with pytest.raises(RunNotFound):
        store.commit(ghost, JournalEntry(ts="t", step="", patch={}, version=2), 1)
    assert _files(root) == ["keep.json", "keep.jsonl", "keep.lock"]


def test_delete_removes_every_file_of_the_run(host: Any, store: FileStore, root: Path) -> None:
    _create(host, store, "keep")
    _create(host, store, "gone")
    assert store.delete("gone") is True
    assert _files(root) == ["keep.json", "keep.jsonl", "keep.lock"]


# -- the record encoder --------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=100, deadline=None)
@given(state=st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=6), skill=st.text())
def test_record_files_are_exactly_jsondoc_pretty(state: dict[str, Any], skill: str) -> None:
    from ..format import decode_record, parse_line

    def js_numbers(value: Any) -> Any:  # integral floats as JavaScript writes them
        if type(value) is float and value.is_integer() and abs(value) < 2**53:
            return int(value)
        if type(value) is dict:
            return {k: js_numbers(v) for k, v in value.items()}
        if type(value) is list:
            return [js_numbers(v) for v in value]
        return value

    record = RunRecord(id="r.1", skill=skill, state=state, version=7, meta={"m": [1.0, state]})
    data = encode_record(record)
    # pretty's fast encoder must give exactly the standard library's text.
    text = json.dumps(js_numbers(record.to_dict()), indent=2, ensure_ascii=False) + "\n"
    assert data == text.encode("utf-8")  # hypothesis' text() has no lone surrogates
    # the first lines are always the id, the skill and the version, in that order
    head = f'{{\n  "id": "r.1",\n  "skill": {json.dumps(skill, ensure_ascii=False)},\n'
    assert data.startswith((head + '  "version": 7,\n').encode("utf-8"))
    assert not data.startswith(b'{\n  "id": "r.2",')
    assert decode_record(parse_line(data), "r.1", "p").record.state == state


def test_lone_surrogates_are_refused_both_ways() -> None:
    """Issue 16: text that is not valid Unicode is never written, and a file holding one
    (half of a pair, a hand edit) is a damaged record, not a string that breaks printing."""
    from ..format import parse_line

    record = RunRecord(id="r", skill="s", state={"k": "a\ud800b"}, version=1)
    with pytest.raises(StoreError, match="not valid Unicode"):
        encode_record(record)
    data = encode_record(RunRecord(id="r", skill="s", state={"k": "a?b"}, version=1))
    with pytest.raises(ValueError, match=r"state\.k: text is not valid Unicode"):
        parse_line(data.replace(b"a?b", b"a\\ud800b"))


def test_reading_refuses_half_a_pair_and_keeps_whole_pairs() -> None:
    from ..format import parse_line

    with pytest.raises(ValueError, match=r"state\.note: text is not valid Unicode"):
        parse_line(b'{"state": {"note": "\\ud83d"}}')
    with pytest.raises(ValueError):
        parse_line(b'{"a": "\xed\xa0\x80"}')  # a surrogate in raw bytes: not UTF-8
    with pytest.raises(ValueError):
        parse_line(b'{"a": NaN}')
    assert parse_line(b'{"a": "\\ud83d\\ude00 \\\\ud800"}') == {"a": "\U0001f600 \\ud800"}
    assert parse_line(b'{"n": 1.0}') == {"n": 1.0}  # kept as written, not made an int


def test_a_writer_waiting_on_a_deleted_lock_file_locks_the_new_one(tmp_path: Path) -> None:
    """delete removes the lock file while holding it; a waiter must not keep the dead inode."""
    import fcntl
    import threading
    import time

    from ..locks import RunLock, close_lock

    path = str(tmp_path / "run.lock")
    holder = RunLock(path).acquire()
    acquired: list[int] = []
    waiter = threading.Thread(target=lambda: acquired.append(RunLock(path).acquire()))
    waiter.start()
    time.sleep(0.2)  # the waiter is now blocked in flock on the file about to be deleted
    os.unlink(path)
    close_lock(holder)
    waiter.join(timeout=10)
    assert acquired, "the waiter never got the lock"
    other = os.open(path, os.O_RDWR)  # the file now at the path is the one held
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(other)
        close_lock(acquired[0])


def test_raw_journal_is_the_file_up_to_its_last_complete_line(host: Any, store: FileStore) -> None:
    _create(host, store)
    path = Path(store.root) / "run-1.jsonl"
    whole = path.read_bytes()
    assert store.raw_journal("run-1") == whole.decode("utf-8")
    with path.open("ab") as handle:
        handle.write(b'{"ts": "torn')  # a line still being written
    assert store.raw_journal("run-1") == whole.decode("utf-8")
    assert store.raw_journal("no-such-run") is None
    with pytest.raises(InvalidRunId):
        store.raw_journal("../etc/passwd")
