"""rig-state's files: the one place the ``file`` store knows the original tool's format.

rig's ``scripts/rig-state.ts`` kept ``<id>.json`` as the *bare state* (an object with
``runId``, ``skill``, ``phase``, ``createdAt``, ``updatedAt``... and no ``version``) and
``<id>.jsonl`` lines with only ``ts``, ``step`` and ``patch``. ``rig-state`` is a
drop-in, so the store reads such a run in place:

- :func:`read_rig_state_run` reads the state file as a record: its skill is
  ``state["skill"]``, its version the number of rig-state lines (1 without a journal),
  ``created``/``updated`` its ``createdAt``/``updatedAt``. The record is level with
  the journal up to the end of rig-state's lines; anything after them (the line of an
  interrupted upgrade, a torn line) is the store's ordinary recovery;
- :func:`rig_state_entries` numbers rig-state's lines by position and makes its
  implicit writes explicit, so the journal replays to the state;
- :func:`import_line` is the first line of a run that had no journal.

The first commit upgrades a run: our record replaces the state file, and our lines
follow rig-state's, which stay as they were. The store comes here only for a record
file without a ``version`` and a journal whose first line has none, so its own runs
never do. See ``docs/storage-format.md``, "rig-state's files".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillstate.plugin import JournalEntry, RunRecord, StoreError

from .fileio import RunFiles, read_file
from .format import RecordFile, decode_entries, encode_entry, parse_line
from .replay import record_delta

__all__ = ["import_line", "read_rig_state_run", "rig_state_entries", "starts_with_rig_state_line"]


def read_rig_state_run(run_id: str, state: dict[str, Any], files: RunFiles) -> RecordFile:
    """The record a rig-state state file stands for; :class:`StoreError` if it is not one."""
    skill = state.get("skill")
    if not isinstance(skill, str):
        raise StoreError(
            f"record file {files.record} is neither a skillstate record (id, skill, version, "
            "state) nor a rig-state state file (with a 'skill')"
        )
    count, end = _rig_state_lines(read_file(files.journal) or b"")
    record = RunRecord(
        id=run_id,
        skill=skill,
        state=state,
        version=max(1, count),
        created=_text(state.get("createdAt")),
        updated=_text(state.get("updatedAt")),
    )
    return RecordFile(record, end)


def starts_with_rig_state_line(journal: bytes) -> bool:
    """Whether the journal's first line is rig-state's (it has no ``version``)."""
    newline = journal.find(b"\n")
    try:
        first = parse_line(journal[:newline]) if newline >= 0 else None
    except ValueError:
        return False  # damaged: reported as such by whoever reads the journal
    return isinstance(first, dict) and "version" not in first


def rig_state_entries(journal: bytes, path: str, state: Mapping[str, Any]) -> list[JournalEntry]:
    """Every complete line of a journal that starts with rig-state's lines, as entries.

    rig-state's lines get their position as version; the first, ``init``, gets as
    ``base`` the state rig-state started from (``runId``, ``skill``, ``phase``,
    ``createdAt``, ``updatedAt``) and every later one its ``updatedAt`` stamp as ``set``.
    ``state`` is the run's current state: its ``runId`` and ``skill`` never change.
    rig-state does not record the phase it started at: it is the first phase of the
    run's skill (:data:`RIG_STATE_FIRST_PHASE`, rig-state's own three skills), else —
    a skill rig-state does not know — the current phase when no line sets one. So
    ``state_at(1)`` and a ``log`` from version 1 show the run as rig-state created it.
    Our lines after them (an upgraded run) are read as usual.
    """
    count, end = _rig_state_lines(journal)
    entries: list[JournalEntry] = []
    for number, line in enumerate(journal[:end].split(b"\n")[:-1], start=1):
        try:
            data = parse_line(line)
            if not isinstance(data, dict) or "patch" not in data:
                raise ValueError("a journal line must be an object with a 'patch'")
        except ValueError as exc:
            raise StoreError(f"journal {path} line {number} is damaged: {exc}") from None
        entries.append(_entry(data, number, state))
    entries += decode_entries(journal[end:], path, first_number=count + 1)
    return _first_phase(entries, state)


RIG_STATE_FIRST_PHASE = {"rig-task": "spec", "rig-epic": "plan", "rig-review": "find"}
"""The phase rig-state starts a run of each of its skills at (the first of its phases)."""


def _first_phase(entries: list[JournalEntry], state: Mapping[str, Any]) -> list[JournalEntry]:
    """The entries with the creation's ``phase`` set to the one rig-state started at."""
    if not entries or entries[0].base is None or "phase" not in entries[0].base:
        return entries
    first = RIG_STATE_FIRST_PHASE.get(str(state.get("skill")))
    if first is None:  # a skill rig-state does not have: the current phase stands in
        return entries
    base = {**entries[0].base, "phase": first}
    return [attrs.evolve(entries[0], base=base), *entries[1:]]


def import_line(record: RunRecord) -> bytes:
    """The first journal line of a rig-state run without a journal: its whole state.

    Written by the run's first commit, before the commit's own line; ``record`` is the
    run as read (version 1), so the line also holds what rebuilding it needs.
    """
    entry = JournalEntry(
        ts=record.updated, step="import", patch={}, version=1, base=dict(record.state)
    )
    return encode_entry(entry, record_delta(None, record, entry))


def _rig_state_lines(journal: bytes) -> tuple[int, int]:
    """How many complete lines without a ``version`` the journal starts with, and their end."""
    count = end = 0
    for line in journal.split(b"\n")[:-1]:
        if b'"version"' in line and not _is_rig_state_line(line):
            break
        count += 1
        end += len(line) + 1
    return count, end


def _is_rig_state_line(line: bytes) -> bool:
    """A line that is not ours: no ``version`` (a damaged line counts as rig-state's)."""
    try:
        data = parse_line(line)
    except ValueError:
        return True
    return not (isinstance(data, dict) and "version" in data)


def _entry(data: Mapping[str, Any], number: int, state: Mapping[str, Any]) -> JournalEntry:
    ts, step, patch = _text(data.get("ts")), _text(data.get("step")), data["patch"]
    if number == 1 and step == "init":
        base = {key: state[key] for key in ("runId", "skill", "phase") if key in state}
        base.update({"createdAt": ts, "updatedAt": ts})
        return JournalEntry(ts=ts, step=step, patch=patch, version=1, base=base)
    return JournalEntry(ts=ts, step=step, patch=patch, version=number, set={"updatedAt": ts})


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
