"""Where the HTTP server runs tool calls: inline while quick, on threads while slow."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from skillstate_plugins.mcp.offload import OffloadPolicy

pytestmark = pytest.mark.anyio

MS = 0.001


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_it_switches_on_the_median_with_two_thresholds() -> None:
    policy = OffloadPolicy(slow_after=5 * MS, fast_below=2.5 * MS, window=3)
    assert not policy.threaded  # a new server starts inline
    for seconds in (1 * MS, 1 * MS, 56 * MS):  # one stall among quick calls
        policy.record(seconds)
    assert not policy.threaded and policy.median == 1 * MS
    policy.record(9 * MS)  # [1, 56, 9]: median 9 ms
    assert policy.threaded
    policy.record(3 * MS)  # [56, 9, 3]: 9 ms
    policy.record(3 * MS)  # [9, 3, 3]: 3 ms, between the thresholds: stays on threads
    assert policy.threaded
    policy.record(2 * MS)  # [3, 3, 2]: 3 ms
    assert policy.threaded
    policy.record(1 * MS)  # [3, 2, 1]: 2 ms, under 2.5 ms
    assert not policy.threaded
    policy.record(4 * MS)  # [2, 1, 4]: 2 ms
    policy.record(4.5 * MS)  # [1, 4, 4.5]: 4 ms, between the thresholds: stays inline
    assert not policy.threaded


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"slow_after": 0.001, "fast_below": 0.002}, "fast_below <= slow_after"),
        ({"fast_below": 0}, "0 < fast_below"),
        ({"window": 0}, "window"),
        ({"probe_every": 0}, "probe_every"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        OffloadPolicy(**kwargs)


async def test_quick_calls_run_on_the_loop_and_slow_ones_move_to_threads() -> None:
    policy = OffloadPolicy(slow_after=5 * MS, fast_below=2.5 * MS, window=1, probe_every=4)
    loop_thread = threading.get_ident()

    def quick() -> int:
        return threading.get_ident()

    def slow() -> int:
        time.sleep(0.01)  # a real wait, like a commit on a remote store
        return threading.get_ident()

    assert await policy.run(quick) == loop_thread
    assert await policy.run(slow) == loop_thread  # measured after it ran, inline
    assert policy.threaded
    # on threads now, but for one probe in four, which runs inline to measure again
    ran_on_a_thread = [await policy.run(slow) != loop_thread for _ in range(8)]
    assert ran_on_a_thread == [True, True, True, False, True, True, True, False]
    assert policy.threaded  # the probes were slow too
    on_loop = [await policy.run(quick) == loop_thread for _ in range(4)]
    assert on_loop == [False, False, False, True]  # the store got quick: the probe says so
    assert not policy.threaded
    assert [await policy.run(quick) == loop_thread for _ in range(5)] == [True] * 5


async def test_calls_on_threads_are_not_timed() -> None:
    policy = OffloadPolicy(window=4, probe_every=1000)
    policy.record(0.01)
    assert policy.threaded
    for _ in range(5):
        await policy.run(lambda: time.sleep(0.002))
    assert list(policy.recent) == [0.01]  # waiting for the GIL on a thread says nothing


async def test_a_failing_call_is_still_timed_and_raises() -> None:
    policy = OffloadPolicy(window=1)

    def boom() -> None:
        time.sleep(0.006)
        raise RuntimeError("store down")

    with pytest.raises(RuntimeError, match="store down"):
        await policy.run(boom)
    assert policy.threaded and policy.median >= 0.006
