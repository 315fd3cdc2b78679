"""The TypeScript server's state-schema dialect, read with that server's semantics.

A session's ``state_schema`` is a JSON Schema (draft 2020-12) — or one of the two
forms the TypeScript skill-state MCP server (Derzkiyboomchik/skill-state-mcp-server)
checks states with, which its clients send:

- **properties** (its mode A): ``{"required": [...], "properties": {"k": "number"},
  "additionalProperties": false}``, a property given by a type *name*. No valid JSON
  Schema has one (a property's schema is an object or a boolean), so none changes
  meaning.
- **types** (its mode B): a bare type dictionary, ``{"id": "string", "note":
  "string?"}`` (``?``: optional): no key is a JSON Schema keyword (as a JSON Schema
  it would constrain nothing), or every value is a type name and some key is not a
  keyword (a field named ``title`` beside ``id``). ``{"type": "object"}`` stays a
  JSON Schema (the TypeScript server would demand a field named ``type``).

Semantics are the TypeScript server's: a required field that is absent *or null* is
missing; a property is type-checked only when present and not null; the type names are
``string``, ``number``, ``boolean``, ``object`` (not an array), ``array`` and ``any``.
Where that server silently accepts what it then ignores (an unknown type name such as
``integer``, a non-string ``required`` entry, a nested definition), the schema is
refused here with one line naming the property — properties examined in sorted order,
so the same one is named every time. A state's problems come in that server's order
(required fields, then properties, then unexpected fields), all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.display import excerpt
from skillstate.jsondoc import json_kind
from skillstate.records import Problem

__all__ = ["TYPE_NAMES", "check_dialect", "dialect", "dialect_errors", "state_schema_errors"]

TYPE_NAMES = ("any", "array", "boolean", "number", "object", "string")
"""The type names of the dialect (the TypeScript server checks exactly these)."""

_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "$defs", "title", "description"})
_MODE_A_KEYS = frozenset({"required", "properties", "additionalProperties", "type"})
_PROPERTY_KEYS = frozenset({"type", "title", "description"})
_EXTRA_KEYWORDS = frozenset(
    {"$anchor", "$dynamicAnchor", "$vocabulary", "definitions", "dependencies", "default"}
    | {"deprecated", "readOnly", "writeOnly", "examples", "contentSchema"}
)


def _json_schema_keywords() -> frozenset[str]:
    from jsonschema import Draft202012Validator

    return frozenset(Draft202012Validator.VALIDATORS) | _ANNOTATIONS | _EXTRA_KEYWORDS


def dialect(schema: Mapping[str, Any]) -> str | None:
    """``"properties"`` or ``"types"`` for the TypeScript server's forms, ``None`` for a JSON Schema."""
    props = schema.get("properties")
    if isinstance(props, Mapping) and any(isinstance(v, str) for v in props.values()):
        return "properties"
    keywords = _json_schema_keywords()
    if not set(schema) - keywords:
        return None  # a JSON Schema: every key is one of its keywords (or none at all)
    if not set(schema) & keywords and any(isinstance(v, str) for v in schema.values()):
        return "types"
    if all(isinstance(v, str) and v.removesuffix("?") in TYPE_NAMES for v in schema.values()):
        return "types"  # type names only, some field named like a keyword ("title")
    return None


def _type_error(where: str, value: Any, optional: bool = False) -> str | None:
    if isinstance(value, str):
        name = value[:-1] if optional and value.endswith("?") else value
        if name in TYPE_NAMES:
            return None
        shown = f'names the type "{excerpt(value)}", which is not one of'
    else:
        shown = f"is {json_kind(value)}, not a type name; the type names are"
    hint = ", ".join(TYPE_NAMES) + (" (a trailing ? makes it optional)" if optional else "")
    return f"state_schema: {where} {shown} {hint}"


