"""The ``postgresql:`` store's implementation (registered by :mod:`skillstate_plugins.postgres_store`).

Runs shared by many processes and machines (psycopg 3 + a pool). URLs and their
options: :mod:`.postgres_url`; the tables, their migrations and how a record is
stored: :mod:`.postgres_tables`.

Durability: at ``full`` a commit returns once the server has flushed its WAL (the
server's ``synchronous_commit``, ``on`` by default; a default of ``off`` is turned
``on`` for the store's connections). At ``process`` the store's
connections run with ``synchronous_commit = off``: a commit returns once the server
has it in memory; a crash of the client loses nothing, and a crash of the server or
its machine loses at most the last ``3 × wal_writer_delay`` (600 ms by default).

Writes: a commit is ONE statement — ``UPDATE … WHERE id = $id AND version =
$expected`` feeding the journal ``INSERT`` in a CTE — so the version check, the record
and the journal entry commit together (one round trip, fsynced by the server). Under
READ COMMITTED a concurrent commit on the same run waits for the row lock, re-checks
the version and matches nothing: a conflict, never a fork.

Connections: a connection that died (server restart, ``pg_terminate_backend``,
network) is dropped and the operation retried once on a fresh one. A write whose
outcome is unknown (the connection died while committing) is looked up first: if its
journal entry is there it succeeded; if not it is retried, still guarded by the
version check; if that fails too the error says so and nothing is half-written.
"""

from __future__ import annotations

import builtins
import json
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

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
    compact,
)

from .tables import RUN_COLUMNS, RUN_VALUES, migrate, run_params
from .url import bad_url, check_libpq_values, parse_postgres_url, redact

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

__all__ = ["PostgresStore", "parse_postgres_url"]

T = TypeVar("T")


class _ConnectFailures(logging.Filter):
    """Keeps (and holds back) the pool's "error connecting in NAME" warnings while it opens."""

    def __init__(self, pool_name: str) -> None:
        super().__init__()
        self.pool_name = pool_name
        self.last: str | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if (
            record.msg == "error connecting in %r: %s"
            and isinstance(args, tuple)
            and len(args) == 2
            and args[0] == self.pool_name
        ):
            self.last = " ".join(str(args[1]).split())  # psycopg's text has line breaks
            return False
        return True


