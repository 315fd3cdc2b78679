"""The ``postgresql:`` store's implementation (registered by :mod:`skillstate_plugins.postgres_store`).

Runs shared by many processes and machines (psycopg 3 + a pool).

URLs are libpq URIs (``postgresql://user:pw@host:5432/db`` or ``postgres://…``) with
the store's own query options, removed before connecting:

- ``schema=NAME`` — the PostgreSQL schema holding the tables (default ``public``;
  created if missing), so several stores or test runs can share one database;
- ``pool_max=N`` (default 8) and ``pool_min=N`` (default 1) — connections per store;
- ``pool_timeout=SECONDS`` (default 10) — how long to wait to connect or for a free
  connection before failing with :class:`~skillstate.errors.StoreError`.

Other options (``sslmode``, ``connect_timeout``, ``application_name``…) go to libpq.

Tables (in the chosen schema): ``skillstate_runs`` — one row per run; ``state`` is
``jsonb`` for queries and indexes, ``state_text`` the exact canonical JSON the store
reads back (``jsonb`` neither keeps key order nor accepts ``\\u0000``); ``spec``,
``environment``, ``observation``, ``schema`` and ``meta`` are ``json`` (exact text,
key order kept, ``\\u0000`` kept as an escape: read a string one with ``#>> '{}'``).
``skillstate_journal`` — ``(run_id, version)`` primary key, ``ts``, the entry as
``json``; rows go with their run (``ON DELETE CASCADE``). ``skillstate_meta`` records
the schema version. A NUL can only reach ``state`` through the store API (the
pipeline refuses it); the ``jsonb`` copy then shows it as U+FFFD, ``state_text`` and
everything read back keep it.

Writes: a commit is ONE statement — ``UPDATE … WHERE id = $id AND version =
$expected`` feeding the journal ``INSERT`` in a CTE — so the version check, the record
and the journal entry commit together (one round trip, fsynced by the server). Under
READ COMMITTED a concurrent commit on the same run waits for the row lock, re-checks
the version and matches nothing: a conflict, never a fork. Schema creation runs under
``pg_advisory_xact_lock`` so processes starting together do not collide.

Connections: a connection that died (server restart, ``pg_terminate_backend``,
network) is dropped and the operation retried once on a fresh one. A write whose
outcome is unknown (the connection died while committing) is looked up first: if its
journal entry is there it succeeded; if not it is retried, still guarded by the
version check; if that fails too the error says so and nothing is half-written.
"""

from __future__ import annotations

import builtins
import json
import re
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from skillstate.errors import RunExists, RunNotFound, StoreError, VersionConflict
from skillstate.jsondoc import compact
from skillstate.records import JournalEntry, RunRecord, RunSummary
from skillstate.store import Store, check_import, check_run_id

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

__all__ = ["PostgresStore", "parse_postgres_url"]

T = TypeVar("T")
SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
OUR_OPTIONS = ("schema", "pool_min", "pool_max", "pool_timeout")
LOCK_KEY = 0x5C17_57A7E  # pg_advisory_xact_lock key for schema creation

# The list index is the schema version; never edit an entry, append a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS {s}.skillstate_runs (
            id text PRIMARY KEY,
            skill text NOT NULL,
            version bigint NOT NULL,
            state jsonb NOT NULL,
            state_text text NOT NULL,
            step integer NOT NULL,
            status text NOT NULL,
            created text NOT NULL,
            updated text NOT NULL,
            spec json,
            environment json,
            observation json,
            schema json,
            meta json NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS skillstate_runs_skill ON {s}.skillstate_runs (skill, id)",
        """CREATE TABLE IF NOT EXISTS {s}.skillstate_journal (
            run_id text NOT NULL REFERENCES {s}.skillstate_runs (id) ON DELETE CASCADE,
            version bigint NOT NULL,
            ts text NOT NULL,
            entry json NOT NULL,
            PRIMARY KEY (run_id, version)
        )""",
    ),
)

_RUN_VALUES = (
    "%(skill)s, %(version)s, %(state)s::jsonb, %(state_text)s, %(step)s, %(status)s,"
    " %(created)s, %(updated)s, %(spec)s::json, %(environment)s::json,"
    " %(observation)s::json, %(schema)s::json, %(meta)s::json"
)
_RUN_COLUMNS = (
    "skill, version, state, state_text, step, status, created, updated, spec, environment,"
    " observation, schema, meta"
)


