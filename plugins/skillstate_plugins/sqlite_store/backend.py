"""The ``sqlite:`` store's implementation (registered by :mod:`skillstate_plugins.sqlite_store`).

Every run in one SQLite database file (standard library only).

URLs: ``sqlite:///abs/path/runs.db`` (absolute) and ``sqlite:relative/runs.db``
(relative to the working directory). Query options: ``?timeout=SECONDS`` (how long a
writer waits for the write lock, default 30) and ``durability=full|process`` (default:
the ``durability`` setting).

Guarantees: the database is in WAL mode. At ``durability=full`` (``synchronous=FULL``)
a commit that returned survives a crash or power loss. At ``process``
(``synchronous=NORMAL``) a commit is in the WAL file, held by the OS, when it returns:
it survives a crash or ``SIGKILL`` of any process; the WAL file is handed to this
process's :class:`~skillstate.plugin.PendingSyncs`, which ``fdatasync``s it at most a
second later, so a power loss or OS crash loses at most the last second of commits
(SQLite's own ``NORMAL`` syncs the WAL only at a checkpoint, which is unbounded in time). Every write is one transaction opened with
``BEGIN IMMEDIATE`` (the write lock is taken up front): the record update with its
version check and the journal insert commit together or not at all, and several
processes on one machine never lose an update. Readers never block writers. The
whole record is kept as canonical JSON text (key order and ``\\u0000`` survive); the
summary columns serve :meth:`SQLiteStore.list` without parsing documents.
Do not put the file on a network filesystem: SQLite's locking needs a local disk.
"""

from __future__ import annotations

import builtins
import errno
import os
import sqlite3
import threading
import time
import urllib.parse
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import parse_qs

from skillstate.plugin import (
    JournalEntry,
    Merge,
    RunExists,
    RunNotFound,
    RunRecord,
    RunSummary,
    Snapshot,
    Store,
    StoreError,
    StoreWarning,
    VersionConflict,
    check_import,
    check_run_id,
    compact,
    due_snapshots,
    parse_stored,
    pending_syncs,
    snapshot_due,
    split_durability,
    store_durability,
)

__all__ = ["SQLiteStore", "parse_sqlite_options", "parse_sqlite_url"]

# The list index is the schema version (0 = empty database); never edit an entry.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS runs (
            id TEXT PRIMARY KEY,
            skill TEXT NOT NULL,
            version INTEGER NOT NULL,
            step INTEGER NOT NULL,
            status TEXT NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            phase TEXT,
            next_action TEXT,
            record TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS runs_skill ON runs (skill, id)",
        """CREATE TABLE IF NOT EXISTS journal (
            run_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            ts TEXT NOT NULL,
            entry TEXT NOT NULL,
            PRIMARY KEY (run_id, version)
        ) WITHOUT ROWID""",
    ),
    # 1: summaries are read from the record with json_extract (a skill names its own
    # phase and next-action keys), so the columns that held rig's keys go. The table is
    # rebuilt rather than altered: ALTER TABLE ... DROP COLUMN needs SQLite 3.35.
    (
        """CREATE TABLE runs_v1 (
            id TEXT PRIMARY KEY,
            skill TEXT NOT NULL,
            version INTEGER NOT NULL,
            step INTEGER NOT NULL,
            status TEXT NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            record TEXT NOT NULL
        )""",
        "INSERT INTO runs_v1 SELECT id, skill, version, step, status, created, updated, record"
        " FROM runs",
        "DROP TABLE runs",
        "ALTER TABLE runs_v1 RENAME TO runs",
        "CREATE INDEX IF NOT EXISTS runs_skill ON runs (skill, id)",
    ),
    # 2: a snapshot (state, status, step as JSON) on every SNAPSHOT_INTERVAL-th journal
    # row, so reading an old version replays at most that many entries.
    ("ALTER TABLE journal ADD COLUMN snapshot TEXT",),
)


