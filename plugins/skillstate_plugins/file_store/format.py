"""The bytes on disk of the ``file`` store: records and journal lines, ours and rig-state's.

Our record file is ``RunRecord.to_dict()`` pretty-printed (2-space indent, trailing
newline); our journal line is ``JournalEntry.to_dict()`` compact (keys ``ts, step,
patch`` first, as rig-state writes them, then ``version`` and the rest).

A file written by the original TypeScript ``rig-state`` holds the *bare* state (an
object with ``runId``, ``skill``, ``phase``... and no ``version``), and its journal
lines have only ``ts, step, patch``. Such a run is read as version *n* (the number of
journal lines without a ``version``, or 1), and the journal's lines are numbered by
position. See ``docs/storage-format.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from skillstate.plugin import JournalEntry, RunRecord, StoreError, compact, pretty

from .replay import DELTA_KEY

__all__ = [
    "JOURNAL_SIZE_KEY",
    "ParsedRecord",
    "count_legacy_lines",
    "decode_entries",
    "decode_record",
    "encode_entry",
    "encode_record",
    "entry_version",
    "head_version",
    "import_entry",
    "parse_line",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _utf8(text: str) -> bytes:
    """UTF-8 bytes of JSON text; a lone surrogate (legal in a Python str) is written escaped."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


JOURNAL_SIZE_KEY = "journalSize"
"""The record file's last key: the journal's length in bytes once this record's line is in."""


def encode_record(record: RunRecord, journal_size: int | None = None) -> bytes:
    """The record file's bytes: pretty JSON and a trailing newline.

    ``journal_size`` (the journal's length up to and including this version's line)
    is written as a last key, ``journalSize``: a reader compares it with the journal's
    size to see whether the journal holds lines the record does not show yet.
    :func:`skillstate.jsondoc.pretty` builds the text with C-level string encoding (the
    standard library's indenting encoder is pure Python and dominated the commit).
    """
    data = record.to_dict()
    if journal_size is not None:
        data[JOURNAL_SIZE_KEY] = journal_size
    return _utf8(pretty(data) + "\n")


def encode_entry(entry: JournalEntry, delta: Mapping[str, Any] | None = None) -> bytes:
    """One journal line: compact JSON and a newline; ``delta`` goes under ``record``."""
    data = entry.to_dict()
    if delta:
        data[DELTA_KEY] = delta
    return _utf8(compact(data) + "\n")


def parse_line(line: bytes) -> Any:
    """Parse one journal line (or a record file); ``ValueError`` if it is not JSON."""
    return _DECODER.decode(line.decode("utf-8"))  # UnicodeDecodeError is a ValueError


def entry_version(data: Any) -> int | None:
    """The ``version`` of a parsed journal line, ``None`` for a rig-state line without one."""
    if isinstance(data, Mapping) and "version" in data:
        value = data["version"]
        if type(value) is int:
            return value
        raise ValueError(f"journal entry version must be an integer, got {value!r}")
    return None


class ParsedRecord:
    """A decoded record file. ``legacy`` is true for a bare rig-state state file."""

    __slots__ = ("data", "journal_size", "legacy")

    def __init__(self, data: dict[str, Any], legacy: bool) -> None:
        self.data = data
        self.legacy = legacy
        size = None if legacy else data.get(JOURNAL_SIZE_KEY)
        self.journal_size: int | None = size if type(size) is int else None

    def to_record(self, run_id: str, legacy_version: int) -> RunRecord:
        """The :class:`RunRecord`; ``legacy_version`` is used for a rig-state file only."""
        if not self.legacy:
            return RunRecord.from_dict(self.data)
        state = self.data
        return RunRecord(
            id=run_id,
            skill=state["skill"],
            state=state,
            version=max(1, legacy_version),
            created=_str(state.get("createdAt")),
            updated=_str(state.get("updatedAt")),
        )


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


_HEAD = re.compile(
    rb'\{\n  "id": "([A-Za-z0-9._-]+)",\n  "skill": "(?:[^"\\\n]|\\.)*",\n  "version": (\d+),\n'
)


