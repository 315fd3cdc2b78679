"""The ``file`` store's commit: through the lock file and journal a store keeps open.

:class:`Committing` is the write path of :class:`~.store.FileStore` (a mixin, so that
``store.py`` holds reading, creating and deleting): under the run's lock, take the
record a commit replaces — the remembered one when the journal kept open is
unchanged, else read and, if need be, recovered — check its version, write
``.json.new``, append the journal line (the commit point) and put ``.json.new`` in
place. The steps, the system calls and why each check is enough:
``docs/storage-format.md`` ("Writing").
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from skillstate.plugin import (
    JournalEntry,
    RunNotFound,
    RunRecord,
    StoreError,
    VersionConflict,
)

from .cache import OpenRun, OpenRuns
from .fileio import (
    OpenJournal,
    RunFiles,
    discard,
    fsync_dir,
    put_in_place,
    remove,
    write_file,
)
from .format import encode_entry, encode_record
from .legacy import import_line
from .locks import RunLock, unlock
from .replay import record_delta

if TYPE_CHECKING:
    from skillstate.plugin import Snapshot

    from .group_sync import PendingSyncs

__all__ = ["Committing"]


class Committing:
    """``commit`` for :class:`~.store.FileStore`, which provides the attributes below."""

    root: str
    _open: OpenRuns
    _syncs: PendingSyncs | None
    snapshot_due: Callable[[int], bool]  # Store's

    def _files(self, run_id: str) -> RunFiles:
        raise NotImplementedError

    def _current(
        self, run_id: str, files: RunFiles, journal: OpenJournal | None = None
    ) -> tuple[RunRecord, int]:
        raise NotImplementedError

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        """Write the next record: one ``fdatasync`` (of the journal line) per commit,
        none at ``process`` (the journal handed to the pending syncs).

        Under the lock: the record is brought level with its journal if it is not and
        its version checked; ``.json.new`` is written (not synced); the journal line —
        the entry plus the record fields it does not imply — is appended and
        ``fdatasync``ed, which is the commit point; then ``.json.new`` is put in place
        of the record. A run this store remembers is committed through the lock file
        and the journal it keeps open (:mod:`.cache`), with nothing read: ten system
        calls at ``process``, eleven at ``full`` (``docs/storage-format.md``).
        """
        run_id = record.id
        if self._syncs is not None:
            self._syncs.check()  # a deferred sync that failed fails this write, unwritten
        run = self._open.take(run_id) or OpenRun(self._files(run_id))
        try:
            kept, run.lock = run.lock, -1  # acquire() closes it if it cannot use it
            run.lock = self._lock_run(run.files, run_id, kept)
            try:
                size = self._commit_locked(run, record, entry, expected_version)
            finally:
                unlock(run.lock)
        except VersionConflict:
            if run.level is None or run.journal is None:
                run.close()
            else:
                self._open.put(run_id, run)  # the record as read is the current one
            raise
        except BaseException:
            run.close()
            raise
        run.level = (record, size)
        self._open.put(run_id, run)

    def _commit_locked(
        self, run: OpenRun, record: RunRecord, entry: JournalEntry, expected_version: int
    ) -> int:
        """Under the lock: check the version and write; returns the journal's new length."""
        files = run.files
        before = self._before_commit(run, record.id)
        journal = run.journal
        assert journal is not None
        if before.version != expected_version:
            raise VersionConflict(record.id, expected_version, before.version)
        size = journal.size
        snapshot = snapshot_of(record) if self.snapshot_due(record.version) else None
        line = encode_entry(entry, record_delta(before, record, entry), snapshot)
        if size == 0:  # a rig-state run without a journal: its state comes first
            line = import_line(before) + line
        write_file(files.pending, encode_record(record, size + len(line)), sync=False)
        created = journal.fd < 0  # a rig-state run's first journal
        try:
            journal.append(line, sync=self._syncs is None)  # the commit point
            if created and self._syncs is None:
                fsync_dir(self.root)  # the new journal's name, before the ack
            put_in_place(files.pending, files.record)
            if self._syncs is not None:
                self._syncs.add(files.journal)
                if created:
                    self._syncs.add(self.root, directory=True)
        except StoreError:
            self._undo(files, journal, size)
            raise
        return journal.size

    def _before_commit(self, run: OpenRun, run_id: str) -> RunRecord:
        """The record a commit replaces, level with ``run.journal`` (under the lock).

        When this store remembers the run and the journal it keeps open is unchanged
        (one ``lstat`` of its path: the same file, and the length the record is level
        with), that record is the current one: nothing is read. The lock makes that
        enough. Under it, the file at the journal's path changes only by an append (a
        new length), recovery's repair of a torn line (the same), or its removal
        (``delete``; a creation a power loss lost); a creation over a left-over journal
        first removes it, and a journal put in place from outside (a restore moving the
        old one aside) is another file at the path. A
        ``.json.new`` beside an unchanged journal is a commit that died before its
        commit point, which this commit overwrites. Otherwise the record is read, and
        recovered if need be, as by a store that does not remember the run.

        A journal a ``get`` remembered is open read-only: still the file at the path, it
        is upgraded (:meth:`~.fileio.OpenJournal.upgrade`: the path opened for appending,
        the new descriptor's device and inode checked against the kept one's) and the
        remembered record kept, so the first commit after a ``get`` reads nothing
        either; if the path holds another file by then, the run is read afresh.
        """
        journal, level = run.journal, run.level
        run.level = None
        if (
            journal is None
            or not journal.at_path()
            or (not journal.appendable and not journal.upgrade())
        ):
            if journal is not None:
                journal.close()
            journal = run.journal = OpenJournal(run.files.journal)
        elif level is not None and journal.size == level[1]:
            run.level = level
            return level[0]
        try:
            before, size = self._current(run_id, run.files, journal)
        except RunNotFound:
            remove(run.files.lock)  # held, so removing it is safe (see RunLock)
            raise
        run.level = (before, size)
        return before

    @staticmethod
    def _undo(files: RunFiles, journal: OpenJournal, size: int) -> None:
        """After a failed append or swap: the unacknowledged line cut off, ``.json.new`` removed.

        A failed append has cut its partial line off already. If cutting fails,
        recovery finishes the commit on the next open.
        """
        try:
            if journal.size != size:
                journal.cut(size)
        except StoreError:
            pass
        discard(files.pending)

    def _lock_run(self, files: RunFiles, run_id: str, fd: int = -1) -> int:
        """The run's lock, held (through ``fd`` if kept open); :class:`RunNotFound`
        (not a path error) when the root is missing."""
        try:
            return RunLock(files.lock).acquire(fd)
        except StoreError:
            if not os.path.isdir(self.root):
                raise RunNotFound(run_id) from None
            raise


def snapshot_of(record: RunRecord) -> Snapshot:
    """``Snapshot.of(record)``, the snapshot records built only when one is first due."""
    from skillstate.plugin import Snapshot

    return Snapshot.of(record)
