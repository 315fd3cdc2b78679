"""The group sync of ``durability=process``: files written without a sync, synced later.

The ``file`` store at ``process`` writes with no sync on the commit path and hands
each path it wrote to this process's :class:`PendingSyncs` (:func:`pending_syncs`),
which syncs them within :data:`SYNC_WINDOW` from a daemon thread, at once when a
writer finds the thread late, and at :meth:`PendingSyncs.flush` (the store's
``close``, the interpreter's exit). The promise it keeps: ``docs/reliability.md``;
the platform sync calls: :mod:`.syncs`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator

from skillstate.plugin import Store, StoreError

from .syncs import sync_directory, sync_file

__all__ = ["SYNC_WINDOW", "PendingSyncs", "pending_syncs"]

SYNC_WINDOW = 1.0
"""At ``process``, the most seconds an acknowledged write waits for its sync."""


class PendingSyncs:
    """Files and directories written without a sync, synced within ``window`` seconds.

    :meth:`add` names a path written at ``process`` durability (a directory when its
    entries changed). A daemon thread syncs everything pending ``delay`` seconds after
    the oldest unsynced write (half the window by default, so a slow sync still fits),
    and :meth:`check` (a store's first step of a write; :meth:`add` too) syncs when it
    finds a write older than the window still unsynced (the thread is late: a stalled
    disk), so no acknowledged write waits
    longer than about ``window`` plus one sync. Each process syncs what it wrote: an
    ``fsync`` flushes a whole file, whoever wrote it. A sync that fails is raised by
    the next :meth:`check` or :meth:`flush` (a write then fails rather than being
    acknowledged on a disk that lost data). ``thread=False`` (tests) leaves the
    timing to :meth:`run_due`, with the ``clock`` given.
    """

    def __init__(
        self,
        window: float = SYNC_WINDOW,
        *,
        delay: float | None = None,
        thread: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.window = window
        self.delay = window / 2 if delay is None else delay
        self.clock = clock
        self._threaded = thread
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._syncing = threading.Lock()  # one flush at a time
        self._pending: dict[str, bool] = {}  # path -> is a directory
        self._oldest: float | None = None  # when the oldest pending write was added
        self._inflight: float | None = None  # the same, for the batch being synced
        self._error: str | None = None
        self._thread: threading.Thread | None = None
        self.syncs = 0  # flushes that synced something (benchmarks, tests)

    def check(self) -> None:
        """Before a write: sync first if the thread is late, then raise the failure of a
        deferred sync, once.

        A write a window old still unsynced (a stalled disk) is synced here, before the
        store writes, so a failure of that sync fails this write unwritten rather than
        after it was made and acknowledged.
        """
        if self._late(self.clock()):
            self._flush()
        if self._error is not None:
            with self._lock:
                self._raise_left_over()

    def _late(self, now: float) -> bool:
        # Read without the lock (it runs twice per write): each attribute is read whole,
        # and a value one write stale at most delays a catch-up sync by that write.
        oldest, inflight = self._oldest, self._inflight
        if inflight is not None and (oldest is None or inflight < oldest):
            oldest = inflight
        return oldest is not None and now - oldest >= self.window

    def add(self, path: str, directory: bool = False) -> None:
        """Remember ``path`` as written but not synced (never raises: see :meth:`check`)."""
        now = self.clock()
        with self._lock:
            if self._oldest is None:
                self._oldest = now
                self._wake.notify()
            self._pending[path] = directory or self._pending.get(path, False)
            if self._threaded and self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="skillstate-sync", daemon=True
                )
                self._thread.start()
        if self._late(now):
            self._flush()  # the thread is late (a store that does not call check first)

    def pending(self) -> dict[str, bool]:
        """What is waiting for a sync (a copy)."""
        with self._lock:
            return dict(self._pending)

    def settled(self) -> bool:
        """Whether nothing is pending and no sync is running (tests, benchmarks)."""
        with self._lock:
            return not self._pending and self._inflight is None and self._oldest is None

    def run_due(self, now: float | None = None) -> bool:
        """Sync if the oldest pending write is ``delay`` old at ``now``; whether it did."""
        now = self.clock() if now is None else now
        with self._lock:
            due = self._oldest is not None and now - self._oldest >= self.delay
        if due:
            self._flush()  # a failure waits in _error for the next writer
        return due

    def flush(self) -> None:
        """Sync everything pending now; raises :class:`~skillstate.plugin.StoreError` on failure."""
        self._flush()
        with self._lock:
            self._raise_left_over()

    def _flush(self) -> None:
        with self._syncing:
            with self._lock:
                batch, self._pending = self._pending, {}
                self._inflight, self._oldest = self._oldest, None
            try:
                failed = [f"{path}: {reason}" for path, reason in self._sync(batch)]
            finally:
                with self._lock:
                    self._inflight = None
            if batch:
                self.syncs += 1
            if failed:
                with self._lock:
                    self._error = f"a deferred sync failed ({'; '.join(failed)})"

    def _raise_left_over(self) -> None:  # under self._lock
        if self._error is not None:
            message, self._error = self._error, None
            raise StoreError(message)

    @staticmethod
    def _sync(batch: dict[str, bool]) -> Iterator[tuple[str, str]]:
        """Sync files first, then directories (a new file's name after its data)."""
        # Windows' fsync (_commit) needs a handle open for writing; POSIX does not.
        mode = os.O_RDWR if os.name == "nt" else os.O_RDONLY
        for path, directory in sorted(batch.items(), key=lambda item: item[1]):
            flags = mode | getattr(os, "O_CLOEXEC", 0)
            if directory:
                flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
            try:
                fd = os.open(path, flags)
            except FileNotFoundError:
                continue  # removed since: nothing of it left to make durable
            except OSError as exc:
                yield path, exc.strerror or str(exc)
                continue
            try:
                sync_directory(fd) if directory else sync_file(fd)
            except OSError as exc:
                yield path, exc.strerror or str(exc)
            finally:
                os.close(fd)

    def _run(self) -> None:
        while True:
            with self._lock:
                while self._oldest is None:
                    self._wake.wait()
                wait = self._oldest + self.delay - self.clock()
            if wait > 0:
                time.sleep(wait)
            try:
                self.run_due()
            except Exception as exc:
                with self._lock:
                    self._error = f"the sync thread failed ({type(exc).__name__}: {exc})"


_pending_syncs: PendingSyncs | None = None
_pending_lock = threading.Lock()


def pending_syncs() -> PendingSyncs:
    """This process's :class:`PendingSyncs` (created on first use, flushed at exit)."""
    global _pending_syncs
    if _pending_syncs is None:
        with _pending_lock:
            if _pending_syncs is None:
                _pending_syncs = PendingSyncs()
                atexit.register(_flush_at_exit)
    return _pending_syncs


def _flush_at_exit() -> None:
    """Sync what is pending; a failure is a store warning (:meth:`Store.warn`).

    A command that wrote at ``process`` has no next write for the failure to fail, so
    it is said here (one warning line on stderr) rather than lost.
    """
    if _pending_syncs is None:
        return
    try:
        _pending_syncs.flush()
    except Exception as exc:
        with contextlib.suppress(Exception):
            Store.warn(f"at exit: {exc}")


def _after_fork() -> None:
    """A forked child starts with nothing pending (its parent syncs its own writes)."""
    if _pending_syncs is not None:
        _pending_syncs._reset()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
