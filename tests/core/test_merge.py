"""RFC 7396: all Appendix A vectors, the body examples, and properties."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from skillstate import merge_patch

VECTORS = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]

BODY_EXAMPLES = [
    (
        {"a": "b", "c": {"d": "e", "f": "g"}},
        {"a": "z", "c": {"f": None}},
        {"a": "z", "c": {"d": "e"}},
    ),
    (
        {
            "title": "Goodbye!",
            "author": {"givenName": "John", "familyName": "Doe"},
            "tags": ["example", "sample"],
            "content": "This will be unchanged",
        },
        {
            "title": "Hello!",
            "phoneNumber": "+01-123-456-7890",
            "author": {"familyName": None},
            "tags": ["example"],
        },
        {
            "title": "Hello!",
            "author": {"givenName": "John"},
            "tags": ["example"],
            "content": "This will be unchanged",
            "phoneNumber": "+01-123-456-7890",
        },
    ),
]


def canon(value: Any) -> str:
    """Type-strict equality: 1, 1.0 and True differ."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize(("target", "patch", "result"), VECTORS + BODY_EXAMPLES)
def test_rfc7396_vectors(target: Any, patch: Any, result: Any) -> None:
    assert canon(merge_patch(target, patch)) == canon(result)


def test_key_order_existing_keep_position_new_appended() -> None:
    assert list(merge_patch({"b": 1, "a": 2}, {"c": 3, "a": 4})) == ["b", "a", "c"]
    assert list(merge_patch({"a": 1, "b": 2}, {"a": None})) == ["b"]


def test_patches_do_not_compose() -> None:
    # ecosystem §1.4: merging two patches is not the same as applying both.
    target, p1, p2 = {"k": {"b": 2}}, {"k": "x"}, {"k": {"a": 1}}
    assert merge_patch(merge_patch(target, p1), p2) == {"k": {"a": 1}}
    assert merge_patch(target, merge_patch(p1, p2)) == {"k": {"b": 2, "a": 1}}


def test_result_does_not_alias_patch_values() -> None:
    patch = {"l": [1, {"x": 1}], "o": {"p": [2]}}
    result = merge_patch({}, patch)
    result["l"][1]["x"] = 99
    result["o"]["p"].append(3)
    assert patch == {"l": [1, {"x": 1}], "o": {"p": [2]}}


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5)
)
keys = st.text(alphabet="abc", min_size=1, max_size=2)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=15,
)
json_objects = st.dictionaries(keys, json_values, max_size=4)


def object_level_nulls(value: Any) -> bool:
    """A null member in an object reached through objects only (arrays hold data as-is)."""
    if isinstance(value, dict):
        return any(v is None or object_level_nulls(v) for v in value.values())
    return False


def json_without_object_nulls(value: Any) -> bool:
    return not object_level_nulls(value)


@settings(max_examples=300)
@given(target=json_objects.filter(json_without_object_nulls), patch=json_objects)
def test_idempotent_and_pure(target: dict[str, Any], patch: dict[str, Any]) -> None:
    target_before, patch_before = copy.deepcopy(target), copy.deepcopy(patch)
    once = merge_patch(target, patch)
    assert canon(merge_patch(once, patch)) == canon(once)
    assert canon(target) == canon(target_before)
    assert canon(patch) == canon(patch_before)


@given(target=json_objects)
def test_empty_patch_is_identity(target: dict[str, Any]) -> None:
    assert canon(merge_patch(target, {})) == canon(target)


@settings(max_examples=300)
@given(target=json_objects.filter(json_without_object_nulls), patch=json_objects)
def test_no_null_at_object_level_and_deletes_stick(
    target: dict[str, Any], patch: dict[str, Any]
) -> None:
    result = merge_patch(target, patch)
    assert not object_level_nulls(result)
    for key, value in patch.items():
        if value is None:
            assert key not in result
