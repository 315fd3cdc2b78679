"""The ``sqlite:`` store's connections: one per thread, in WAL mode, and the one write path.

:class:`SQLiteConnections` is the half of :class:`~.backend.SQLiteStore` that talks to
SQLite: it opens a connection per thread on first use (WAL, ``busy_timeout``,
``synchronous`` from the durability level, the migrations applied), falls back to a
read-only connection when the file cannot be opened for writing (a read-only
filesystem, a full disk), runs every write as one ``BEGIN IMMEDIATE`` transaction and
turns SQLite's errors into :class:`~skillstate.plugin.StoreError` with the reason
("the disk is full" when it is).
"""

from __future__ import annotations

import builtins
import errno
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence

from skillstate.plugin import StoreError

from .tables import MIGRATIONS, migrate
from .url import parse_sqlite_options

__all__ = ["SQLiteConnections"]


class SQLiteConnections:
    """Connections to the database of a ``sqlite:`` URL; one per thread, opened on first use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path, self.timeout, self.durability = parse_sqlite_options(url)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        self._why_read_only: str | None = None

    def found(self) -> bool:
        """Whether the database file exists (a first write creates it)."""
        return os.path.lexists(self.path)

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if self._closed:
            raise StoreError(f"store {self.url} is closed")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            self._set_wal(conn)
            synchronous = "NORMAL" if self.durability == "process" else "FULL"
            conn.execute(f"PRAGMA synchronous = {synchronous}")
            migrate(conn)
        except (sqlite3.Error, OSError) as exc:
            conn = self._read_only(exc)
        self._local.conn = conn
        with self._lock:
            self._connections.append(conn)
        return conn

    def _reason(self, exc: BaseException) -> str:
        """The error's text, saying "the disk is full" when it is (SQLite may say "disk I/O error")."""
        text = str(exc) or type(exc).__name__
        if isinstance(exc, FileExistsError) and exc.filename is not None:
            # mkdir(exist_ok=True) says "File exists" when a parent is a file.
            text = f"{os.path.basename(exc.filename)} is a file, not a directory"
        elif isinstance(exc, OSError) and exc.strerror:
            text = exc.strerror
        full = "disk is full" in text or getattr(exc, "errno", None) == errno.ENOSPC
        try:
            free = os.statvfs(self.path.parent)
            # A read-only or pseudo filesystem (/sys, a squashfs image) has no free
            # blocks either: it is not full, it cannot be written.
            writable = free.f_blocks > 0 and not free.f_flag & os.ST_RDONLY
            full = full or (writable and (free.f_bavail == 0 or free.f_bfree == 0))
        except OSError:
            pass
        return f"the disk is full ({text})" if full else text

    def _read_only(self, exc: BaseException) -> sqlite3.Connection:
        """After a failed open: the database opened read-only when it exists (a read-only
        filesystem, a full disk), else :class:`StoreError` with the reason."""
        reason = self._reason(exc)
        if not self.path.is_file():
            raise StoreError(f"cannot open SQLite database {self.path}: {reason}") from exc
        base = f"file:{urllib.parse.quote(os.path.abspath(self.path))}?mode=ro"
        for uri in (base, base + "&immutable=1"):  # immutable: no -shm can be created
            try:
                conn = sqlite3.connect(
                    uri,
                    uri=True,
                    timeout=self.timeout,
                    isolation_level=None,
                    check_same_thread=False,
                )
                if conn.execute("PRAGMA user_version").fetchone()[0] < len(MIGRATIONS):
                    conn.close()
                    break  # an older schema cannot be migrated read-only
                conn.execute("SELECT 1 FROM runs LIMIT 1").fetchall()
            except sqlite3.Error:
                continue
            self._why_read_only = reason
            return conn
        raise StoreError(f"cannot open SQLite database {self.path}: {reason}") from exc

    def _set_wal(self, conn: sqlite3.Connection) -> None:
        # Switching to WAL needs a moment of exclusive access; another process opening
        # the file at the same time can make it report "locked" despite busy_timeout.
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        if str(mode).lower() != "wal":
            raise StoreError(f"SQLite database {self.path} cannot use WAL mode (got '{mode}')")

    def _write(self, work: Callable[[sqlite3.Connection], None]) -> None:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction; commit, or roll back on error."""
        conn = self._conn()
        if self._why_read_only is not None:
            raise StoreError(
                f"cannot write SQLite database {self.path}: it could only be opened "
                f"read-only ({self._why_read_only}); nothing was changed"
            )
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot lock SQLite database {self.path}: {self._reason(exc)}"
            ) from exc
        try:
            work(conn)
            self._finish(conn)
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(
                    f"cannot write SQLite database {self.path}: {self._reason(exc)}"
                ) from exc
            raise

    def _finish(self, conn: sqlite3.Connection) -> None:
        """Commit the open transaction (tests override this to stop mid-transaction)."""
        conn.execute("COMMIT")

    def _read(self, sql: str, params: Sequence[object]) -> builtins.list[tuple[object, ...]]:
        try:
            return self._conn().execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read SQLite database {self.path}: {exc}") from exc

    def _close_connections(self) -> None:
        """Close every thread's connection; the store is unusable afterwards."""
        self._closed = True
        with self._lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()
