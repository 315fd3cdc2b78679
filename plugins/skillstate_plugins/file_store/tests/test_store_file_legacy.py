"""The file store on runs the original TypeScript rig-state wrote: read, listed, upgraded.

rig-state kept ``<id>.json`` as the bare state and ``<id>.jsonl`` lines ``{ts, step,
patch}``; ``rig-state`` is a drop-in, so such runs must keep working in place. All of
that is :mod:`..legacy`; these tests also check that it is the only code that sees them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillstate.plugin import Change, SkillDefinition, StoreError, VersionConflict, transition
from skillstate.plugin.history import verify_record

from .. import FileStore, commit as commit_module, store as store_module
from ..format import encode_entry, encode_record
from .test_store_file import _create, _files, _next, _patch


def _merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    from skillstate.plugin import merge_patch

    result: dict[str, Any] = merge_patch(base, patch)
    return result


def _write_rig_run(
    root: Path, run_id: str, patches: list[dict[str, Any]], journal: bool = True
) -> dict[str, Any]:
    """Write a run exactly as the TypeScript rig-state does: bare state + ts/step/patch lines."""
    root.mkdir(parents=True, exist_ok=True)
    times = [f"2026-09-01T00:00:0{n}.000Z" for n in range(len(patches) + 1)]
    seed = {"branch": "alice/abc-18", "spec": {"id": "ABC-18", "title": "Rate limit"}}
    state = _merge(
        {
            "runId": run_id,
            "skill": "rig-task",
            "phase": "spec",
            "createdAt": times[0],
            "updatedAt": times[0],
        },
        seed,
    )
    lines = [{"ts": times[0], "step": "init", "patch": seed}]
    for n, patch in enumerate(patches, start=1):
        state = _merge(state, patch)
        state["updatedAt"] = times[n]
        lines.append({"ts": times[n], "step": f"s{n}", "patch": patch})
    (root / f"{run_id}.json").write_text(json.dumps(state, indent=2) + "\n")
    if journal:
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
        (root / f"{run_id}.jsonl").write_text(text)
    return state


RIG_PATCHES: list[dict[str, Any]] = [
    {"phase": "red", "tests": {"command": "bun test", "status": "red", "failures": ["x"]}},
    {"phase": "green", "tests": {"status": "green", "failures": None}, "nextAction": "push"},
]


def test_a_rig_state_run_is_read_listed_and_verifies(store: FileStore, root: Path) -> None:
    state = _write_rig_run(root, "abc-18", RIG_PATCHES)
    record = store.get("abc-18")
    assert (record.id, record.skill, record.version, record.state) == (
        "abc-18",
        "rig-task",
        3,
        state,
    )
    assert (record.created, record.updated) == (state["createdAt"], state["updatedAt"])
    [summary] = store.list(skill="rig-task", keys=("phase", "nextAction"))
    assert (summary.fields, summary.version) == ({"phase": "green", "nextAction": "push"}, 3)
    entries = store.journal("abc-18")
    assert [(e.version, e.step) for e in entries] == [(1, "init"), (2, "s1"), (3, "s2")]
    assert entries[2].patch == RIG_PATCHES[1]
    assert verify_record(record, entries) == []


def test_a_rig_state_run_is_upgraded_on_its_first_commit(
    host: Any, store: FileStore, root: Path
) -> None:
    _write_rig_run(root, "abc-18", RIG_PATCHES)
    legacy_lines = (root / "abc-18.jsonl").read_bytes()
    skill = SkillDefinition(name="rig-task", updated_key="updatedAt")
    outcome = transition(
        host, store, "abc-18", Change(patch={"branch": "b2"}, label="rename"), skill=skill
    )
    assert outcome.accepted
    on_disk = json.loads((root / "abc-18.json").read_text())
    assert (on_disk["id"], on_disk["skill"], on_disk["version"]) == ("abc-18", "rig-task", 4)
    assert on_disk["state"]["branch"] == "b2" and on_disk["state"]["runId"] == "abc-18"
    journal = (root / "abc-18.jsonl").read_bytes()
    assert journal.startswith(legacy_lines)  # the old lines are kept as they were
    assert json.loads(journal.splitlines()[-1])["version"] == 4
    record = store.get("abc-18")
    assert record.version == 4
    assert verify_record(record, store.journal("abc-18")) == []
    assert (
        transition(
            host, store, "abc-18", Change(patch={"branch": "b3"}), skill=skill
        ).record.version
        == 5
    )  # type: ignore[union-attr]


def test_a_rig_state_run_without_journal(host: Any, store: FileStore, root: Path) -> None:
    state = _write_rig_run(root, "pr-418", [], journal=False)
    record = store.get("pr-418")
    assert (record.version, record.state) == (1, state)
    assert store.journal("pr-418") == []
    skill = SkillDefinition(name="rig-task", updated_key="updatedAt")
    assert transition(host, store, "pr-418", Change(patch={"phase": "red"}), skill=skill).accepted
    entries = store.journal("pr-418")
    assert [(e.version, e.step) for e in entries] == [(1, "import"), (2, "")]
    assert verify_record(store.get("pr-418"), entries) == []


def test_a_stale_commit_on_a_rig_state_run_changes_nothing(store: FileStore, root: Path) -> None:
    _write_rig_run(root, "pr-418", [], journal=False)
    before = _files(root)
    new, entry = _next(store.get("pr-418"), 1)
    with pytest.raises(VersionConflict, match="is at version 1, not the expected version 3"):
        store.commit(new, entry, expected_version=3)
    assert _files(root) == [*before, "pr-418.lock"]  # no journal appeared


def test_an_interrupted_upgrade_rolls_forward(store: FileStore, root: Path) -> None:
    _write_rig_run(root, "abc-18", RIG_PATCHES)
    new, entry = _next(store.get("abc-18"), 1)
    (root / "abc-18.json.new").write_bytes(encode_record(new))
    with open(root / "abc-18.jsonl", "ab") as journal:
        journal.write(encode_entry(entry))
    record = store.get("abc-18")
    assert (record.version, record.state["counter"]) == (4, 1)
    assert not (root / "abc-18.json.new").exists()


@pytest.mark.parametrize("journal", [True, False])
def test_an_upgrade_whose_record_swap_was_lost_is_replayed(
    host: Any, store: FileStore, root: Path, journal: bool
) -> None:
    """Power loss after the upgrade's line was synced but before its swap reached the disk."""
    _write_rig_run(root, "abc-18", RIG_PATCHES, journal=journal)
    state_file = (root / "abc-18.json").read_bytes()
    skill = SkillDefinition(name="rig-task", updated_key="updatedAt")
    outcome = transition(host, store, "abc-18", Change(patch={"branch": "b2"}), skill=skill)
    assert outcome.accepted and outcome.record is not None
    (root / "abc-18.json").write_bytes(state_file)  # the rig-state file is back
    fresh = FileStore(f"file:{root}")
    assert fresh.get("abc-18") == outcome.record
    assert verify_record(fresh.get("abc-18"), fresh.journal("abc-18")) == []


