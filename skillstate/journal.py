"""Replaying a journal, and checking a record (and a store's snapshots) against its replay.

:func:`apply_entry` is the one replay step (base, patch, set); :func:`replay` folds a
journal into the state it ends at with it; :func:`replay_history`
yields the run at every version on the way (what ``Store.history`` gives), starting
from a :class:`~skillstate.records.Snapshot` when the store keeps one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from skillstate.errors import InvalidInput, StoreError
from skillstate.jsondoc import compact
from skillstate.merge import merge_patch
from skillstate.records import JournalEntry, RunRecord

SNAPSHOT_INTERVAL = 1000
"""The bundled stores keep a snapshot of every version that is a multiple of this, so
reading any version replays at most this many journal entries."""


if TYPE_CHECKING:
    from skillstate.records import HistoryItem, Snapshot
    from skillstate.records.replays import Replay

__all__ = [
    "SNAPSHOT_INTERVAL",
    "Merge",
    "apply_entry",
    "check_import",
    "imported_records",
    "replay",
    "replay_history",
    "verify_record",
    "verify_snapshots",
]


class Merge(Protocol):
    """A merge function, ``merge(state, patch) -> state``: :func:`~skillstate.merge.merge_patch`
    (RFC 7396) or a host's ``host.merge``. What ``Store.history``, ``state_at`` and
    ``import_run`` take as ``merge=`` to replay a journal as the pipeline merged it."""

    def __call__(self, state: Any, patch: Any, /) -> Any: ...


def apply_entry(state: Any, entry: JournalEntry, merge: Merge = merge_patch) -> Any:
    """Σ after ``entry`` from Σ ``state`` before it: the one replay step every reader uses.

    ``base`` (a creation's, a rewind's) restarts the state, ``patch`` is merged with
    ``merge`` (``host.merge``: the merge plugin in use; RFC 7396 by default), then
    ``set`` (what the pipeline stamped after the merge) is merged over it.
    """
    if entry.base is not None:
        state = entry.base
    state = merge(state, entry.patch)
    if entry.set:
        state = merge(state, entry.set)
    return state


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
        state = apply_entry(state, entry, merge)
        version = entry.version
        if entry.status is not None:
            status = entry.status
        if entry.turn is not None:
            turn = entry.turn
    from skillstate.records.replays import Replay  # built on the first replay

    return Replay(state=state, version=version, status=status, turn=turn)


def replay_history(
    run_id: str,
    entries: Iterable[JournalEntry],
    *,
    start: Snapshot | None = None,
    first: int = 1,
    merge: Merge = merge_patch,
) -> Iterator[HistoryItem]:
    """The run at each version of ``entries``, from version ``first`` on.

    ``entries`` are consecutive journal entries: from version 1, or, with ``start``,
    from ``start.version`` (whose state is taken from the snapshot, not replayed).
    A gap in the versions raises :class:`~skillstate.errors.StoreError`.
    """
    from skillstate.records import HistoryItem

    state: Any = {}
    status, step = "active", 0
    expected = 1
    for entry in entries:
        if start is not None and entry.version == start.version:
            state, status, step = start.state, start.status, start.step
        else:
            if entry.version != expected:
                raise StoreError(
                    f"run '{run_id}': its journal skips from version {expected - 1} to "
                    f"{entry.version} (see 'skillstate verify')"
                )
            state = apply_entry(state, entry, merge)
            if entry.status is not None:
                status = entry.status
            if entry.turn is not None:
                step = entry.turn
        expected = entry.version + 1
        if entry.version >= first:
            yield HistoryItem(entry, state, status, step)


def imported_records(
    record: RunRecord,
    entries: Sequence[JournalEntry],
    merge: Merge | None = None,
) -> Iterator[tuple[RunRecord, JournalEntry]]:
    """Each entry of an imported journal with the record after it, creation first.

    The last is ``record`` itself; each earlier one is ``record`` with the state
    replayed with ``merge`` (``host.merge``; RFC 7396 when ``None``), version, status, step and time of that entry (its other fields
    are ``record``'s). What :meth:`Store.import_steps <skillstate.store.Store.import_steps>` gives, one entry at a time.
    """
    import attrs

    state: Any = {}
    status, step = "active", 0
    for index, entry in enumerate(entries):
        if index == len(entries) - 1:
            yield record, entry
            return
        state = apply_entry(state, entry, merge or merge_patch)
        status = entry.status if entry.status is not None else status
        step = entry.turn if entry.turn is not None else step
        current = attrs.evolve(
            record,
            state=state,
            version=entry.version,
            status=status,
            step=step,
            updated=entry.ts or record.updated,
        )
        yield current, entry


def check_import(record: RunRecord, entries: Sequence[JournalEntry]) -> None:
    """Refuse (:class:`InvalidInput`) a journal that is not versions 1..``record.version``."""
    versions = [e.version for e in entries]
    if not versions or versions != list(range(1, len(versions) + 1)):
        shown = versions if len(versions) <= 6 else [*versions[:3], "...", *versions[-2:]]
        raise InvalidInput(
            f"cannot import run '{record.id}': its journal versions are {shown}, "
            "expected 1, 2, ... without gaps"
        )
    if versions[-1] != record.version:
        raise InvalidInput(
            f"cannot import run '{record.id}': the record is at version {record.version} "
            f"but its journal ends at version {versions[-1]}"
        )


def verify_snapshots(
    entries: Sequence[JournalEntry], snapshots: Iterable[Snapshot], merge: Merge = merge_patch
) -> list[str]:
    """Snapshots that disagree with the replay of ``entries`` (empty when all agree)."""
    wanted = {snapshot.version: snapshot for snapshot in snapshots}
    if not wanted:
        return []
    problems = [
        f"a snapshot is kept for version {v}, which the journal does not have"
        for v in sorted(wanted)
        if not 1 <= v <= len(entries)
    ]
    try:
        for item in replay_history("", entries, merge=merge):
            snapshot = wanted.get(item.version)
            if snapshot is None:
                continue
            if compact(snapshot.state) != compact(item.state):
                problems.append(
                    f"the snapshot of version {item.version} differs from the replay's state"
                )
            if (snapshot.status, snapshot.step) != (item.status, item.step):
                problems.append(
                    f"the snapshot of version {item.version} says status {snapshot.status!r} "
                    f"and step {snapshot.step}, the replay {item.status!r} and step {item.step}"
                )
    except StoreError:
        pass  # the gap is reported by verify_record
    return problems


def verify_record(
    record: RunRecord,
    entries: list[JournalEntry],
    merge: Merge = merge_patch,
    snapshots: Iterable[Snapshot] = (),
) -> list[str]:
    """Differences between ``record`` and the replay of ``entries`` (empty when they agree).

    ``snapshots`` (what the store keeps to shorten replays) are checked too.
    """
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
    problems.extend(verify_snapshots(entries, snapshots, merge))
    return problems


def _span(versions: list[int]) -> str:
    if len(versions) <= 6:
        return str(versions)
    return f"[{versions[0]}, {versions[1]}, ..., {versions[-1]}]"


def __getattr__(name: str) -> Any:
    if name == "Replay":  # where it was defined before skillstate.records.replays
        from skillstate.records.replays import Replay

        return Replay
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
