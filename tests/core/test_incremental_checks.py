"""The schema walk and the size budget skip what did not change, but never a check.

Issue 18 made both incremental. A state is to be treated as immutable, but Python
cannot enforce it: a caller holding a memory store's record, a guard, an observer or
a runtime may change one in place. Whatever was changed must be found by the next
check exactly as a full walk finds it.
"""

from __future__ import annotations

import threading
from typing import Any

from skillstate import Change, FieldSpec, SkillDefinition, create_run, hookimpl, transition
from skillstate.budgets import check_budget, document_size
from skillstate.records import Budget, Problem
from skillstate.schema import check_fields
from skillstate.testing import make_host

SKILL = SkillDefinition(
    name="incremental",
    fields={
        "counter": FieldSpec("number"),
        "flag": FieldSpec("boolean"),
        "notes": FieldSpec("string[]"),
        "tasks": FieldSpec(
            "object[]",
            of={
                "id": FieldSpec("string"),
                "status": FieldSpec("string", enum=("todo", "done")),
                "hours": FieldSpec("number"),
            },
        ),
    },
    budget=Budget(document_bytes=400),
)
SEED = {"counter": 0, "notes": ["a"], "tasks": [{"id": "t", "status": "todo", "hours": 1}]}


def started() -> tuple[Any, Any]:
    host = make_host("memory:")
    store = host.open_store()
    assert create_run(host, store, SKILL, "r", SEED).accepted
    assert transition(host, store, "r", Change(patch={"counter": 1}), skill=SKILL).accepted
    return host, store


def codes(outcome: Any) -> list[tuple[str, str]]:
    return [(p.code, p.path) for p in outcome.problems]


def test_a_stored_state_changed_in_place_is_checked_again_by_the_field_walk() -> None:
    host, store = started()
    state = store.get("r").state  # the memory store hands out the object it keeps
    state["notes"].append(42)
    state["tasks"][0]["status"] = "bogus"
    outcome = transition(host, store, "r", Change(patch={"counter": 2}), skill=SKILL)
    assert not outcome.accepted
    assert codes(outcome) == [("type", "notes"), ("enum", "tasks[0].status")]


def test_a_boolean_swapped_for_an_equal_number_in_place_is_found() -> None:
    host, store = started()
    store.get("r").state["tasks"][0]["hours"] = True  # True == 1: equality is not enough
    outcome = transition(host, store, "r", Change(patch={"counter": 2}), skill=SKILL)
    assert codes(outcome) == [("type", "tasks[0].hours")]


def test_a_stored_state_grown_in_place_is_measured_again_by_the_budget() -> None:
    host, store = started()
    store.get("r").state["notes"].extend(["x" * 90] * 4)
    outcome = transition(host, store, "r", Change(patch={"counter": 2}), skill=SKILL)
    assert not outcome.accepted
    assert [p.code for p in outcome.problems] == ["budget"]


class MutatingGuard:
    """A (misbehaving) guard that changes the candidate after validation passed."""

    @hookimpl
    def skillstate_guards(self, skill: Any, before: Any, after: Any) -> list[Problem]:
        if after.get("counter") == 1:
            after["notes"].append(7)
        return []


def test_a_guard_that_changes_the_candidate_cannot_hide_it_from_the_next_transition() -> None:
    host = make_host("memory:")
    host.pm.register_local(MutatingGuard(), "mutating-guard")
    store = host.open_store()
    assert create_run(host, store, SKILL, "r", SEED).accepted
    assert transition(host, store, "r", Change(patch={"counter": 1}), skill=SKILL).accepted
    outcome = transition(host, store, "r", Change(patch={"counter": 2}), skill=SKILL)
    assert codes(outcome) == [("type", "notes")]


def test_check_fields_on_a_dict_changed_in_place_between_calls() -> None:
    fields = dict(SKILL.fields or {})
    state: dict[str, Any] = {"counter": 0, "notes": ["a"]}
    assert check_fields(fields, state, Budget()) == []
    state["notes"].append(1)
    again = {**state, "counter": 1}  # shares the changed list, as a merge does
    assert [p.path for p in check_fields(fields, again, Budget())] == ["notes"]