@pytest.mark.parametrize("journal", [True, False])
def test_an_upgraded_run_with_an_empty_record(
    host: Any, store: FileStore, root: Path, journal: bool
) -> None:
    """A power loss empties the record: the ``import`` line rebuilds it, rig-state's cannot."""
    _write_rig_run(root, "abc-18", RIG_PATCHES, journal=journal)
    skill = SkillDefinition(name="rig-task", updated_key="updatedAt")
    outcome = transition(host, store, "abc-18", Change(patch={"branch": "b2"}), skill=skill)
    assert outcome.accepted and outcome.record is not None
    (root / "abc-18.json").write_bytes(b"")
    if journal:
        with pytest.raises(StoreError, match=r"is empty and journal .* does not hold"):
            new, entry = _next(outcome.record, 5)
            FileStore(f"file:{root}").commit(new, entry, outcome.record.version)
    else:
        assert FileStore(f"file:{root}").get("abc-18") == outcome.record


@pytest.mark.parametrize(
    "torn", [b'{"ts":"2026-09-01T00:00:09.000Z","step":"s9","patch":{"pha', b"unterminated"]
)
def test_a_rig_state_journal_with_a_torn_or_unterminated_last_line(
    host: Any, store: FileStore, root: Path, torn: bytes
) -> None:
    """A torn last line is cut off; a whole one without its newline (a hand edit) gets it."""
    _write_rig_run(root, "abc-18", [*RIG_PATCHES, {"nextAction": "merge"}])
    path = root / "abc-18.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[:-1] if torn == b"unterminated" else data + torn)
    record = store.get("abc-18")
    assert record.version == 4
    assert path.read_bytes() == data  # repaired like any journal, under the lock
    assert [e.version for e in store.journal("abc-18")] == [1, 2, 3, 4]
    assert verify_record(record, store.journal("abc-18")) == []
    skill = SkillDefinition(name="rig-task", updated_key="updatedAt")
    assert transition(host, store, "abc-18", Change(patch={"branch": "b"}), skill=skill).accepted
    assert verify_record(store.get("abc-18"), store.journal("abc-18")) == []


def test_the_legacy_module_reads_rig_state_runs_and_nothing_else(
    host: Any, store: FileStore, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our own runs never reach :mod:`..legacy`; a rig-state run reaches it at every step."""
    calls: list[str] = []
    for module, name in (
        (store_module, "read_rig_state_run"),
        (store_module, "rig_state_entries"),
        (commit_module, "import_line"),
    ):
        original = getattr(module, name)

        def spy(*args: Any, _name: str = name, _original: Any = original) -> Any:
            calls.append(_name)
            return _original(*args)

        monkeypatch.setattr(module, name, spy)
    _create(host, store, "ours")
    _patch(host, store, "ours", {"counter": 1})
    fresh = FileStore(f"file:{root}")  # remembers nothing: reads the files
    assert fresh.get("ours").version == 2
    assert len(fresh.journal("ours")) == 2
    assert [s.id for s in fresh.list()] == ["ours"]
    _patch(host, fresh, "ours", {"counter": 2})
    assert calls == []

    _write_rig_run(root, "pr-418", [], journal=False)
    assert FileStore(f"file:{root}").get("pr-418").version == 1
    assert calls == ["read_rig_state_run"]
    skill = SkillDefinition(name="rig-task", updated_key="updatedAt")
    fresh = FileStore(f"file:{root}")
    assert transition(host, fresh, "pr-418", Change(patch={"phase": "red"}), skill=skill).accepted
    assert calls.count("import_line") == 1
    _write_rig_run(root, "abc-18", RIG_PATCHES)
    assert len(FileStore(f"file:{root}").journal("abc-18")) == 3
    assert calls[-2:] == ["read_rig_state_run", "rig_state_entries"]
