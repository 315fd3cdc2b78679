"""State validation: the field-schema checker of skill definitions, and JSON Schema.

The field checker walks the state in **state order**, depth first, so problems come
out in the order rig-state reports them; string lengths and array sizes are checked
inside the same walk (with the skill's :class:`~skillstate.records.Budget`), again in
rig-state's order. Messages are rig-state's texts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from skillstate.jsondoc import compact
from skillstate.records import DEFAULT_BUDGET, Budget, FieldSpec, Problem, SkillDefinition

__all__ = [
    "check_fields",
    "check_json_schema",
    "check_phase",
    "js_string",
    "json_schema_errors",
    "validate_state",
]


def js_string(value: Any) -> str:
    """JavaScript's ``String(v)``: ``true``, ``1`` (not ``1.0``), ``null``, raw strings."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _got(value: Any) -> str:
    try:
        return compact(value)
    except (TypeError, ValueError):
        return "null"


def check_fields(
    fields: Mapping[str, FieldSpec],
    state: Mapping[str, Any],
    budget: Budget = DEFAULT_BUDGET,
    source: str = "core",
) -> list[Problem]:
    """Every shape problem of ``state`` against ``fields``, in state order."""
    problems: list[Problem] = []
    _walk(fields, state, "", budget, problems, source)
    return problems


def _walk(
    fields: Mapping[str, FieldSpec],
    obj: Mapping[str, Any],
    prefix: str,
    budget: Budget,
    out: list[Problem],
    source: str,
) -> None:
    known: str | None = None
    for key, value in obj.items():
        path = f"{prefix}.{key}" if prefix else key
        spec = fields.get(key)
        if spec is None:
            if known is None:
                known = ", ".join(sorted(fields))
            out.append(
                Problem("unknown-key", f"{path}: unknown key. Known keys: {known}", path, source)
            )
            continue
        _check_value(spec, value, path, budget, out, source)


def _check_value(
    spec: FieldSpec, value: Any, path: str, budget: Budget, out: list[Problem], source: str
) -> None:
    kind = spec.type
    if kind == "string":
        if type(value) is not str:
            out.append(
                Problem("type", f"{path}: expected a string, got {_got(value)}", path, source)
            )
            return
        if len(value) > budget.string_chars:
            out.append(
                Problem(
                    "budget",
                    f"{path}: {len(value)} chars exceeds the {budget.string_chars}-char limit — summarize it",
                    path,
                    source,
                )
            )
        if spec.enum is not None and value not in spec.enum:
            out.append(
                Problem(
                    "enum", f'{path}: "{value}" is not one of {" | ".join(spec.enum)}', path, source
                )
            )
    elif kind == "number":
        if type(value) not in (int, float) or value != value:
            out.append(
                Problem("type", f"{path}: expected a number, got {_got(value)}", path, source)
            )
    elif kind == "boolean":
        if type(value) is not bool:
            out.append(
                Problem("type", f"{path}: expected a boolean, got {_got(value)}", path, source)
            )
    elif kind == "string[]":
        if type(value) is not list or any(type(v) is not str for v in value):
            out.append(
                Problem(
                    "type", f"{path}: expected an array of strings, got {_got(value)}", path, source
                )
            )
            return
        if len(value) > budget.array_items:
            out.append(
                Problem(
                    "budget",
                    f"{path}: {len(value)} items exceeds the {budget.array_items}-item limit — keep what the next step needs",
                    path,
                    source,
                )
            )
        limit = budget.string_chars
        for index, item in enumerate(value):
            if len(item) > limit:
                out.append(
                    Problem(
                        "budget",
                        f"{path}[{index}]: {len(item)} chars exceeds the {limit}-char limit — summarize it",
                        f"{path}[{index}]",
                        source,
                    )
                )
    elif kind == "object":
        if type(value) is not dict:
            out.append(
                Problem("type", f"{path}: expected an object, got {_got(value)}", path, source)
            )
            return
        _walk(spec.of or {}, value, path, budget, out, source)
    else:  # object[]
        if type(value) is not list:
            out.append(
                Problem(
                    "type", f"{path}: expected an array of objects, got {_got(value)}", path, source
                )
            )
            return
        if len(value) > budget.array_items:
            out.append(
                Problem(
                    "budget",
                    f"{path}: {len(value)} items exceeds the {budget.array_items}-item limit",
                    path,
                    source,
                )
            )
        for index, item in enumerate(value):
            item_path = f"{path}[{index}]"
            if type(item) is not dict:
                out.append(
                    Problem(
                        "type",
                        f"{item_path}: expected an object, got {_got(item)}",
                        item_path,
                        source,
                    )
                )
                continue
            _walk(spec.of or {}, item, item_path, budget, out, source)


