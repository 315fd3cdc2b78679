"""The ``sqlite:`` store's tables: their migrations, and how a record and an entry become rows.

``runs`` holds one row per run: the summary columns :meth:`SQLiteStore.list` reads
without parsing documents, and the whole record as canonical JSON text (key order and
``\\u0000`` survive). ``journal`` holds one row per version, with a snapshot (state,
status, step as JSON) on every version ``Store.snapshot_due`` names (every 1000th).
``PRAGMA user_version`` is the number of migrations applied. :func:`parse_stored`
reads a document back.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from skillstate.plugin import InvalidInput, JournalEntry, RunRecord, Snapshot, compact, parse_json

__all__ = [
    "MIGRATIONS",
    "insert_entry",
    "insert_run",
    "migrate",
    "parse_stored",
    "run_columns",
    "update_run",
]

_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_stored(text: str, what: str) -> Any:
    """A document this store kept; ``ValueError`` if it is not JSON or not valid Unicode.

    Like :func:`json.loads` (NaN and Infinity refused). Text holding an escaped lone
    surrogate (``\\ud800``: half of a pair, a hand edit) is refused with the path the
    core's parser names, so a damaged run is reported as damaged instead of breaking
    the commands that print it; only text with such an escape is checked further.
    """
    value = json.loads(text, parse_constant=_refuse_constant)
    if "\\u" in text and _ESCAPED_SURROGATE.search(text) is not None:
        try:
            parse_json(text, what)
        except InvalidInput as exc:
            if "not valid Unicode" in str(exc):
                raise ValueError(str(exc)) from None
    return value


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


def migrate(conn: sqlite3.Connection) -> None:
    """Apply the migrations ``conn``'s database lacks, in one ``BEGIN IMMEDIATE`` transaction."""
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


def run_columns(record: RunRecord) -> tuple[object, ...]:
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


def insert_run(conn: sqlite3.Connection, record: RunRecord) -> None:
    conn.execute(
        "INSERT INTO runs (id, skill, version, step, status, created, updated, record)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (record.id, *run_columns(record)),
    )


def update_run(conn: sqlite3.Connection, record: RunRecord) -> None:
    conn.execute(
        "UPDATE runs SET skill = ?, version = ?, step = ?, status = ?, created = ?,"
        " updated = ?, record = ? WHERE id = ?",
        (*run_columns(record), record.id),
    )


def insert_entry(
    conn: sqlite3.Connection, run_id: str, entry: JournalEntry, snapshot: Snapshot | None = None
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
