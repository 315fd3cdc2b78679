"""``compact`` is ``json.dumps`` with JavaScript's separators, text and errors alike;
``pretty`` is ``JSON.stringify(v, null, 2)``."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, strategies as st

from skillstate.jsondoc import compact, pretty

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


def _dumps(value: Any) -> str:
    return json.dumps(
        value, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_default
    )


def _default(value: Any) -> Any:
    raise TypeError(f"a {type(value).__name__} is not a JSON value")


@given(documents)
def test_compact_writes_what_json_dumps_writes(value: Any) -> None:
    assert compact(value) == _dumps(value)


@pytest.mark.parametrize(
    "value",
    [math.nan, {"a": [math.inf]}, {"a": object()}, {(1, 2): 1}, {"a": {1j}}],
)
def test_compact_refuses_what_json_dumps_refuses_with_the_same_error(value: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as ours:
        compact(value)
    with pytest.raises((TypeError, ValueError)) as theirs:
        _dumps(value)
    assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


def test_a_circular_value_is_refused_and_the_next_call_is_unaffected() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        compact(loop)
    bad: list[Any] = [[1], object()]
    with pytest.raises(TypeError):
        compact(bad)  # aborted inside bad: a shared markers dict would keep id(bad)
    bad[1] = 2
    assert compact(bad) == "[[1],2]"
    assert compact({"k": "é", "n": -0.0}) == json.dumps(
        {"k": "é", "n": -0.0}, separators=(",", ":"), ensure_ascii=False
    )


def test_pretty_writes_integral_floats_as_javascript_does_and_refuses_nan() -> None:
    assert pretty({"a": [1.0, 2.5], "b": {}, "c": []}) == (
        '{\n  "a": [\n    1,\n    2.5\n  ],\n  "b": {},\n  "c": []\n}'
    )
    with pytest.raises(ValueError):
        pretty({"a": math.nan})
    with pytest.raises(TypeError):
        pretty({"a": object()})
