"""The field-schema checker, JSON Schema, phases and budgets, with rig-state's messages."""

from __future__ import annotations

from typing import Any

import pytest

from skillstate.budgets import check_budget, document_size
from skillstate.records import Budget, FieldSpec, SkillDefinition
from skillstate.schema import (
    check_fields,
    check_json_schema,
    check_phase,
    js_string,
    json_schema_errors,
    validate_state,
)

DEFAULT = Budget()
FIELDS = {
    "phase": FieldSpec("string"),
    "count": FieldSpec("number"),
    "flag": FieldSpec("boolean"),
    "tags": FieldSpec("string[]"),
    "tests": FieldSpec(
        "object",
        of={
            "status": FieldSpec("string", enum=("not-run", "red", "green")),
            "inner": FieldSpec("object", of={"deep": FieldSpec("number")}),
        },
    ),
    "children": FieldSpec(
        "object[]",
        of={"id": FieldSpec("string"), "status": FieldSpec("string", enum=("todo", "merged"))},
    ),
}


def messages(state: dict[str, Any], budget: Budget = DEFAULT) -> list[str]:
    return [p.message for p in check_fields(FIELDS, state, budget)]


def test_a_well_formed_state_has_no_problem() -> None:
    state = {
        "phase": "x",
        "count": 1.5,
        "flag": False,
        "tags": ["a"],
        "tests": {"status": "red", "inner": {"deep": 2}},
        "children": [{"id": "a", "status": "todo"}],
    }
    assert messages(state) == []


def test_booleans_are_not_numbers_and_numbers_not_booleans() -> None:
    assert messages({"count": True}) == ["count: expected a number, got true"]
    assert messages({"flag": 1}) == ["flag: expected a boolean, got 1"]
    assert messages({"count": float("nan")}) == ["count: expected a number, got null"]


def test_unknown_keys_at_every_depth_list_the_sorted_known_keys_in_state_order() -> None:
    got = messages({"tests": {"flakes": 1, "inner": {"deeper": 1}}, "scratch": "x"})
    assert got == [
        "tests.flakes: unknown key. Known keys: inner, status",
        "tests.inner.deeper: unknown key. Known keys: deep",
        "scratch: unknown key. Known keys: children, count, flag, phase, tags, tests",
    ]


def test_enum_type_and_array_messages() -> None:
    assert messages({"tests": {"status": "blue"}}) == [
        'tests.status: "blue" is not one of not-run | red | green'
    ]
    assert messages({"tags": ["ok", 3]}) == ['tags: expected an array of strings, got ["ok",3]']
    assert messages({"tests": [1]}) == ["tests: expected an object, got [1]"]
    assert messages({"children": [{"id": "a", "status": "nope"}, 5]}) == [
        'children[0].status: "nope" is not one of todo | merged',
        "children[1]: expected an object, got 5",
    ]
    assert messages({"children": "x"}) == ['children: expected an array of objects, got "x"']


def test_nulls_are_type_errors_not_skipped() -> None:
    assert messages({"tags": [None]}) == ["tags: expected an array of strings, got [null]"]
    assert messages({"children": [None]}) == ["children[0]: expected an object, got null"]


def test_in_walk_budgets_with_rig_texts() -> None:
    budget = Budget(string_chars=5, array_items=2, document_bytes=8192)
    assert messages({"phase": "x" * 6}, budget) == [
        "phase: 6 chars exceeds the 5-char limit — summarize it"
    ]
    assert messages({"tags": ["a", "b", "toolong"]}, budget) == [
        "tags: 3 items exceeds the 2-item limit — keep what the next step needs",
        "tags[2]: 7 chars exceeds the 5-char limit — summarize it",
    ]
    assert messages({"children": [{}, {}, {}]}, budget) == [
        "children: 3 items exceeds the 2-item limit"
    ]


