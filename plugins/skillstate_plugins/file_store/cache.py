"""The ``file`` store's memory of the runs it last read or wrote in this process.

A long-running writer (an MCP server, a runtime stepping one session) reads a run
and commits to it over and over. Parsing the record file for every ``get`` and the
journal's last line for every ``commit`` would cost more than the pipeline itself.
So each store keeps, for the last runs it saw (64), the record and the size of the
journal that record is level with, plus an open descriptor on that journal.

The entry is used only while the journal at the run's path is *the same file* (same
device and inode — the open descriptor keeps the inode from being reused, so a run
deleted and created again never matches) *with the same size* (every commit, by any
process, appends to it), and no ``.json.new`` is present (no commit in flight or cut
short). Anything else and the run is read from disk again. Records are shared, not
copied: like every state in skillstate they are never changed in place.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

from skillstate.plugin import RunRecord

__all__ = ["OpenRun", "OpenRuns"]

_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class OpenRun:
    """A run as last seen: its record, the journal size it is level with, that journal.

    A plain slotted class: this module is imported by every CLI call that opens the
    file store, and building an attrs class costs about a millisecond of start-up.
    """

    __slots__ = ("dev", "fd", "ino", "journal_size", "record")

    def __init__(self, record: RunRecord, journal_size: int, fd: int, dev: int, ino: int) -> None:
        self.record = record
        self.journal_size = journal_size
        self.fd = fd
        self.dev = dev
        self.ino = ino


class OpenRuns:
    """At most ``limit`` remembered runs, least recently used dropped first."""

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self._runs: OrderedDict[str, OpenRun] = OrderedDict()
        self._lock = threading.Lock()

    def hit(self, run_id: str, journal: str, pending: str) -> OpenRun | None:
        """The remembered run if its journal is unchanged and no commit is in flight."""
        with self._lock:
            run = self._runs.get(run_id)
        if run is None:
            return None
        try:
            st = os.lstat(journal)
        except OSError:
            self.drop(run_id)
            return None
        if (
            st.st_ino != run.ino
            or st.st_dev != run.dev
            or st.st_size != run.journal_size
            or os.path.lexists(pending)
        ):
            self.drop(run_id)
            return None
        with self._lock:
            if run_id in self._runs:
                self._runs.move_to_end(run_id)
        return run

    def remember(self, run_id: str, journal: str, record: RunRecord, journal_size: int) -> None:
        """Remember ``record`` as level with the journal at ``journal_size`` bytes.

        Nothing is remembered if the journal cannot be opened or no longer has that
        size (a commit slipped in since the record was read).
        """
        with self._lock:
            run = self._runs.get(run_id)
            if run is not None and run.journal_size <= journal_size:
                try:
                    st = os.fstat(run.fd)
                except OSError:
                    st = None
                if st is not None and st.st_nlink and st.st_size == journal_size:
                    run.record, run.journal_size = record, journal_size
                    self._runs.move_to_end(run_id)
                    return
        try:
            fd = os.open(journal, _FLAGS)
        except OSError:
            self.drop(run_id)
            return
        st = os.fstat(fd)
        if st.st_size != journal_size:
            os.close(fd)
            self.drop(run_id)
            return
        fresh = OpenRun(record, journal_size, fd, st.st_dev, st.st_ino)
        with self._lock:
            old = self._runs.pop(run_id, None)
            self._runs[run_id] = fresh
            evicted = [old] if old is not None else []
            while len(self._runs) > self.limit:
                evicted.append(self._runs.popitem(last=False)[1])
        for gone in evicted:
            os.close(gone.fd)

    def drop(self, run_id: str) -> None:
        """Forget ``run_id`` (and close its journal)."""
        with self._lock:
            run = self._runs.pop(run_id, None)
        if run is not None:
            os.close(run.fd)

    def __del__(self) -> None:  # a store dropped without close() leaks no descriptor
        try:
            self.clear()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def clear(self) -> None:
        """Forget every run."""
        with self._lock:
            runs = list(self._runs.values())
            self._runs.clear()
        for run in runs:
            os.close(run.fd)
