"""The ``memory:`` store: runs kept in this process only (tests, benchmarks, throwaway sessions).

``memory:`` opens a fresh, private store; ``memory:NAME`` opens the store named
NAME, shared by every opener in this process. Records are shared, never changed in
place (the store contract, ``skillstate/store.py``): the (frozen) objects committed
are kept and handed out as they are, not copied. That keeps the store cheap enough
to measure the pipeline itself (docs/benchmarks.md). Like the other bundled stores
it keeps a snapshot of each version ``Store.snapshot_due`` names (every 1000th), so
reading an old version of a long run replays at most that many entries.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Sequence

from skillstate.plugin import (
    JournalEntry,
    RunExists,
    RunNotFound,
    RunRecord,
    RunSummary,
    Snapshot,
    Store,
    StoreError,
    VersionConflict,
    check_run_id,
)

__all__ = ["MemoryStore"]


class _Space:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.records: dict[str, RunRecord] = {}
        self.journals: dict[str, list[JournalEntry]] = {}
        self.snapshots: dict[str, dict[int, Snapshot]] = {}


_named: dict[str, _Space] = {}
_named_lock = threading.Lock()


class MemoryStore(Store):
    """A thread-safe in-process store with compare-and-swap commits."""

    def __init__(self, url: str = "memory:") -> None:
        self.url = url
        self.durability = "none"  # nothing outlives the process
        name = url.split(":", 1)[1] if ":" in url else ""
        if "?" in name:
            raise StoreError(  # the caller's input, as any store's bad option: exit 2
                f"memory store URL '{url}': a memory store takes no options "
                "(it keeps nothing past its process: its durability is none)",
                kind="usage",
            )
        if name:
            with _named_lock:
                self._space = _named.setdefault(name, _Space())
        else:
            self._space = _Space()

    def get(self, run_id: str) -> RunRecord:
        check_run_id(run_id)
        record = self._space.records.get(run_id)
        if record is None:
            raise RunNotFound(run_id)
        return record

    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        check_run_id(record.id)
        with self._space.lock:
            if record.id in self._space.records:
                raise RunExists(record.id)
            self._space.records[record.id] = record
            self._space.journals[record.id] = [entry]
            self._space.snapshots[record.id] = {}

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        check_run_id(record.id)
        space = self._space
        with space.lock:
            current = space.records.get(record.id)
            if current is None:
                raise RunNotFound(record.id)
            if current.version != expected_version:
                raise VersionConflict(record.id, expected_version, current.version)
            space.records[record.id] = record
            space.journals[record.id].append(entry)
            if self.snapshot_due(record.version):
                space.snapshots[record.id][record.version] = Snapshot.of(record)

    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> list[RunSummary]:
        out = []
        for run_id in sorted(self._space.records):
            try:
                record = self.get(run_id)
            except RunNotFound as exc:  # deleted meanwhile
                self.warn(f"skipping run {run_id}: {exc}", run_id, stacklevel=2)
                continue
            if skill is None or record.skill == skill:
                out.append(RunSummary.of(record, keys))
        return out

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        entries = self._space.journals.get(run_id)
        if entries is None:
            raise RunNotFound(run_id)
        return list(entries)

    def journal_range(
        self, run_id: str, *, after: int = 0, before: int | None = None
    ) -> builtins.list[JournalEntry]:
        entries = self.journal(run_id)
        stop = None if before is None else max(0, before - 1)
        return entries[after:stop]

    def snapshot(self, run_id: str, version: int) -> Snapshot | None:
        check_run_id(run_id)
        kept = self._space.snapshots.get(run_id) or {}
        best = max((v for v in list(kept) if v <= version), default=None)
        return None if best is None else kept[best]

    def snapshots(self, run_id: str) -> builtins.list[Snapshot]:
        check_run_id(run_id)
        kept = self._space.snapshots.get(run_id) or {}
        return [kept[v] for v in sorted(kept)]

    def delete(self, run_id: str, expected_version: int | None = None) -> bool:
        check_run_id(run_id)
        with self._space.lock:
            current = self._space.records.get(run_id)
            if expected_version is not None and current is not None:
                if current.version != expected_version:
                    raise VersionConflict(run_id, expected_version, current.version)
            existed = self._space.records.pop(run_id, None) is not None
            self._space.journals.pop(run_id, None)
            self._space.snapshots.pop(run_id, None)
        return existed
