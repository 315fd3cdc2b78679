"""Reading part of a ``file`` store journal: entries between two versions, and snapshots.

A journal has one line per version, in order, so version *v* is line *v* (counting
from 1) — for rig-state's lines too, which are numbered by position. Reading versions
101..150 of a long run then parses those 50 lines only, and the state at a version
is replayed from the nearest earlier line that carries a ``snapshot`` (every
``SNAPSHOT_INTERVAL`` versions, written by the commit of that version): at most that
many lines are parsed, whatever the journal's length. A line whose version is not its
position (a journal changed by hand) makes the reader fall back to the whole journal.
See ``docs/storage-format.md``, "Snapshots".
"""

from __future__ import annotations

from skillstate.plugin import JournalEntry, Snapshot, StoreError

from .format import SNAPSHOT_KEY, parse_line

__all__ = ["all_snapshots", "entries_between", "find_snapshot", "lines_of"]

_MARK = b'"' + SNAPSHOT_KEY.encode() + b'":'


def lines_of(journal: bytes) -> list[bytes]:
    """The complete lines of a journal (a torn last line is left out)."""
    return journal.split(b"\n")[:-1]


def entries_between(
    lines: list[bytes], path: str, after: int, before: int | None
) -> list[JournalEntry] | None:
    """The entries ``after < version < before`` of our own journal lines, or ``None``
    when the lines are not one per version in order (the caller reads the whole journal)."""
    stop = len(lines) if before is None else min(len(lines), max(0, before - 1))
    out = []
    for number in range(after, stop):
        try:
            data = parse_line(lines[number])
            entry = JournalEntry.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"journal {path} line {number + 1} is damaged: {exc}") from None
        if entry.version != number + 1:
            return None
        out.append(entry)
    return out


def _snapshot_at(lines: list[bytes], path: str, number: int) -> Snapshot | None:
    line = lines[number]
    if _MARK not in line:
        return None
    try:
        data = parse_line(line)
        if not isinstance(data, dict) or SNAPSHOT_KEY not in data:
            return None  # the mark was inside a value
        if data.get("version") != number + 1:
            return None
        return Snapshot.from_dict(number + 1, data[SNAPSHOT_KEY])
    except ValueError as exc:
        raise StoreError(f"journal {path} line {number + 1} has a damaged snapshot: {exc}") from None


def find_snapshot(lines: list[bytes], path: str, version: int) -> Snapshot | None:
    """The snapshot on the line of the latest version at or before ``version``, if any."""
    for number in range(min(version, len(lines)) - 1, -1, -1):
        found = _snapshot_at(lines, path, number)
        if found is not None:
            return found
    return None


def all_snapshots(lines: list[bytes], path: str) -> list[Snapshot]:
    """Every snapshot in the journal, in version order."""
    found = (_snapshot_at(lines, path, number) for number in range(len(lines)))
    return [snapshot for snapshot in found if snapshot is not None]
