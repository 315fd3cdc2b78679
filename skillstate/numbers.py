"""The one check of a whole-number argument (a version, a step, a limit, a count).

Every surface refuses the same values with the same line: the store
(``history``/``state_at`` bounds), the runtime (``at_step``, ``after``, ``limit``,
``expected_step``) and the CLI (``--at``, ``--limit``, ``--since``, ``--to``,
``--expected-version``). A boolean is not a number here, nor is ``1.0``.
"""

from __future__ import annotations

from typing import Any

from skillstate.errors import InvalidInput

__all__ = ["whole_number"]


def whole_number(
    value: Any,
    what: str,
    *,
    least: int = 0,
    error: type[InvalidInput] = InvalidInput,
    kind: str = "",
    hint: str = "",
) -> int:
    """``value`` if it is an ``int`` (not a ``bool``) ``>= least``; else ``error`` with one line:
    ``"{what} must be {kind}a whole number >= {least}{hint}, got {value}"``."""
    if type(value) is int and value >= least:
        return value
    if isinstance(value, str):
        shown = repr(value)
    else:
        try:
            from skillstate.jsondoc import compact

            shown = compact(value)
        except (TypeError, ValueError):
            shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    raise error(f"{what} must be {kind}a whole number >= {least}{hint}, got {shown}")
