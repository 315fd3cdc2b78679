"""Session limits for a shared server: the active-session count and idle sessions.

Both read the store's listing (status and last write time of every run) and then
the records of the active runs that are sessions; :class:`~skillstate.runtime.Runtime`
closes idle sessions (``session_idle_ttl``) and refuses a new session beyond
``max_active_sessions`` when a session is created or forked, and sweeps idle ones
when sessions are listed — lazily, as the reference server does.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from skillstate.errors import RunNotFound
from skillstate.records import RunRecord
from skillstate.retention import parse_timestamp
from skillstate.runtime import payloads as pl
from skillstate.store import Store

__all__ = ["active_sessions", "idle_sessions"]


def _active(store: Store) -> Iterator[RunRecord]:
    for summary in store.list():
        if summary.status != "active":
            continue
        try:
            record = store.get(summary.id)
        except RunNotFound:
            continue
        if pl.is_session(record) and record.status == "active":
            yield record


def active_sessions(store: Store) -> int:
    """How many sessions in ``store`` are active."""
    return sum(1 for _ in _active(store))


def idle_sessions(store: Store, ttl: float, now: datetime | None = None) -> list[RunRecord]:
    """The active sessions last written more than ``ttl`` seconds ago (none for ``ttl <= 0``)."""
    if ttl <= 0:
        return []
    cutoff = (now or datetime.now(UTC)) - timedelta(seconds=ttl)
    found = []
    for record in _active(store):
        updated = parse_timestamp(record.updated)
        if updated is not None and updated < cutoff:
            found.append(record)
    return found
