"""Private copies of checked values that tell, by ``==``, whether a value is unchanged.

The field walk (:mod:`skillstate.schema`) and the size budget (:mod:`skillstate.budgets`)
skip the top-level values of a state that are the same as in the last state they
checked. "The same" cannot be identity: a state is to be treated as immutable, but a
caller holding a memory store's record, a guard or an observer can still change one in
place, and a check skipped on identity would then miss what it finds. A
:func:`snapshot` is a copy that nobody else holds, compared with C's ``==`` (far cheaper
than the walk it saves): its numbers and booleans are wrapped so that ``True`` is not
``1``, ``1`` is not ``1.0`` and ``0.0`` is not ``-0.0`` (each checks or encodes
differently); anything that is not plain JSON (a tuple, a subclass) never compares
equal, so it is always checked again.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["snapshot"]


class _Bool:
    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return other is self.value

    __hash__ = None  # type: ignore[assignment]


class _Int:
    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is int and other == self.value

    __hash__ = None  # type: ignore[assignment]


class _Float:
    __slots__ = ("value",)

    def __init__(self, value: float) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if type(other) is not float or other != self.value:
            return False
        return other != 0.0 or math.copysign(1.0, other) == math.copysign(1.0, self.value)

    __hash__ = None  # type: ignore[assignment]


class _Never:
    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


def snapshot(value: Any) -> Any:
    """A private copy of ``value`` that ``==`` only a value checking the same way."""
    kind = type(value)
    if kind is str or value is None:
        return value  # immutable: sharing it is safe
    if kind is dict:
        return {k: snapshot(v) for k, v in value.items()}
    if kind is list:
        return [snapshot(v) for v in value]
    if kind is bool:
        return _Bool(value)
    if kind is int:
        return _Int(value)
    if kind is float:
        return _Float(value)
    return _Never()
