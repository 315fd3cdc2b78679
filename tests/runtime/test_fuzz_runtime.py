"""Fuzz: the session runtime and the turn parser with hostile arguments and turn texts.

Bad input raises a :class:`~skillstate.errors.SkillstateError` (a session error) and
writes nothing; the turn parser answers a :class:`ParsedTurn` or a ``TurnParseError``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fuzzing import FUZZ, hostile_documents, hostile_text, hostile_values, run_ids
from hypothesis import given, strategies as st

from skillstate import Runtime
from skillstate.errors import SkillstateError
from skillstate.jsondoc import compact
from skillstate.runtime import ParsedTurn, TurnParseError, parse_turn_response

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    runtime = Runtime(f"memory:fuzz-{uuid.uuid4().hex}")
    runtime.initialize_skill("s1", "Do step A then B", {"step": 0})
    yield runtime
    runtime.close()


def _world(rt: Runtime) -> str:
    store = rt.store
    return compact(
        [
            [store.get(s.id).to_dict(), [e.to_dict() for e in store.journal(s.id)]]
            for s in store.list()
        ]
    )


SPECS = st.one_of(hostile_text, hostile_documents)
OPTIONS = st.one_of(st.none(), hostile_values)


@FUZZ
@given(
    session_id=run_ids,
    spec=SPECS,
    initial=st.one_of(st.none(), hostile_documents),
    schema=st.one_of(st.none(), hostile_documents),
    environment=st.one_of(st.none(), st.just("mock"), hostile_text),
    options=OPTIONS,
)
def test_initialize_skill_never_raises_anything_else(
    rt: Runtime,
    session_id: Any,
    spec: Any,
    initial: Any,
    schema: Any,
    environment: Any,
    options: Any,
) -> None:
    before = _world(rt)
    try:
        rt.initialize_skill(
            session_id, spec, initial, schema, environment, environment_options=options
        )
    except SkillstateError:
        assert _world(rt) == before
        return
    rt.close_session(session_id)


@FUZZ
@given(
    trace=st.one_of(hostile_text, hostile_values),
    update=hostile_documents,
    action=st.one_of(hostile_text, hostile_documents),
    observed=st.one_of(st.none(), hostile_text),
    session_id=st.one_of(st.just("s1"), run_ids),
)
def test_execute_step_rejects_bad_input_without_writing(
    rt: Runtime, trace: Any, update: Any, action: Any, observed: Any, session_id: Any
) -> None:
    before = _world(rt)
    try:
        rt.execute_step(session_id, trace, update, action, observed)
    except SkillstateError:
        assert _world(rt) == before


@FUZZ
@given(
    observation=st.one_of(hostile_text, hostile_values),
    patch=st.one_of(st.none(), hostile_documents),
)
def test_inject_observation_rejects_bad_input_without_writing(
    rt: Runtime, observation: Any, patch: Any
) -> None:
    before = _world(rt)
    try:
        rt.inject_observation("s1", observation, patch)
    except SkillstateError:
        assert _world(rt) == before


TURN_PARTS = st.sampled_from(
    [
        "**Reasoning:**",
        "**State Update:**",
        "**Action:**",
        "```json",
        "```",
        "{",
        "}",
        ",",
        '"a":1',
        "\n",
    ]
)


@FUZZ
@given(text=st.lists(st.one_of(TURN_PARTS, hostile_text), max_size=30).map("".join))
def test_turn_texts_parse_or_are_refused_with_a_turn_error(text: str) -> None:
    try:
        parsed = parse_turn_response(text)
    except TurnParseError:
        return
    assert isinstance(parsed, ParsedTurn)
