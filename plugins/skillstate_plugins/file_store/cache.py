"""The ``file`` store's memory of the runs it last read or wrote in this process.

A long-running writer (an MCP server, a runtime stepping one session) reads a run
and commits to it over and over. Parsing the record file for every ``get``, and
opening the lock file and the journal for every ``commit``, would cost more than the
pipeline itself. So each store keeps, for the last runs it saw (64), an
:class:`OpenRun`: the record, the journal that record is level with — open
(``O_RDONLY`` after a ``get``, so a reader holds no write descriptor; ``O_APPEND`` once
the store commits, which upgrades the descriptor) and as long as :attr:`OpenJournal.size`
says — and, once the store has committed to the run, the lock file, open but unlocked.

The record is used only while the journal is *the same file* (same device and
inode — the open descriptor keeps the inode from being reused, so a run deleted and
created again never matches) *with the same size* (every commit, by any process,
appends to it). ``get`` checks that with an ``lstat`` of the journal's path, and that
no ``.json.new`` is there (a commit in flight or cut short: it goes through recovery,
which cleans up); a commit, under the lock, with one ``lstat`` compared with the open journal
(``Committing._before_commit`` in :mod:`.commit` says why that is enough). Anything
else and the run is read from disk again. Records are shared, not copied: like every
state in skillstate they are never changed in place.

Descriptors are never shared between threads: a commit :meth:`~OpenRuns.take`\\ s the
run out of the memory (another thread committing meanwhile opens the files afresh and
waits on the ``flock``, which serialises different open files) and :meth:`~OpenRuns.put`\\ s
it back. In a child process after ``fork`` the memory is forgotten on first use: the
child's copies of the descriptors share the parent's open files, and with them its
``flock``. The copies of the lock files are closed at the fork itself
(:func:`.locks.close_lock`): a child that never uses the store must not keep a run
locked after its parent dies holding the lock.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

from skillstate.plugin import RunRecord, StoreError

from .fileio import OpenJournal, RunFiles
from .locks import close_lock

__all__ = ["OpenRun", "OpenRuns"]

_forks = [0]  # how many times this process is a fork's child (a copy of the parent's memory)


def _forked() -> None:
    _forks[0] += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


class OpenRun:
    """A run as last seen: its paths, ``level`` — the record and the journal length it
    is level with, one pair so that a reader never sees one without the other — the
    open journal, and the kept lock descriptor (-1: none yet).

    A plain slotted class: this module is imported by every CLI call that opens the
    file store, and building an attrs class costs about a millisecond of start-up.
    """

    __slots__ = ("files", "journal", "level", "lock")

    def __init__(self, files: RunFiles, journal: OpenJournal | None = None) -> None:
        self.files = files
        self.level: tuple[RunRecord, int] | None = None
        self.journal = journal
        self.lock = -1

    def close(self) -> None:
        """Close the journal and the lock file (releasing a ``flock`` still held)."""
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        if self.lock >= 0:
            fd, self.lock = self.lock, -1
            close_lock(fd)


class OpenRuns:
    """At most ``limit`` remembered runs, least recently used dropped first."""

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._runs: OrderedDict[str, OpenRun] = OrderedDict()
        self._lock = threading.Lock()
        self._forks = _forks[0]

    def _check_fork(self) -> None:
        """In a fork's child: forget the parent's runs (closing only the child's copies)."""
        if self._forks != _forks[0]:
            runs = list(self._runs.values())
            self._runs = OrderedDict()
            self._lock = threading.Lock()  # the parent's may have been held by another thread
            self._forks = _forks[0]
            for run in runs:
                run.lock = -1  # closed in the child at the fork itself (fileio)
                run.close()

    def hit(self, run_id: str) -> RunRecord | None:
        """``get``: the remembered record if the journal at its path is unchanged and no
        ``.json.new`` is there.

        Two ``lstat`` calls: the journal is the same file (device, inode) with the same
        size, and there is no ``.json.new``. The record would be right without the
        second (with the journal unchanged, a ``.json.new`` is a commit that has not
        reached its commit point, or one cut short before it), but one cut short is
        cleaned up by whoever next opens the run, as ``docs/storage-format.md`` says: a
        miss sends this ``get`` through recovery.
        """
        if self._forks != _forks[0]:
            self._check_fork()
        run = self._runs.get(run_id)
        if run is None:
            return None
        level, journal = run.level, run.journal
        if level is None or journal is None:
            return None
        try:
            st = os.lstat(run.files.journal)
        except OSError:
            self._forget(run_id, run)
            return None
        if (
            st.st_size != level[1]
            or st.st_ino != journal.ino
            or st.st_dev != journal.dev
            or os.path.lexists(run.files.pending)
        ):
            self._forget(run_id, run)
            return None
        with self._lock:
            if self._runs.get(run_id) is run:
                self._runs.move_to_end(run_id)
        return level[0]

    def take(self, run_id: str) -> OpenRun | None:
        """The remembered run, taken out of the memory: this thread alone uses its
        descriptors until it :meth:`put`\\ s it back (or closes it)."""
        if self._forks != _forks[0]:
            self._check_fork()
        with self._lock:
            return self._runs.pop(run_id, None)

    def put(self, run_id: str, run: OpenRun) -> None:
        """Remember ``run``, whose ``level`` is set and whose journal is open.

        If another thread remembered the run meanwhile, the one level with the longer
        journal is kept (the other closed); beyond ``limit`` runs the least recently
        used go.
        """
        if self._forks != _forks[0]:
            self._check_fork()
        assert run.level is not None and run.journal is not None
        with self._lock:
            other = self._runs.pop(run_id, None)
            if other is not None and other.level is not None and other.level[1] > run.level[1]:
                run, other = other, run
            self._runs[run_id] = run
            closing = [other] if other is not None else []
            while len(self._runs) > self.limit:
                closing.append(self._runs.popitem(last=False)[1])
        for gone in closing:
            gone.close()

    @staticmethod
    def open_journal(files: RunFiles, *, append: bool = False) -> OpenJournal | None:
        """The run's journal, open for reading (``O_RDONLY``: a reader holds no write
        descriptor; a commit upgrades it) or, with ``append``, for appending (a
        creation, whose store writes next); ``None`` if it cannot be."""
        try:
            if append:
                journal = OpenJournal(files.journal)
                if journal.fd >= 0:
                    return journal
                return None
            return OpenJournal(files.journal, read_only=True)
        except (OSError, StoreError):
            return None

    def remember(
        self,
        run_id: str,
        files: RunFiles,
        record: RunRecord,
        journal_size: int,
        journal: OpenJournal | None = None,
        *,
        append: bool = False,
    ) -> None:
        """Remember ``record``, just read, as level with the journal at ``journal_size`` bytes.

        ``journal`` is the journal opened before ``record`` was read (:meth:`open_journal`);
        it is used only if it is still the file at the path, so the one the record was read
        beside, not one of a run deleted and created again since. Without it (the
        caller holds the run's lock) the journal is opened now, for appending if ``append``
        (a creation: its store is a writer). Nothing is remembered if
        it cannot be, or no longer has that size (a commit slipped in since the record
        was read). A kept lock descriptor of the run is carried over.
        """
        old = self.take(run_id)
        if journal is None:
            journal = self.open_journal(files, append=append)
        elif not journal.at_path():
            journal.close()
            journal = None
        if journal is None or journal.size != journal_size:
            if journal is not None:
                journal.close()
            if old is not None:
                old.close()
            return
        run = OpenRun(files, journal)
        run.level = (record, journal_size)
        if old is not None:
            run.lock, old.lock = old.lock, -1
            old.close()
        self.put(run_id, run)

    def _forget(self, run_id: str, run: OpenRun) -> None:
        """Drop ``run`` if it is still the one remembered (another thread may have
        replaced it)."""
        with self._lock:
            if self._runs.get(run_id) is not run:
                return
            del self._runs[run_id]
        run.close()

    def drop(self, run_id: str) -> None:
        """Forget ``run_id`` (and close its files)."""
        if self._forks != _forks[0]:
            self._check_fork()
        with self._lock:
            run = self._runs.pop(run_id, None)
        if run is not None:
            run.close()

    def __del__(self) -> None:  # a store dropped without close() leaks no descriptor
        try:
            self.clear()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def clear(self) -> None:
        """Forget every run."""
        if self._forks != _forks[0]:
            self._check_fork()
        with self._lock:
            runs = list(self._runs.values())
            self._runs.clear()
        for run in runs:
            run.close()