class PostgresStore(Store):
    """Runs in PostgreSQL tables; the pool is opened (and the schema created) on first use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conninfo, self.options = parse_postgres_url(url)
        self.schema: str = self.options["schema"]
        self.durability: str = self.options["durability"]
        s = f'"{self.schema}"'
        self._runs, self._journal = f"{s}.skillstate_runs", f"{s}.skillstate_journal"
        self._pool: psycopg_pool.ConnectionPool[Any] | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._sql_commit = (
            f"WITH updated AS (UPDATE {self._runs} SET ({RUN_COLUMNS}) = ({RUN_VALUES})"
            " WHERE id = %(id)s AND version = %(expected)s RETURNING id)"
            f" INSERT INTO {self._journal} (run_id, version, ts, entry, snapshot)"
            " SELECT id, %(entry_version)s, %(ts)s, %(entry)s::json, %(snapshot)s::json"
            " FROM updated RETURNING version"
        )
        self._sql_create = (
            f"WITH created AS (INSERT INTO {self._runs} (id, {RUN_COLUMNS})"
            f" VALUES (%(id)s, {RUN_VALUES}) ON CONFLICT (id) DO NOTHING RETURNING id)"
            f" INSERT INTO {self._journal} (run_id, version, ts, entry)"
            " SELECT id, %(entry_version)s, %(ts)s, %(entry)s::json FROM created RETURNING version"
        )

    # -- connections -----------------------------------------------------------
    def _open(self) -> psycopg_pool.ConnectionPool[Any]:
        pool = self._pool
        if pool is not None:
            return pool
        with self._lock:
            if self._pool is not None:
                return self._pool
            if self._closed:
                raise StoreError(f"store {redact(self.url)} is closed")
            try:
                import psycopg
                import psycopg_pool
            except ImportError as exc:
                raise StoreError(
                    "the PostgreSQL store needs the 'postgres' extra, which is not installed "
                    f"({exc}): pip install -e '.[postgres]' from a checkout "
                    "(pip install 'skillstate[postgres]' after the first release)"
                ) from None

            try:  # libpq's own options, read without connecting: a typo is the caller's
                params = psycopg.conninfo.conninfo_to_dict(self.conninfo)
            except psycopg.ProgrammingError as exc:
                raise bad_url(
                    f"bad PostgreSQL URL '{redact(self.url)}': {str(exc).strip()}"
                ) from None
            check_libpq_values({k: str(v) for k, v in params.items()}, self.url)
            pool = psycopg_pool.ConnectionPool(
                self.conninfo,
                min_size=self.options["pool_min"],
                max_size=self.options["pool_max"],
                timeout=self.options["pool_timeout"],
                kwargs={"autocommit": True},
                configure=self._configure,
                open=False,
                name=f"skillstate:{self.schema}",
            )
            # The pool retries a failed connection until its timeout, logging each
            # failure; keep the last one as the reason instead of a second stderr line.
            failures = _ConnectFailures(pool.name)
            pool_log = logging.getLogger("psycopg.pool")
            pool_log.addFilter(failures)
            try:
                pool.open(wait=True, timeout=self.options["pool_timeout"])
                with pool.connection() as conn:
                    migrate(conn, self.schema)
            except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
                pool.close()
                reason = failures.last if isinstance(exc, psycopg_pool.PoolTimeout) else None
                raise StoreError(
                    f"cannot connect to PostgreSQL at {redact(self.url)}: {reason or exc}".rstrip()
                ) from exc
            finally:
                pool_log.removeFilter(failures)
            self._pool = pool
            return pool

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        """Each new connection: ``synchronous_commit`` for the store's level.

        At ``process``, ``off``. At ``full`` the server's setting is kept unless it is
        ``off`` (a role, database or ``options`` default), which would acknowledge a
        commit before its WAL is flushed: then ``on``.
        """
        if self.durability == "process":
            conn.execute("SET synchronous_commit = off")
            return
        row = conn.execute("SHOW synchronous_commit").fetchone()
        if row is not None and str(row[0]).lower() == "off":
            conn.execute("SET synchronous_commit = on")

    def _run(
        self,
        what: str,
        work: Callable[[psycopg.Connection[Any]], T],
        landed: Callable[[psycopg.Connection[Any]], bool] | None = None,
    ) -> T:
        """Run ``work`` on a pooled connection; on a dead connection, retry once.

        ``landed`` (for writes) tells whether a write whose outcome is unknown did commit.
        """
        pool = self._open()  # first: it says what to install when psycopg is missing
        import psycopg
        import psycopg_pool

        for attempt in (1, 2):
            conn: psycopg.Connection[Any] | None = None
            try:
                with pool.connection() as conn:
                    if attempt == 2 and landed is not None and landed(conn):
                        return None  # type: ignore[return-value]  # writes return None
                    return work(conn)
            except psycopg_pool.PoolTimeout as exc:
                raise StoreError(f"cannot {what}: no PostgreSQL connection ({exc})") from exc
            except psycopg.OperationalError as exc:
                dead = conn is None or conn.closed or conn.broken
                if not dead or attempt == 2:
                    raise StoreError(
                        f"cannot {what}: PostgreSQL connection failed ({exc}); "
                        "nothing was changed unless a re-read shows it"
                        if landed is not None
                        else f"cannot {what}: PostgreSQL connection failed ({exc})"
                    ) from exc
                pool.check()  # replace every other dead connection too
            except psycopg.Error as exc:
                raise StoreError(f"cannot {what}: PostgreSQL error: {exc}") from exc
        raise AssertionError("unreachable")

    def _entry_landed(self, run_id: str, entry: JournalEntry) -> Callable[[Any], bool]:
        text = compact(entry.to_dict())

        def landed(conn: psycopg.Connection[Any]) -> bool:
            row = conn.execute(
                f"SELECT entry::text = %s FROM {self._journal} WHERE run_id = %s AND version = %s",
                (text, run_id, entry.version),
            ).fetchone()
            return bool(row and row[0])

        return landed

    # -- writes ----------------------------------------------------------------
    def _cas(
        self, conn: psycopg.Connection[Any], record: RunRecord, entry: JournalEntry, expected: int
    ) -> None:
        """The compare-and-swap statement (its own transaction unless one is open)."""
        params = run_params(record)
        params.update(
            expected=expected,
            entry_version=entry.version,
            ts=entry.ts,
            entry=compact(entry.to_dict()),
            snapshot=compact(Snapshot.of(record).to_dict())
            if self.snapshot_due(record.version)
            else None,
        )
        if conn.execute(self._sql_commit, params).fetchone() is not None:
            return
        row = conn.execute(
            f"SELECT version FROM {self._runs} WHERE id = %s", (record.id,)
        ).fetchone()
        if row is None:
            raise RunNotFound(record.id)
        raise VersionConflict(record.id, expected, int(row[0]))

    def commit(self, record: RunRecord, entry: JournalEntry, expected_version: int) -> None:
        check_run_id(record.id)
        self._run(
            f"commit run '{record.id}' version {record.version}",
            lambda conn: self._cas(conn, record, entry, expected_version),
            self._entry_landed(record.id, entry),
        )

    def create(self, record: RunRecord, entry: JournalEntry) -> None:
        check_run_id(record.id)
        params = run_params(record)
        params.update(entry_version=entry.version, ts=entry.ts, entry=compact(entry.to_dict()))

        def work(conn: psycopg.Connection[Any]) -> None:
            if conn.execute(self._sql_create, params).fetchone() is None:
                raise RunExists(record.id)

        self._run(f"create run '{record.id}'", work, self._entry_landed(record.id, entry))

    def import_run(
        self,
        record: RunRecord,
        entries: Sequence[JournalEntry],
        *,
        merge: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        """Write ``record`` and its whole journal in one transaction."""
        snapshots = {
            entry.version: compact(Snapshot.of(current).to_dict())
            for current, entry in self.import_steps(record, entries, merge)
            if self.snapshot_due(entry.version)
        }
        params = run_params(record)
        rows = [
            (record.id, e.version, e.ts, compact(e.to_dict()), snapshots.get(e.version))
            for e in entries
        ]

        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                inserted = conn.execute(
                    f"INSERT INTO {self._runs} (id, {RUN_COLUMNS}) VALUES (%(id)s, {RUN_VALUES})"
                    " ON CONFLICT (id) DO NOTHING RETURNING id",
                    params,
                ).fetchone()
                if inserted is None:
                    raise RunExists(record.id)
                with conn.cursor() as cur:
                    cur.executemany(
                        f"INSERT INTO {self._journal} (run_id, version, ts, entry, snapshot)"
                        " VALUES (%s, %s, %s, %s::json, %s::json)",
                        rows,
                    )

        self._run(f"import run '{record.id}'", work, self._entry_landed(record.id, entries[-1]))

    def delete(self, run_id: str, expected_version: int | None = None) -> bool:
        check_run_id(run_id)

        def work(conn: psycopg.Connection[Any]) -> bool:
            if expected_version is None:
                sql, params = f"DELETE FROM {self._runs} WHERE id = %s", (run_id,)
            else:  # the check and the delete in one statement: a commit can't slip between
                sql = f"DELETE FROM {self._runs} WHERE id = %s AND version = %s"
                params = (run_id, expected_version)  # type: ignore[assignment]
            if conn.execute(sql, params).rowcount > 0:
                return True
            if expected_version is None:
                return False
            row = conn.execute(
                f"SELECT version FROM {self._runs} WHERE id = %s", (run_id,)
            ).fetchone()
            if row is None:
                return False
            raise VersionConflict(run_id, expected_version, int(row[0]))

        return self._run(f"delete run '{run_id}'", work)

    # -- reads -----------------------------------------------------------------
    def get(self, run_id: str) -> RunRecord:
        check_run_id(run_id)
        row = self._run(
            f"read run '{run_id}'",
            lambda conn: conn.execute(
                "SELECT skill, version, state_text, step, status, created, updated, spec,"
                f" environment, observation, schema, meta FROM {self._runs} WHERE id = %s",
                (run_id,),
            ).fetchone(),
        )
        if row is None:
            raise RunNotFound(run_id)
        skill, version, state_text, step, status, created, updated, *rest = row
        spec, environment, observation, schema, meta = rest
        return RunRecord(
            id=run_id,
            skill=skill,
            state=json.loads(state_text),
            version=int(version),
            step=int(step),
            status=status,
            created=created,
            updated=updated,
            spec=spec,
            environment=environment,
            observation=observation,
            schema=schema,
            meta=meta,
        )

    def exists(self, run_id: str) -> bool:
        check_run_id(run_id)
        row = self._run(
            f"read run '{run_id}'",
            lambda conn: conn.execute(
                f"SELECT 1 FROM {self._runs} WHERE id = %s", (run_id,)
            ).fetchone(),
        )
        return row is not None

    def list(self, skill: str | None = None, keys: Sequence[str] = ()) -> builtins.list[RunSummary]:
        keys = tuple(dict.fromkeys(keys))
        # One text value per key, NULL unless the state has it as a string.
        picks = "".join(
            ", CASE WHEN jsonb_typeof(state -> %s::text) = 'string' THEN state ->> %s::text END"
            for _ in keys
        )
        params: list[Any] = [k for key in keys for k in (key, key)]
        sql = f"SELECT id, skill, status, updated, version{picks} FROM {self._runs}"
        if skill is not None:
            sql += " WHERE skill = %s"
            params.append(skill)
        rows = self._run(
            "list runs",
            lambda conn: conn.execute(sql + ' ORDER BY id COLLATE "C"', params).fetchall(),
        )
        return [
            RunSummary(
                id=r[0],
                skill=r[1],
                status=r[2],
                updated=r[3],
                version=int(r[4]),
                fields={k: v for k, v in zip(keys, r[5:], strict=True) if v is not None},
            )
            for r in rows
        ]

    def journal(self, run_id: str) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        rows = self._run(
            f"read the journal of run '{run_id}'",
            lambda conn: conn.execute(
                f"SELECT entry::text FROM {self._journal} WHERE run_id = %s ORDER BY version",
                (run_id,),
            ).fetchall(),
        )
        if not rows and not self.exists(run_id):
            raise RunNotFound(run_id)
        return [JournalEntry.from_dict(json.loads(r[0])) for r in rows]

    def journal_range(
        self, run_id: str, *, after: int = 0, before: int | None = None
    ) -> builtins.list[JournalEntry]:
        check_run_id(run_id)
        rows = self._run(
            f"read the journal of run '{run_id}'",
            lambda conn: conn.execute(
                f"SELECT entry::text FROM {self._journal} WHERE run_id = %s AND version > %s"
                " AND version < %s ORDER BY version",
                (run_id, after, (1 << 62) if before is None else before),
            ).fetchall(),
        )
        return [JournalEntry.from_dict(json.loads(r[0])) for r in rows]

    def snapshot(self, run_id: str, version: int) -> Snapshot | None:
        found = self._snapshots(run_id, " AND version <= %s ORDER BY version DESC LIMIT 1", version)
        return found[0] if found else None

    def snapshots(self, run_id: str) -> builtins.list[Snapshot]:
        return self._snapshots(run_id, " ORDER BY version")

    def _snapshots(self, run_id: str, rest: str, *params: Any) -> builtins.list[Snapshot]:
        check_run_id(run_id)
        rows = self._run(
            f"read the snapshots of run '{run_id}'",
            lambda conn: conn.execute(
                f"SELECT version, snapshot::text FROM {self._journal} WHERE run_id = %s"
                " AND snapshot IS NOT NULL" + rest,
                (run_id, *params),
            ).fetchall(),
        )
        try:
            return [Snapshot.from_dict(int(v), json.loads(text)) for v, text in rows]
        except ValueError as exc:
            raise StoreError(f"run '{run_id}' has a damaged snapshot: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