def head_version(data: bytes, run_id: str) -> int | None:
    """The version of a record file as :func:`encode_record` wrote it, from its first lines.

    ``None`` when the file does not start the way ours do (then parse it fully).
    """
    match = _HEAD.match(data)
    if match is None or match.group(1) != run_id.encode("ascii"):
        return None
    return int(match.group(2))


def decode_record(data: bytes, run_id: str, path: str) -> ParsedRecord:
    """Parse a record file, ours or rig-state's; :class:`StoreError` for anything else."""
    try:
        value = parse_line(data)
    except ValueError as exc:
        raise StoreError(f"record file {path} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise StoreError(
            f"record file {path} holds a JSON {type(value).__name__}, not a run record"
        )
    if "version" in value and "state" in value:
        if value.get("id") != run_id:
            raise StoreError(
                f"record file {path} belongs to run {value.get('id')!r}, not '{run_id}'"
            )
        if type(value["version"]) is not int or not isinstance(value["state"], dict):
            raise StoreError(
                f"record file {path} is damaged: version must be an integer and state an object"
            )
        return ParsedRecord(value, legacy=False)
    if "version" not in value and isinstance(value.get("skill"), str):
        return ParsedRecord(value, legacy=True)
    raise StoreError(
        f"record file {path} is neither a skillstate record (id, skill, version, state) "
        "nor a rig-state state file (with a 'skill')"
    )


def count_legacy_lines(journal: bytes | None) -> int:
    """How many complete journal lines have no ``version`` (rig-state's own lines)."""
    if not journal:
        return 0
    count = 0
    for line in journal.split(b"\n")[:-1]:
        if b'"version"' in line:
            try:
                if entry_version(parse_line(line)) is not None:
                    continue
            except ValueError:
                pass
        count += 1
    return count


def decode_entries(
    journal: bytes, path: str, state: Mapping[str, Any] | None
) -> list[JournalEntry]:
    """Every complete line of a journal (a torn last line is ignored).

    Lines without a ``version`` (rig-state's) get their 1-based position as version;
    rig-state's implicit writes are made explicit so the journal replays to its
    state: the first ``init`` line gets the state rig-state started from as ``base``
    (``runId, skill, phase, createdAt, updatedAt``) and each later line the
    ``updatedAt`` stamp as ``set``. ``state`` is the run's current state: its
    ``runId`` and ``skill`` never change, and its ``phase`` stands in for the
    unrecorded first phase (exact when no line sets a phase, irrelevant otherwise).
    """
    entries: list[JournalEntry] = []
    lines = journal.split(b"\n")[:-1]
    for number, line in enumerate(lines, start=1):
        try:
            data = parse_line(line)
            version = entry_version(data)
            if version is not None:
                entries.append(JournalEntry.from_dict(data))
                continue
            if not isinstance(data, dict) or "patch" not in data:
                raise ValueError("a journal line must be an object with a 'patch'")
        except ValueError as exc:
            raise StoreError(f"journal {path} line {number} is damaged: {exc}") from None
        entries.append(_legacy_entry(data, number, state))
    return entries


def _legacy_entry(
    data: Mapping[str, Any], number: int, state: Mapping[str, Any] | None
) -> JournalEntry:
    ts = _str(data.get("ts"))
    step = _str(data.get("step"))
    base = None
    stamp: dict[str, Any] | None = {"updatedAt": ts}
    if number == 1 and step == "init" and state is not None:
        base = {k: state[k] for k in ("runId", "skill", "phase") if k in state}
        base.update({"createdAt": ts, "updatedAt": ts})
        stamp = None
    return JournalEntry(ts=ts, step=step, patch=data["patch"], version=number, base=base, set=stamp)


def import_entry(state: Mapping[str, Any], ts: str) -> JournalEntry:
    """The first line written for a rig-state run that had no journal: its whole state."""
    return JournalEntry(ts=ts, step="import", patch={}, version=1, base=dict(state))