def parse_postgres_url(url: str) -> tuple[str, dict[str, Any]]:
    """Split a store URL into the libpq URI and the store's own options (validated)."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("postgresql", "postgres"):
        raise StoreError(
            f"bad PostgreSQL URL: expected postgresql://..., got scheme '{parts.scheme}'"
        )
    ours: dict[str, str] = {}
    theirs: list[tuple[str, str]] = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        (ours.__setitem__(key, value) if key in OUR_OPTIONS else theirs.append((key, value)))
    schema = ours.get("schema", "public")
    if not SCHEMA_NAME.fullmatch(schema):
        raise StoreError(
            f"bad PostgreSQL URL: schema '{schema}' must be letters, digits and _ "
            "(not starting with a digit), at most 63 characters"
        )
    options: dict[str, Any] = {"schema": schema}
    for key, default, kind in (
        ("pool_min", 1, int),
        ("pool_max", 8, int),
        ("pool_timeout", 10.0, float),
    ):
        raw = ours.get(key)
        try:
            value = kind(raw) if raw is not None else default
        except ValueError:
            raise StoreError(f"bad PostgreSQL URL: {key} must be a number, got '{raw}'") from None
        if (value <= 0 and key != "pool_min") or value < 0:
            raise StoreError(f"bad PostgreSQL URL: {key} must be positive, got '{raw}'")
        options[key] = value
    if options["pool_min"] > options["pool_max"]:
        raise StoreError("bad PostgreSQL URL: pool_min is larger than pool_max")
    if not any(k == "application_name" for k, _ in theirs):
        theirs.append(("application_name", "skillstate"))
    conninfo = urlunsplit(parts._replace(query=urlencode(theirs)))
    return conninfo, options


def redact(url: str) -> str:
    """``url`` without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    return value


def _json_or_none(value: Any) -> str | None:
    return None if value is None else compact(value)


def _run_params(record: RunRecord) -> dict[str, Any]:
    state_text = compact(record.state)
    jsonb = state_text
    if "\\u0000" in state_text:  # jsonb refuses NUL; the exact text stays in state_text
        jsonb = compact(_without_nul(record.state))
    return {
        "id": record.id,
        "skill": record.skill,
        "version": record.version,
        "state": jsonb,
        "state_text": state_text,
        "step": record.step,
        "status": record.status,
        "created": record.created,
        "updated": record.updated,
        "spec": _json_or_none(record.spec),
        "environment": _json_or_none(record.environment),
        "observation": _json_or_none(record.observation),
        "schema": _json_or_none(record.schema),
        "meta": compact(record.meta),
    }


