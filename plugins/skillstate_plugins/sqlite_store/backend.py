"""The ``sqlite:`` store's implementation (registered by :mod:`skillstate_plugins.sqlite_store`).

Every run in one SQLite database file (standard library only).

URLs, as SQLAlchemy writes them: ``sqlite:///relative/runs.db`` (relative to the
working directory) and ``sqlite:////abs/path/runs.db`` (absolute). Query options: ``?timeout=SECONDS`` (how long a
writer waits for the write lock, default 30) and ``durability=full|process`` (default:
the ``durability`` setting).

The store is split by concern: :mod:`.url` parses URLs, :mod:`.tables` holds the
schema, its migrations and the row encoding, :mod:`.connections` opens connections
and runs every write transaction; this module is the store contract on top of them.

Guarantees: the database is in WAL mode. At ``durability=full`` (``synchronous=FULL``)
a commit that returned survives a crash or power loss. At ``process``
(``synchronous=NORMAL``, SQLite's own promise) a commit is in the WAL file, held by
the OS, when it returns: it survives a crash or ``SIGKILL`` of any process, but a
power loss or OS crash may lose the commits since the last checkpoint (SQLite syncs
the WAL only then); what comes back is always a committed version. Every write is one transaction opened with ``BEGIN IMMEDIATE`` (the write lock
is taken up front): the record update with its version check and the journal insert
commit together or not at all, and several processes on one machine never lose an
update. Readers never block writers. The
whole record is kept as canonical JSON text (key order and ``\\u0000`` survive); the
summary columns serve :meth:`SQLiteStore.list` without parsing documents.
Do not put the file on a network filesystem: SQLite's locking needs a local disk.
"""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from skillstate.plugin import (
    JournalEntry,
    RunExists,
    RunNotFound,
    RunRecord,
    RunSummary,
    Snapshot,
    Store,
    StoreError,
    VersionConflict,
    check_run_id,
)

from .connections import SQLiteConnections
from .tables import MIGRATIONS, insert_entry, insert_run, parse_stored, update_run
from .url import parse_sqlite_options, parse_sqlite_url

__all__ = ["MIGRATIONS", "SQLiteStore", "parse_sqlite_options", "parse_sqlite_url"]


class SQLiteStore(SQLiteConnections, Store):
    """Runs and journals in one SQLite file; one connection per thread, opened on first use."""

    def _cas(
        self, conn: sqlite3.Connection, record: RunRecord, entry: JournalEntry, expected: int
    ) -> None:
        """Inside a transaction: the version check, the record update, the journal insert."""
        row = conn.execute("SELECT version FROM runs WHERE id = ?", (record.id,)).fetchone()
        if row is None:
            raise RunNotFound(record.id)
        if row[0] != expected:
            raise VersionConflict(record.id, expected, row[0])
        update_run(conn, record)
        due = self.snapshot_due(record.version)
        insert_entry(conn, record.id, entry, Snapshot.of(record) if due else None)

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
            insert_run(conn, record)
            insert_entry(conn, record.id, entry)

        self._write(work)

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        check_run_id(record.id)
        self._write(lambda conn: self._cas(conn, record, entry, expected_version))

    def import_run(
        self,
        record: RunRecord,
        entries: Sequence[JournalEntry],
        *,
        merge: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        """Write ``record`` and its whole journal (with its snapshots) in one transaction."""
        snapshots = {
            entry.version: Snapshot.of(current)
            for current, entry in self.import_steps(record, entries, merge)
            if self.snapshot_due(entry.version)
        }

        def work(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM runs WHERE id = ?", (record.id,)).fetchone():
                raise RunExists(record.id)
            conn.execute("DELETE FROM journal WHERE run_id = ?", (record.id,))
            insert_run(conn, record)
            for entry in entries:
                insert_entry(conn, record.id, entry, snapshots.get(entry.version))

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
                    self.warn(f"skipping run {run_id}: {exc}", str(run_id), stacklevel=2)
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

    def delete(self, run_id: str, expected_version: int | None = None) -> bool:
        check_run_id(run_id)
        deleted: builtins.list[bool] = []

        def work(conn: sqlite3.Connection) -> None:
            if expected_version is None:
                cursor = conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
            else:  # the check and the delete in one statement, in the write transaction
                cursor = conn.execute(
                    "DELETE FROM runs WHERE id = ? AND version = ?", (run_id, expected_version)
                )
                if cursor.rowcount == 0:
                    row = conn.execute("SELECT version FROM runs WHERE id = ?", (run_id,))
                    found = row.fetchone()
                    if found is not None:
                        raise VersionConflict(run_id, expected_version, int(found[0]))
            conn.execute("DELETE FROM journal WHERE run_id = ?", (run_id,))
            deleted.append(cursor.rowcount > 0)

        self._write(work)
        return deleted[0]

    def close(self) -> None:
        """Close every connection; the store is unusable afterwards."""
        self._close_connections()
