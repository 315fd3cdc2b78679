"""The store contract every storage backend implements, and run-id safety.

A store keeps run records and their journals. Its guarantees (the conformance suite
in :mod:`skillstate_testing` checks them for every store):

- ``get`` returns the last committed record, never a partial one;
- ``create`` fails with :class:`~skillstate.errors.RunExists` if the id is taken;
- ``commit`` is compare-and-swap: it writes only if the stored version still equals
  ``expected_version``, else raises :class:`~skillstate.errors.VersionConflict`;
  the record and its journal entry are written together or not at all;
- ``journal`` returns the entries in version order; replaying them rebuilds the state;
- ``delete`` removes the record, its journal and any lock. With ``expected_version``
  it is compare-and-swap too: it removes the run only if the stored version still
  equals it, in the same atomic step as the check (under the run's lock, or one
  ``DELETE … WHERE version = ?``), else raises
  :class:`~skillstate.errors.VersionConflict` and removes nothing; so a commit that
  lands after the caller read the run is never deleted with it (``gc`` depends on
  this). ``expected_version=0`` means "no record": only leftovers of an interrupted
  delete are removed, and a run that exists is a conflict;
- ``damage`` and ``debris`` (optional) name what ``verify`` must report before any read
  mends it: a record torn as stored, the leftovers of a delete killed halfway;
- ``history`` yields the run at each version (the journal entry and Σ after it) and
  ``state_at`` gives one version. Both are implemented here, once, by replay, on two
  primitives a store may override for speed: ``journal_range`` (entries between two
  versions; default: a slice of ``journal``) and ``snapshot`` (the latest state the
  store keeps at or before a version; default: none). A third-party store gets
  history for free; the bundled stores page by version and keep a snapshot of each
  version :meth:`Store.snapshot_due` names (every :data:`SNAPSHOT_INTERVAL`-th), which
  ``snapshots`` lists for ``verify``.
- ``repair`` (optional) rebuilds a record from its journal.
- ``import_run`` (optional; default: ``create`` and ``commit`` per entry) writes a
  copied run; a store that writes it in one step takes the records to write, checked,
  from :meth:`Store.import_steps`.
- a store says what it skipped or mended with :meth:`Store.warn` (a :class:`StoreWarning`).

**Records are shared, never changed in place.** The records and journal entries a
store is given and those it returns are values that nobody changes in place — not the
store, not its caller (the pipeline builds a new state for every write). So a store
may keep the very objects it was given and hand them out again (the memory store, the
file store's memory of recent runs) or build new ones on every read (SQLite,
PostgreSQL); a caller must not rely on either, and never mutates a returned record's
``state``, ``meta``, ``environment`` or ``schema``, nor an entry's ``patch`` or
``base``: to change one, build a new one (``attrs.evolve``, ``merge_patch``). A store
never changes what it was given, nor a record it handed out (a commit stores a new
record; an old one stays as it was).
"""

from __future__ import annotations

import builtins
import re
import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from skillstate.errors import InvalidRunId
from skillstate.journal import SNAPSHOT_INTERVAL
from skillstate.records import JournalEntry, RunRecord

if TYPE_CHECKING:
    from skillstate.journal import Merge
    from skillstate.records import HistoryItem, RunSummary, Snapshot

__all__ = [
    "RUN_ID_PATTERN",
    "SNAPSHOT_INTERVAL",
    "Store",
    "StoreWarning",
    "check_run_id",
    "check_version",
    "is_valid_run_id",
]


def check_version(value: Any, what: str = "version") -> int:
    """``value`` if it is a whole number ≥ 0, else :class:`InvalidInput` naming ``what``."""
    from skillstate.numbers import whole_number

    return whole_number(value, what)


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


RUN_ID_RULE = "alphanumeric with . _ -, under 80 chars"
"""What a valid run id is, in words (rig-state's message, kept for parity)."""


