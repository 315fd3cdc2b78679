"""The ``file`` store's delete, and what ``verify`` asks of it: damage found unmended.

:class:`Deleting` is a mixin of :class:`~.store.FileStore` (as :class:`~.commit.Committing`
is), so that ``store.py`` holds reading and creating.

**Delete**, under the run's lock: with an expected version, the record is first brought
level with its journal (a commit a crash cut short decides the version) and its version
compared, so the check and the removal are one step no commit can come between. Then
the files go in the order that leaves, if the process is killed on the way, only a
state a reader and ``verify`` recognise:

1. ``<id>.json.new`` — else it and the journal, without the record, would look like a
   creation cut short, and recovery would bring the deleted run back;
2. ``<id>.json`` — from here on the run is gone for every reader;
3. ``<id>.jsonl``, then ``<id>.lock`` — debris of an interrupted delete if a kill comes
   first: :meth:`Deleting.debris` names it and ``verify --repair`` collects it
   (``delete(id, expected_version=0)``); a later ``init`` of the id starts afresh.
"""

from __future__ import annotations

import builtins
import os
from typing import TYPE_CHECKING

from skillstate.plugin import InvalidRunId, StoreError, VersionConflict, check_run_id

from .fileio import fsync_dir, in_store, remove
from .format import BLANK
from .locks import RunLock

if TYPE_CHECKING:
    from .cache import OpenRuns
    from .fileio import RunFiles
    from .format import RecordFile

__all__ = ["Deleting", "valid_id"]

RECORD, JOURNAL, PENDING, LOCK = ".json", ".jsonl", ".json.new", ".lock"


class Deleting:
    """``delete``, ``damage`` and ``debris`` for :class:`~.store.FileStore`, which provides these."""

    root: str
    _open: OpenRuns

    def _files(self, run_id: str) -> RunFiles:
        raise NotImplementedError

    @staticmethod
    def _read(run_id: str, files: RunFiles) -> RecordFile | None:
        raise NotImplementedError

    def _recover(self, run_id: str, files: RunFiles) -> None:
        raise NotImplementedError

    def delete(self, run_id: str, expected_version: int | None = None) -> bool:
        files = self._files(run_id)
        if not os.path.isdir(self.root):
            return False
        self._open.drop(run_id)
        with RunLock(files.lock).hold():
            if expected_version is not None:
                self._check_version(run_id, files, expected_version)
            existed = os.path.lexists(files.record) or os.path.lexists(files.pending)
            for path in (files.pending, files.record, files.journal, files.lock):
                remove(path)
            fsync_dir(self.root)
        return existed

    def _check_version(self, run_id: str, files: RunFiles, expected: int) -> None:
        """Under the lock: :class:`VersionConflict` unless the run is at ``expected``
        (``0``: has no record)."""
        if os.path.lexists(files.record) or os.path.lexists(files.pending):
            self._recover(run_id, files)
        stored = self._read(run_id, files)
        if stored is None:
            return  # no record: only debris goes, whatever was expected
        if stored.record is None:
            raise StoreError(
                f"run {run_id}: its record cannot be read, so its version cannot be "
                "checked; not deleted (skillstate verify --repair rebuilds it)"
            )
        if stored.record.version != expected:
            raise VersionConflict(run_id, expected, stored.record.version)

    def damage(self) -> dict[str, builtins.list[str]]:
        """Records that cannot be read as they lie, with nothing recovered (a ``get``
        would rebuild a torn record from its journal before verify could see it).

        A record with a commit in flight beside it (``.json.new``) is left to recovery:
        that is a writer at work or one cut short, not damage.
        """
        names = self._names()
        present = set(names)
        found: dict[str, builtins.list[str]] = {}
        for run_id in sorted(_ids(names, RECORD)):
            if run_id + PENDING in present:
                continue
            try:
                stored = self._read(run_id, self._files(run_id))
            except StoreError as exc:  # not a file at all (a directory): damage too
                found[run_id] = [str(exc)]
                continue
            if stored is None or stored.record is not None:
                continue
            why = "it is empty" if stored is BLANK else in_store(stored.damage, self.root)
            found[run_id] = [f"its record {run_id}{RECORD} is damaged ({why})"]
        return found

    def debris(self) -> builtins.list[str]:
        """Runs with a journal or lock file but neither a record nor a ``.json.new``."""
        names = self._names()
        present = set(names)
        return sorted(
            run_id
            for run_id in _ids(names, JOURNAL) | _ids(names, LOCK)
            if run_id + RECORD not in present and run_id + PENDING not in present
        )

    def _names(self) -> builtins.list[str]:
        try:
            return os.listdir(self.root)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot list the store: {exc.strerror}") from None


def _ids(names: builtins.list[str], suffix: str) -> set[str]:
    """The run ids of the names that end with ``suffix`` (valid ids only)."""
    return {n[: -len(suffix)] for n in names if n.endswith(suffix) and valid_id(n[: -len(suffix)])}


def valid_id(run_id: str) -> bool:
    """Whether ``run_id`` is a valid run id (a file name the store may have written)."""
    try:
        check_run_id(run_id)
    except InvalidRunId:
        return False
    return True
