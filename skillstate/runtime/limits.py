"""Session limits for a shared server: the active-session count and idle sessions.

:class:`SessionIndex` answers both from the store's listing (one ``Store.list``: each
run's status, version and last write time), taken again when it is 10 s old or before
it would refuse a session, and remembers which runs are sessions, so a record is read
only for a run it has not seen at that version: creating a session does not cost more
in a bigger store.
:class:`~skillstate.runtime.Runtime` closes idle sessions (``session_idle_ttl``) and
then refuses a new session beyond ``max_active_sessions`` when a session is created or
forked, and sweeps idle ones when sessions are listed — lazily, as the reference
server does. Two processes creating sessions at once both count after creating: one
that finds more than the cap removes its own new session and is refused, so the cap
holds even under a race (both may be refused; a retry then succeeds).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from skillstate.errors import RunNotFound, SkillstateError, VersionConflict
from skillstate.host import Host
from skillstate.pipeline import Change
from skillstate.records import RunRecord, RunSummary
from skillstate.retention import parse_timestamp
from skillstate.runtime import payloads as pl
from skillstate.store import Store

__all__ = ["SessionIndex", "expire_idle"]

log = logging.getLogger("skillstate.runtime")


LISTING_AGE = 10.0
"""Seconds a listing of the store answers the limits before the store is listed again."""


class SessionIndex:
    """Which runs of a store are active sessions, from its listing (records read once).

    A listing costs what the store weighs (every record, in the file store), so it is
    taken again only when it is :data:`LISTING_AGE` seconds old, or when an answer from
    it would refuse a session (:meth:`count` with ``fresh=True``): a creation costs
    the same in a store of 10 runs or of 10,000. The runtime tells the index of the
    sessions it creates (:meth:`created`), so within one process the count is exact;
    sessions another process created since the last listing are seen at the next one.
    """

    def __init__(
        self,
        store: Store,
        max_age: float = LISTING_AGE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.max_age = max_age
        self._clock = clock
        self._seen: dict[str, tuple[int, bool]] = {}  # run id -> (version, is a session)
        self._active: dict[str, RunSummary] = {}
        self._listed_at: float | None = None
        self._lock = threading.Lock()

    def active(self, fresh: bool = False) -> list[RunSummary]:
        """The summaries of the active sessions, by id (``fresh``: from a new listing)."""
        with self._lock:
            now = self._clock()
            if fresh or self._listed_at is None or now - self._listed_at >= self.max_age:
                self._active = {s.id: s for s in self._list()}
                self._listed_at = now
            return [self._active[run_id] for run_id in sorted(self._active)]

    def created(self, record: RunRecord) -> None:
        """A session this process just created counts at once, before the next listing."""
        with self._lock:
            self._active[record.id] = RunSummary.of(record)
            self._seen[record.id] = (record.version, True)

    def _list(self) -> list[RunSummary]:
        found = []
        listed = set()
        for summary in self.store.list():
            listed.add(summary.id)
            if summary.status != "active":
                continue
            known = self._seen.get(summary.id)
            if known is None or known[0] != summary.version:
                try:
                    record = self.store.get(summary.id)
                except RunNotFound:
                    continue
                known = (summary.version, pl.is_session(record))
                self._seen[summary.id] = known
            if known[1]:
                found.append(summary)
        for run_id in self._seen.keys() - listed:
            self._seen.pop(run_id, None)  # another thread may have dropped it
        return found

    def count(self, fresh: bool = False) -> int:
        """How many sessions are active (``fresh``: from a new listing)."""
        return len(self.active(fresh))

    def idle(self, ttl: float, now: datetime | None = None) -> list[RunSummary]:
        """The active sessions last written more than ``ttl`` seconds ago (none for ``ttl <= 0``)."""
        if ttl <= 0:
            return []
        cutoff = (now or datetime.now(UTC)) - timedelta(seconds=ttl)
        out = []
        for summary in self.active():
            updated = parse_timestamp(summary.updated)
            if updated is not None and updated < cutoff:
                out.append(summary)
        return out


def expire_idle(
    host: Host,
    index: SessionIndex,
    ttl: float,
) -> list[str]:
    """Close every session idle for ``ttl`` seconds (``expire_session``, ``meta.closed_reason``
    ``idle``); the ids closed. One written meanwhile loses the compare-and-swap and stays.

    A session whose skill is no longer registered is closed with the ad hoc skill (closing
    keeps the state as it is, so no rule of the skill is at stake); a session that still
    cannot be closed is logged and skipped, never stopping the sweep of the others.
    """
    from skillstate.errors import SkillNotFound
    from skillstate.records.skills import ADHOC_SKILL
    from skillstate.runtime.steps import commit_change

    store = index.store
    closed = []
    for summary in index.idle(ttl):
        change = Change(
            keep_state=True,
            label="expire_session",
            status="closed",
            meta={"closed_reason": "idle"},
        )
        try:
            record = store.get(summary.id)
            if record.version != summary.version or record.status != "active":
                continue  # written meanwhile: not idle any more
            try:
                skill = host.run_skill(record)
            except SkillNotFound:
                skill = ADHOC_SKILL
            outcome = commit_change(host, store, record, skill, change)
        except (VersionConflict, RunNotFound):
            continue  # written or removed meanwhile: not idle any more
        except SkillstateError as exc:
            log.warning(
                "session %s could not be closed after %.0f s idle: %s", summary.id, ttl, exc
            )
            continue
        if outcome.accepted:
            closed.append(summary.id)
            log.debug("session %s closed after %.0f s idle", summary.id, ttl)
        else:
            log.warning(
                "session %s could not be closed after %.0f s idle: %s",
                summary.id,
                ttl,
                pl.reasons(outcome.problems),
            )
    return closed
