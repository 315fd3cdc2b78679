"""What every part of :class:`~skillstate.runtime.Runtime` shares: the host, the store,
reading a session, the skill it is checked against, and retrying a compare-and-swap.

:mod:`skillstate.runtime.sessions` builds the ``Runtime`` from this base and the mixins
of :mod:`skillstate.runtime.creating` (sessions created, listed, capped, expired) and
:mod:`skillstate.runtime.travel` (a session's past: at a step, history, fork, rewind).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from skillstate.errors import RunNotFound, VersionConflict
from skillstate.host import Host
from skillstate.records import RunRecord
from skillstate.records.skills import ADHOC_SKILL
from skillstate.runtime import payloads as pl
from skillstate.runtime.errors import SessionBusy, SessionCorrupt, SessionNotActive, SessionNotFound
from skillstate.runtime.inputs import SessionLimits
from skillstate.store import Store

__all__ = ["ADHOC_SKILL", "MAX_ATTEMPTS", "RuntimeBase"]

MAX_ATTEMPTS = 200


class RuntimeBase:
    """The host, store and limits of a runtime, and the reads every call starts with."""

    def __init__(
        self,
        store: str | None = None,
        *,
        host: Host | None = None,
        limits: SessionLimits | None = None,
        max_active_sessions: int | None = None,
        session_idle_ttl: float | None = None,
        listing_age: float = 10.0,
    ) -> None:
        self._owns_host = host is None
        self.host = host if host is not None else Host.from_config()
        config = self.host.config
        self.limits = (
            limits if limits is not None else SessionLimits(spec_bytes=config.max_spec_bytes)
        )
        self.store: Store = self.host.open_store(store)
        self.max_active_sessions: int = (
            config.max_active_sessions if max_active_sessions is None else max_active_sessions
        )
        self.session_idle_ttl: float = (
            config.session_idle_ttl if session_idle_ttl is None else session_idle_ttl
        )
        self.listing_age = listing_age
        """Seconds a listing of the store answers the session limits (0: list every time,
        for a cap exact across processes at the cost of a listing per creation)."""

    def close(self) -> None:
        """Release the store (only when this runtime built its own host)."""
        if self._owns_host:
            self.host.close()

    def _load(self, session_id: str) -> RunRecord:
        try:
            record = self.store.get(session_id)
        except RunNotFound:
            raise SessionNotFound(session_id) from None
        if not pl.is_session(record):
            raise SessionNotFound(session_id)
        spec_hash = record.meta.get("spec_sha256")
        if record.spec is None or spec_hash != pl.spec_digest(record.spec):
            raise SessionCorrupt(
                f'session "{session_id}": the stored skill specification P no longer matches '
                "its hash; the store was changed outside skillstate (P is immutable)"
            )
        return record

    def _active(self, session_id: str, what: str) -> RunRecord:
        record = self._load(session_id)
        if record.status != "active":
            raise SessionNotActive(session_id, record.status, what)
        return record

    def _status_of(self, session_id: str) -> str:
        try:
            return self.store.get(session_id).status
        except RunNotFound:
            return "active"

    def _retry(
        self, session_id: str, attempt: Callable[[], dict[str, Any] | None]
    ) -> dict[str, Any]:
        """Run ``attempt`` until it is not beaten by a concurrent writer (it returns ``None`` then)."""
        for n in range(1, MAX_ATTEMPTS + 1):
            try:
                result = attempt()
            except VersionConflict:
                result = None
            if result is not None:
                return result
            time.sleep(min(0.0005 * n, 0.02))
        raise SessionBusy(session_id, MAX_ATTEMPTS)
