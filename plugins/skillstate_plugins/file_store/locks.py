"""The per-run lock of the ``file`` store: an exclusive ``flock`` on ``<id>.lock``.

Held around every read–check–write of a run (docs/storage-format.md, "Locking and
concurrency"); kept open between commits by the store's memory of runs (:mod:`.cache`),
and closed in a fork's child so that a child never keeps a run locked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from skillstate.plugin import StoreError

from .fileio import _CLOEXEC, _NOFOLLOW, fcntl, store_error
from .syncs import NO_FLOCK

__all__ = ["RunLock", "close_lock", "release", "unlock"]


class RunLock:
    """An exclusive ``flock`` on a run's lock file, robust against the file being deleted.

    ``delete`` removes the lock file while holding the lock; a process that was
    waiting on the old file notices (the file it locked has no name any more) and
    locks the file now at the path instead, so two writers never hold "the" lock at
    once.

    A store that commits to a run again and again keeps the lock file open between
    commits (:mod:`.cache`): :meth:`acquire` takes that descriptor, and :func:`unlock`
    releases the lock without closing it. The same check applies to it: a kept
    descriptor whose file lost its name (the run was deleted, maybe created again) is
    closed and the file at the path locked instead. ``flock`` locks belong to the open
    file description, so a kept descriptor must never be used by two threads at once
    (the cache lends it to one commit at a time) nor after a ``fork`` (the child's copy
    shares the parent's lock: the cache forgets every descriptor in a child).
    """

    def __init__(self, path: str) -> None:
        self.path = path

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lock for the ``with`` block."""
        fd = self.acquire()
        try:
            yield
        finally:
            release(fd)

    def acquire(self, fd: int = -1) -> int:
        """Block until the lock is held; returns the descriptor, whose closing releases it.

        ``fd``, when given, is the lock file kept open since an earlier commit; it is
        used if its file is still the one at the path (or closed, and the path opened).
        """
        if fcntl is None:
            raise StoreError(NO_FLOCK)
        while True:
            if fd < 0:
                try:
                    fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
                except OSError as exc:
                    raise store_error(exc, "open the lock file", self.path) from None
                _lock_fds.add(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                deleted = os.fstat(fd).st_nlink == 0
            except OSError as exc:
                close_lock(fd)
                raise store_error(exc, "lock", self.path) from None
            except BaseException:  # e.g. KeyboardInterrupt: never leave a held lock behind
                close_lock(fd, unlock=True)
                raise
            if not deleted:
                return fd
            # deleted while we waited, or since we kept it: lock the file now at the path
            close_lock(fd)
            fd = -1


def unlock(fd: int) -> None:
    """Release the ``flock`` held on ``fd`` and keep the descriptor open for the next commit."""
    fcntl.flock(fd, fcntl.LOCK_UN)  # type: ignore[union-attr]  # fcntl exists: the lock was taken


def release(fd: int) -> None:
    """Release the ``flock`` held on ``fd``, then close it.

    ``LOCK_UN`` first: closing releases the lock only with the open file description's
    last descriptor, and a child forked meanwhile by another thread has a copy.
    """
    close_lock(fd, unlock=True)


def close_lock(fd: int, *, unlock: bool = False) -> None:
    """Close a lock file descriptor :meth:`RunLock.acquire` returned (``unlock``: release
    its ``flock`` first)."""
    _lock_fds.discard(fd)
    try:
        if unlock:
            fcntl.flock(fd, fcntl.LOCK_UN)  # type: ignore[union-attr]
    finally:
        os.close(fd)


_lock_fds: set[int] = set()
"""Every lock file descriptor open in this process: held, or kept between commits."""


def _close_locks_in_child() -> None:
    """In a fork's child: close the copies of the parent's lock descriptors at once.

    A copy shares the parent's open file description, and with it the ``flock``: kept
    by a child that lives on (a worker that never touches the store), it would keep a
    run locked after the parent let go of it by closing, or died holding it — a killed
    writer would leave the run locked. The child's memory of runs (:mod:`.cache`)
    forgets those descriptors without closing them again.
    """
    for fd in list(_lock_fds):
        try:
            os.close(fd)
        except OSError:
            pass
    _lock_fds.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_locks_in_child)
