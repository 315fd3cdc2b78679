"""Where the HTTP server runs tool calls: inline while quick, on threads while slow."""

from __future__ import annotations

import threading
import time

import pytest

from skillstate.mcp.offload import OffloadPolicy

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_it_switches_on_the_moving_average_with_two_thresholds() -> None:
    policy = OffloadPolicy(slow_after=0.002, fast_below=0.001, weight=0.5)
    assert not policy.threaded  # a new server starts inline
    policy.record(0.0015)  # average 0.75 ms: quick
    assert not policy.threaded
    policy.record(0.004)  # average 2.4 ms: over 2 ms
    assert policy.threaded
    policy.record(0.0015)  # 1.95 ms: between the thresholds, stays on threads
    assert policy.threaded
    policy.record(0.0001)  # 1.0 ms: not yet under 1 ms
    assert policy.threaded
    policy.record(0.0001)  # 0.55 ms
    assert not policy.threaded
    policy.record(0.0025)  # 1.5 ms: between the thresholds, stays inline
    assert not policy.threaded


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"slow_after": 0.001, "fast_below": 0.002}, "fast_below <= slow_after"),
        ({"fast_below": 0}, "0 < fast_below"),
        ({"weight": 0}, "weight"),
        ({"weight": 1.5}, "weight"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OffloadPolicy(**kwargs)


async def test_quick_calls_run_on_the_loop_and_slow_ones_move_to_threads() -> None:
    policy = OffloadPolicy(slow_after=0.002, fast_below=0.001, weight=0.5)
    loop_thread = threading.get_ident()

    def quick() -> int:
        return threading.get_ident()

    def slow() -> int:
        time.sleep(0.01)  # a real wait, like a commit on a remote store
        return threading.get_ident()

    assert await policy.run(quick) == loop_thread
    assert await policy.run(slow) == loop_thread  # measured after it ran, inline
    assert policy.threaded
    assert await policy.run(slow) != loop_thread  # now on a worker thread
    for _ in range(10):
        await policy.run(quick)
    assert not policy.threaded
    assert await policy.run(quick) == loop_thread


async def test_a_failing_call_is_still_timed_and_raises() -> None:
    policy = OffloadPolicy(slow_after=0.002, fast_below=0.001, weight=1.0)

    def boom() -> None:
        time.sleep(0.005)
        raise RuntimeError("store down")

    with pytest.raises(RuntimeError, match="store down"):
        await policy.run(boom)
    assert policy.threaded and policy.average >= 0.005