def parse_sqlite_url(url: str) -> tuple[Path, float]:
    """The database path and lock timeout of a ``sqlite:`` URL; :class:`StoreError` if malformed."""
    path, timeout, _ = parse_sqlite_options(url)
    return path, timeout


def parse_sqlite_options(url: str) -> tuple[Path, float, str | None]:
    """The database path, lock timeout and ``?durability=`` (or ``None``) of a ``sqlite:`` URL."""
    scheme, _, rest = url.partition(":")
    if scheme.lower() != "sqlite" or not rest:
        raise StoreError(
            f"bad SQLite URL '{url}': expected sqlite:///absolute/path.db or sqlite:relative.db"
        )
    rest, _, query = rest.partition("?")
    if rest.startswith("//"):
        host, slash, path = rest[2:].partition("/")
        if host not in ("", "localhost") or not slash:
            raise StoreError(
                f"bad SQLite URL '{url}': a host ('{host}') is not supported; "
                "use sqlite:///absolute/path.db"
            )
        rest = "/" + path.lstrip("/")  # sqlite:////abs (SQLAlchemy's form) is /abs too
    if rest in ("", "/") or rest.endswith("/"):
        raise StoreError(f"bad SQLite URL '{url}': it names no database file")
    timeout = 30.0
    query, level = split_durability(query, f"bad SQLite URL '{url}'", StoreError)
    for key, values in parse_qs(query, keep_blank_values=True).items():
        if key != "timeout":
            raise StoreError(
                f"bad SQLite URL '{url}': unknown option '{key}' (known: timeout, durability)"
            )
        try:
            timeout = float(values[-1])
        except ValueError:
            raise StoreError(
                f"bad SQLite URL '{url}': timeout must be a number of seconds, got '{values[-1]}'"
            ) from None
        if not timeout >= 0:
            raise StoreError(f"bad SQLite URL '{url}': timeout must be >= 0")
    return Path(rest), timeout, level


