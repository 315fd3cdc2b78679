"""The runtime's history: at_step, session_history, fork_session, expected_step retries,
the session cap and the idle TTL — on every bundled store."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from skillstate_testing import make_host, temporary_store_url
from skillstate_testing.helpers import STORE_KINDS

from skillstate.journal import verify_record
from skillstate.runtime import Runtime
from skillstate.runtime.errors import (
    SessionExists,
    SessionInputError,
    SessionLimitReached,
    StaleStep,
    StepNotFound,
)


@pytest.fixture(params=STORE_KINDS)
def runtime(request: pytest.FixtureRequest, tmp_path: Path):
    with temporary_store_url(request.param, tmp_path) as url:
        host = make_host(url)
        yield Runtime(host=host, max_active_sessions=0, session_idle_ttl=0)
        host.close()


def steps(rt: Runtime, sid: str, count: int) -> None:
    for n in range(count):
        rt.execute_step(sid, "r", {"n": n + 1}, f"act {n + 1}", None)


def test_a_retried_step_never_applies_twice(runtime: Runtime) -> None:
    runtime.initialize_skill("s", "count", {"n": 0}, environment="mock")
    first = runtime.execute_step("s", "r", {"n": 1}, "go", None, expected_step=0)
    again = runtime.execute_step("s", "r", {"n": 1}, "go", None, expected_step=0)
    assert again["meta"].pop("replayed") is True
    assert again == first
    assert [e.step for e in runtime.store.journal("s")] == ["initialize_skill", "execute_step"]
    with pytest.raises(StaleStep, match="is at step 1, not the expected_step 0"):
        runtime.execute_step("s", "r", {"n": 9}, "other", None, expected_step=0)
    # a rolled-back step is answered the same way on a retry
    bad = {"n": "x" * 10_000}
    rolled = runtime.execute_step("s", "r", bad, "go", None, expected_step=1)
    assert rolled["meta"]["rolled_back"] is True
    assert runtime.execute_step("s", "r", bad, "go", None, expected_step=1)["meta"]["replayed"]
    assert runtime.store.get("s").version == 3
    # after another write the last call is still answered from its record
    runtime.inject_observation("s", "alert")
    assert runtime.execute_step("s", "r", bad, "go", None, expected_step=1)["step"] == 1
    for wrong in (-1, "1", 1.5, True, [1]):
        with pytest.raises(SessionInputError, match="expected_step must be a whole number"):
            runtime.execute_step("s", "r", {}, "go", None, expected_step=wrong)
    assert runtime.store.get("s").version == 4


def test_concurrent_copies_of_one_step_apply_once(runtime: Runtime) -> None:
    runtime.initialize_skill("c", "count", {"n": 0}, environment="mock")
    answers: list[dict] = []
    barrier = threading.Barrier(4)

    def call() -> None:
        barrier.wait()
        answers.append(runtime.execute_step("c", "r", {"n": 1}, "go", None, expected_step=0))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 4 and {a["step"] for a in answers} == {1}
    assert sum(1 for a in answers if not a["meta"].get("replayed")) == 1
    assert runtime.store.get("c").version == 2


def test_inject_with_expected_step_is_retry_safe(runtime: Runtime) -> None:
    runtime.initialize_skill("i", "count", {"n": 0}, environment="mock")
    first = runtime.inject_observation("i", "order 7", {"n": 2}, expected_step=0)
    again = runtime.inject_observation("i", "order 7", {"n": 2}, expected_step=0)
    assert again["meta"].pop("replayed") and again == first
    assert runtime.store.get("i").version == 2
    steps(runtime, "i", 1)
    with pytest.raises(StaleStep):
        runtime.inject_observation("i", "order 8", expected_step=0)


def test_get_session_at_step_and_history_pages(runtime: Runtime) -> None:
    runtime.initialize_skill("h", "count", {"n": 0}, environment="mock")
    steps(runtime, "h", 3)
    runtime.execute_step("h", "r", {"n": "x" * 10_000}, "go", None)  # a rollback at step 3
    past = runtime.get_session("h", at_step=1)
    assert past["execution_state"] == {"n": 1} and past["metadata"]["stepCount"] == 1
    assert past["metadata"]["lastAction"] == "act 1"
    after_one = runtime.store.state_at("h", past["metadata"]["version"]).entry
    assert past["metadata"]["lastObservation"] == after_one.observation  # as of step 1
    assert past["metadata"]["lastObservation"] is not None
    assert past["metadata"]["lastObservationSha256"] == after_one.observation_sha256
    assert runtime.get_session("h", at_step=3)["metadata"]["version"] == 5
    with pytest.raises(StepNotFound, match="has no step 4: its steps are 0 to 3"):
        runtime.get_session("h", at_step=4)
    page = runtime.session_history("h", limit=2)
    assert [i["version"] for i in page["items"]] == [1, 2] and page["next_after"] == 2
    rest = runtime.session_history("h", after=page["next_after"])
    assert [i["version"] for i in rest["items"]] == [3, 4, 5] and rest["next_after"] is None
    assert rest["items"][-1]["rolled_back"] == "schema" and rest["items"][-1]["keys"] == []
    assert all("reasoning_trace" not in item for item in page["items"] + rest["items"])


def test_fork_session_at_a_past_step_rebuilds_its_environment(runtime: Runtime) -> None:
    runtime.initialize_skill("f", "count", {"n": 0}, environment="mock")
    steps(runtime, "f", 3)
    fork = runtime.fork_session("f", "f2", at_step=1)
    assert fork["prompt_payload"]["current_state"] == {"n": 1} and fork["meta"]["step"] == 1
    meta = runtime.get_session("f2")["metadata"]
    assert meta["environmentState"] == runtime.get_session("f")["metadata"]["environmentState"] | {
        "executed": 1
    }
    nxt = runtime.execute_step("f2", "r", {"n": 10}, "other", None, expected_step=1)
    assert nxt["step"] == 2 and runtime.get_session("f")["execution_state"] == {"n": 3}
    with pytest.raises(SessionExists):
        runtime.fork_session("f", "f2")
    for run_id in ("f", "f2"):
        record = runtime.store.get(run_id)
        assert verify_record(record, runtime.store.journal(run_id)) == []
    assert runtime.store.journal("f2")[0].origin == {"op": "fork", "run": "f", "version": 2}


def test_the_session_cap_and_the_idle_ttl(tmp_path: Path) -> None:
    host = make_host(f"file:{tmp_path / 'state'}")
    capped = Runtime(host=host, max_active_sessions=2, session_idle_ttl=0)
    capped.initialize_skill("a", "x", environment="mock")
    capped.initialize_skill("b", "x", environment="mock")
    with pytest.raises(SessionLimitReached, match=r"Session limit reached \(2 active sessions\)"):
        capped.initialize_skill("c", "x", environment="mock")
    with pytest.raises(SessionLimitReached):
        capped.fork_session("a", "a2")
    assert not host.open_store().exists("c")
    capped.close_session("a")
    capped.initialize_skill("c", "x", environment="mock")  # closed ones do not count
    time.sleep(1.1)
    idle = Runtime(host=host, max_active_sessions=2, session_idle_ttl=1)
    idle.initialize_skill("d", "x", environment="mock")  # b and c were idle: closed first
    statuses = {s["session_id"]: s["status"] for s in idle.list_sessions(True)["sessions"]}
    assert statuses == {"a": "closed", "b": "closed", "c": "closed", "d": "active"}
    assert host.open_store().get("b").meta["closed_reason"] == "idle"
    host.close()
