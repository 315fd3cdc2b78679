"""Where an HTTP server runs a tool call: on a worker thread, always (:class:`ThreadPolicy`).

The server's event loop must never wait on a store: a call that blocks on another
process's ``flock`` (the file store's commit lock), a slow disk or a remote database,
or a CPU-heavy call (a megabyte turn text), held up every other request, ``/health``
included, while it ran inline (issue 16). So :func:`shared_policy` sends every call to
a worker thread (``anyio.to_thread``), whatever recent calls took.

:class:`OffloadPolicy`, the adaptive policy the server used before, is kept for
programs that choose it knowingly (a single-client server on a local disk):

A worker thread keeps the event loop serving other requests while a call waits on a
slow store (a remote PostgreSQL, a network file system). But every call sent to one
costs two thread hand-offs, and on a virtual machine whose idle CPUs halt, each is a
wake-up. On a local file store that is more than the whole commit: measured here over
Streamable HTTP, one client made 168–188 calls/s with every call on a thread and
185–242 with every call inline; four concurrent clients 274–336 against 396–421 (the
GIL serialises the CPU work either way; docs/benchmarks.md).

So :class:`OffloadPolicy` keeps the median of the last ``window`` (16) calls that ran
inline. While it is under ``slow_after`` (5 ms), calls run inline. Above it, they go to
threads, and one call in ``probe_every`` (32) still runs inline to measure again, until
the median falls under ``fast_below`` (2.5 ms): two thresholds, so the choice does not
flap, and a median, so one stall (a garbage collection, a disk hiccup: 12–56 ms were
seen among ~1 ms calls) does not move it. Calls on threads are not timed: they wait for
the GIL while the loop works, so their wall time says little about the store. A store
that turns slow costs at most the few calls that move the median, and then one blocked
call in 32.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

__all__ = ["OffloadPolicy", "ThreadPolicy", "shared_policy"]

T = TypeVar("T")


class OffloadPolicy:
    """Inline while recent calls were quick (their median); threads while they were slow."""

    def __init__(
        self,
        slow_after: float = 0.005,
        fast_below: float = 0.0025,
        window: int = 16,
        probe_every: int = 32,
    ) -> None:
        if not 0 < fast_below <= slow_after:
            raise ValueError("need 0 < fast_below <= slow_after")
        if window < 1:
            raise ValueError("window must be at least 1")
        if probe_every < 1:
            raise ValueError("probe_every must be at least 1")
        self.slow_after = slow_after
        self.fast_below = fast_below
        self.probe_every = probe_every
        self.recent: deque[float] = deque(maxlen=window)
        self.threaded = False
        self._since_probe = 0

    @property
    def median(self) -> float:
        """The median duration of the last calls timed inline (0 before any)."""
        import statistics  # only this policy needs it; the server's is ThreadPolicy

        return statistics.median(self.recent) if self.recent else 0.0

    def record(self, seconds: float) -> None:
        """Add one inline call's duration and decide where the next one runs."""
        self.recent.append(seconds)
        median = self.median
        if self.threaded and median < self.fast_below:
            self.threaded = False
        elif not self.threaded and median > self.slow_after:
            self.threaded = True

    def _timed(self, fn: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.record(time.perf_counter() - start)

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` inline (timed) or on a worker thread, as the recent calls say."""
        if self.threaded:
            self._since_probe += 1
            if self._since_probe < self.probe_every:
                return await anyio.to_thread.run_sync(fn)
            self._since_probe = 0  # this one runs inline, to measure again
        return self._timed(fn)


class ThreadPolicy:
    """Every call on a worker thread: the event loop never waits on the store."""

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on a worker thread (anyio's default limiter) and return its result."""
        return await anyio.to_thread.run_sync(fn)


_SHARED = ThreadPolicy()


def shared_policy() -> ThreadPolicy:
    """The process's policy for offloaded calls: a worker thread each."""
    return _SHARED