def test_phase_messages_render_like_javascript() -> None:
    skill = SkillDefinition(name="demo", phases=("a", "b"), terminal_phases=("b",))
    assert check_phase(skill, {"phase": "a"}) == []
    assert [p.message for p in check_phase(skill, {})] == [
        "phase: missing (a null deletes it), and every demo run has a phase. Declared: a → b"
    ]
    assert [p.message for p in check_phase(skill, {"phase": 7})] == [
        'phase: "7" is not a demo phase. Declared: a → b'
    ]
    assert js_string(2.0) == "2" and js_string(True) == "true" and js_string(None) == "null"


def test_document_budget_counts_utf8_bytes_of_compact_json() -> None:
    state = {"decisions": ["x" * 400] * 20, "blockers": ["x" * 400] * 20}
    problems = check_budget(state, Budget(), per_value=False)
    size = document_size(state)
    assert [p.message for p in problems] == [
        f"state is {size} bytes, over the 8192-byte budget — drop what no later step reads"
    ]
    assert document_size({"s": "é"}) == len('{"s":"é"}'.encode())


def test_per_value_budget_and_nul_outside_field_schemas() -> None:
    got = [
        p.message for p in check_budget({"a": {"b": ["x" * 501]}, "c": list(range(51))}, Budget())
    ]
    assert got == [
        "a.b[0]: 501 chars exceeds the 500-char limit — summarize it",
        "c: 51 items exceeds the 50-item limit — keep what the next step needs",
    ]
    nul = check_budget({"a": "x\x00y"}, Budget(), per_value=False)
    assert [p.code for p in nul] == ["input"] and "NUL" in nul[0].message


