"""Review fixes of issue 17 in the runtime: replays with the host's merge, rewind_session,
the idle sweep past a session whose skill is gone, the cap under concurrent creates, and
a cap check that reads no record of an unchanged session."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, snapshot_interval

from skillstate.journal import verify_record
from skillstate.plugin import FieldSpec, Problem, SkillDefinition, hookimpl
from skillstate.runtime import Runtime
from skillstate.runtime.errors import (
    SessionLimitReached,
    SessionNotActive,
    StateRejected,
    StepNotFound,
)


class AppendMerge:
    """A merge plugin: ``{"append": x}`` appends x to ``log`` instead of setting a key."""

    @hookimpl(tryfirst=True)
    def skillstate_merge(self, state: Any, patch: Any) -> Any:
        if isinstance(patch, dict) and "append" in patch:
            rest = {k: v for k, v in patch.items() if k != "append"}
            merged = {**state, "log": [*state.get("log", []), patch["append"]]}
            return {**merged, **rest}
        return None


@pytest.fixture
def merged(tmp_path: Path) -> Any:
    host = make_host(f"file:{tmp_path / 'state'}")
    host.pm.register_local(AppendMerge(), "append-merge")
    rt = Runtime(host=host, max_active_sessions=0, session_idle_ttl=0)
    yield rt
    host.close()


def _logged(rt: Runtime, sid: str = "s", steps: int = 4) -> None:
    rt.initialize_skill(sid, "log things", {"log": ["a"]}, environment="mock")
    for n in range(steps):
        rt.execute_step(sid, "r", {"append": f"x{n}"}, f"act {n}", None)


def test_every_runtime_replay_uses_the_hosts_merge(merged: Runtime) -> None:
    with snapshot_interval(1000, merged.store):  # no snapshot: every past state is a replay
        _logged(merged)
        assert merged.get_session("s", at_step=2)["execution_state"]["log"] == ["a", "x0", "x1"]
        rows = merged.session_history("s")["items"]
        assert [row["keys"] for row in rows[1:]] == [["log"]] * 4  # not an "append" key
        merged.fork_session("s", "s2", at_step=1)
        assert merged.get_session("s2")["execution_state"]["log"] == ["a", "x0"]
        rewound = merged.rewind_session("s", 1)
        assert rewound["execution_state"]["log"] == ["a", "x0"]
        store = merged.store
        for sid in ("s", "s2"):
            problems = verify_record(
                store.get(sid), store.journal(sid), merged.host.merge, store.snapshots(sid)
            )
            assert problems == []


def test_an_import_replays_with_the_hosts_merge(merged: Runtime, tmp_path: Path) -> None:
    with snapshot_interval(2, merged.store):
        _logged(merged)
        store = merged.store
        record, entries = store.get("s"), store.journal("s")
        for url in (f"file:{tmp_path / 'other'}", f"sqlite:{tmp_path / 'o.db'}", "memory:imp17"):
            other = merged.host.open_store(url)
            other.snapshot_interval = 2
            other.import_run(record, entries, merge=merged.host.merge)
            for version in range(1, record.version + 1):
                want = store.state_at("s", version, merge=merged.host.merge).state
                got = other.state_at("s", version, merge=merged.host.merge).state
                assert got == want, (url, version)
            problems = verify_record(
                other.get("s"), other.journal("s"), merged.host.merge, other.snapshots("s")
            )
            assert problems == [], url


NO_SECRET = SkillDefinition(
    name="guarded-notes",
    fields={"note": FieldSpec("string"), "phase": FieldSpec("string")},
    phases=("draft", "done"),
    terminal_phases=("done",),
)


class Skills:
    """Registers the skill, and a guard refusing a note ``secret`` once ``armed``."""

    armed = False

    @hookimpl
    def skillstate_register_skills(self, register: Any) -> None:
        register(NO_SECRET)

    @hookimpl
    def skillstate_guards(self, skill: Any, before: Any, after: Any) -> Any:
        if skill.name == NO_SECRET.name and self.armed and after.get("note") == "secret":
            yield Problem("guard", "a note may not be 'secret'", "note", "no-secret")


def _guarded(tmp_path: Path) -> tuple[Any, Runtime, Skills]:
    host = make_host(f"file:{tmp_path / 'state'}")
    skills = Skills()
    host.pm.register_local(skills, "skills")
    rt = Runtime(host=host, max_active_sessions=0, session_idle_ttl=0)
    seed = {"note": "secret", "phase": "draft"}
    rt.initialize_skill("g", "notes", seed, environment="mock", skill=NO_SECRET.name)
    rt.execute_step("g", "r", {"note": "two"}, "a", None)
    rt.execute_step("g", "r", {"note": "three"}, "b", None)
    return host, rt, skills


def test_rewind_session_appends_a_version_and_a_closed_one_needs_force(tmp_path: Path) -> None:
    host, rt, _ = _guarded(tmp_path)
    before = rt.store.get("g")
    out = rt.rewind_session("g", 1)
    after = rt.store.get("g")
    assert out["execution_state"]["note"] == "two" and after.version == before.version + 1
    assert out["rewound_to"] == {"step": 1, "version": 2}
    assert after.step == before.step  # steps never go back
    last = rt.store.journal("g")[-1]
    assert last.origin == {"op": "rewind", "version": 2} and last.step == "rewind_session"
    assert verify_record(after, rt.store.journal("g")) == []
    with pytest.raises(StepNotFound):
        rt.rewind_session("g", 99)
    rt.close_session("g")
    closed = rt.store.get("g")
    with pytest.raises(SessionNotActive, match="force"):
        rt.rewind_session("g", 0)
    assert rt.store.get("g").version == closed.version  # nothing written
    reopened = rt.rewind_session("g", 0, force=True)
    assert reopened["execution_state"]["note"] == "secret"
    assert rt.store.get("g").status == "active"
    host.close()


def test_a_rewind_is_checked_like_a_write(tmp_path: Path) -> None:
    host, rt, skills = _guarded(tmp_path)
    skills.armed = True  # step 0's state now breaks a guard
    head = rt.store.get("g")
    with pytest.raises(StateRejected, match=r"rewind was rejected.*may not be 'secret'"):
        rt.rewind_session("g", 0)
    assert rt.store.get("g").version == head.version
    # a terminal phase is left only with force, as for a run's rewind
    rt.inject_observation("g", "done now", {"phase": "done"})
    done = rt.store.get("g")
    with pytest.raises(StateRejected, match="rewind was rejected"):
        rt.rewind_session("g", 1)
    assert rt.store.get("g").version == done.version
    assert rt.rewind_session("g", 1, force=True)["execution_state"]["phase"] == "draft"
    host.close()


def test_the_idle_sweep_passes_a_session_whose_skill_is_gone(tmp_path: Path) -> None:
    url = f"file:{tmp_path / 'state'}"
    with_skill = make_host(url)
    with_skill.pm.register_local(Skills(), "skills")
    first = Runtime(host=with_skill, max_active_sessions=0, session_idle_ttl=0)
    first.initialize_skill(
        "orphan", "notes", {"note": "x"}, environment="mock", skill=NO_SECRET.name
    )
    first.initialize_skill("plain", "notes", {}, environment="mock")
    with_skill.close()
    time.sleep(1.1)
    host = make_host(url)  # the plugin that registered the skill is gone
    rt = Runtime(host=host, max_active_sessions=2, session_idle_ttl=1)
    assert sorted(rt.expire_idle_sessions()) == ["orphan", "plain"]
    rt.initialize_skill("new", "notes", {}, environment="mock")  # the expired freed slots
    statuses = {s["session_id"]: s["status"] for s in rt.list_sessions(True)["sessions"]}
    assert statuses == {"orphan": "closed", "plain": "closed", "new": "active"}
    host.close()


def test_expired_sessions_free_their_slots_before_the_cap_is_checked(tmp_path: Path) -> None:
    host = make_host(f"file:{tmp_path / 'state'}")
    Runtime(host=host, max_active_sessions=0, session_idle_ttl=0).initialize_skill(
        "old", "x", environment="mock"
    )
    time.sleep(1.1)
    rt = Runtime(host=host, max_active_sessions=1, session_idle_ttl=1)
    rt.initialize_skill("fresh", "x", environment="mock")  # "old" is closed first
    assert rt.store.get("old").status == "closed"
    with pytest.raises(SessionLimitReached):
        rt.fork_session("fresh", "fresh2")
    host.close()


@pytest.mark.parametrize("shared", [True, False], ids=["one-runtime", "one-per-thread"])
def test_concurrent_creates_never_exceed_the_cap(tmp_path: Path, shared: bool) -> None:
    """Threads of one server (one runtime) never pass the cap. Runtimes of their own
    (other processes) neither with ``listing_age=0``: by default a runtime's count comes
    from a listing up to 10 s old (issue 26: so a creation costs the same in a bigger
    store), and sessions other processes created meanwhile are seen at the next one."""
    url = f"file:{tmp_path / 'state'}"
    cap, workers, rounds = 2, 6, 3
    for round_ in range(rounds):
        hosts = [make_host(url) for _ in range(workers)]
        runtimes = [
            Runtime(host=h, max_active_sessions=cap, session_idle_ttl=0, listing_age=0)
            for h in hosts
        ]
        if shared:
            runtimes[0] = Runtime(host=hosts[0], max_active_sessions=cap, session_idle_ttl=0)
            runtimes = [runtimes[0]] * workers
        barrier = threading.Barrier(workers)
        made: list[str] = []

        def create(
            rt: Runtime,
            n: int,
            barrier: threading.Barrier = barrier,
            made: list = made,
            prefix: str = f"r{round_}-",
        ) -> None:
            barrier.wait()
            try:
                rt.initialize_skill(prefix + str(n), "x", environment="mock")
                made.append(prefix + str(n))
            except SessionLimitReached:
                pass

        threads = [threading.Thread(target=create, args=(rt, n)) for n, rt in enumerate(runtimes)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        active = runtimes[0].list_sessions()["sessions"]
        assert len(active) <= cap, active
        assert sorted(s["session_id"] for s in active) == sorted(made)
        for sid in made:
            runtimes[0].close_session(sid)
        for h in hosts:
            h.close()


def test_a_cap_check_reads_no_record_of_an_unchanged_session(tmp_path: Path) -> None:
    host = make_host(f"file:{tmp_path / 'state'}")
    rt = Runtime(host=host, max_active_sessions=1000, session_idle_ttl=3600)
    for n in range(30):
        rt.initialize_skill(f"s{n}", "x", environment="mock")
    store = rt.store
    reads: list[str] = []
    real_get = store.get

    def counting_get(run_id: str) -> Any:
        reads.append(run_id)
        return real_get(run_id)

    store.get = counting_get  # type: ignore[method-assign]
    try:
        rt.initialize_skill("one-more", "x", environment="mock")
    finally:
        del store.get
    others = [r for r in reads if r.startswith("s")]
    assert others == [], f"the cap check read {len(others)} records of unchanged sessions"
    host.close()


def test_creating_a_session_does_not_list_the_store_each_time(tmp_path: Path) -> None:
    """Issue 26 item 6: with the cap and the idle sweep on (the defaults), every create
    listed the whole store (twice), so its cost grew with the store. Now one listing
    answers the limits for ``listing_age`` seconds; a refusal still lists afresh."""
    host = make_host(f"file:{tmp_path / 'state'}")
    clock = [0.0]
    rt = Runtime(host=host, max_active_sessions=60, session_idle_ttl=3600)
    from skillstate.runtime.limits import SessionIndex

    rt._index = SessionIndex(rt.store, max_age=10.0, clock=lambda: clock[0])
    store = rt.store
    lists: list[int] = []
    real_list = store.list

    def counting_list(*args: Any, **kwargs: Any) -> Any:
        lists.append(1)
        return real_list(*args, **kwargs)

    store.list = counting_list  # type: ignore[method-assign]
    try:
        for n in range(50):
            rt.initialize_skill(f"s{n}", "x", environment="mock")
        assert len(lists) == 1, f"{len(lists)} listings for 50 creations"
        clock[0] = 10.0  # the listing is now 10 s old: the next creation lists again
        rt.initialize_skill("s50", "x", environment="mock")
        assert len(lists) == 2
        for n in range(51, 60):
            rt.initialize_skill(f"s{n}", "x", environment="mock")
        with pytest.raises(SessionLimitReached):  # the 61st: decided on a fresh listing
            rt.initialize_skill("s60", "x", environment="mock")
        assert len(lists) == 3
        rt.close_session("s0")  # a slot freed: seen by the fresh listing a refusal takes
        rt.initialize_skill("s60", "x", environment="mock")
    finally:
        del store.list
    host.close()
