"""Fingerprints of checked values that tell whether a value is unchanged.

The field walk (:mod:`skillstate.schema`) and the size budget (:mod:`skillstate.budgets`)
skip the top-level values of a state that are the same as in the last state they
checked. "The same" cannot be identity: a state is to be treated as immutable, but a
caller holding a memory store's record, a guard or an observer can still change one in
place, and a check skipped on identity would then miss what it finds. Nor can it be
``==``: ``True == 1 == 1.0`` and ``0.0 == -0.0``, which check or encode differently.

A :func:`fingerprint` is the value's pickle: C code (a few µs for a 2 KB state, far
less than the walk it saves), a private copy nobody can change, and exact about types
(``bool``/``int``/``float``, the sign of zero, ``list``/``tuple``, subclasses, key types
and order). A ``str`` or an ``int`` (exactly those types) is its own fingerprint: it
cannot change, and it equals no pickle, no other ``str`` or ``int``, and no value of
another type (``bool`` and ``float`` are pickled). Equal fingerprints mean values that check and encode
alike; a value pickled differently though equal (shared strings are memoized) is
merely checked again. A value that cannot be pickled has none, and is always checked.

**One fingerprint per value per check.** The pipeline checks a candidate inside
:func:`checking` (``skillstate.checks.check_candidate``): there, :func:`fingerprints`
of the candidate is computed once and reused by the next check of the same state
(the walk fingerprints, the budget reuses), as long as no plugin code ran in between
— :data:`~skillstate.isolation.PLUGIN_RUNS` counts every start and resumption of a
hook implementation and every hook-call monitor call — and every top-level value is
still the object it was. Only plugin code can run between two checks of one
candidate, so a value a plugin changed in place is fingerprinted again. Outside
:func:`checking` (a direct call of ``check_fields`` or ``check_budget``, between which
the caller may change anything) nothing is reused.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from skillstate.isolation import PLUGIN_RUNS

__all__ = ["checking", "done_checking", "fingerprint", "fingerprints"]

_dumps: Callable[[Any, int], bytes] | None = None
"""The C pickler's ``dumps``, imported on first use (``pickle`` itself costs start-up)."""


def fingerprint(value: Any) -> bytes | str | int | None:
    """``value``'s fingerprint (its pickle; a ``str`` or ``int`` itself), or ``None`` when it has none."""
    global _dumps
    kind = type(value)
    if kind is str or kind is int:  # exact types: no bool, no float, no subclass
        itself: str | int = value
        return itself
    if _dumps is None:
        try:
            from _pickle import dumps as c_dumps
        except ImportError:  # an interpreter without the C pickler
            from pickle import dumps as c_dumps
        _dumps = c_dumps
    try:
        return _dumps(value, 4)
    except Exception:  # a non-JSON object put in place: no fingerprint, always checked
        return None


class _Memo:
    """The fingerprints of the state being checked, and when they were taken."""

    __slots__ = ("prints", "runs", "state", "values")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.runs = -1
        self.values: list[Any] = []
        self.prints: dict[str, bytes | str | int | None] = {}


_CHECKING: contextvars.ContextVar[_Memo | None] = contextvars.ContextVar(
    "skillstate_checking", default=None
)


def checking(state: Any) -> contextvars.Token[_Memo | None]:
    """Start checking ``state`` (the pipeline's candidate); pass the token to :func:`done_checking`."""
    return _CHECKING.set(_Memo(state))


def done_checking(token: contextvars.Token[_Memo | None]) -> None:
    """End what :func:`checking` started."""
    _CHECKING.reset(token)


def fingerprints(state: dict[str, Any]) -> dict[str, bytes | str | int | None]:
    """The :func:`fingerprint` of each top-level value of ``state``, by key.

    Within :func:`checking` of this very state, taken once and reused while no
    plugin code ran and every value is the object it was (see the module doc).
    The answer is shared: do not change it.
    """
    memo = _CHECKING.get()
    if memo is None or memo.state is not state:
        return {key: fingerprint(value) for key, value in state.items()}
    runs = PLUGIN_RUNS[0]
    if memo.runs == runs and len(memo.values) == len(state):
        for value, kept in zip(state.values(), memo.values, strict=True):
            if value is not kept:
                break
        else:
            return memo.prints
    prints = {key: fingerprint(value) for key, value in state.items()}
    memo.runs, memo.values, memo.prints = runs, list(state.values()), prints
    return prints
