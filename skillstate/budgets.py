"""Size budgets: what keeps a state a state rather than a transcript by another name.

The document budget counts the UTF-8 bytes of the state's compact JSON (rig-state
counts UTF-16 code units; the two agree for ASCII). String and array limits are
checked inside the field walk for skills with a field schema (see
:mod:`skillstate.schema`); :func:`check_budget` checks them for everything else.
Strings containing NUL (``\\u0000``) are refused, because PostgreSQL's ``jsonb``
cannot keep them and every store must accept the same documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.jsondoc import compact
from skillstate.records import DEFAULT_BUDGET, Budget, Problem

__all__ = ["check_budget", "document_size"]


def document_size(state: Any) -> int:
    """UTF-8 bytes of the compact JSON of ``state``."""
    text = compact(state)
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def check_budget(
    state: Mapping[str, Any],
    budget: Budget = DEFAULT_BUDGET,
    per_value: bool = True,
    source: str = "core",
) -> list[Problem]:
    """Budget problems of ``state``: per-value limits (optional), NUL, then the document size."""
    problems: list[Problem] = []
    text = compact(state)
    if (per_value or "\\u0000" in text) and _breaks_a_limit(state, budget, per_value):
        _walk_values(state, "", budget, per_value, problems, source)
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
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


def _breaks_a_limit(root: Any, budget: Budget, per_value: bool) -> bool:
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
            if (per_value and len(value) > max_chars) or "\x00" in value:
                return True
    return False


def _walk_values(
    root: Any, prefix: str, budget: Budget, per_value: bool, out: list[Problem], source: str
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
                        f"{path or 'state'}: {len(value)} items exceeds the {budget.array_items}-item limit — keep what the next step needs",
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
                        f"{path or 'state'}: strings may not contain NUL (\\u0000); no store can keep it",
                        path,
                        source,
                    )
                )
            if per_value and len(value) > budget.string_chars:
                found.append(
                    Problem(
                        "budget",
                        f"{path or 'state'}: {len(value)} chars exceeds the {budget.string_chars}-char limit — summarize it",
                        path,
                        source,
                    )
                )
    out.extend(found)
