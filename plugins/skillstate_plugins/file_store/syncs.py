"""Making a write durable on every platform the ``file`` store runs on, and its locks.

The file store runs on Linux and macOS (POSIX: ``fcntl`` locks, ``rename`` over an
existing file, directory ``fsync``); on Windows it refuses to open with one clear line
(:data:`NO_FLOCK`), because its safety under concurrent processes rests on ``flock``.

- :func:`sync_file` is ``fdatasync`` (``fsync`` where there is none), except on macOS,
  where ``fsync`` only hands the data to the drive's cache and Apple documents
  ``fcntl(F_FULLFSYNC)`` as the call that reaches stable storage: it is used there,
  falling back to ``fsync`` on a filesystem that does not support it (some network
  and FUSE filesystems).
- :func:`sync_directory` is ``fsync`` of an open directory.
- :func:`flock_module` is ``fcntl`` where it exists, else ``None``.

:func:`observing_syncs` lets a test see every sync, to simulate a power loss that
keeps only what was synced (``docs/reliability.md``, "How the tests hold each store to
it"). At ``durability=process`` the syncs are deferred to :mod:`.group_sync`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from types import ModuleType

__all__ = [
    "NO_FLOCK",
    "flock_module",
    "observing_syncs",
    "sync_directory",
    "sync_file",
]

NO_FLOCK = (
    "the file store needs POSIX file locks (fcntl.flock), which this platform "
    f"({sys.platform}) does not have; use another store, e.g. sqlite:///path/to/runs.db"
)
"""The message of a ``file`` store opened where there is no ``fcntl``."""

_observer: list[Callable[[int, bool], None]] = []
"""The observer of :func:`observing_syncs`, while one observes (tests only)."""


def flock_module() -> ModuleType | None:
    """The ``fcntl`` module, or ``None`` on a platform without it (Windows)."""
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


def sync_file(fd: int, data_only: bool = True) -> None:
    """Flush ``fd``'s data to stable storage (``F_FULLFSYNC`` on macOS); raises ``OSError``.

    ``data_only`` allows ``fdatasync`` (the data and the size, not every timestamp),
    which is enough for a file written or appended to.
    """
    fcntl = flock_module()
    full = getattr(fcntl, "F_FULLFSYNC", None) if fcntl is not None else None
    if full is not None:
        try:
            fcntl.fcntl(fd, full)  # type: ignore[union-attr]
            _observed(fd, False)
            return
        except OSError:  # not supported by this filesystem: the best plain fsync can do
            pass
    if data_only and hasattr(os, "fdatasync"):
        os.fdatasync(fd)
    else:
        os.fsync(fd)
    _observed(fd, False)


def sync_directory(fd: int) -> None:
    """``fsync`` an open directory (its renames, creations and unlinks); raises ``OSError``."""
    os.fsync(fd)
    _observed(fd, True)


def _observed(fd: int, directory: bool) -> None:
    if _observer:
        _observer[-1](fd, directory)


@contextlib.contextmanager
def observing_syncs(observer: Callable[[int, bool], None]) -> Iterator[None]:
    """Within the block, ``observer(fd, is_directory)`` is called after every sync (tests:
    a power-loss model records what each sync made durable; raising ``OSError`` from it
    makes the sync fail)."""
    _observer.append(observer)
    try:
        yield
    finally:
        _observer.remove(observer)