class SQLiteStore(Store):
    """Runs and journals in one SQLite file; one connection per thread, opened on first use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path, self.timeout, level = parse_sqlite_options(url)
        self.durability = store_durability(level)
        self._wal = f"{os.path.abspath(self.path)}-wal"  # synced later, maybe from elsewhere
        self._syncs = pending_syncs() if self.durability == "process" else None
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        self._why_read_only: str | None = None

    # -- connections -----------------------------------------------------------
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
            conn.execute(f"PRAGMA synchronous = {'NORMAL' if self._syncs else 'FULL'}")
            self._migrate(conn)
        except (sqlite3.Error, OSError) as exc:
            conn = self._read_only(exc)
        self._local.conn = conn
        with self._lock:
            self._connections.append(conn)
        return conn

    def _reason(self, exc: BaseException) -> str:
        """The error's text, saying "the disk is full" when it is (SQLite may say "disk I/O error")."""
        text = str(exc) or type(exc).__name__
        if isinstance(exc, OSError) and exc.strerror:
            text = exc.strerror
        full = "disk is full" in text or getattr(exc, "errno", None) == errno.ENOSPC
        try:
            free = os.statvfs(self.path.parent)
            full = full or free.f_bavail == 0 or free.f_bfree == 0
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

    def _migrate(self, conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA user_version").fetchone()[0] >= len(MIGRATIONS):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            for statements in MIGRATIONS[current:]:
                for statement in statements:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {max(current, len(MIGRATIONS))}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _write(self, work: Callable[[sqlite3.Connection], None]) -> None:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction; commit, or roll back on error."""
        conn = self._conn()
        if self._why_read_only is not None:
            raise StoreError(
                f"cannot write SQLite database {self.path}: it could only be opened "
                f"read-only ({self._why_read_only}); nothing was changed"
            )
        if self._syncs is not None:
            self._syncs.check()  # a deferred sync that failed fails this write, unwritten
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot lock SQLite database {self.path}: {self._reason(exc)}"
            ) from exc
        try:
            work(conn)
            self._finish(conn)
            if self._syncs is not None:
                self._syncs.add(self._wal)  # synced within the window (docstring)
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

    # -- rows ------------------------------------------------------------------
    @staticmethod
    def _columns(record: RunRecord) -> tuple[object, ...]:
        """The ``runs`` columns after ``id``, in table order."""
        return (
            record.skill,
            record.version,
            record.step,
            record.status,
            record.created,
            record.updated,
            compact(record.to_dict()),
        )

    def _insert_run(self, conn: sqlite3.Connection, record: RunRecord) -> None:
        conn.execute(
            "INSERT INTO runs (id, skill, version, step, status, created, updated, record)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, *self._columns(record)),
        )

    @staticmethod
    def _insert_entry(
        conn: sqlite3.Connection,
        run_id: str,
        entry: JournalEntry,
        snapshot: Snapshot | None = None,
    ) -> None:
        conn.execute(
            "INSERT INTO journal (run_id, version, ts, entry, snapshot) VALUES (?, ?, ?, ?, ?)",
            (
                run_id,
                entry.version,
                entry.ts,
                compact(entry.to_dict()),
                None if snapshot is None else compact(snapshot.to_dict()),
            ),
        )

    def _cas(
        self, conn: sqlite3.Connection, record: RunRecord, entry: JournalEntry, expected: int
    ) -> None:
        """Inside a transaction: the version check, the record update, the journal insert."""
        row = conn.execute("SELECT version FROM runs WHERE id = ?", (record.id,)).fetchone()
        if row is None:
            raise RunNotFound(record.id)
        if row[0] != expected:
            raise VersionConflict(record.id, expected, row[0])
        conn.execute(
            "UPDATE runs SET skill = ?, version = ?, step = ?, status = ?, created = ?,"
            " updated = ?, record = ? WHERE id = ?",
            (*self._columns(record), record.id),
        )
        due = snapshot_due(record.version)
        self._insert_entry(conn, record.id, entry, Snapshot.of(record) if due else None)

    # -- the Store contract ----------------------------------------------------
    def get(self, run_id: str) -> RunRecord:
        check_run_id(run_id)
        rows = self._read("SELECT record FROM runs WHERE id = ?", (run_id,))
        if not rows:
            raise RunNotFound(run_id)
        return self._record(run_id, rows[0][0])

    def _record(self, run_id: str, text: object) -> RunRecord:
        """The record kept as ``text``; :class:`StoreError` naming the run when it is damaged."""
        try:
            return RunRecord.from_dict(parse_stored(str(text), "record"))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"run '{run_id}' in {self.path} is damaged: {exc}") from None

    def exists(self, run_id: str) -> bool:
        check_run_id(run_id)
        return bool(self._read("SELECT 1 FROM runs WHERE id = ?", (run_id,)))

    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        check_run_id(record.id)

        def work(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (record.id,)).fetchone():
                raise RunExists(record.id)
            conn.execute("DELETE FROM journal WHERE run_id = ?", (record.id,))
            self._insert_run(conn, record)
            self._insert_entry(conn, record.id, entry)

        self._write(work)

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        check_run_id(record.id)
        self._write(lambda conn: self._cas(conn, record, entry, expected_version))

    def import_run(
        self,
        record: RunRecord,
        entries: Sequence[JournalEntry],
        *,
        merge: Merge | None = None,
    ) -> None:
        """Write ``record`` and its whole journal (with its snapshots) in one transaction."""
        check_run_id(record.id)
        check_import(record, entries)
        snapshots = {
            s.version: s
            for s in (due_snapshots(entries, merge) if merge else due_snapshots(entries))
        }

        def work(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (record.id,)).fetchone():
                raise RunExists(record.id)
            conn.execute("DELETE FROM journal WHERE run_id = ?", (record.id,))
            self._insert_run(conn, record)
            for entry in entries:
                self._insert_entry(conn, record.id, entry, snapshots.get(entry.version))

        self._write(work)

    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> builtins.list[RunSummary]:
        keys = tuple(dict.fromkeys(keys))
        if any('"' in key or "\\" in key for key in keys):  # not a JSON path label: parse
            where = "" if skill is None else " WHERE skill = ?"
            rows = self._read(
                f"SELECT id, record FROM runs{where} ORDER BY id", () if skill is None else (skill,)
            )
            out = []
            for run_id, text in rows:
                try:
                    out.append(RunSummary.of(self._record(str(run_id), text), keys))
                except StoreError as exc:  # one damaged run never hides the others
                    warnings.warn(
                        StoreWarning(f"skipping run {run_id}: {exc}", str(run_id)), stacklevel=2
                    )
            return out
        # One text value per key, NULL unless the state has it as a string.
        picks = "".join(
            ", CASE WHEN json_type(record, ?) = 'text' THEN json_extract(record, ?) END"
            for _ in keys
        )
        params: list[object] = []
        for key in keys:
            path = f'$.state."{key}"'
            params += [path, path]
        sql = f"SELECT id, skill, status, updated, version{picks} FROM runs"
        if skill is not None:
            sql += " WHERE skill = ?"
            params.append(skill)
        rows = self._read(sql + " ORDER BY id", params)
        return [
            RunSummary(
                id=str(r[0]),
                skill=str(r[1]),
                status=str(r[2]),
                updated=str(r[3]),
                version=int(r[4]),  # type: ignore[call-overload]
                fields={k: str(v) for k, v in zip(keys, r[5:], strict=True) if v is not None},
            )
            for r in rows
        ]

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        rows = self._read("SELECT entry FROM journal WHERE run_id = ? ORDER BY version", (run_id,))
        if not rows and not self.exists(run_id):
            raise RunNotFound(run_id)
        try:
            return [JournalEntry.from_dict(parse_stored(str(r[0]), "journal entry")) for r in rows]
        except (TypeError, ValueError) as exc:
            raise StoreError(
                f"the journal of run '{run_id}' in {self.path} is damaged: {exc}"
            ) from None

    def journal_range(
        self, run_id: str, *, after: int = 0, before: int | None = None
    ) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        rows = self._read(
            "SELECT entry FROM journal WHERE run_id = ? AND version > ? AND version < ?"
            " ORDER BY version",
            (run_id, after, (1 << 62) if before is None else before),
        )
        return [JournalEntry.from_dict(parse_stored(str(r[0]), "journal entry")) for r in rows]

    def snapshot(self, run_id: str, version: int) -> Snapshot | None:
        check_run_id(run_id)
        rows = self._read(
            "SELECT version, snapshot FROM journal WHERE run_id = ? AND version <= ?"
            " AND snapshot IS NOT NULL ORDER BY version DESC LIMIT 1",
            (run_id, version),
        )
        return self._snapshots(rows)[0] if rows else None

    def snapshots(self, run_id: str) -> builtins.list[Snapshot]:
        check_run_id(run_id)
        rows = self._read(
            "SELECT version, snapshot FROM journal WHERE run_id = ? AND snapshot IS NOT NULL"
            " ORDER BY version",
            (run_id,),
        )
        return self._snapshots(rows)

    def _snapshots(self, rows: Sequence[tuple[object, ...]]) -> builtins.list[Snapshot]:
        try:
            return [
                Snapshot.from_dict(int(str(v)), parse_stored(str(s), "snapshot")) for v, s in rows
            ]
        except ValueError as exc:
            raise StoreError(
                f"SQLite database {self.path} holds a damaged snapshot: {exc}"
            ) from None

    def delete(self, run_id: str) -> bool:
        check_run_id(run_id)
        deleted: builtins.list[bool] = []

        def work(conn: sqlite3.Connection) -> None:
            cursor = conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
            conn.execute("DELETE FROM journal WHERE run_id = ?", (run_id,))
            deleted.append(cursor.rowcount > 0)

        self._write(work)
        return deleted[0]

    def close(self) -> None:
        """Close every connection; at ``process``, sync what is pending first."""
        if self._syncs is not None:
            try:
                self._syncs.flush()
            except StoreError as exc:
                warnings.warn(StoreWarning(str(exc)), stacklevel=2)
        self._closed = True
        with self._lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()
