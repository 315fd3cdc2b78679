"""Strict tool arguments: the advertised JSON Schemas and the checks that enforce them.

The SDK's own argument handling (a Pydantic model per tool) ignores unknown keys and
JSON-decodes strings given for non-string parameters. The skillstate tools do not go
through it: every call's raw ``arguments`` object is checked here first —

- an unknown key is an error naming it and the accepted keys;
- a missing required argument is an error naming it and its type;
- a value of the wrong JSON type is an error naming the argument, the expected type
  and what was sent;
- an object argument (``state_update``, ``state_patch``, ``initial_state``,
  ``state_schema``, ``environment_options``) sent as a *string* is accepted only when
  the string is JSON text of an object (some clients double-encode); any other string
  is an error saying so.

Deeper checks (ids, sizes, depth, JSON values) are the runtime's, with its messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from skillstate.plugin import InvalidInput, SkillstateError, excerpt

__all__ = ["ArgumentError", "Param", "check_arguments", "input_schema", "json_kind"]

KINDS = ("string", "id", "text", "object", "spec", "action", "boolean", "name", "integer")
"""Parameter kinds: ``string`` (non-empty), ``id`` (a session id: a non-empty string whose
schema states the id rule, :data:`ID_PATTERN`), ``text`` (may be empty), ``object``,
``spec`` (string or object), ``action`` (string or object), ``boolean``, ``name``
(a string from a fixed set, given as ``choices``), ``integer`` (a whole number >=
``minimum``, 0 unless given: a step, a version, a count; ``3.0`` and ``"3"`` are
refused, and the message says what was sent)."""


ID_PATTERN = r"^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,79}$"
"""The run-id rule as an ECMA-262 pattern (1-80 characters of A-Z a-z 0-9 . _ -, the
first a letter or digit, no ``..``), so a client validating against the tool's input
schema refuses what the server would. The server checks the id itself, with the
reference server's message, whatever the client did."""


class ArgumentError(SkillstateError):
    """A tool call's arguments do not match the tool's input schema; nothing ran."""


@attrs.frozen
class Param:
    """One tool argument: its name, kind (see :data:`KINDS`), whether required, description."""

    name: str
    kind: str
    description: str
    required: bool = True
    choices: tuple[str, ...] = ()
    minimum: int = 0
    """The least value of an ``integer`` argument (``limit``: 1)."""

    def schema(self) -> dict[str, Any]:
        """This argument's JSON Schema (draft 2020-12)."""
        kind = self.kind
        if kind == "string":
            body: dict[str, Any] = {"type": "string", "minLength": 1}
        elif kind == "id":
            body = {"type": "string", "minLength": 1, "maxLength": 80, "pattern": ID_PATTERN}
        elif kind == "text":
            body = {"type": "string"}
        elif kind == "object":
            body = {"type": "object"}
        elif kind in ("spec", "action"):
            body = {"anyOf": [{"type": "string", "minLength": 1}, {"type": "object"}]}
        elif kind == "boolean":
            body = {"type": "boolean"}
        elif kind == "integer":
            body = {"type": "integer", "minimum": self.minimum}
        elif kind == "name":
            body = {"type": "string", "minLength": 1}
            if self.choices:
                body["enum"] = list(self.choices)
        else:  # pragma: no cover - a programming error in a tool table
            raise ValueError(f"unknown parameter kind {kind!r}")
        body["description"] = self.description
        return body


