"""State validation: the field-schema checker of skill definitions, and JSON Schema.

The field checker walks the state in **state order**, depth first, so problems come
out in the order rig-state reports them; string lengths and array sizes are checked
inside the same walk (with the skill's :class:`~skillstate.records.Budget`), again in
rig-state's order. Messages are rig-state's texts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from functools import partial
from typing import Any

from skillstate.budgets import text_length
from skillstate.display import excerpt
from skillstate.jsondoc import compact
from skillstate.jsonschemas import BadPattern, compiled, json_schema_errors, pattern_search
from skillstate.records import DEFAULT_BUDGET, Budget, FieldSpec, Problem, SkillDefinition
from skillstate.schema_dialect import check_dialect, dialect

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


MAX_PROBLEMS = 100
"""A check stops after this many problems, and one more problem says so: the rest of a
huge refused document is never examined, so a refusal costs what its first problems
cost, not what the document weighs (a patch of 10⁶ unknown keys)."""


class _Full(Exception):
    """Raised by :class:`_Capped` once it holds :data:`MAX_PROBLEMS`."""


class _Capped(list[Problem]):
    """A problem list that stops the check filling it at :data:`MAX_PROBLEMS`."""

    def append(self, problem: Problem) -> None:
        super().append(problem)
        if len(self) >= MAX_PROBLEMS:
            raise _Full


def _stopped(problems: list[Problem], source: str) -> list[Problem]:
    """``problems`` and the one saying the check stopped there."""
    message = (
        f"… checking stopped after the first {MAX_PROBLEMS} problems; fix these and send it again"
    )
    return [*problems, Problem("more", message, "", source)]


def check_fields(
    fields: Mapping[str, FieldSpec],
    state: Mapping[str, Any],
    budget: Budget = DEFAULT_BUDGET,
    source: str = "core",
    units: str = "unicode",
    walkers: WalkerCache | None = None,
) -> list[Problem]:
    """Every shape problem of ``state`` against ``fields``, in state order.

    ``units`` says how string lengths count (:attr:`SkillDefinition.text_units`);
    ``walkers`` is the caller's cache of compiled walkers.
    """
    problems = _Capped()
    try:
        _compiled(fields, budget, source, units, walkers)(state, "", problems)
    except _Full:
        return _stopped(problems, source)
    return list(problems)


Walker = Callable[[Mapping[str, Any], str, list[Problem]], None]
Checker = Callable[[Any, str, str, list[Problem]], None]
WalkerCache = MutableMapping[tuple[int, Budget, str, str], tuple[Mapping[str, FieldSpec], Walker]]
"""A caller's compiled field walkers (the essential ``schema`` plugin keeps one per manager)."""


def _compiled(
    fields: Mapping[str, FieldSpec],
    budget: Budget,
    source: str,
    units: str,
    cache: WalkerCache | None = None,
) -> Walker:
    """The walker for ``fields`` (checks are closures, paths built only on failure), kept
    in ``cache`` when the caller gives one."""
    key = (id(fields), budget, source, units)
    hit = cache.get(key) if cache is not None else None
    if hit is not None and hit[0] is fields:  # the fields kept: their id stays their own
        return hit[1]
    walker = _object_walker(fields, budget, source, units)
    if cache is not None:
        if len(cache) > 512:
            cache.clear()
        cache[key] = (fields, walker)
    return walker


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _object_walker(
    fields: Mapping[str, FieldSpec],
    budget: Budget,
    source: str,
    units: str,
    checkers: dict[str, Checker] | None = None,
) -> Walker:
    checkers = {} if checkers is None else checkers
    checkers.update({name: _checker(spec, budget, source, units) for name, spec in fields.items()})
    known = ", ".join(sorted(fields))

    def walk(obj: Mapping[str, Any], prefix: str, out: list[Problem]) -> None:
        for key, value in obj.items():
            check = checkers.get(key)
            if check is None:
                path = _join(prefix, key)
                out.append(
                    Problem(
                        "unknown-key",
                        f"{excerpt(path)}: unknown key. Known keys: {known}",
                        path,
                        source,
                    )
                )
            else:
                check(value, prefix, key, out)

    return walk


def _type_problem(prefix: str, key: str, want: str, value: Any, source: str) -> Problem:
    path = _join(prefix, key)
    return Problem(
        "type", f"{excerpt(path)}: expected {want}, got {excerpt(_got(value))}", path, source
    )


