"""The transition pipeline: order of checks, rejection changes nothing, bad input, CAS."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from skillstate_testing import make_host, sample_skill

from skillstate import Change, Problem, SkillDefinition, create_run, hookimpl, transition
from skillstate.errors import (
    InvalidInput,
    InvalidRunId,
    RunExists,
    RunNotFound,
    SkillNotFound,
    VersionConflict,
)
from skillstate.journal import verify_record
from skillstate.jsondoc import MAX_DEPTH, compact, parse_json


@pytest.fixture
def host() -> Iterator[Any]:
    h = make_host("memory:")
    yield h
    h.close()


@pytest.fixture
def store(host: Any) -> Any:
    return host.open_store()


@pytest.fixture
def skill() -> Any:
    return sample_skill()


@pytest.fixture
def run(host: Any, store: Any, skill: Any) -> str:
    assert create_run(host, store, skill, "r", {"counter": 0}).accepted
    return "r"


def snapshot(store: Any, run_id: str) -> str:
    return compact([store.get(run_id).to_dict(), [e.to_dict() for e in store.journal(run_id)]])


def patch(host: Any, store: Any, skill: Any, body: Any, **kw: Any) -> Any:
    return transition(host, store, "r", Change(patch=body, **kw), skill=skill)


def test_create_sets_identity_phase_and_stamps(host: Any, store: Any, skill: Any) -> None:
    outcome = create_run(
        host, store, skill, "new-run", {"counter": 3}, now="2026-01-01T00:00:00.000Z"
    )
    assert outcome.accepted and outcome.record is not None
    assert outcome.record.state == {
        "runId": "new-run",
        "phase": "start",
        "updatedAt": "2026-01-01T00:00:00.000Z",
        "counter": 3,
    }
    assert outcome.entry is not None and outcome.entry.base == {
        "runId": "new-run",
        "phase": "start",
        "updatedAt": "2026-01-01T00:00:00.000Z",
    }


def test_create_from_a_start_state_keeps_its_nulls_and_merges_the_seed(
    host: Any, store: Any
) -> None:
    skill = SkillDefinition(name="free")  # no fields: any JSON state
    start = {"task": None, "notes": {"draft": None, "n": 1}, "list": [None]}
    outcome = create_run(host, store, skill, "s", {"n2": 2, "task": None}, start=start)
    assert outcome.accepted and outcome.record is not None
    # start is taken as it is (no identity keys, nulls kept); the seed is a merge patch
    assert compact(outcome.record.state) == compact(
        {"notes": {"draft": None, "n": 1}, "list": [None], "n2": 2}
    )
    assert outcome.entry is not None and outcome.entry.base == start
    assert verify_record(store.get("s"), store.journal("s")) == []
    kept = create_run(host, store, skill, "t", start={"task": None})
    assert kept.record is not None and kept.record.state == {"task": None}


def test_a_run_keeps_its_own_copies_of_what_the_caller_passed(host: Any, store: Any) -> None:
    """The memory store keeps records and journal entries as objects: a caller changing
    its dicts after a call must change neither the state nor the history."""
    skill = SkillDefinition(name="free")
    seed: dict[str, Any] = {"a": {"b": [1]}}
    start: dict[str, Any] = {"s": [1]}
    schema: dict[str, Any] = {"type": "object"}
    meta: dict[str, Any] = {"tags": ["x"]}
    environment: dict[str, Any] = {"name": "mock", "options": {}, "state": {"executed": 0}}
    assert create_run(
        host,
        store,
        skill,
        "mine",
        seed,
        start=start,
        schema=schema,
        meta=meta,
        environment=environment,
    )
    patch: dict[str, Any] = {"c": {"d": [1]}}
    action: dict[str, Any] = {"do": ["it"]}
    step_meta: dict[str, Any] = {"last": ["m"]}
    change = Change(patch=patch, action=action, meta=step_meta)
    assert transition(host, store, "mine", change, skill=skill).accepted
    for value in (seed["a"]["b"], start["s"], meta["tags"], patch["c"]["d"], action["do"]):
        value.append("changed afterwards")
    schema["required"] = ["zzz"]
    step_meta["last"].append("changed afterwards")
    environment["options"]["mode"] = "changed afterwards"
    record, journal = store.get("mine"), store.journal("mine")
    assert record.environment is not None and record.environment["options"] == {}
    assert record.state == {"s": [1], "a": {"b": [1]}, "c": {"d": [1]}}
    assert record.schema == {"type": "object"}
    assert record.meta == {"tags": ["x"], "last": ["m"]}
    assert journal[0].patch == {"a": {"b": [1]}} and journal[0].base == {"s": [1]}
    assert journal[1].patch == {"c": {"d": [1]}} and journal[1].action == {"do": ["it"]}
    assert verify_record(record, journal) == []


def test_a_bad_start_state_is_refused_and_writes_nothing(host: Any, store: Any, skill: Any) -> None:
    for start, message in (
        ({"x": float("nan")}, "x: nan is not a JSON number"),
        ([1], "initial state: expected a JSON object"),
        ({"runId": "forged"}, "runId is set at init and never patched"),
    ):
        outcome = create_run(host, store, skill, "u", start=start)
        assert not outcome.accepted, start
        assert message in " ".join(p.message for p in outcome.problems)
    assert store.list() == []


def test_create_refuses_immutable_keys_in_the_seed_and_writes_nothing(
    host: Any, store: Any, skill: Any
) -> None:
    outcome = create_run(host, store, skill, "x", {"runId": "zzz"})
    assert not outcome.accepted and [p.message for p in outcome.problems] == [
        "runId is set at init and never patched"
    ]
    assert store.list() == []
    assert create_run(host, store, skill, "y", {}).accepted
    with pytest.raises(RunExists):
        create_run(host, store, skill, "y", {})


def test_patch_must_be_an_object(host: Any, store: Any, skill: Any, run: str) -> None:
    for body in ([], "x", 3, None, True):
        outcome = patch(host, store, skill, body)
        assert [p.message for p in outcome.problems] == ["patch: expected a JSON object"]


def test_immutable_keys_even_as_null(host: Any, store: Any, skill: Any, run: str) -> None:
    outcome = patch(host, store, skill, {"runId": None})
    assert [p.message for p in outcome.problems] == ["runId is set at init and never patched"]


def test_terminal_phase_needs_force_and_stamps_updated(
    host: Any, store: Any, skill: Any, run: str
) -> None:
    done = transition(host, store, "r", Change(patch={"phase": "done"}), skill=skill, now="T1")
    assert done.accepted and done.record.state["updatedAt"] == "T1"
    refused = patch(host, store, skill, {"phase": "start"})
    assert [p.message for p in refused.problems] == [
        "run is at terminal phase 'done'; start a new run rather than reopening it (--force overrides)"
    ]
    assert patch(
        host, store, skill, {"counter": 1, "phase": "done"}
    ).accepted  # no phase change: allowed
    assert patch(host, store, skill, {"phase": "start"}, force=True).accepted


def test_guards_run_only_without_shape_problems_and_fail_closed(
    host: Any, store: Any, skill: Any, run: str, register_plugin: Any
) -> None:
    calls: list[str] = []

    class Guards:
        @hookimpl
        def skillstate_guards(self, skill: Any, before: Any, after: Any) -> list[Problem]:
            calls.append("guard")
            if after.get("counter", 0) > 10:
                return [Problem("guard", "counter must stay at most 10", "counter", "test")]
            return []

    class Broken:
        @hookimpl
        def skillstate_guards(self, skill: Any, before: Any, after: Any) -> None:
            if after.get("counter") == 7:
                raise RuntimeError("boom")

    host2 = make_host("memory:")
    host2.pm.register_local(Guards(), "counter-guard")
    host2.pm.register_local(Broken(), "broken-guard")
    store2 = host2.open_store()
    assert create_run(host2, store2, skill, "r", {"counter": 0}).accepted
    calls.clear()
    shape = transition(host2, store2, "r", Change(patch={"counter": "x"}), skill=skill)
    assert [p.code for p in shape.problems] == ["type"] and calls == []
    over = transition(host2, store2, "r", Change(patch={"counter": 11}), skill=skill)
    assert [p.message for p in over.problems] == ["counter must stay at most 10"]
    boom = transition(host2, store2, "r", Change(patch={"counter": 7}), skill=skill)
    assert (
        not boom.accepted
        and "guard plugin 'broken-guard' failed (RuntimeError: boom)" in boom.problems[0].message
    )
    assert store2.get("r").state["counter"] == 0


def test_unknown_run_and_skill_and_bad_ids(host: Any, store: Any, skill: Any) -> None:
    with pytest.raises(RunNotFound):
        transition(host, store, "missing", Change(patch={}), skill=skill)
    with pytest.raises(InvalidRunId, match="must be alphanumeric"):
        transition(host, store, "../etc", Change(patch={}), skill=skill)
    with pytest.raises(SkillNotFound, match="unknown skill 'nope'"):
        host.skill("nope")


def test_explicit_expected_version_is_compare_and_swap(
    host: Any, store: Any, skill: Any, run: str
) -> None:
    assert transition(
        host, store, "r", Change(patch={"counter": 1}), skill=skill, expected_version=1
    ).accepted
    with pytest.raises(VersionConflict, match="not the expected version 1"):
        transition(host, store, "r", Change(patch={"counter": 2}), skill=skill, expected_version=1)


def test_conflicts_retry_automatically(host: Any, store: Any, skill: Any, run: str) -> None:
    def work() -> None:
        for _ in range(25):
            current = store.get("r").state["counter"]
            transition(
                host, store, "r", Change(patch={"note": None, "counter": current}), skill=skill
            )

    # Each thread's own read-modify-write is racy by design; the pipeline itself must never
    # lose a write: versions stay gapless and every call commits.
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [e.version for e in store.journal("r")] == list(range(1, 102))


def test_parse_json_refuses_non_json_and_depth() -> None:
    with pytest.raises(InvalidInput, match="not valid JSON"):
        parse_json("nope")
    with pytest.raises(InvalidInput, match="not valid JSON"):
        parse_json('{"a": NaN}')
    with pytest.raises(InvalidInput, match="nested too deeply"):
        parse_json("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5))
    with pytest.raises(InvalidInput, match="nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000)
    assert parse_json('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


def deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


def test_bad_patches_are_rejected_cleanly(host: Any, store: Any, skill: Any, run: str) -> None:
    before = snapshot(store, "r")
    cases: list[tuple[Any, str]] = [
        (deep(5000), "nested too deeply"),
        ({"notes": ["x" * 1_000_001]}, "over the hard limit"),
        ({"counter": float("nan")}, "is not a JSON number"),
        ({"counter": float("inf")}, "is not a JSON number"),
        ({"info": {1: "x"}}, "object keys must be strings"),
        ({"notes": {"a", "b"}}, "is not a JSON value"),
        ({"notes": ["a\x00b"]}, "NUL"),
    ]
    for body, fragment in cases:
        outcome = patch(host, store, skill, body)
        assert not outcome.accepted
        assert any(fragment in p.message for p in outcome.problems), (fragment, outcome.problems)
    assert snapshot(store, "r") == before


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()
    | st.text(max_size=20)
)
json_any = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=60,
)
shaped = st.fixed_dictionaries(
    {},
    optional={
        "counter": json_any,
        "phase": json_any,
        "notes": json_any,
        "info": json_any,
        "items": json_any,
        "runId": json_any,
        "updatedAt": json_any,
    },
)


@settings(
    max_examples=250,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    deadline=None,
)
@given(body=json_any | shaped | st.builds(deep, st.integers(min_value=90, max_value=400)))
def test_arbitrary_patches_never_raise_and_rejections_change_nothing(
    host: Any, store: Any, skill: Any, body: Any
) -> None:
    if not store.exists("r"):
        assert create_run(host, store, skill, "r", {"counter": 0}).accepted
    before = snapshot(store, "r")
    outcome = patch(host, store, skill, body)
    if outcome.accepted:
        after = store.get("r")
        assert (
            host.validate(skill, after.state) == [] and host.check_budget(skill, after.state) == []
        )
        assert after.version == json.loads(before)[0]["version"] + 1
    else:
        assert outcome.problems
        assert snapshot(store, "r") == before


def test_integral_floats_are_stored_as_javascript_numbers(
    host: Any, store: Any, skill: Any, run: str
) -> None:
    outcome = patch(host, store, skill, {"counter": 2.0, "info": {"detail": {"level": 1.5}}})
    state = store.get("r").state
    assert type(state["counter"]) is int and state["info"]["detail"]["level"] == 1.5
    assert (
        outcome.entry is not None
        and compact(outcome.entry.patch) == '{"counter":2,"info":{"detail":{"level":1.5}}}'
    )
    assert parse_json("[1.0, 1e2, 2.5]") == [1, 100, 2.5] and type(parse_json("1.0")) is int


def test_a_skill_defined_by_json_schema(host: Any, store: Any) -> None:
    from skillstate import SkillDefinition

    skill = SkillDefinition(
        name="inventory",
        json_schema={
            "type": "object",
            "properties": {
                "items": {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0},
                }
            },
            "additionalProperties": False,
        },
    )
    assert create_run(host, store, skill, "inv", {"items": {"apple": 2}}).accepted
    bad = transition(
        host, store, "inv", Change(patch={"items": {"pear": -1}, "note": "x"}), skill=skill
    )
    assert [p.message for p in bad.problems] == [
        "items.pear: -1 is less than the minimum of 0",
        "note: unknown key. Known keys: items",
    ]
    ok = transition(
        host, store, "inv", Change(patch={"items": {"apple": None, "pear": 3}}), skill=skill
    )
    assert ok.accepted and store.get("inv").state == {"items": {"pear": 3}}


def test_transition_starts_from_the_record_the_caller_just_read(
    host: Any, store: Any, skill: Any, run: str
) -> None:
    fresh = store.get(run)
    outcome = transition(host, store, run, Change(patch={"counter": 1}), skill=skill, current=fresh)
    assert outcome.accepted and outcome.attempts == 1
    # a stale one is used for the first attempt only: its commit loses the compare-and-swap
    # and the transition re-runs on the stored record, changing nothing twice
    outcome = transition(host, store, run, Change(patch={"counter": 2}), skill=skill, current=fresh)
    assert outcome.accepted and outcome.attempts == 2
    assert store.get(run).state["counter"] == 2 and store.get(run).version == 3
    with pytest.raises(ValueError, match="current is the record of run 'r', not 'other'"):
        transition(host, store, "other", Change(patch={}), skill=skill, current=fresh)
