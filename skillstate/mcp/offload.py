"""Where an HTTP server runs a tool call: on the event loop while calls are quick, on a
worker thread once they are slow.

A worker thread keeps the event loop serving other requests while a call waits on a
slow store (a remote PostgreSQL, a network file system). But every call sent to one
costs two thread hand-offs, and on a virtual machine whose idle CPUs halt, each is a
wake-up. On a local file store that is more than the whole commit: measured here over
Streamable HTTP, one client made 168–188 calls/s with every call on a thread and
185–242 with every call inline; four concurrent clients 274–336 against 396–421 (the
GIL serialises the CPU work either way; docs/benchmarks.md).

So :class:`OffloadPolicy` keeps a moving average of how long calls take. While it is
under ``slow_after`` (2 ms), calls run inline. Above it, they go to threads until the
average falls under ``fast_below`` (1 ms): two thresholds, so the choice does not flap.
A store that turns slow costs at most the few calls that raise the average.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

__all__ = ["OffloadPolicy", "shared_policy"]

T = TypeVar("T")


class OffloadPolicy:
    """Inline while the moving average of call durations is short; threads while it is long."""

    def __init__(
        self, slow_after: float = 0.002, fast_below: float = 0.001, weight: float = 0.2
    ) -> None:
        if not 0 < fast_below <= slow_after:
            raise ValueError("need 0 < fast_below <= slow_after")
        if not 0 < weight <= 1:
            raise ValueError("weight must be in (0, 1]")
        self.slow_after = slow_after
        self.fast_below = fast_below
        self.weight = weight
        self.average = 0.0
        self.threaded = False

    def record(self, seconds: float) -> None:
        """Fold one call's duration into the average and decide where the next one runs."""
        self.average += self.weight * (seconds - self.average)
        if self.threaded and self.average < self.fast_below:
            self.threaded = False
        elif not self.threaded and self.average > self.slow_after:
            self.threaded = True

    def _timed(self, fn: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.record(time.perf_counter() - start)

    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` inline or on a worker thread, as the recent calls say."""
        if self.threaded:
            return await anyio.to_thread.run_sync(self._timed, fn)
        return self._timed(fn)


_SHARED = OffloadPolicy()


def shared_policy() -> OffloadPolicy:
    """The process's policy: how long calls take is a matter of its store and disk."""
    return _SHARED
