"""What a transition asks for (:class:`Change`) and what it answers (:class:`Outcome`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from skillstate.records import JournalEntry, Problem, RunRecord

if TYPE_CHECKING:
    from skillstate.records import ActionResult

__all__ = ["NO_ACTION", "Change", "Outcome", "now_iso"]


class _NoAction:
    def __repr__(self) -> str:
        return "NO_ACTION"


NO_ACTION: Any = _NoAction()
"""The ``action`` of a change that executes nothing (``None`` is a valid action value)."""


def now_iso() -> str:
    """UTC, millisecond precision, ``Z`` suffix: JavaScript's ``new Date().toISOString()``."""
    ms = time.time_ns() // 1_000_000  # truncated, as toISOString and isoformat do
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(ms // 1000))}.{ms % 1000:03d}Z"


@attrs.frozen
class Change:
    """What a transition asks for.

    ``patch`` — the sparse patch ΔΣ; ``label`` — the journal's step label;
    ``force`` — allow leaving a terminal phase; ``action`` — executed by the run's
    environment when not :data:`NO_ACTION`; ``observation`` — a new latest
    observation (an injected one; an action's observation takes precedence);
    ``advance_step`` — count this as a session step when accepted; ``status`` — a
    new run status (``closed``); ``require_active`` — refuse unless the run is
    ``active``; ``meta`` — keys merged into the record's ``meta`` when accepted (a
    ``None`` value removes the key); ``keep_state`` — leave the state exactly as it
    is (no merge, no stamp, no validation; the patch must be empty and no action
    may run), for writes that only record an observation, a status or metadata.
    """

    patch: Any = attrs.field(factory=dict)
    label: str = ""
    force: bool = False
    action: Any = NO_ACTION
    observation: str | None = None
    advance_step: bool = False
    status: str | None = None
    require_active: bool = False
    meta: Mapping[str, Any] | Callable[[ActionResult | None], Mapping[str, Any] | None] | None = (
        attrs.field(default=None, eq=False)
    )
    keep_state: bool = False
    state: Mapping[str, Any] | None = None
    origin: Mapping[str, Any] | None = None


@attrs.frozen
class Outcome:
    """The result of a transition or a creation.

    ``accepted`` — whether it was committed; ``record`` — the new record when
    accepted, the unchanged one when rejected (``None`` for a rejected creation);
    ``problems`` — why it was rejected; ``action`` — the environment's answer, if an
    action ran; ``entry`` — the journal entry written; ``attempts`` — how many times
    the pipeline ran (more than 1 after version conflicts).
    """

    accepted: bool
    record: RunRecord | None
    problems: tuple[Problem, ...] = ()
    action: ActionResult | None = None
    entry: JournalEntry | None = None
    attempts: int = 1

    @property
    def rolled_back(self) -> bool:
        """True when the change was rejected and nothing was written."""
        return not self.accepted