def _checker(spec: FieldSpec, budget: Budget, source: str, units: str) -> Checker:
    kind, chars, items = spec.type, budget.string_chars, budget.array_items
    length: Callable[[str], int] = len if units == "unicode" else partial(text_length, units=units)
    if kind == "string":
        enum = spec.enum

        def check_string(value: Any, prefix: str, key: str, out: list[Problem]) -> None:
            if type(value) is not str:
                out.append(_type_problem(prefix, key, "a string", value, source))
                return
            size = length(value)
            if size > chars:
                path = _join(prefix, key)
                message = (
                    f"{excerpt(path)}: {size} chars exceeds the {chars}-char limit — summarize it"
                )
                out.append(Problem("budget", message, path, source))
            if enum is not None and value not in enum:
                path = _join(prefix, key)
                out.append(
                    Problem(
                        "enum",
                        f'{excerpt(path)}: "{excerpt(value)}" is not one of {" | ".join(enum)}',
                        path,
                        source,
                    )
                )

        return check_string
    if kind == "number":

        def check_number(value: Any, prefix: str, key: str, out: list[Problem]) -> None:
            kind_of = type(value)
            if (kind_of is not int and kind_of is not float) or value != value:
                out.append(_type_problem(prefix, key, "a number", value, source))

        return check_number
    if kind == "boolean":

        def check_boolean(value: Any, prefix: str, key: str, out: list[Problem]) -> None:
            if type(value) is not bool:
                out.append(_type_problem(prefix, key, "a boolean", value, source))

        return check_boolean
    if kind == "string[]":

        def check_strings(value: Any, prefix: str, key: str, out: list[Problem]) -> None:
            if type(value) is not list or any(type(v) is not str for v in value):
                out.append(_type_problem(prefix, key, "an array of strings", value, source))
                return
            if len(value) > items:
                path = _join(prefix, key)
                message = f"{excerpt(path)}: {len(value)} items exceeds the {items}-item limit — keep what the next step needs"
                out.append(Problem("budget", message, path, source))
            for index, item in enumerate(value):
                size = length(item)
                if size > chars:
                    path = f"{_join(prefix, key)}[{index}]"
                    message = f"{excerpt(path)}: {size} chars exceeds the {chars}-char limit — summarize it"
                    out.append(Problem("budget", message, path, source))

        return check_strings
    inner = _object_walker(spec.of or {}, budget, source, units)
    if kind == "object":

        def check_object(value: Any, prefix: str, key: str, out: list[Problem]) -> None:
            if type(value) is not dict:
                out.append(_type_problem(prefix, key, "an object", value, source))
                return
            inner(value, _join(prefix, key), out)

        return check_object

    def check_objects(value: Any, prefix: str, key: str, out: list[Problem]) -> None:
        if type(value) is not list:
            out.append(_type_problem(prefix, key, "an array of objects", value, source))
            return
        path = _join(prefix, key)
        if len(value) > items:
            out.append(
                Problem(
                    "budget",
                    f"{excerpt(path)}: {len(value)} items exceeds the {items}-item limit",
                    path,
                    source,
                )
            )
        for index, item in enumerate(value):
            if type(item) is not dict:
                item_path = f"{path}[{index}]"
                out.append(
                    Problem(
                        "type",
                        f"{excerpt(item_path)}: expected an object, got {excerpt(_got(item))}",
                        item_path,
                        source,
                    )
                )
                continue
            inner(item, f"{path}[{index}]", out)

    return check_objects


def check_phase(
    skill: SkillDefinition, state: Mapping[str, Any], source: str = "core"
) -> list[Problem]:
    """The phase must be one of the skill's phases (when it declares any).

    A missing phase (a patch's ``null`` deleted it) is said to be missing; rig-state
    calls it ``"undefined"`` (``docs/rig.md``, "Differences from rig-state").
    """
    if not skill.phases:
        return []
    key = skill.phase_key
    phase = state.get(key)
    if type(phase) is str and phase in skill.phases:
        return []
    declared = " → ".join(skill.phases)
    if key not in state:  # rig-state says '"undefined" is not a … phase' (JavaScript's word)
        message = (
            f"{key}: missing (a null deletes it), and every {skill.name} run has a {key}. "
            f"Declared: {declared}"
        )
    else:
        message = f'{key}: "{excerpt(js_string(phase))}" is not a {skill.name} {key}. Declared: {declared}'
    return [Problem("phase", message, key, source)]


