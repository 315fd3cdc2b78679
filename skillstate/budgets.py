"""Size budgets: what keeps a state a state rather than a transcript by another name.

The document budget counts the UTF-8 bytes of the state's compact JSON and string
limits count code points, unless the skill counts as JavaScript does
(``text_units="utf16"``, rig's skills: UTF-16 code units for both, as rig-state). String and array limits are
checked inside the field walk for skills with a field schema (see
:mod:`skillstate.schema`); :func:`check_budget` checks them for everything else.
Strings containing NUL (``\\u0000``) are refused, because PostgreSQL's ``jsonb``
cannot keep them and every store must accept the same documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.display import excerpt
from skillstate.jsondoc import compact
from skillstate.records import DEFAULT_BUDGET, Budget, Problem

__all__ = ["check_budget", "document_size", "text_length"]


def text_length(text: str, units: str = "unicode") -> int:
    """The length of ``text`` as a budget counts it: code points, or UTF-16 code units."""
    if units == "unicode" or text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _text_size(text: str, units: str) -> int:
    if text.isascii():
        return len(text)
    if units == "utf16":
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text.encode("utf-8", "surrogatepass"))


def document_size(state: Any, units: str = "unicode") -> int:
    """The size of the compact JSON of ``state``: UTF-8 bytes, or UTF-16 code units."""
    return _text_size(compact(state), units)


def check_budget(
    state: Mapping[str, Any],
    budget: Budget = DEFAULT_BUDGET,
    per_value: bool = True,
    source: str = "core",
    units: str = "unicode",
) -> list[Problem]:
    """Budget problems of ``state``: per-value limits (optional), NUL, then the document size.

    ``units`` is the skill's :attr:`~skillstate.records.SkillDefinition.text_units`.
    """
    problems: list[Problem] = []
    text = compact(state)
    if (per_value or "\\u0000" in text) and _breaks_a_limit(state, budget, per_value, units):
        _walk_values(state, "", budget, per_value, problems, source, units)
    size = _text_size(text, units)
    if size > budget.document_bytes:
        problems.append(
            Problem(
                "budget",
                f"state is {size} bytes, over the {budget.document_bytes}-byte budget — drop what no later step reads",
                "",
                source,
            )
        )
    return problems


def _breaks_a_limit(root: Any, budget: Budget, per_value: bool, units: str) -> bool:
    """Whether :func:`_walk_values` would find anything: the same walk without building a
    path for every value, which costs most of the walk; paths are built only to report."""
    stack = [root]
    pop, extend = stack.pop, stack.extend
    max_items, max_chars = budget.array_items, budget.string_chars
    while stack:
        value = pop()
        if isinstance(value, dict):
            extend(value.values())
        elif isinstance(value, list):
            if per_value and len(value) > max_items:
                return True
            extend(value)
        elif isinstance(value, str):
            if (per_value and text_length(value, units) > max_chars) or "\x00" in value:
                return True
    return False


def _walk_values(
    root: Any,
    prefix: str,
    budget: Budget,
    per_value: bool,
    out: list[Problem],
    source: str,
    units: str,
) -> None:
    stack: list[tuple[Any, str]] = [(root, prefix)]
    found: list[Problem] = []
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, child in reversed(value.items()):
                stack.append((child, f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            if per_value and len(value) > budget.array_items:
                found.append(
                    Problem(
                        "budget",
                        f"{excerpt(path or 'state')}: {len(value)} items exceeds the {budget.array_items}-item limit — keep what the next step needs",
                        path,
                        source,
                    )
                )
            for index in range(len(value) - 1, -1, -1):
                stack.append((value[index], f"{path}[{index}]"))
        elif isinstance(value, str):
            if "\x00" in value:
                found.append(
                    Problem(
                        "input",
                        f"{excerpt(path or 'state')}: strings may not contain NUL (\\u0000); no store can keep it",
                        path,
                        source,
                    )
                )
            length = text_length(value, units)
            if per_value and length > budget.string_chars:
                found.append(
                    Problem(
                        "budget",
                        f"{excerpt(path or 'state')}: {length} chars exceeds the {budget.string_chars}-char limit — summarize it",
                        path,
                        source,
                    )
                )
    out.extend(found)