def test_the_document_size_is_exact_after_in_place_changes_in_utf16_and_utf8() -> None:
    budget = Budget(document_bytes=10_000)
    state: dict[str, Any] = {"a": ["é"], "b": "𝄞"}
    for units in ("utf16", "unicode"):
        assert check_budget(state, budget, per_value=False, units=units) == []
        state["a"].append("𝄞𝄞")
        small = Budget(document_bytes=document_size(state, units) - 1)
        found = check_budget({**state}, small, per_value=False, units=units)
        assert [p.code for p in found] == ["budget"], units
        assert (
            check_budget(
                {**state},
                Budget(document_bytes=document_size(state, units)),
                per_value=False,
                units=units,
            )
            == []
        )


def test_concurrent_checks_of_different_states_match_a_fresh_walk() -> None:
    fields = dict(SKILL.fields or {})
    good = {"counter": 0, "notes": ["a"] * 3}
    bad = {"counter": 0, "notes": ["a", 1]}
    errors: list[str] = []

    def run(state: dict[str, Any], want: list[str]) -> None:
        for i in range(300):
            got = [p.path for p in check_fields(fields, {**state, "counter": i}, Budget())]
            if got != want:
                errors.append(f"{got} != {want}")
                return

    threads = [threading.Thread(target=run, args=(good, [])) for _ in range(2)]
    threads += [threading.Thread(target=run, args=(bad, ["notes"])) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_numbers_that_compare_equal_but_encode_differently_are_measured_again() -> None:
    state: dict[str, Any] = {"n": [0], "m": [1]}
    check_budget(state, Budget(), per_value=False)
    state["n"][0] = -0.0  # == 0, but "-0.0" is longer than "0"
    state["m"][0] = 1.5
    exact = document_size(state)
    assert check_budget({**state}, Budget(document_bytes=exact), per_value=False) == []
    assert check_budget({**state}, Budget(document_bytes=exact - 1), per_value=False) != []


def test_a_tuple_put_in_place_of_a_clean_list_is_walked_again() -> None:
    fields = dict(SKILL.fields or {})
    state: dict[str, Any] = {"notes": ["a"]}
    assert check_fields(fields, state, Budget()) == []
    assert [p.code for p in check_fields(fields, {"notes": ("a",)}, Budget())] == ["type"]


def test_transitions_on_worker_threads_reject_exactly_the_bad_patches() -> None:
    host = make_host("memory:")
    store = host.open_store()
    for n in range(4):
        assert create_run(host, store, SKILL, f"r{n}", SEED).accepted
    wrong: list[str] = []

    def work(n: int) -> None:
        for i in range(150):
            bad = i % 3 == 0
            notes: list[Any] = ["a", 1] if bad else ["a"] * (i % 5 + 1)
            patch = {"counter": i, "notes": notes}
            outcome = transition(host, store, f"r{n}", Change(patch=patch), skill=SKILL)
            if outcome.accepted == bad:
                wrong.append(f"r{n} step {i}: accepted={outcome.accepted}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


# The walk and the size check share one fingerprint per value (skillstate.unchanged):
# what plugin code changes between them, or a caller between two direct calls, is
# fingerprinted again.


class GrowingValidateWrapper:
    """A (misbehaving) wrapper that grows the candidate after the field walk passed it."""

    @hookimpl(wrapper=True)
    def skillstate_validate(self, state: Any) -> Any:
        results = yield
        if state.get("counter") == 2:
            state["notes"].extend(["x" * 90] * 4)
        return results


def test_a_candidate_grown_after_the_walk_is_measured_again_by_the_size_check() -> None:
    host, store = started()
    host.pm.register_local(GrowingValidateWrapper(), "grower")
    outcome = transition(host, store, "r", Change(patch={"counter": 2}), skill=SKILL)
    assert [p.code for p in outcome.problems] == ["budget"]  # in this very transition


def test_a_candidate_grown_by_a_hook_call_monitor_is_measured_again() -> None:
    host, store = started()

    def after(outcome: Any, name: str, impls: Any, kwargs: Any) -> None:
        if name == "skillstate_validate" and kwargs["state"].get("counter") == 2:
            kwargs["state"]["notes"].extend(["x" * 90] * 4)

    undo = host.pm.add_hookcall_monitoring(lambda *args: None, after)
    try:
        outcome = transition(host, store, "r", Change(patch={"counter": 2}), skill=SKILL)
    finally:
        undo()
    assert [p.code for p in outcome.problems] == ["budget"]


def test_a_candidate_whose_key_a_plugin_renamed_is_measured_by_its_new_key() -> None:
    host, store = started()

    class Renaming:
        @hookimpl(wrapper=True)
        def skillstate_validate(self, state: Any) -> Any:
            results = yield
            if "tasks" in state and state.get("counter") == 2:
                # the last key renamed: the same values in the same order, one key longer
                state["z" * 480] = state.pop("tasks")
            return results

    host.pm.register_local(Renaming(), "renaming")
    outcome = transition(host, store, "r", Change(patch={"counter": 2}), skill=SKILL)
    assert [p.code for p in outcome.problems] == ["budget"]


def test_the_same_dict_changed_in_place_between_direct_calls_is_checked_again() -> None:
    fields = dict(SKILL.fields or {})
    state: dict[str, Any] = {"counter": 0, "notes": ["a"]}
    budget = Budget(document_bytes=100)
    assert check_fields(fields, state, budget) == []
    assert check_budget(state, budget, per_value=False) == []
    state["notes"].append(1)  # no plugin ran, but the caller did: the same dict, changed
    assert [p.path for p in check_fields(fields, state, budget)] == ["notes"]
    state["notes"][-1] = "y" * 100
    assert [p.code for p in check_budget(state, budget, per_value=False)] == ["budget"]


def test_a_top_level_number_swapped_for_an_equal_boolean_in_place_is_found() -> None:
    host, store = started()
    store.get("r").state["counter"] = True  # an int is its own fingerprint; True is not 1
    outcome = transition(host, store, "r", Change(patch={"flag": True}), skill=SKILL)
    assert codes(outcome) == [("type", "counter")]


def test_a_subclass_put_in_place_of_a_clean_value_is_always_checked() -> None:
    class Notes(list[Any]):
        pass

    fields = dict(SKILL.fields or {})
    state: dict[str, Any] = {"notes": ["a"]}
    assert check_fields(fields, state, Budget()) == []
    assert [p.code for p in check_fields(fields, {"notes": Notes(["a"])}, Budget())] == ["type"]


def test_a_value_that_turns_from_text_into_a_list_is_checked_under_python_bb() -> None:
    """A ``str`` is its own fingerprint, anything else its marshal (``bytes``): comparing
    the two warns under ``python -b`` and raises under ``-bb``, which turned a transition
    that changes a value's type into a crash."""
    import subprocess
    import sys

    code = """
from skillstate import Change, FieldSpec, SkillDefinition, create_run, transition
from skillstate.testing import make_host
host = make_host("memory:")
store = host.open_store()
plain = SkillDefinition(name="plain")
assert create_run(host, store, plain, "p", {"a": "x"}).accepted
for value in ("y", ["y"], "z", {"k": 1}, 1.5, "w"):
    outcome = transition(host, store, "p", Change(patch={"a": value}), skill=plain)
    assert outcome.accepted, outcome.problems
typed = SkillDefinition(name="typed", fields={"a": FieldSpec("string")})
assert create_run(host, store, typed, "t", {"a": "x"}).accepted
refused = transition(host, store, "t", Change(patch={"a": ["y"]}), skill=typed)
assert [p.code for p in refused.problems] == ["type"], refused.problems
assert transition(host, store, "t", Change(patch={"a": "z"}), skill=typed).accepted
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-bb", "-c", code], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")


def test_a_check_ended_by_a_thread_out_of_order_shares_nothing_afterwards() -> None:
    """Two threads check candidates at once and end in the order they started: the
    second puts the first's memo back in the one slot. That check is over and its state
    (a memory store keeps the very object) may be changed in place by its caller; a
    direct check of it afterwards must not take the ended check's fingerprints."""
    from skillstate.unchanged import checking, done_checking

    fields = {"notes": FieldSpec("string[]")}
    first: dict[str, Any] = {"notes": ["x"]}
    started_first = checking(first)  # thread 1
    assert check_fields(fields, first, Budget()) == []
    started_second = checking({"notes": ["y"]})  # thread 2
    done_checking(started_first)
    done_checking(started_second)
    first["notes"].append(42)
    assert [p.path for p in check_fields(fields, first, Budget())] == ["notes"]
    assert [p.code for p in check_budget(first, Budget(array_items=1))] == ["budget"]
