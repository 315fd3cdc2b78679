"""JSON Schema (draft 2020-12) documents themselves: checked, and compiled into validators.

A leaf of the core (it imports only :mod:`jsonschema` and :mod:`skillstate.display`):
the skill records check a skill's ``json_schema`` when one is built, and
:mod:`skillstate.schema` validates states with the validators compiled here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, MutableMapping
from typing import Any

from skillstate.display import excerpt

__all__ = ["compiled", "json_schema_errors"]

CACHED = 256
"""How many compiled validators one cache keeps (a session may bring a schema of its own)."""


def _compile(text: str) -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads(text)
    Draft202012Validator.check_schema(schema)  # the metaschema: the slow part
    return Draft202012Validator(schema)


def compiled(schema: Mapping[str, Any], cache: MutableMapping[str, Any] | None = None) -> Any:
    """A validator for ``schema``; ``cache`` (the caller's own, e.g. one per plugin manager)
    keeps up to :data:`CACHED` of them by the schema's text, so a schema is compiled once.

    Raises ``jsonschema.SchemaError`` for an invalid schema, ``TypeError``/``ValueError``
    for one that is not JSON.
    """
    text = json.dumps(schema, sort_keys=True, ensure_ascii=False, allow_nan=False)
    if cache is None:
        return _compile(text)
    found = cache.get(text)
    if found is None:
        if len(cache) >= CACHED:
            cache.clear()
        found = cache[text] = _compile(text)
    return found


def json_schema_errors(schema: Any, name: str = "state_schema") -> list[str]:
    """Problems with a JSON Schema itself (empty when it is a valid draft 2020-12 schema).

    One line naming ``name`` and where in the schema it is wrong, never the metaschema.
    """
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, Mapping):
        return [f"{name} must be a JSON object (a JSON Schema), got {type(schema).__name__}"]
    try:
        compiled(schema)
    except SchemaError:
        exc = _first_schema_error(schema)
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return [f"{name} is not a valid JSON Schema at {excerpt(where)}: {excerpt(exc.message)}"]
    except (TypeError, ValueError) as exc:
        return [f"{name} is not valid JSON: {excerpt(str(exc))}"]
    return []


def _first_schema_error(schema: Mapping[str, Any]) -> Any:
    """The most relevant metaschema error, the same one every run.

    ``check_schema`` raises the best match of errors found in an order that can vary
    between runs (two bad properties: either one is named); here ties go to the
    smallest path, so a message names the same place every time.
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import relevance

    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    errors = sorted(
        meta.iter_errors(schema), key=lambda e: ([str(p) for p in e.absolute_path], e.message)
    )
    return max(errors, key=relevance)
