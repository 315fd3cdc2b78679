"""The ``postgresql:`` store's tables: their definitions, migrations and row encoding.

Tables (in the chosen schema): ``skillstate_runs`` — one row per run; ``state`` is
``jsonb`` for queries and indexes, ``state_text`` the exact canonical JSON the store
reads back (``jsonb`` neither keeps key order nor accepts ``\\u0000``); ``spec``,
``environment``, ``observation``, ``schema`` and ``meta`` are ``json`` (exact text,
key order kept, ``\\u0000`` kept as an escape: read a string one with ``#>> '{}'``).
``skillstate_journal`` — ``(run_id, version)`` primary key, ``ts``, the entry as
``json``, and on every ``SNAPSHOT_INTERVAL``-th version a ``snapshot`` (``json``:
state, status, step); rows go with their run (``ON DELETE CASCADE``). ``skillstate_meta`` records
the schema version. A NUL can only reach ``state`` through the store API (the
pipeline refuses it); the ``jsonb`` copy then shows it as U+FFFD, ``state_text`` and
everything read back keep it.

Schema creation (:func:`migrate`) runs under ``pg_advisory_xact_lock`` so processes
starting together do not collide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillstate.plugin import RunRecord, compact

if TYPE_CHECKING:
    import psycopg

__all__ = ["LOCK_KEY", "MIGRATIONS", "RUN_COLUMNS", "RUN_VALUES", "migrate", "run_params"]

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
    # 1: a snapshot (state, status, step) on every SNAPSHOT_INTERVAL-th journal row, so
    # reading an old version replays at most that many entries.
    ("ALTER TABLE {s}.skillstate_journal ADD COLUMN IF NOT EXISTS snapshot json",),
)

RUN_VALUES = (
    "%(skill)s, %(version)s, %(state)s::jsonb, %(state_text)s, %(step)s, %(status)s,"
    " %(created)s, %(updated)s, %(spec)s::json, %(environment)s::json,"
    " %(observation)s::json, %(schema)s::json, %(meta)s::json"
)
"""The placeholders of :data:`RUN_COLUMNS`, filled by :func:`run_params`."""
RUN_COLUMNS = (
    "skill, version, state, state_text, step, status, created, updated, spec, environment,"
    " observation, schema, meta"
)
"""Every column of ``skillstate_runs`` but ``id``."""


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


def run_params(record: RunRecord) -> dict[str, Any]:
    """The parameters of a ``skillstate_runs`` row (``id`` and :data:`RUN_VALUES`)."""
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


def migrate(conn: psycopg.Connection[Any], schema: str) -> None:
    """Create ``schema`` and bring its tables to the last of :data:`MIGRATIONS`."""
    s = f'"{schema}"'
    found = conn.execute(
        "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = %s AND tablename = %s",
        (schema, "skillstate_meta"),
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
