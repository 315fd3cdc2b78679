"""Fingerprints of checked values that tell whether a value is unchanged.

The field walk (:mod:`skillstate.schema`) and the size budget (:mod:`skillstate.budgets`)
skip the top-level values of a state that are the same as in the last state they
checked. "The same" cannot be identity: a state is to be treated as immutable, but a
caller holding a memory store's record, a guard or an observer can still change one in
place, and a check skipped on identity would then miss what it finds. Nor can it be
``==``: ``True == 1 == 1.0`` and ``0.0 == -0.0``, which check or encode differently.

A :func:`fingerprint` is the value's ``marshal`` (version 4): C code (a few µs for a
2 KB state, far less than the walk it saves, and a fifth less than its pickle), a
private copy nobody can change, and exact about types: ``marshal`` writes only the
exact built-in types (``bool`` apart from ``int``, ``float`` as its 8 bytes, so the
sign of zero; ``list`` apart from ``tuple``; key types and order) and refuses a
subclass, so equal fingerprints are values that check and encode alike. (It writes
any bytes-like object as ``bytes``; no value that passed a check or was encoded as
JSON holds one, so none equals a kept fingerprint.) Its
back-references depend on which objects are shared (and referenced elsewhere), so an
equal value may marshal differently: it is merely checked again. A ``str`` or an
``int`` (exactly those types) is its own fingerprint: it cannot change, and it equals
no marshal, no other ``str`` or ``int``, and no value of another type (``bool`` and
``float`` are marshalled). A value that cannot be marshalled (a subclass, an object)
has no fingerprint and is always checked. Compare two fingerprints' types before
their values: ``python -b`` warns (``-bb`` raises) when a ``str`` meets ``bytes``.

**One fingerprint per value per check.** The pipeline checks a candidate between
:func:`checking` and :func:`done_checking` (``skillstate.checks.check_candidate``): there, :func:`fingerprints`
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

from marshal import dumps as _marshal
from typing import Any

from skillstate.isolation import PLUGIN_RUNS

__all__ = ["checking", "done_checking", "fingerprint", "fingerprints"]


def fingerprint(value: Any) -> bytes | str | int | None:
    """``value``'s fingerprint (its marshal; a ``str`` or ``int`` itself), or ``None`` when it has none."""
    kind = type(value)
    if kind is str or kind is int:  # exact types: no bool, no float, no subclass
        itself: str | int = value
        return itself
    try:
        return _marshal(value, 4)
    except Exception:  # not a plain JSON value (a subclass, an object): always checked
        return None


class _Memo:
    """The fingerprints of the state being checked, and when they were taken."""

    __slots__ = ("prints", "runs", "state", "values")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.runs = -1
        self.values: list[Any] = []
        self.prints: dict[str, bytes | str | int | None] = {}


_CHECKING: list[_Memo | None] = [None]
"""The memo of the state being checked. One slot, not a context variable (which costs
more than the fingerprints of a small state): a memo is used only for the very state
object it was made for, while its check is under way (:func:`done_checking` ends it for
good), with no plugin code run since, so one found in the slot by another thread or a
nested check is either not used or still true."""


def checking(state: Any) -> tuple[_Memo | None, _Memo]:
    """Start checking ``state`` (the pipeline's candidate); pass the answer to :func:`done_checking`."""
    memo = _Memo(state)
    previous = _CHECKING[0]
    _CHECKING[0] = memo
    return previous, memo


def done_checking(started: tuple[_Memo | None, _Memo]) -> None:
    """End what :func:`checking` started (``started`` is what it answered).

    The memo is ended, not merely taken out of the slot: threads end their checks in
    any order, so the one put back may be another's that already ended, and the state
    it names may since have been changed in place (a memory store's record).
    """
    previous, memo = started
    memo.state = None  # a check's state is never None: this memo is never used again
    _CHECKING[0] = previous if previous is not None and previous.state is not None else None


def fingerprints(state: dict[str, Any]) -> dict[str, bytes | str | int | None]:
    """The :func:`fingerprint` of each top-level value of ``state``, by key.

    Within :func:`checking` of this very state, taken once and reused while no
    plugin code ran and every value is the object it was (see the module doc).
    The answer is shared: do not change it.
    """
    memo = _CHECKING[0]
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