def run_id_problem(run_id: Any) -> str | None:
    """The one line refusing an invalid run id (shown shortened), or ``None`` if it is valid."""
    if is_valid_run_id(run_id):
        return None
    from skillstate.display import excerpt

    shown = excerpt(run_id if isinstance(run_id, str) else repr(run_id))
    return f"run id '{shown}' must be {RUN_ID_RULE}"


def check_run_id(run_id: Any) -> str:
    """Return ``run_id`` if it is safe to use in a path or a query, else raise :class:`InvalidRunId`."""
    if type(run_id) is str and RUN_ID_PATTERN.fullmatch(run_id) is not None and ".." not in run_id:
        return run_id  # the common case, in one frame (three checks per transition)
    problem = run_id_problem(run_id)
    if problem is not None:
        raise InvalidRunId(problem)
    return str(run_id)


class Store(ABC):
    """A storage backend. Subclasses validate every run id they turn into a path or key.

    What it is given and what it returns is shared, never changed in place (the module
    docstring): it may hand out the objects it was given, and must not change them.
    """

    url: str = ""
    """The URL the store was opened with, if it keeps it (optional: the core never needs
    it; the bundled stores keep it for their messages)."""
    durability: str = "unstated"
    """``full`` or ``process`` (``docs/reliability.md``), ``none`` for a store that keeps
    nothing past its process; ``unstated`` when a store does not say. A store sets it
    from :func:`skillstate.plugin.durability`."""

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
    def delete(self, run_id: str, expected_version: int | None = None) -> bool:
        """Remove the run, its journal and any lock; ``False`` if there was no record.

        With ``expected_version``, only if the stored version still equals it, checked
        and deleted in one atomic step; else :class:`~skillstate.errors.VersionConflict`
        and nothing is removed. A run that is not there is ``False`` whatever the
        expected version (there is nothing a caller could lose). ``0`` expects no record:
        only leftovers of an interrupted delete (a journal or lock without its record)
        go, and a record that exists is a conflict.
        """

    def delete_if_at(self, run_id: str, version: int) -> bool:
        """``delete(run_id, expected_version=version)``, or a :class:`StoreError` saying
        that this store cannot (a store written before the contract had the argument).

        What must not delete a run written meanwhile (``gc``, ``rm --expected-version``,
        ``verify --repair``) deletes through this, and never falls back to an
        unconditional delete. A store need not override it.
        """
        import inspect

        from skillstate.errors import StoreError

        try:
            takes = "expected_version" in inspect.signature(self.delete).parameters
        except (TypeError, ValueError):
            takes = False
        if not takes:
            raise StoreError(
                f"the {type(self).__name__} store cannot delete conditionally (its delete() "
                "takes no expected_version), so a run written meanwhile could be lost; "
                "nothing deleted"
            )
        return self.delete(run_id, expected_version=version)

    def damage(self) -> dict[str, builtins.list[str]]:
        """Runs whose record cannot be read as stored, by id, found without mending them.

        ``skillstate verify`` asks before it reads any run, because a read may mend what
        it finds (the file store rebuilds a torn record from its journal) and verify
        must report it; ``verify --repair`` then rebuilds it (:meth:`repair`). Each
        value is problem lines naming no server path. Default: none (a store whose
        writes are transactions never leaves a record half written).
        """
        return {}

    def debris(self) -> builtins.list[str]:
        """Ids of runs deleted only in part: a journal or lock left without its record.

        What a delete that was killed halfway leaves in a store that deletes a run's
        files one by one (the file store). The run is gone for every reader; ``verify``
        reports its debris and ``verify --repair`` collects it with
        ``delete(run_id, expected_version=0)``. Default: none.
        """
        return []

    # -- helpers a store calls ------------------------------------------------------
    @staticmethod
    def warn(message: str, run_id: str | None = None, stacklevel: int = 1) -> None:
        """Say that the store skipped or mended something: a :class:`StoreWarning`.

        ``run_id`` names the run it is about (``skillstate verify`` reports every run a
        listing skipped); the command lines print it as one ``warning:`` line. In
        ``list``, skip a run that cannot be read with
        ``self.warn(f"skipping {run_id}: {exc}", run_id)`` so one damaged run never
        hides the others. ``stacklevel`` counts from the caller of :meth:`warn`, as
        :func:`warnings.warn`'s does.
        """
        warnings.warn(StoreWarning(message, run_id), stacklevel=stacklevel + 1)

    snapshot_interval: int = SNAPSHOT_INTERVAL
    """Every how many versions :meth:`snapshot_due` names one (1000). A test may set it on
    one store (``store.snapshot_interval = 4``) for snapshots in a run of a few versions."""

    def snapshot_due(self, version: int) -> bool:
        """Whether a store that keeps snapshots keeps one of ``version``.

        Every :attr:`snapshot_interval`-th version, so a replay of any version starts at
        most that many entries back. A store that keeps snapshots builds one with
        ``Snapshot.of(record)`` in the same write as the record when this says so.
        """
        return version > 1 and version % self.snapshot_interval == 0

    def import_steps(
        self,
        record: RunRecord,
        entries: Sequence[JournalEntry],
        merge: Merge | None = None,
    ) -> Iterator[tuple[RunRecord, JournalEntry]]:
        """What :meth:`import_run` writes: each entry with the record after it, in order.

        Checked before anything is yielded: the run id (:class:`~skillstate.errors.InvalidRunId`)
        and the journal (:class:`~skillstate.errors.InvalidInput` unless it is versions
        1..``record.version``). The first pair is the creation, the last is ``record``
        itself; each one between is ``record`` with the state replayed with ``merge``
        (``host.merge``; RFC 7396 when ``None``) and the version, status, step and time
        of its entry. A store that imports in one transaction writes these, with
        ``Snapshot.of(step_record)`` where :meth:`snapshot_due` says so.
        """
        from skillstate.journal import check_import, imported_records

        check_run_id(record.id)
        check_import(record, entries)
        return imported_records(record, entries, merge)

    def raw_journal(self, run_id: str) -> str | None:
        """The journal exactly as this store keeps it, complete lines only, or ``None``.

        ``skillstate journal`` (and ``rig-state journal``) print this when a store has a
        text journal of its own (the file store's ``<id>.jsonl``), byte for byte; other
        stores answer ``None`` and the entries are printed as compact JSON lines.
        """
        return None

    # -- history: implemented once, by replay -------------------------------------
    def journal_range(
        self, run_id: str, *, after: int = 0, before: int | None = None
    ) -> builtins.list[JournalEntry]:
        """The entries with ``after < version < before`` (``before=None``: to the end).

        This default slices :meth:`journal`; a store that can read part of a journal
        (by a key or an index) overrides it.
        """
        entries = self.journal(run_id)
        stop = None if before is None else max(0, before - 1)
        return [e for e in entries[after:stop] if e.version > after]

    def snapshot(self, run_id: str, version: int) -> Snapshot | None:
        """The latest snapshot this store keeps of a version at or before ``version``.

        Default: ``None`` (the store keeps none; replays start at version 1).
        """
        return None

    def snapshots(self, run_id: str) -> builtins.list[Snapshot]:
        """Every snapshot this store keeps of the run (``skillstate verify`` checks them)."""
        return []

    def history(
        self,
        run_id: str,
        *,
        after: int | None = None,
        before: int | None = None,
        limit: int | None = None,
        merge: Merge | None = None,
    ) -> Iterator[HistoryItem]:
        """The run at each version ``after < version < before``, oldest first, at most ``limit``.

        Each item is the journal entry that made the version, with the state Σ, the
        status and the session step after it. Versions are the record's: 1 is the
        creation and each accepted write adds one, so a page is plain arithmetic:
        ``after=100, limit=50`` is versions 101..150, and the last 20 of a run at
        version ``n`` are ``after=n - 20``. A window past the last version is empty.
        ``merge`` replays with another merge than RFC 7396 (``host.merge``).
        Raises :class:`~skillstate.errors.RunNotFound`, and
        :class:`~skillstate.errors.InvalidInput` for a bound that is not a whole
        number ≥ 0 (``limit`` ≥ 1).
        """
        check_run_id(run_id)
        low = check_version(0 if after is None else after, "after") + 1
        high = self.get(run_id).version
        if before is not None:
            high = min(high, check_version(before, "before") - 1)
        if limit is not None:
            from skillstate.numbers import whole_number

            whole_number(limit, "limit", least=1)
            high = min(high, low + limit - 1)
        if low > high:
            return iter(())
        return self._replay(run_id, low, high, merge)

    def _replay(
        self, run_id: str, low: int, high: int, merge: Merge | None
    ) -> Iterator[HistoryItem]:
        from skillstate.journal import replay_history
        from skillstate.merge import merge_patch

        start = self.snapshot(run_id, low)
        if start is not None and not 1 <= start.version <= low:
            start = None  # not what was asked for: replay from the creation
        after = 0 if start is None else start.version - 1
        entries = self.journal_range(run_id, after=after, before=high + 1)
        return replay_history(run_id, entries, start=start, first=low, merge=merge or merge_patch)

    def state_at(self, run_id: str, version: int, *, merge: Merge | None = None) -> HistoryItem:
        """The run at ``version`` (see :meth:`history`).

        Raises :class:`~skillstate.errors.VersionNotFound` for a version the run does
        not have (0, or past its current version) and
        :class:`~skillstate.errors.InvalidInput` for one that is not a whole number.
        """
        from skillstate.errors import StoreError, VersionNotFound

        check_run_id(run_id)
        check_version(version)
        record = self.get(run_id)
        if not 1 <= version <= record.version:
            raise VersionNotFound(run_id, version, record.version)
        if version == record.version:  # the record is the truth: no replay at all
            last = self.journal_range(run_id, after=version - 1, before=version + 1)
            if last and last[-1].version == version:
                from skillstate.records import HistoryItem

                return HistoryItem(last[-1], record.state, record.status, record.step)
        for item in self.history(run_id, after=version - 1, limit=1, merge=merge):
            return item
        raise StoreError(f"run '{run_id}': its journal has no version {version}")

    def found(self) -> bool:
        """Whether anything is at this store's location yet (a first write creates it).

        The command lines' reads refuse a store that is not found instead of starting an
        empty one at a mistyped path. The default (``True``) suits stores with nothing to
        create (a database server, memory); the file and SQLite stores look for their
        directory or file, and touch nothing.
        """
        return True

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

        name = f"the {self.url.split(':', 1)[0]}: store" if self.url else type(self).__name__
        raise StoreError(f"{name} cannot rebuild a run's record from its journal")

    def import_run(
        self,
        record: RunRecord,
        entries: Sequence[JournalEntry],
        *,
        merge: Merge | None = None,
    ) -> None:
        """Store a run copied from elsewhere: ``record`` with its whole journal ``entries``.

        ``merge`` (``host.merge``, RFC 7396 when ``None``) replays the journal for the
        intermediate records and the snapshots, as the pipeline merged when it wrote them.

        Raises :class:`~skillstate.errors.RunExists` if the id is taken and
        :class:`~skillstate.errors.InvalidInput` if the journal is not versions
        1..``record.version``. This default replays the journal through
        :meth:`create` and :meth:`commit` (each intermediate record is the replayed
        state) and deletes the run again if a write fails, so it works for every
        store; a transactional store should override it with one atomic write.
        """
        from skillstate.errors import RunExists

        steps = self.import_steps(record, entries, merge)
        if self.exists(record.id):
            raise RunExists(record.id)
        created = False
        try:
            for current, entry in steps:
                if entry.version == 1:
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