def _dotted(parts: Any) -> str:
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def check_json_schema(
    schema: Mapping[str, Any],
    state: Any,
    source: str = "core",
    validators: MutableMapping[str, Any] | None = None,
) -> list[Problem]:
    """Every JSON Schema (draft 2020-12) error of ``state``, sorted by path, with paths named.

    Unknown keys (``additionalProperties: false``) are reported one per key in the
    field checker's words, with the known keys of that level listed (sorted).
    """
    validator = compiled(schema, validators)
    problems = _Capped()
    try:
        _json_schema_problems(validator, state, source, problems)
    except _Full:
        return _stopped(_in_state_order(problems, state), source)
    except BadPattern as exc:  # a pattern too slow, or none at all: refused, never waited on
        return [Problem("schema", f"state: the schema's {exc}", "", source)]
    return _in_state_order(problems, state)


def _json_schema_problems(validator: Any, state: Any, source: str, problems: _Capped) -> None:
    for error in validator.iter_errors(state):
        path = _dotted(error.absolute_path)
        if (
            error.validator == "unevaluatedProperties"
            and isinstance(error.schema, dict)
            and error.schema.get("additionalProperties") is False
        ):
            continue  # the same extra keys, already reported one by one below
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            patterns = (
                error.schema.get("patternProperties", {}) if isinstance(error.schema, dict) else {}
            )
            known = ", ".join(sorted(props))
            for key in error.instance:
                if key in props or any(pattern_search(p, key) for p in patterns):
                    continue
                key_path = f"{path}.{key}" if path else key
                problems.append(
                    Problem(
                        "unknown-key",
                        f"{excerpt(key_path)}: unknown key. Known keys: {known}",
                        key_path,
                        source,
                    )
                )
            continue
        where = path or "state"
        problems.append(
            Problem("schema", f"{excerpt(where)}: {excerpt(error.message, 400)}", path, source)
        )


def _in_state_order(problems: list[Problem], state: Any) -> list[Problem]:
    if len(problems) > 1:
        order = _state_order(state)
        return sorted(problems, key=lambda p: (order.get(p.path, -1), p.message))
    return list(problems)


def _state_order(state: Any) -> dict[str, int]:
    """Dotted path → position in a depth-first walk of ``state`` (problems follow state order)."""
    order: dict[str, int] = {}
    stack: list[tuple[Any, str]] = [(state, "")]
    while stack:
        value, path = stack.pop()
        order[path] = len(order)
        if isinstance(value, dict):
            for key in reversed(list(value)):
                stack.append((value[key], f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            for index in range(len(value) - 1, -1, -1):
                stack.append((value[index], f"{path}[{index}]"))
    return order


def validate_state(
    skill: SkillDefinition,
    state: Mapping[str, Any],
    budget: Budget = DEFAULT_BUDGET,
    schema: Mapping[str, Any] | None = None,
    source: str = "core",
    validators: MutableMapping[str, Any] | None = None,
    walkers: WalkerCache | None = None,
) -> list[Problem]:
    """All shape problems: fields (with in-walk budgets), JSON Schemas, then the phase.

    ``schema`` (a session's) is a JSON Schema or the TypeScript server's dialect
    (:mod:`skillstate.schema_dialect`), checked with that dialect's semantics.

    ``validators`` and ``walkers`` are the caller's caches of compiled JSON Schemas
    (:func:`skillstate.jsonschemas.compiled`) and field walkers; the essential
    ``schema`` plugin keeps one of each, so nothing is kept process-wide.
    """
    problems: list[Problem] = []
    if skill.fields is not None:
        problems.extend(
            check_fields(skill.fields, state, budget, source, skill.text_units, walkers)
        )
    if skill.json_schema is not None:
        problems.extend(check_json_schema(skill.json_schema, state, source, validators))
    if schema is not None and dialect(schema) is not None:
        problems.extend(check_dialect(schema, state, source))
    elif schema is not None:
        problems.extend(check_json_schema(schema, state, source, validators))
    problems.extend(check_phase(skill, state, source))
    stopped = [p for p in problems if p.code == "more"]
    if stopped:  # one check stopped early: keep the cap, say it once
        problems = _stopped([p for p in problems if p.code != "more"][:MAX_PROBLEMS], source)
    if skill.json_schema is not None or schema is not None:
        # A key both the fields and a JSON Schema refuse (or two schemas) is one problem.
        seen: set[tuple[str, str]] = set()
        unique = []
        for problem in problems:
            if (problem.path, problem.message) not in seen:
                seen.add((problem.path, problem.message))
                unique.append(problem)
        problems = unique
    return problems
