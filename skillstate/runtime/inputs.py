"""Checking the arguments of runtime calls: types, JSON shape and size limits.

Every check raises :class:`~skillstate.runtime.errors.SessionInputError` (or
:class:`~skillstate.runtime.errors.InvalidSessionId`) before anything is read or
written, with a message naming the argument and what would be accepted. Messages
never quote a reasoning trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillstate.checks import OBSERVATION_KEPT
from skillstate.jsondoc import check_document, json_kind
from skillstate.runtime.errors import InvalidSessionId, SessionInputError
from skillstate.runtime.payloads import json_size
from skillstate.schema_dialect import state_schema_errors
from skillstate.store import is_valid_run_id

__all__ = [
    "SessionLimits",
    "check_action",
    "check_object",
    "check_options",
    "check_schema",
    "check_session_id",
    "check_spec",
    "check_step",
    "check_text",
    "raise_input_problem",
]


@attrs.frozen
class SessionLimits:
    """Hard limits on what a runtime call may carry (UTF-8 bytes of compact JSON).

    The state itself is limited by the skill's budget (8 KB by default); a
    ``state_update`` larger than that budget is a rollback-retry, not an error.
    """

    spec_bytes: int = 65536
    observation_bytes: int = OBSERVATION_KEPT  # and what a journal entry keeps the text of
    action_bytes: int = 16384
    schema_bytes: int = 65536
    options_bytes: int = 65536

    def __attrs_post_init__(self) -> None:
        for field in attrs.fields(type(self)):
            value = getattr(self, field.name)
            if type(value) is not int or value < 1:
                raise ValueError(f"limit {field.name} must be a positive integer, got {value!r}")


def check_session_id(session_id: Any) -> str:
    if not is_valid_run_id(session_id):
        raise InvalidSessionId(session_id)
    return str(session_id)


def _check_json(value: Any, name: str) -> None:
    problems = check_document(value, name)
    if problems:
        first = problems[0]  # a problem of the whole value already starts with its name
        raise SessionInputError(first.message if not first.path else f"{name}: {first.message}")


def check_step(value: Any, name: str, least: int = 0) -> int:
    """A step, version or count argument: a whole number >= ``least`` (not a boolean)."""
    from skillstate.numbers import whole_number

    return whole_number(value, name, least=least, error=SessionInputError)


def check_object(value: Any, name: str, limit: int | None = None) -> dict[str, Any]:
    """``value`` must be a JSON object (a ``dict``), within ``limit`` bytes.

    Its contents are checked where every patch, action and seed is checked, once: in the
    pipeline (``skillstate.checks``); a value that cannot even be measured is refused
    here with the pipeline's words. Returned as it is: the pipeline stores its own copy
    of whatever reaches a record or the journal (``skillstate.checks.own``).
    """
    if type(value) is not dict:
        raise SessionInputError(f"{name} must be a JSON object, got {json_kind(value)}")
    if limit is not None:
        try:
            size = json_size(value)
        except (TypeError, ValueError, RecursionError):
            _check_json(value, name)  # names what is not JSON
            raise
        if size > limit:
            raise SessionInputError(f"{name} is {size} bytes, over the {limit}-byte limit")
    return value


def raise_input_problem(problems: Any, **values: Any) -> None:
    """Raise the runtime's error for a value the pipeline refused as not plain JSON.

    The pipeline checked the call's values (its ``input`` problems); this only words the
    refusal for the runtime's caller, naming the argument (``state_update: x: …``), so it
    runs on the failure path alone. Does nothing when no problem is an ``input`` one.
    """
    if not any(problem.code == "input" for problem in problems):
        return
    for name, value in values.items():
        if value is not None and not isinstance(value, str):
            _check_json(value, name)
    first = next(problem for problem in problems if problem.code == "input")
    raise SessionInputError(first.message)


def check_text(
    value: Any, name: str, limit: int, allow_empty: bool = False, setting: str = ""
) -> str:
    """``value`` must be a string (non-blank unless ``allow_empty``) of at most ``limit`` bytes
    (``setting``: the configuration key that raises the limit, named in the message)."""
    if not isinstance(value, str):
        raise SessionInputError(f"{name} must be a string, got {json_kind(value)}")
    if not allow_empty and not value.strip():
        raise SessionInputError(f"{name} must be a non-empty string")
    _check_json(value, name)
    size = len(value) if value.isascii() else len(value.encode("utf-8"))
    if size > limit:
        raise SessionInputError(f"{name} is {size} bytes, over the {limit}-byte limit{setting}")
    if "\x00" in value:
        raise SessionInputError(f"{name} may not contain NUL (\\u0000); no store can keep it")
    return value


_SPEC_SETTING = " (raise it with the setting max_spec_bytes, SKILLSTATE_MAX_SPEC_BYTES)"


def check_spec(value: Any, limits: SessionLimits) -> tuple[Any, str, str]:
    """P: a non-empty string or a JSON object. Returns (value, stored text, format)."""
    from skillstate.jsondoc import compact, js_numbers

    if isinstance(value, str):
        check_text(value, "skill_specification", limits.spec_bytes, setting=_SPEC_SETTING)
        return value, value, "text"
    if type(value) is dict:
        _check_json(value, "skill_specification")  # P is no patch: checked before it is used
        check_object(value, "skill_specification", limits.spec_bytes)
        text = compact(js_numbers(value))
        if "\\u0000" in text:
            raise SessionInputError(
                "skill_specification may not contain NUL (\\u0000); no store can keep it"
            )
        return value, text, "json"
    raise SessionInputError(
        f"skill_specification must be a non-empty string or a JSON object, got {json_kind(value)}"
    )


def check_schema(value: Any, limits: SessionLimits) -> dict[str, Any] | None:
    """A session's ``state_schema``: ``None``, a valid JSON Schema (draft 2020-12) object or
    the TypeScript server's dialect (:mod:`skillstate.schema_dialect`)."""
    if value is None:
        return None
    _check_json(value, "state_schema")  # checked before JSON Schema reads it
    schema = check_object(value, "state_schema", limits.schema_bytes)
    errors = state_schema_errors(schema)
    if errors:
        raise SessionInputError(errors[0])
    return schema


def check_action(value: Any, limits: SessionLimits) -> Any:
    """An action: a non-empty string or a JSON object."""
    if isinstance(value, str):
        if not value.strip():
            got = "an empty string" if not value else "a string of only whitespace"
            raise SessionInputError(
                f"action must be a non-empty string (the exact command) or a JSON object, got {got}"
            )
        return check_text(value, "action", limits.action_bytes)
    if type(value) is dict:
        return check_object(value, "action", limits.action_bytes)
    raise SessionInputError(
        f"action must be a non-empty string (the exact command) or a JSON object, got {json_kind(value)}"
    )


def check_options(value: Any, limits: SessionLimits) -> Mapping[str, Any]:
    if value is None:
        return {}
    if type(value) is dict:
        _check_json(value, "environment_options")  # checked before the environment reads them
    return check_object(value, "environment_options", limits.options_bytes)
