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
and order). Equal fingerprints mean values that check and encode alike; a value
pickled differently though equal (shared strings are memoized) is merely checked
again. A value that cannot be pickled has none, and is always checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["fingerprint"]

_dumps: Callable[[Any, int], bytes] | None = None
"""The C pickler's ``dumps``, imported on first use (``pickle`` itself costs start-up)."""


def fingerprint(value: Any) -> bytes | None:
    """``value``'s pickle, or ``None`` when it has none (never equal to another's)."""
    global _dumps
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
