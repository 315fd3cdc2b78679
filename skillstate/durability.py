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
hands the files it wrote to :class:`PendingSyncs` (one per process,
:func:`pending_syncs`), which syncs them at most :data:`SYNC_WINDOW` later from a
daemon thread, at once when a writer finds it late, and at :meth:`PendingSyncs.flush`
(a store's ``close``, the interpreter's exit). :data:`sync_observer` lets a test record
every sync, to simulate a power loss that keeps only what was synced.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from types import ModuleType

__all__ = [
    "DEFAULT_LEVEL",
    "ENV_VAR",
    "LEVELS",
    "NO_FLOCK",
    "SYNC_WINDOW",
    "PendingSyncs",
    "check_level",
    "configured_level",
    "durability_of",
    "effective_level",
    "flock_module",
    "observing_syncs",
    "pending_syncs",
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


class PendingSyncs:
    """Files and directories written without a sync, synced within ``window`` seconds.

    :meth:`add` names a path written at ``process`` durability (a directory when its
    entries changed). A daemon thread syncs everything pending ``delay`` seconds after
    the oldest unsynced write (half the window by default, so a slow sync still fits),
    and :meth:`add` itself syncs when it finds a write older than the window still
    unsynced (the thread is late: a stalled disk), so no acknowledged write waits
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
        """Raise the failure of a deferred sync, once: a store calls it before writing."""
        if self._error is not None:
            with self._lock:
                self._raise_left_over()

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
            late = min(t for t in (self._oldest, self._inflight) if t is not None)
        if now - late >= self.window:
            self._flush()  # the thread is late: sync before acknowledging

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
        """Sync everything pending now; raises :class:`~skillstate.errors.StoreError` on failure."""
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
            from skillstate.errors import StoreError

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
    if _pending_syncs is not None:
        with contextlib.suppress(Exception):
            _pending_syncs.flush()


def _after_fork() -> None:
    """A forked child starts with nothing pending (its parent syncs its own writes)."""
    if _pending_syncs is not None:
        _pending_syncs._reset()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
