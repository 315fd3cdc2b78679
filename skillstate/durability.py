"""Making a write durable on every supported platform, and saying when one cannot be.

skillstate supports Linux and macOS (POSIX: ``fcntl`` locks, ``rename`` over an
existing file, directory ``fsync``); Windows runs the core, the SQLite, PostgreSQL and
memory stores, and refuses the ``file`` store with one clear line (:data:`NO_FLOCK`),
because its safety under concurrent processes rests on ``flock``.

- :func:`sync_file` is ``fdatasync`` (``fsync`` where there is none), except on macOS,
  where ``fsync`` only hands the data to the drive's cache and Apple documents
  ``fcntl(F_FULLFSYNC)`` as the call that reaches stable storage: it is used there,
  falling back to ``fsync`` on a filesystem that does not support it (some network
  and FUSE filesystems).
- :func:`flock_module` is ``fcntl`` where it exists, else ``None``.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

__all__ = ["NO_FLOCK", "flock_module", "sync_file"]

NO_FLOCK = (
    "the file store needs POSIX file locks (fcntl.flock), which this platform "
    f"({sys.platform}) does not have; use another store, e.g. sqlite:///path/to/runs.db"
)
"""The message of a ``file`` store opened where there is no ``fcntl``."""


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
            return
        except OSError:  # not supported by this filesystem: the best plain fsync can do
            pass
    if data_only and hasattr(os, "fdatasync"):
        os.fdatasync(fd)
    else:
        os.fsync(fd)