def dialect_errors(schema: Mapping[str, Any]) -> list[str]:
    """What is wrong with a dialect schema (empty when it is one; see :func:`dialect`)."""
    kind = dialect(schema)
    if kind == "types":
        for key in sorted(schema):
            error = _type_error(f'field "{excerpt(key)}"', schema[key], optional=True)
            if error:
                return [error]
        return []
    if kind is None:
        return []
    for key in sorted(schema):
        if key not in _MODE_A_KEYS and key not in _ANNOTATIONS:
            return [
                f'state_schema: "{excerpt(key)}" is a JSON Schema keyword, but this schema gives '
                'properties as type names (the TypeScript server\'s {"properties": {"k": '
                '"number"}}), which read only required, properties, additionalProperties; '
                'write each property as a JSON Schema ({"type": "number"}) to use it'
            ]
    if schema.get("type", "object") != "object":
        return ['state_schema: "type" must be "object" (the state is a JSON object)']
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
        return ["state_schema: required must be an array of field names (strings)"]
    if not isinstance(schema.get("additionalProperties", True), bool):
        return ["state_schema: additionalProperties must be true or false"]
    props = schema["properties"]
    for key in sorted(props):
        value = props[key]
        where = f'property "{excerpt(key)}"'
        if isinstance(value, Mapping):
            extra = sorted(set(value) - _PROPERTY_KEYS)
            if extra:
                return [
                    f"state_schema: {where} uses {excerpt(extra[0])}, which a properties-by-type-"
                    'name schema does not read; give it as a type name or {"type": ...} only'
                ]
            if "type" not in value:
                continue
            value = value["type"]
        error = _type_error(where, value)
        if error:
            return [error]
    return []


def state_schema_errors(schema: Any, name: str = "state_schema") -> list[str]:
    """Problems with a session's ``state_schema``: a dialect schema, else a JSON Schema."""
    from skillstate.jsonschemas import json_schema_errors

    if isinstance(schema, Mapping) and dialect(schema) is not None:
        return dialect_errors(schema)
    return json_schema_errors(schema, name)


def _matches(value: Any, name: str) -> bool:
    if name == "any":
        return True
    if name == "array":
        return type(value) is list
    if name == "object":
        return type(value) is dict
    if name == "boolean":
        return type(value) is bool
    if name == "number":
        return type(value) in (int, float)
    return type(value) is str


def _typeof(value: Any) -> str:
    """JavaScript's ``typeof`` of a JSON value that is not null."""
    if type(value) is bool:
        return "boolean"
    if type(value) in (int, float):
        return "number"
    if type(value) is str:
        return "string"
    return "object"


def _missing(key: str, source: str) -> Problem:
    return Problem("schema", f'Missing required state field "{excerpt(key)}"', key, source)


def _mistyped(key: str, value: Any, name: str, source: str) -> Problem:
    message = f'State field "{excerpt(key)}" has type "{_typeof(value)}", expected "{name}"'
    return Problem("schema", message, key, source)


def check_dialect(
    schema: Mapping[str, Any], state: Mapping[str, Any], source: str = "core"
) -> list[Problem]:
    """Every problem of ``state`` against a dialect schema.

    A schema :func:`dialect_errors` refuses is never stored; one stored before this
    dialect was read (then an empty JSON Schema) is read as the TypeScript server reads
    it: a part that is not a type name is skipped.
    """
    problems: list[Problem] = []
    if dialect(schema) == "types":
        for key, name in schema.items():
            optional = isinstance(name, str) and name.endswith("?")
            name = name[:-1] if optional else name
            if name not in TYPE_NAMES:
                continue
            value = state.get(key)
            if value is None:
                if not optional:
                    problems.append(_missing(key, source))
            elif not _matches(value, name):
                problems.append(_mistyped(key, value, name, source))
        return problems
    required = schema.get("required")
    for key in required if isinstance(required, list) else []:
        if isinstance(key, str) and state.get(key) is None:
            problems.append(_missing(key, source))
    props = schema["properties"]
    for key, spec in props.items():
        name = spec.get("type", "any") if isinstance(spec, Mapping) else spec
        value = state.get(key)
        if name in TYPE_NAMES and value is not None and not _matches(value, name):
            problems.append(_mistyped(key, value, name, source))
    if schema.get("additionalProperties", True) is False:
        for key in state:
            if key not in props:
                message = f'Unexpected state field "{excerpt(key)}" not allowed by schema'
                problems.append(Problem("unknown-key", message, key, source))
    return problems
