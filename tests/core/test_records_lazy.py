"""The records package builds its classes on first use; nothing else may tell the difference."""

from __future__ import annotations

import pickle
import typing

import attrs
import pytest

import skillstate.records as records

# Classes whose annotations name types only a type checker sees (an argparse parser,
# an Environment, a Store): their hints never resolved at run time, before issue 18 too.
UNRESOLVED = {"CommandSpec", "EnvironmentSpec", "StoreSpec"}


@pytest.mark.parametrize("name", records.__all__)
def test_every_name_imports_and_record_hints_resolve(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from skillstate.records import {name}", namespace)
    value = namespace[name]
    assert getattr(records, name) is value
    if isinstance(value, type) and attrs.has(value) and name not in UNRESOLVED:
        typing.get_type_hints(value)  # cattrs and attrs.resolve_types need these


def test_records_pickle_and_keep_their_classes() -> None:
    from skillstate.records import Budget, FieldSpec, Problem, RunRecord, SkillDefinition

    values = [
        Problem("a", "m", "p", "s"),
        RunRecord(id="r", skill="s", state={"a": [1]}, version=2),
        SkillDefinition(name="s", fields={"a": FieldSpec("number")}, budget=Budget()),
    ]
    for value in values:
        again = pickle.loads(pickle.dumps(value))
        assert again == value and type(again) is type(value)


@attrs.frozen
class TaggedRecord(records.RunRecord):
    """A third-party store's record: a RunRecord with a field of its own."""

    tag: str = "none"


def test_a_stores_record_subclass_keeps_its_fields_through_a_transition() -> None:
    from skillstate_testing import make_host

    from skillstate import Change, SkillDefinition, create_run, transition

    host = make_host("memory:")
    store = host.open_store()
    skill = SkillDefinition(name="tagged")
    assert create_run(host, store, skill, "r", {"a": 1}).accepted
    plain = store.get("r")
    kept = {f.name: getattr(plain, f.name) for f in attrs.fields(records.RunRecord)}
    tagged = TaggedRecord(**kept, tag="mine")
    store.get = lambda run_id: tagged
    outcome = transition(host, store, "r", Change(patch={"a": 2}), skill=skill)
    assert outcome.accepted and outcome.record is not None
    assert type(outcome.record) is TaggedRecord
    assert outcome.record.tag == "mine" and outcome.record.state["a"] == 2


def test_hook_policies_stay_frozen_after_leaving_attrs() -> None:
    from skillstate.isolation import POLICIES, HookPolicy

    policy = POLICIES["skillstate_guards"]
    with pytest.raises(AttributeError):
        policy.check = None
    with pytest.raises(AttributeError):
        del policy.iterable
    assert policy.check is not None
    assert HookPolicy(iterable=True) == HookPolicy(iterable=True) != HookPolicy()
