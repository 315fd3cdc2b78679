"""The store listing behind the inspector's list page, kept briefly and refreshed in the background."""

from __future__ import annotations

import logging
import threading
import time
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillstate.plugin import Host, RunSummary, Store

__all__ = ["LISTING_TTL", "Listing", "skill_keys", "summaries_of"]

log = logging.getLogger(__package__)

LISTING_TTL = 2.0
"""Seconds a store listing is served before it is read again (in the background)."""


def skill_keys(host: Host) -> tuple[dict[str, tuple[str, str | None]], list[str]]:
    skills: dict[str, tuple[str, str | None]] = {}
    for skill in host.skills:
        skills[skill.name] = (skill.phase_key, skill.next_action_key)
    keys = sorted({k for pair in skills.values() for k in pair if k})
    return skills, keys


def summaries_of(host: Host, store: Store) -> tuple[list[RunSummary], int]:
    """Every summary, and how many runs the store skipped as unreadable.

    A store says it skipped a run it cannot read with a warning (a ``UserWarning``,
    ``docs/stores.md``) while it lists: each one is counted.
    """
    _, keys = skill_keys(host)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        summaries = store.list(None, keys=keys)
    skipped = sum(1 for w in caught if issubclass(w.category, UserWarning))
    return summaries, skipped


class Listing:
    """The store's listing, kept for :data:`LISTING_TTL` seconds and then read again.

    Reading 10,000 run records takes a noticeable fraction of a second on the file
    store, so every filter, search and page is answered from the last listing: the
    first request reads it, and a request finding it older than ``ttl`` is answered
    at once from it while one background thread reads a fresh one (stale while
    revalidating). A run created meanwhile appears within about ``ttl`` seconds. A
    run's own page always reads the store.
    """

    def __init__(self, ttl: float = LISTING_TTL) -> None:
        self.ttl = ttl
        self._lock = threading.Lock()
        self._data: tuple[list[RunSummary], int, float] | None = None
        self._wanted = threading.Event()
        self._worker: threading.Thread | None = None

    def get(self, host: Host, store: Store) -> tuple[list[RunSummary], int, float]:
        """``(summaries, skipped, when)``; ``when`` is the listing's ``time.time()``."""
        data = self._data
        if data is None:
            with self._lock:
                if self._data is None:
                    self._data = (*summaries_of(host, store), time.time())
                return self._data
        if time.time() - data[2] > self.ttl:
            with self._lock:
                if self._worker is None:  # one thread for every refresh: one store connection
                    self._worker = threading.Thread(
                        target=self._refresh, args=(host, store), daemon=True
                    )
                    self._worker.start()
            self._wanted.set()
        return data

    def _refresh(self, host: Host, store: Store) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            try:
                fresh = (*summaries_of(host, store), time.time())
            except Exception as exc:  # the next request asks again; the old listing stays
                from .app import public_message

                log.warning(
                    "inspector: the store listing could not be refreshed (the list shows "
                    "the one from before): %s",
                    public_message(f"{type(exc).__name__}: {exc}"),
                )
                continue
            with self._lock:
                self._data = fresh
