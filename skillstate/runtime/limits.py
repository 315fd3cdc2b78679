"""Session limits for a shared server: the active-session count and idle sessions.

Both read the store's listing (status and last write time of every run) and then
the records of the active runs that are sessions; :class:`~skillstate.runtime.Runtime`
closes idle sessions (``session_idle_ttl``) and refuses a new session beyond
``max_active_sessions`` when a session is created or forked, and sweeps idle ones
when sessions are listed — lazily, as the reference server does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

from skillstate.errors import RunNotFound, VersionConflict
from skillstate.host import Host
from skillstate.pipeline import Change
from skillstate.records import RunRecord, SkillDefinition
from skillstate.retention import parse_timestamp
from skillstate.runtime import payloads as pl
from skillstate.store import Store

__all__ = ["active_sessions", "expire_idle", "idle_sessions"]

log = logging.getLogger("skillstate.runtime")


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


def expire_idle(
    host: Host, store: Store, ttl: float, skill_of: Callable[[RunRecord], SkillDefinition]
) -> list[str]:
    """Close every session idle for ``ttl`` seconds (``expire_session``, ``meta.closed_reason``
    ``idle``); the ids closed. One written meanwhile loses the compare-and-swap and stays."""
    from skillstate.runtime.steps import commit_change

    closed = []
    for record in idle_sessions(store, ttl):
        change = Change(
            keep_state=True,
            label="expire_session",
            status="closed",
            meta={"closed_reason": "idle"},
        )
        try:
            outcome = commit_change(host, store, record, skill_of(record), change)
        except (VersionConflict, RunNotFound):
            continue  # written or removed meanwhile: not idle any more
        if outcome.accepted:
            closed.append(record.id)
            log.debug("session %s closed after %.0f s idle", record.id, ttl)
    return closed
