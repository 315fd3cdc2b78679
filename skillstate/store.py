"""The store contract every storage backend implements, and run-id safety.

A store keeps run records and their journals. Its guarantees (the conformance suite
in :mod:`skillstate.testing` checks them for every store):

- ``get`` returns the last committed record, never a partial one;
- ``create`` fails with :class:`~skillstate.errors.RunExists` if the id is taken;
- ``commit`` is compare-and-swap: it writes only if the stored version still equals
  ``expected_version``, else raises :class:`~skillstate.errors.VersionConflict`;
  the record and its journal entry are written together or not at all;
- ``journal`` returns the entries in version order; replaying them rebuilds the state;
- ``delete`` removes the record, its journal and any lock;
- ``repair`` (optional) rebuilds a record from its journal.
"""

from __future__ import annotations

import builtins
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from skillstate.errors import InvalidInput, InvalidRunId
from skillstate.records import JournalEntry, RunRecord, RunSummary

__all__ = [
    "RUN_ID_PATTERN",
    "Store",
    "StoreWarning",
    "check_import",
    "check_run_id",
    "is_valid_run_id",
]

RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")


class StoreWarning(UserWarning):
    """A store skipped something it could not read (e.g. a malformed file while listing).

    ``run_id`` names the run when the warning is about one (``StoreWarning(text, run_id)``),
    so ``skillstate verify`` can report every run a listing skipped.
    """

    def __init__(self, message: str = "", run_id: str | None = None) -> None:
        super().__init__(message)
        self.run_id = run_id


def is_valid_run_id(run_id: Any) -> bool:
    """True for ``^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$`` without ``..``."""
    return (
        isinstance(run_id, str)
        and RUN_ID_PATTERN.fullmatch(run_id) is not None
        and ".." not in run_id
    )


def check_run_id(run_id: Any) -> str:
    """Return ``run_id`` if it is safe to use in a path or a query, else raise :class:`InvalidRunId`."""
    if not is_valid_run_id(run_id):
        from skillstate.display import excerpt

        shown = excerpt(run_id if isinstance(run_id, str) else repr(run_id))
        raise InvalidRunId(f"run id '{shown}' must be alphanumeric with . _ -, under 80 chars")
    return str(run_id)


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


class Store(ABC):
    """A storage backend. Subclasses validate every run id they turn into a path or key."""

    url: str = ""

    @abstractmethod
    def get(self, run_id: str) -> RunRecord:
        """The current record; :class:`~skillstate.errors.RunNotFound` if there is none."""

    @abstractmethod
    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        """Store a new run (``record.version == 1``) with its first journal entry."""

    @abstractmethod
    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        """Replace the run's record if its stored version is ``expected_version``; append ``entry``."""

    @abstractmethod
    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> list[RunSummary]:
        """Summaries of every run (of ``skill`` when given), sorted by id.

        Each summary's ``fields`` holds the string values of ``keys`` found at the top
        level of the run's state (:meth:`RunSummary.of` builds one from a record).
        """

    @abstractmethod
    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        """The run's journal entries in version order."""

    @abstractmethod
    def delete(self, run_id: str) -> bool:
        """Remove the run, its journal and any lock; ``False`` if there was nothing."""

    def raw_journal(self, run_id: str) -> str | None:
        """The journal exactly as this store keeps it, complete lines only, or ``None``.

        ``skillstate journal`` (and ``rig-state journal``) print this when a store has a
        text journal of its own (the file store's ``<id>.jsonl``), byte for byte; other
        stores answer ``None`` and the entries are printed as compact JSON lines.
        """
        return None

    def exists(self, run_id: str) -> bool:
        """Whether a run with this id exists."""
        from skillstate.errors import RunNotFound

        try:
            self.get(run_id)
        except RunNotFound:
            return False
        return True

    def repair(self, run_id: str) -> str:
        """Rebuild the run's record from its journal; one line saying what was done.

        ``skillstate verify --repair`` calls it for a run whose record cannot be read or
        differs from its journal. Raises :class:`~skillstate.errors.StoreError` when the
        run cannot be rebuilt; this default says the store cannot rebuild records (a
        transactional store keeps record and journal together and has nothing to mend).
        """
        from skillstate.errors import StoreError

        scheme = self.url.split(":", 1)[0] or type(self).__name__
        raise StoreError(f"the {scheme}: store cannot rebuild a run's record from its journal")

    def import_run(self, record: RunRecord, entries: Sequence[JournalEntry]) -> None:
        """Store a run copied from elsewhere: ``record`` with its whole journal ``entries``.

        Raises :class:`~skillstate.errors.RunExists` if the id is taken and
        :class:`~skillstate.errors.InvalidInput` if the journal is not versions
        1..``record.version``. This default replays the journal through
        :meth:`create` and :meth:`commit` (each intermediate record is the replayed
        state) and deletes the run again if a write fails, so it works for every
        store; a transactional store should override it with one atomic write.
        """
        import attrs

        from skillstate.errors import RunExists
        from skillstate.journal import replay

        check_run_id(record.id)
        check_import(record, entries)
        if self.exists(record.id):
            raise RunExists(record.id)
        state: Any = {}
        status, step = "active", 0
        created = False
        try:
            for index, entry in enumerate(entries):
                if index == len(entries) - 1:
                    current = record
                else:  # the run as it was after this entry
                    base = entry.base if entry.base is not None else state
                    state = replay([attrs.evolve(entry, base=base)]).state
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
                if index == 0:
                    self.create(current, entry)
                    created = True
                else:
                    self.commit(current, entry, entry.version - 1)
        except BaseException:
            if created:
                self.delete(record.id)
            raise

    def close(self) -> None:  # noqa: B027 - optional for stores without resources
        """Release connections or handles. The store is unusable afterwards."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
