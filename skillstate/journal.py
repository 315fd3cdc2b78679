"""Replaying a journal, and checking a record against its replay."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from skillstate.jsondoc import compact
from skillstate.merge import merge_patch
from skillstate.records import JournalEntry, RunRecord

__all__ = ["Replay", "replay", "verify_record"]


@attrs.frozen
class Replay:
    """What a journal says the run should be."""

    state: Mapping[str, Any]
    version: int
    status: str | None
    turn: int | None


Merge = Callable[[Any, Any], Any]


def replay(
    entries: Iterable[JournalEntry], merge: Merge = merge_patch, start: Any = None
) -> Replay:
    """Fold the entries in order: ``base`` restarts, ``patch`` merges, ``set`` stamps.

    ``merge`` defaults to RFC 7396; pass ``host.merge`` to replay with the merge plugin in
    use. ``start`` is the state before the first entry (default ``{}``: a whole journal).
    """
    state: Any = {} if start is None else start
    version = 0
    status: str | None = None
    turn: int | None = None
    for entry in entries:
        if entry.base is not None:
            state = entry.base
        state = merge(state, entry.patch)
        if entry.set:
            state = merge(state, entry.set)
        version = entry.version
        if entry.status is not None:
            status = entry.status
        if entry.turn is not None:
            turn = entry.turn
    return Replay(state=state, version=version, status=status, turn=turn)


def verify_record(
    record: RunRecord, entries: list[JournalEntry], merge: Merge = merge_patch
) -> list[str]:
    """Differences between ``record`` and the replay of ``entries`` (empty when they agree)."""
    problems: list[str] = []
    versions = [e.version for e in entries]
    expected = list(range(1, len(entries) + 1))
    if versions != expected:
        problems.append(
            f"journal versions are {_span(versions)}, expected 1..{len(entries)} without gaps"
        )
    result = replay(entries, merge)
    if result.version != record.version:
        problems.append(
            f"record is at version {record.version}, journal replays to version {result.version}"
        )
    if compact(result.state) != compact(record.state):
        problems.append("record state differs from the replay of its journal")
    if result.status is not None and result.status != record.status:
        problems.append(f"record status is {record.status!r}, journal says {result.status!r}")
    if result.turn is not None and result.turn != record.step:
        problems.append(f"record step is {record.step}, journal says {result.turn}")
    return problems


def _span(versions: list[int]) -> str:
    if len(versions) <= 6:
        return str(versions)
    return f"[{versions[0]}, {versions[1]}, ..., {versions[-1]}]"
