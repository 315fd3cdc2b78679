r"""JSON Schema (draft 2020-12) documents themselves: checked, and compiled into validators.

A leaf of the core (it imports only :mod:`jsonschema`, :mod:`regex` and
:mod:`skillstate.display`). Patterns are matched in bounded time: a schema comes from
whoever starts a session, ``(a|aa)+$`` is exponential on a near miss, and :mod:`re`
cannot be interrupted (one search would stall every client of a server). So the pattern
keywords use :mod:`regex` with a time limit a search (``\p{L}`` works too), and
``unevaluatedProperties`` beside ``patternProperties`` (matched by jsonschema with
:mod:`re`) is refused.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

from skillstate.display import excerpt

__all__ = ["PATTERN_SECONDS", "BadPattern", "compiled", "json_schema_errors", "pattern_search"]

PATTERN_SECONDS = 0.05
"""The longest one search of a schema's pattern may take before the check ends."""


class BadPattern(Exception):
    """A schema pattern that is not a regular expression, or took over :data:`PATTERN_SECONDS`."""


def pattern_search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema's rule), in bounded time."""
    import regex

    shown = f"pattern {excerpt(repr(pattern), 80)}"
    try:
        return regex.search(pattern, text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        ms = PATTERN_SECONDS * 1000
        raise BadPattern(f"{shown} took over {ms:.0f} ms on one string; checking stopped") from None
    except regex.error as exc:
        raise BadPattern(f"{shown} is not a regular expression ({exc})") from None


@functools.cache
def _validator_class() -> Any:
    """Draft 2020-12 with the three pattern keywords matched by :func:`pattern_search`."""
    from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators

    formats = FormatChecker()  # a checker of our own: the library's stays as it is

    def is_regex(instance: object) -> bool:
        if not isinstance(instance, str):
            return True
        import regex  # only for a schema with a pattern: importing it costs about 25 ms

        return regex.compile(instance) is not None

    formats.checks("regex", raises=Exception)(is_regex)  # regex.error, imported late

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not pattern_search(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(
        validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
    ) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in patterns.items():
            for key, value in instance.items():
                if pattern_search(patrn, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    def additional_properties(
        validator: Any, extra_schema: Any, instance: Any, schema: Any
    ) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        props, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
        extras = [
            key
            for key in instance
            if key not in props and not any(pattern_search(p, key) for p in patterns)
        ]
        if validator.is_type(extra_schema, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra_schema, path=key)
        elif extra_schema is False and extras:
            shown = ", ".join(repr(key) for key in sorted(extras))
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({shown} {verb} unexpected)"
            )

    return validators.extend(
        Draft202012Validator,
        {
            "pattern": pattern,
            "patternProperties": pattern_properties,
            "additionalProperties": additional_properties,
        },
        format_checker=formats,
    )


CACHED = 256
"""How many compiled validators one cache keeps (a session may bring a schema of its own)."""


def _compile(text: str) -> Any:
    validator = _validator_class()
    schema = json.loads(text)
    validator.check_schema(schema, format_checker=validator.FORMAT_CHECKER)  # the slow part
    return validator(schema)


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
    patterns = _pattern_errors(schema, name)
    if patterns:
        return patterns
    try:
        compiled(schema)
    except SchemaError:
        exc = _first_schema_error(schema)
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return [f"{name} is not a valid JSON Schema at {excerpt(where)}: {excerpt(exc.message)}"]
    except (TypeError, ValueError) as exc:
        return [f"{name} is not valid JSON: {excerpt(str(exc))}"]
    return []


_DATA = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are data, not schemas: the keys inside are no keywords."""


def _keywords(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key not in _DATA:
                yield key
                yield from _keywords(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keywords(item)


def _pattern_errors(schema: Mapping[str, Any], name: str) -> list[str]:
    """``unevaluatedProperties`` beside ``patternProperties``: jsonschema would match
    those patterns with :mod:`re`, unbounded. (A pattern that is not a regular expression
    is the metaschema's ``format: regex``, checked with :mod:`regex`.)"""
    if {"unevaluatedProperties", "patternProperties"} <= set(_keywords(schema)):
        return [
            f"{name}: unevaluatedProperties beside patternProperties is not supported "
            "(its pattern matching cannot be bounded in time); use additionalProperties"
        ]
    return []


def _first_schema_error(schema: Mapping[str, Any]) -> Any:
    """The most relevant metaschema error, the same one every run.

    ``check_schema`` raises the best match of errors found in an order that can vary
    between runs (two bad properties: either one is named); here ties go to the
    smallest path, so a message names the same place every time.
    """
    from jsonschema.exceptions import relevance

    checker = _validator_class()
    meta = checker(checker.META_SCHEMA, format_checker=checker.FORMAT_CHECKER)
    errors = sorted(
        meta.iter_errors(schema), key=lambda e: ([str(p) for p in e.absolute_path], e.message)
    )
    return max(errors, key=relevance)
