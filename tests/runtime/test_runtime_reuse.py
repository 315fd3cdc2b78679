"""A closed session's id used again: the closed run is moved to ``<id>.closed-<n>``, whole.

The move is copy, freeze (a compare-and-swap write), remove; these tests stop it after
each part, as a crash would, and check that the next ``initialize_skill`` finishes it
without losing or duplicating anything, and that nothing writes to a frozen run.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from skillstate.changes import Change
from skillstate.pipeline import ARCHIVED_AS, transition
from skillstate.records.skills import ADHOC_SKILL
from skillstate.runtime import Runtime
from skillstate.runtime.errors import SessionExists, StateRejected


@pytest.fixture(params=["memory", "file"])
def rt(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Runtime]:
    url = f"memory:reuse-{uuid.uuid4().hex}" if request.param == "memory" else f"file:{tmp_path}"
    runtime = Runtime(url)
    yield runtime
    runtime.close()


def _closed(rt: Runtime, sid: str = "s1") -> None:
    boot = rt.initialize_skill(sid, "P", {"n": 0})
    rt.execute_step(sid, "", {"n": 1}, "go", boot["prompt_payload"]["latest_observation"])
    rt.close_session(sid)


def _ids(rt: Runtime) -> list[str]:
    return sorted(s["session_id"] for s in rt.list_sessions(include_closed=True)["sessions"])


def test_the_move_keeps_every_version(rt: Runtime) -> None:
    _closed(rt)
    before = rt.store.journal("s1")
    again = rt.initialize_skill("s1", "Q", {"m": 1})
    assert again["meta"]["previous_session_archived_as"] == "s1.closed-1"
    assert rt.store.journal("s1.closed-1") == before
    old = rt.get_session("s1.closed-1")
    assert old["execution_state"] == {"n": 1} and old["metadata"]["status"] == "closed"
    assert _ids(rt) == ["s1", "s1.closed-1"]


def test_a_move_cut_after_the_copy_reuses_the_copy(rt: Runtime) -> None:
    _closed(rt)
    record = rt.store.get("s1")
    rt.store.import_run(attrs.evolve(record, id="s1.closed-1"), rt.store.journal("s1"))
    again = rt.initialize_skill("s1", "Q")
    assert again["meta"]["previous_session_archived_as"] == "s1.closed-1"
    assert _ids(rt) == ["s1", "s1.closed-1"]  # no second copy


def test_a_frozen_run_takes_no_write_and_the_next_initialize_finishes_the_move(
    rt: Runtime,
) -> None:
    _closed(rt)
    record = rt.store.get("s1")
    rt.store.import_run(attrs.evolve(record, id="s1.closed-1"), rt.store.journal("s1"))
    change = Change(keep_state=True, label="archive", meta={ARCHIVED_AS: "s1.closed-1"})
    done = transition(
        rt.host, rt.store, "s1", change, skill=ADHOC_SKILL, expected_version=record.version
    )
    assert done.accepted
    frozen = rt.store.get("s1")
    with pytest.raises(StateRejected, match=r"is being moved to its archive 's1\.closed-1'"):
        rt.rewind_session("s1", 0, force=True)
    assert rt.store.get("s1") == frozen
    again = rt.initialize_skill("s1", "Q", {"m": 1})
    assert again["meta"]["previous_session_archived_as"] == "s1.closed-1"
    assert rt.get_session("s1")["execution_state"] == {"m": 1}
    assert rt.get_session("s1.closed-1")["execution_state"] == {"n": 1}
    assert _ids(rt) == ["s1", "s1.closed-1"]


def test_a_long_id_is_shortened_and_open_ids_stay_taken(rt: Runtime) -> None:
    long_id = "a" * 70 + "." + "b" * 9
    _closed(rt, long_id)
    again = rt.initialize_skill(long_id, "Q")
    archived = again["meta"]["previous_session_archived_as"]
    assert archived == "a" * 70 + ".closed-1" and len(archived) <= 80
    with pytest.raises(SessionExists, match="already exists"):
        rt.initialize_skill(long_id, "R")
    rt.close_session(long_id)
    with pytest.raises(SessionExists, match="closed"):
        rt.fork_session(archived, long_id)  # a fork's new id must be free, closed or not