class PostgresStore(Store):
    """Runs in PostgreSQL tables; the pool is opened (and the schema created) on first use."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conninfo, self.options = parse_postgres_url(url)
        self.schema: str = self.options["schema"]
        s = f'"{self.schema}"'
        self._runs, self._journal = f"{s}.skillstate_runs", f"{s}.skillstate_journal"
        self._pool: psycopg_pool.ConnectionPool[Any] | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._sql_commit = (
            f"WITH updated AS (UPDATE {self._runs} SET ({_RUN_COLUMNS}) = ({_RUN_VALUES})"
            " WHERE id = %(id)s AND version = %(expected)s RETURNING id)"
            f" INSERT INTO {self._journal} (run_id, version, ts, entry)"
            " SELECT id, %(entry_version)s, %(ts)s, %(entry)s::json FROM updated RETURNING version"
        )
        self._sql_create = (
            f"WITH created AS (INSERT INTO {self._runs} (id, {_RUN_COLUMNS})"
            f" VALUES (%(id)s, {_RUN_VALUES}) ON CONFLICT (id) DO NOTHING RETURNING id)"
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
            import psycopg
            import psycopg_pool

            pool = psycopg_pool.ConnectionPool(
                self.conninfo,
                min_size=self.options["pool_min"],
                max_size=self.options["pool_max"],
                timeout=self.options["pool_timeout"],
                kwargs={"autocommit": True},
                open=False,
                name=f"skillstate:{self.schema}",
            )
            try:
                pool.open(wait=True, timeout=self.options["pool_timeout"])
                with pool.connection() as conn:
                    self._migrate(conn)
            except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
                pool.close()
                raise StoreError(
                    f"cannot connect to PostgreSQL at {redact(self.url)}: {exc}".rstrip()
                ) from exc
            self._pool = pool
            return pool

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        s = f'"{self.schema}"'
        found = conn.execute(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = %s AND tablename = %s",
            (self.schema, "skillstate_meta"),
        ).fetchone()
        if found:
            row = conn.execute(
                f"SELECT value FROM {s}.skillstate_meta WHERE key = 'schema_version'"
            ).fetchone()
            if row and int(row[0]) >= len(MIGRATIONS):
                return
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {s}")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {s}.skillstate_meta"
                " (key text PRIMARY KEY, value text NOT NULL)"
            )
            row = conn.execute(
                f"SELECT value FROM {s}.skillstate_meta WHERE key = 'schema_version'"
            ).fetchone()
            current = int(row[0]) if row else 0
            for statements in MIGRATIONS[current:]:
                for statement in statements:
                    conn.execute(statement.format(s=s))
            conn.execute(
                f"INSERT INTO {s}.skillstate_meta (key, value) VALUES ('schema_version', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (str(max(current, len(MIGRATIONS))),),
            )

    def _run(
        self,
        what: str,
        work: Callable[[psycopg.Connection[Any]], T],
        landed: Callable[[psycopg.Connection[Any]], bool] | None = None,
    ) -> T:
        """Run ``work`` on a pooled connection; on a dead connection, retry once.

        ``landed`` (for writes) tells whether a write whose outcome is unknown did commit.
        """
        import psycopg
        import psycopg_pool

        pool = self._open()
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
        params = _run_params(record)
        params.update(
            expected=expected,
            entry_version=entry.version,
            ts=entry.ts,
            entry=compact(entry.to_dict()),
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
        params = _run_params(record)
        params.update(entry_version=entry.version, ts=entry.ts, entry=compact(entry.to_dict()))

        def work(conn: psycopg.Connection[Any]) -> None:
            if conn.execute(self._sql_create, params).fetchone() is None:
                raise RunExists(record.id)

        self._run(f"create run '{record.id}'", work, self._entry_landed(record.id, entry))

    def import_run(self, record: RunRecord, entries: Sequence[JournalEntry]) -> None:
        """Write ``record`` and its whole journal in one transaction."""
        check_run_id(record.id)
        check_import(record, entries)
        params = _run_params(record)
        rows = [(record.id, e.version, e.ts, compact(e.to_dict())) for e in entries]

        def work(conn: psycopg.Connection[Any]) -> None:
            with conn.transaction():
                inserted = conn.execute(
                    f"INSERT INTO {self._runs} (id, {_RUN_COLUMNS}) VALUES (%(id)s, {_RUN_VALUES})"
                    " ON CONFLICT (id) DO NOTHING RETURNING id",
                    params,
                ).fetchone()
                if inserted is None:
                    raise RunExists(record.id)
                with conn.cursor() as cur:
                    cur.executemany(
                        f"INSERT INTO {self._journal} (run_id, version, ts, entry)"
                        " VALUES (%s, %s, %s, %s::json)",
                        rows,
                    )

        self._run(f"import run '{record.id}'", work, self._entry_landed(record.id, entries[-1]))

    def delete(self, run_id: str) -> bool:
        check_run_id(run_id)
        return self._run(
            f"delete run '{run_id}'",
            lambda conn: (
                conn.execute(f"DELETE FROM {self._runs} WHERE id = %s", (run_id,)).rowcount > 0
            ),
        )

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

    def list(self, skill: str | None = None) -> builtins.list[RunSummary]:
        def text(key: str) -> str:
            return f"CASE WHEN jsonb_typeof(state -> '{key}') = 'string' THEN state ->> '{key}' END"

        sql = (
            f"SELECT id, skill, {text('phase')}, status, updated, {text('nextAction')}, version"
            f" FROM {self._runs}"
        )
        params: tuple[Any, ...] = ()
        if skill is not None:
            sql, params = sql + " WHERE skill = %s", (skill,)
        rows = self._run(
            "list runs",
            lambda conn: conn.execute(sql + ' ORDER BY id COLLATE "C"', params).fetchall(),
        )
        return [
            RunSummary(
                id=r[0],
                skill=r[1],
                phase=r[2],
                status=r[3],
                updated=r[4],
                next_action=r[5],
                version=int(r[6]),
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

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
