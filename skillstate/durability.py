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

Durability levels (``docs/reliability.md`` states each promise exactly):

- ``full`` (the default): a write is acknowledged once it is on stable storage; it
  survives a crash of any process, an OS crash and a power loss.
- ``process``: a write is acknowledged once the operating system holds it; it survives
  a crash or ``SIGKILL`` of any process, and an OS crash or power loss loses at most
  the writes of the last :data:`SYNC_WINDOW` second (Redis ``appendfsync everysec``,
  SQLite WAL ``synchronous=NORMAL``, PostgreSQL ``synchronous_commit=off``).

A store learns its level from its URL's ``?durability=`` or, failing that, from
:func:`configured_level` (the ``durability`` configuration key, ``SKILLSTATE_DURABILITY``),
both checked by :func:`check_level`. A store that writes without a sync at ``process``
hands the files it wrote to :class:`~skillstate.group_sync.PendingSyncs` (one per
process, :func:`~skillstate.group_sync.pending_syncs`), which syncs them at most :data:`SYNC_WINDOW` later from a
daemon thread, at once when a writer finds it late, and at ``PendingSyncs.flush``
(a store's ``close``, the interpreter's exit; :mod:`skillstate.group_sync`). :data:`sync_observer` lets a test record
every sync, to simulate a power loss that keeps only what was synced.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from types import ModuleType

__all__ = [
    "DEFAULT_LEVEL",
    "ENV_VAR",
    "LEVELS",
    "NO_FLOCK",
    "SYNC_WINDOW",
    "check_level",
    "configured_level",
    "durability_of",
    "effective_level",
    "flock_module",
    "observing_syncs",
    "split_durability",
    "store_durability",
    "sync_directory",
    "sync_file",
    "sync_observer",
    "url_level",
    "using_level",
]

LEVELS = ("full", "process")
"""The durability levels, strongest first."""
DEFAULT_LEVEL = "full"
ENV_VAR = "SKILLSTATE_DURABILITY"
SYNC_WINDOW = 1.0
"""At ``process``, the most seconds an acknowledged write waits for its sync."""

sync_observer: Callable[[int, bool], None] | None = None
"""Called with ``(fd, is_directory)`` just after each successful sync (tests only)."""

_configured: ContextVar[str | None] = ContextVar("skillstate_durability", default=None)

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
            _observed(fd, False)
            return
        except OSError:  # not supported by this filesystem: the best plain fsync can do
            pass
    if data_only and hasattr(os, "fdatasync"):
        os.fdatasync(fd)
    else:
        os.fsync(fd)
    _observed(fd, False)


def _observed(fd: int, directory: bool) -> None:
    if sync_observer is not None:
        sync_observer(fd, directory)


def sync_directory(fd: int) -> None:
    """``fsync`` an open directory (its renames, creations and unlinks); raises ``OSError``."""
    os.fsync(fd)
    _observed(fd, True)


@contextlib.contextmanager
def observing_syncs(observer: Callable[[int, bool], None]) -> Iterator[None]:
    """Within the block, ``observer(fd, is_directory)`` is called after every sync (tests:
    a power-loss model records what each sync made durable; raising ``OSError`` from it
    makes the sync fail)."""
    global sync_observer
    previous, sync_observer = sync_observer, observer
    try:
        yield
    finally:
        sync_observer = previous


def check_level(value: object, where: str, error: type[Exception] | None = None) -> str:
    """``value`` as a durability level (``full`` or ``process``), else one clear error.

    The error (a :class:`~skillstate.errors.ConfigError` unless ``error`` names another
    class) is of kind ``usage`` (exit 2) and names ``where`` the value came from.
    """
    if isinstance(value, str) and value.strip().lower() in LEVELS:
        return value.strip().lower()
    from skillstate.display import excerpt
    from skillstate.errors import ConfigError

    exc = (error or ConfigError)(
        f"{where}: durability must be 'full' or 'process', got {excerpt(repr(value), 40)}"
    )
    exc.kind = "usage"  # type: ignore[attr-defined]
    raise exc


def configured_level() -> str:
    """The level a store gets when its URL names none.

    Inside :func:`using_level` (the host opening a store: the ``durability`` key of its
    configuration) that level; elsewhere ``SKILLSTATE_DURABILITY``, else ``full``.
    """
    level = _configured.get()
    if level is not None:
        return level
    raw = os.environ.get(ENV_VAR)
    if raw is None or not raw.strip():
        return DEFAULT_LEVEL
    return check_level(raw, f"environment variable {ENV_VAR}")


@contextlib.contextmanager
def using_level(level: str) -> Iterator[None]:
    """Within the block, :func:`configured_level` is ``level`` (checked)."""
    token = _configured.set(check_level(level, "durability"))
    try:
        yield
    finally:
        _configured.reset(token)


def split_durability(query: str, where: str, error: type[Exception]) -> tuple[str, str | None]:
    """``query`` (a URL's, without ``?``) without its ``durability=``, and that level or ``None``."""
    from urllib.parse import parse_qsl, urlencode

    pairs = parse_qsl(query, keep_blank_values=True)
    levels = [value for key, value in pairs if key == "durability"]
    if not levels:
        return query, None
    rest = [(key, value) for key, value in pairs if key != "durability"]
    return urlencode(rest), check_level(levels[-1], where, error)


def url_level(url: str) -> str | None:
    """The ``?durability=`` a store URL names, unchecked (``None``: it names none)."""
    from urllib.parse import parse_qsl

    query = url.partition("?")[2]
    levels = [v for k, v in parse_qsl(query, keep_blank_values=True) if k == "durability"]
    return levels[-1] if levels else None


def effective_level(url: str, configured: str, source: str) -> tuple[str, str]:
    """The level a store opened from ``url`` gets and where it comes from, without opening it.

    A store that keeps nothing past its process (``memory:``) says ``none`` once open.
    """
    named = url_level(url)
    if named is not None:
        return check_level(named, "the store URL"), "the store URL"
    return configured, source


def durability_of(store: object) -> str:
    """What a store says of itself: ``full``, ``process``, ``none`` or ``unstated``."""
    return str(getattr(store, "durability", "unstated"))


def store_durability(level: str | None) -> str:
    """A store's effective level: its URL's ``level`` when given, else :func:`configured_level`."""
    return level if level is not None else configured_level()