def test_json_schema_errors_name_paths_and_unknown_keys_list_known_keys() -> None:
    schema = {
        "type": "object",
        "properties": {
            "inventory": {"type": "object", "additionalProperties": {"type": "integer"}},
            "mode": {"enum": ["a", "b"]},
            "meta": {
                "type": "object",
                "properties": {"x": {}, "w": {}},
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    }
    problems = check_json_schema(
        schema, {"inventory": {"i1": "3"}, "mode": "c", "meta": {"z": 1}, "extra": 1}
    )
    got = [p.message for p in problems]
    assert "extra: unknown key. Known keys: inventory, meta, mode" in got
    assert "meta.z: unknown key. Known keys: w, x" in got
    assert "inventory.i1: '3' is not of type 'integer'" in got
    assert "mode: 'c' is not one of ['a', 'b']" in got


def test_invalid_json_schema_is_reported() -> None:
    assert json_schema_errors({"type": "object"}) == []
    errors = json_schema_errors({"type": "no-such-type"})
    assert errors and "not a valid JSON Schema" in errors[0]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"type": "str"}, "is not one of"),
        ({"type": "string", "of": {}}, "'of' is only allowed"),
        ({"type": "number", "enum": ("a",)}, "'enum' is only allowed"),
    ],
)
def test_bad_field_specs_are_refused(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        FieldSpec(**kwargs)


def test_bad_skill_definitions_are_refused() -> None:
    with pytest.raises(ValueError, match="terminal phases"):
        SkillDefinition(name="x", phases=("a",), terminal_phases=("z",))
    with pytest.raises(ValueError, match="non-empty"):
        SkillDefinition(name="")
    with pytest.raises(ValueError, match="positive integer"):
        Budget(string_chars=0)


# -- issue 16, class 10 ---------------------------------------------------------------------


def test_an_invalid_json_schema_is_refused_when_the_skill_is_defined() -> None:
    """It used to fail at the first transition, with the whole metaschema in the message."""
    from skillstate.records import SkillDefinition

    with pytest.raises(ValueError) as caught:
        SkillDefinition(
            name="tickets", json_schema={"type": "object", "properties": {"n": {"minimum": "0"}}}
        )
    message = str(caught.value)
    assert message == (
        "skill tickets: json_schema is not a valid JSON Schema at properties/n/minimum: "
        "'0' is not of type 'number'"
    )
    assert "\n" not in message and len(message) < 300


def test_a_plugin_registering_an_invalid_schema_gets_one_warning_naming_the_skill() -> None:
    import warnings

    from skillstate_testing import make_host

    from skillstate import SkillDefinition, hookimpl

    class Broken:
        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            register(SkillDefinition(name="tickets", json_schema={"type": "nope"}))

    host = make_host("memory:")
    host.pm.register(Broken(), name="broken-schema")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert host.skills.get("tickets") is None
    (warning,) = [w for w in caught if "broken-schema" in str(w.message)]
    assert "skill tickets: json_schema is not a valid JSON Schema at type:" in str(warning.message)
    assert "\n" not in str(warning.message) and len(str(warning.message)) < 600


def test_an_extra_key_under_fields_and_a_json_schema_is_reported_once() -> None:
    from skillstate.records import FieldSpec, SkillDefinition
    from skillstate.schema import validate_state

    skill = SkillDefinition(
        name="both",
        fields={"a": FieldSpec("string")},
        json_schema={"type": "object", "properties": {"a": {}}, "additionalProperties": False},
    )
    assert [p.message for p in validate_state(skill, {"a": "x", "z": 1})] == [
        "z: unknown key. Known keys: a"
    ]
    strict = SkillDefinition(
        name="strict",
        json_schema={
            "type": "object",
            "properties": {"a": {}},
            "additionalProperties": False,
            "unevaluatedProperties": False,
        },
    )
    assert [p.message for p in validate_state(strict, {"z": 1})] == [
        "z: unknown key. Known keys: a"
    ]


def test_a_json_schema_message_does_not_echo_the_whole_value() -> None:
    from skillstate.records import SkillDefinition
    from skillstate.schema import validate_state

    skill = SkillDefinition(name="any", json_schema={"anyOf": [{"type": "array"}]})
    (problem,) = validate_state(skill, {"z": "x" * 100_000})
    assert len(problem.message) < 600 and problem.message.endswith("characters)")


def test_a_type_dictionary_stored_before_the_dialect_was_read_is_read_leniently() -> None:
    """A session created when ``{"id": "string", "meta": {...}}`` was an empty JSON Schema
    keeps stepping: the parts that are not type names are skipped, as the TypeScript
    server skips them, instead of failing every step."""
    skill = SkillDefinition(name="adhoc")
    legacy = {"id": "string", "meta": {"x": 1}, "n": "integer", "tags": "array?"}
    assert [p.message for p in validate_state(skill, {"n": "x"}, schema=legacy)] == [
        'Missing required state field "id"'
    ]
    assert validate_state(skill, {"id": "a", "meta": 5}, schema=legacy) == []
    mode_a = {"required": "id", "properties": {"a": "str", "b": "number"}}
    assert [p.message for p in validate_state(skill, {"a": 1, "b": "x"}, schema=mode_a)] == [
        'State field "b" has type "string", expected "number"'
    ]


@pytest.mark.parametrize(
    ("schema", "kind"),
    [
        ({"properties": {"attempts": "number"}}, "properties"),
        (
            {"required": ["id"], "properties": {"id": {"type": "string"}, "n": "number"}},
            "properties",
        ),
        ({"id": "string", "note": "string?"}, "types"),
        ({"title": "string", "id": "string"}, "types"),  # a field named like a keyword
        ({"id": "string", "meta": {"x": "number"}}, "types"),
        ({}, None),
        ({"type": "object"}, None),  # the reference would demand a field named "type"
        ({"type": "object", "properties": {"n": {"type": "integer"}}}, None),
        ({"type": "object", "x-owner": "team-a"}, None),  # an extension keyword
        ({"title": "string", "description": "any"}, None),  # keywords only
        ({"required": ["id"]}, None),
    ],
)
def test_which_schemas_are_the_typescript_server_s_dialect(
    schema: dict[str, Any], kind: str | None
) -> None:
    from skillstate.schema_dialect import dialect, state_schema_errors

    assert dialect(schema) == kind
    if kind is None:
        assert state_schema_errors(schema) == json_schema_errors(schema) == []