def input_schema(params: Sequence[Param]) -> dict[str, Any]:
    """The tool's input schema: an object of ``params``, no other keys allowed."""
    return {
        "type": "object",
        "properties": {p.name: p.schema() for p in params},
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


def json_kind(value: Any) -> str:
    """What a value is, in JSON's words, for messages: ``a string``, ``an object``, ``null``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _kind(value: Any) -> str:
    if isinstance(value, str) and not value:
        return "an empty string"
    return json_kind(value)


def _number(value: Any) -> str:
    """What an ``integer`` argument got: the number itself (``-1``, ``1.5``; ``100.0``,
    which is how ``1e2`` arrives, with what to send instead), else its kind."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return _kind(value)
    if isinstance(value, int):
        return excerpt(str(value), 40)
    if value.is_integer() and abs(value) < 2**53:
        return f"{value!r} (a number with a fraction or an exponent; send {int(value)})"
    return excerpt(repr(value), 40)


_EXPECTED = {
    "string": "a non-empty string",
    "id": "a non-empty string",
    "text": "a string",
    "object": "a JSON object",
    "spec": "a non-empty string or a JSON object",
    "action": "a non-empty string (the exact command) or a JSON object",
    "boolean": "true or false",
    "name": "a non-empty string",
    "integer": "a whole number >= 0",
}


def _decode_object(param: Param, text: str) -> dict[str, Any]:
    """An object argument sent as JSON text: accepted only if it is an object's text."""
    from skillstate.plugin import parse_json

    try:
        value = parse_json(text, param.name)
    except (InvalidInput, ValueError) as exc:
        raise ArgumentError(
            f"{param.name} must be a JSON object; a string was sent and it is not JSON "
            f"text of an object ({exc}). Send the object itself, e.g. {param.name}: "
            '{"key": "value"}'
        ) from None
    if type(value) is not dict:
        raise ArgumentError(
            f"{param.name} must be a JSON object; a string was sent holding JSON text of "
            f'{_kind(value)}. Send the object itself, e.g. {param.name}: {{"key": "value"}}'
        )
    return value


def _check_value(param: Param, value: Any) -> Any:
    kind = param.kind
    ok: bool
    if kind in ("string", "id", "name"):
        ok = isinstance(value, str) and bool(value)
    elif kind == "text":
        ok = isinstance(value, str)
    elif kind == "object":
        if isinstance(value, str):
            return _decode_object(param, value)
        ok = type(value) is dict
    elif kind in ("spec", "action"):
        ok = (isinstance(value, str) and bool(value)) or type(value) is dict
    elif kind == "boolean":
        ok = type(value) is bool
    elif kind == "integer":
        if not (type(value) is int and value >= param.minimum):
            raise ArgumentError(
                f"{param.name} must be a whole number >= {param.minimum}, got {_number(value)}"
            )
        ok = True
    else:  # pragma: no cover
        ok = False
    if not ok:
        raise ArgumentError(f"{param.name} must be {_EXPECTED[kind]}, got {_kind(value)}")
    if kind == "name" and param.choices and value not in param.choices:
        raise ArgumentError(
            f"{param.name} must be one of {', '.join(param.choices)}; got {value[:80]!r}"
        )
    return value


def check_arguments(tool: str, params: Sequence[Param], arguments: Any) -> dict[str, Any]:
    """The checked arguments (JSON-text objects decoded), or :class:`ArgumentError`."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise ArgumentError(
            f"Invalid arguments for tool {tool}: the arguments must be a JSON object, "
            f"got {_kind(arguments)}"
        )
    known = {p.name: p for p in params}
    unknown = [str(k) for k in arguments if k not in known]
    if unknown:
        shown = ", ".join(f'"{excerpt(k, 60)}"' for k in unknown[:5])  # escaped, bounded
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        accepted = ", ".join(known) or "none"
        raise ArgumentError(
            f"Invalid arguments for tool {tool}: unknown argument{'s' if len(unknown) > 1 else ''} "
            f"{shown}{more} (accepted: {accepted})"
        )
    out: dict[str, Any] = {}
    for param in params:
        if param.name not in arguments:
            if param.required:
                raise ArgumentError(
                    f"Invalid arguments for tool {tool}: missing required argument "
                    f'"{param.name}" ({_EXPECTED[param.kind]})'
                )
            continue
        value = arguments[param.name]
        if value is None and not param.required:
            continue  # null for an optional argument means "not given"
        try:
            out[param.name] = _check_value(param, value)
        except ArgumentError as exc:
            raise ArgumentError(f"Invalid arguments for tool {tool}: {exc}") from None
    return out
