"""A store's durability under ``SIGKILL``: writers killed at random moments lose
nothing they acknowledged (``docs/reliability.md``), for any store kind."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from typing import Any

__all__ = ["increment", "kill_writers"]


def increment(host: Any, store: Any, skill: Any, run: str = "k") -> int:
    """Add one to ``counter`` of ``run`` at its current version; the version written."""
    from skillstate.plugin import Change, transition

    current = store.get(run)
    change = Change(patch={"counter": current.state["counter"] + 1})
    outcome = transition(host, store, run, change, skill=skill, expected_version=current.version)
    assert outcome.record is not None, outcome
    return int(outcome.record.version)


def _write_forever(host: Any, open_store: Callable[[], Any], skill: Any, fd: int) -> None:
    try:
        store = open_store()
        while True:
            os.write(fd, f"{increment(host, store, skill)}\n".encode())
    finally:
        os._exit(3)  # never return into pytest


def kill_writers(
    host: Any,
    skill: Any,
    *,
    child_store: Callable[[], Any],
    fresh_store: Callable[[], Any],
    kills: int,
    acknowledged: int,
    reads: tuple[int, int],
    pause: float,
    check: Callable[[Any, Any], None] | None = None,
) -> int:
    """Fork ``kills`` writers of run ``k`` (``counter`` at ``version - 1``) one after
    another, each on ``child_store()``; let each acknowledge ``reads`` (a random count
    in that range) versions, kill it within ``pause`` seconds and read ``k`` again from
    ``fresh_store()`` (a new process's view): its version is at least every acknowledged
    one and its counter matches it; ``check(store, record)`` may look further. Returns
    the highest version acknowledged (at least ``acknowledged``)."""
    rng = random.Random(18)
    for _ in range(kills):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(read_fd)
            _write_forever(host, child_store, skill, write_fd)
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            acks = [int(pipe.readline()) for _ in range(rng.randint(*reads))]
            time.sleep(rng.uniform(0, pause))
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            acks += [int(line) for line in pipe.read().split()]
        acknowledged = max([acknowledged, *acks])
        fresh = fresh_store()
        try:
            record = fresh.get("k")
            assert record.version >= acknowledged
            assert record.state["counter"] == record.version - 1
            if check is not None:
                check(fresh, record)
        finally:
            fresh.close()
    return acknowledged