def check_phase(
    skill: SkillDefinition, state: Mapping[str, Any], source: str = "core"
) -> list[Problem]:
    """The phase must be one of the skill's phases (when it declares any)."""
    if not skill.phases:
        return []
    key = skill.phase_key
    phase = state.get(key)
    if type(phase) is str and phase in skill.phases:
        return []
    shown = "undefined" if key not in state else js_string(phase)
    return [
        Problem(
            "phase",
            f'{key}: "{shown}" is not a {skill.name} {key}. Declared: {" → ".join(skill.phases)}',
            key,
            source,
        )
    ]


@lru_cache(maxsize=256)
def _validator(schema_text: str) -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads(schema_text)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def json_schema_errors(schema: Mapping[str, Any]) -> list[str]:
    """Problems with a JSON Schema itself (empty when it is a valid draft 2020-12 schema)."""
    from jsonschema.exceptions import SchemaError

    try:
        _validator(compact(schema))
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return [f"state_schema is not a valid JSON Schema at {where}: {exc.message}"]
    except (TypeError, ValueError) as exc:
        return [f"state_schema is not valid JSON: {exc}"]
    return []


def _dotted(parts: Any) -> str:
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def check_json_schema(schema: Mapping[str, Any], state: Any, source: str = "core") -> list[Problem]:
    """Every JSON Schema (draft 2020-12) error of ``state``, sorted by path, with paths named.

    Unknown keys (``additionalProperties: false``) are reported one per key in the
    field checker's words, with the known keys of that level listed (sorted).
    """
    validator = _validator(compact(schema))
    problems: list[Problem] = []
    errors = sorted(
        validator.iter_errors(state), key=lambda e: (list(map(str, e.absolute_path)), e.message)
    )
    for error in errors:
        path = _dotted(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            patterns = (
                error.schema.get("patternProperties", {}) if isinstance(error.schema, dict) else {}
            )
            known = ", ".join(sorted(props))
            import re

            for key in error.instance:
                if key in props or any(re.search(p, key) for p in patterns):
                    continue
                key_path = f"{path}.{key}" if path else key
                problems.append(
                    Problem(
                        "unknown-key",
                        f"{key_path}: unknown key. Known keys: {known}",
                        key_path,
                        source,
                    )
                )
            continue
        where = path or "state"
        problems.append(Problem("schema", f"{where}: {error.message}", path, source))
    return problems


def validate_state(
    skill: SkillDefinition,
    state: Mapping[str, Any],
    budget: Budget = DEFAULT_BUDGET,
    schema: Mapping[str, Any] | None = None,
    source: str = "core",
) -> list[Problem]:
    """All shape problems: fields (with in-walk budgets), JSON Schemas, then the phase."""
    problems: list[Problem] = []
    if skill.fields is not None:
        problems.extend(check_fields(skill.fields, state, budget, source))
    if skill.json_schema is not None:
        problems.extend(check_json_schema(skill.json_schema, state, source))
    if schema is not None:
        problems.extend(check_json_schema(schema, state, source))
    problems.extend(check_phase(skill, state, source))
    return problems
