"""rig's eight guards: workflow invariants on the whole merged state.

They run only when the state has no shape problem (the pipeline sees to that), and
every violated guard is reported, in declaration order, with rig-state's exact text.
Guards are invariants, not transition checks: a state that breaks one is refused
whatever patch produced it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from skillstate.plugin import Problem

from .skills import PHASES

__all__ = ["GUARDS", "check_guards", "dig", "num", "phase_at_or_past"]

SOURCE = "rig"

State = Mapping[str, Any]


def phase_at_or_past(state: State, target: str, skill: str | None = None) -> bool:
    """rig's ``phaseAtOrPast``: false for unknown phases and for ``abandoned``.

    The phase order is ``skill``'s (default: the state's own ``skill``).
    """
    name = skill if skill is not None else state.get("skill")
    phases = PHASES.get(name, ()) if isinstance(name, str) else ()
    phase = state.get("phase")
    if phase == "abandoned" or phase not in phases or target not in phases:
        return False
    return phases.index(phase) >= phases.index(target)


def dig(state: Any, dotted: str) -> Any:
    """Walk plain objects along ``a.b.c``; ``None`` when a step is missing or not an object."""
    value = state
    for part in dotted.split("."):
        if type(value) is not dict or part not in value:
            return None
        value = value[part]
    return value


def num(value: Any) -> float:
    """``value`` when it is a number (not a boolean), else 0."""
    return value if type(value) in (int, float) else 0


def _items(state: State, key: str) -> list[Any]:
    value = state.get(key)
    return value if type(value) is list else []


def _status(item: Any) -> Any:
    return item.get("status") if type(item) is dict else None


def _falsy(value: Any) -> bool:
    """JavaScript falsiness of a JSON value."""
    return (
        value is None
        or value is False
        or value == ""
        or (type(value) in (int, float) and not value)
    )


# (skill, message, violated(state)) in rig-state's declaration order.
GUARDS: list[tuple[str, str, Callable[[State], bool]]] = [
    (
        "rig-task",
        "phase 'pr-open' requires tests.status = green (Step 4 must be GREEN before push)",
        lambda s: phase_at_or_past(s, "pr-open") and dig(s, "tests.status") != "green",
    ),
    (
        "rig-task",
        "phase 'pr-open' requires review.p0 = 0 and review.p1 = 0 (Step 4.5 is a gate)",
        lambda s: (
            phase_at_or_past(s, "pr-open")
            and (num(dig(s, "review.p0")) > 0 or num(dig(s, "review.p1")) > 0)
        ),
    ),
    (
        "rig-task",
        "phase 'done' requires pr.number (a finished task has a PR)",
        lambda s: s.get("phase") == "done" and type(dig(s, "pr.number")) not in (int, float),
    ),
    (
        "rig-epic",
        "phase 'finish' requires every child at status 'merged'",
        lambda s: (
            phase_at_or_past(s, "finish")
            and any(_status(c) != "merged" for c in _items(s, "children"))
        ),
    ),
    (
        "rig-epic",
        "phase 'review' requires at least one merged child (nothing to review yet)",
        lambda s: (
            s.get("phase") == "review"
            and not any(_status(c) == "merged" for c in _items(s, "children"))
        ),
    ),
    (
        "rig-epic",
        "a child at status 'merged' must record its branch",
        lambda s: any(
            _status(c) == "merged" and _falsy(c.get("branch")) for c in _items(s, "children")
        ),
    ),
    (
        "rig-review",
        "outcome 'clean' requires no finding still at status 'open'",
        lambda s: (
            s.get("outcome") == "clean" and any(_status(f) == "open" for f in _items(s, "findings"))
        ),
    ),
    (
        "rig-review",
        "round must not exceed maxRounds (hand back to a human instead)",
        lambda s: type(s.get("maxRounds")) in (int, float) and num(s.get("round")) > s["maxRounds"],
    ),
]


def check_guards(skill: str, state: State) -> list[Problem]:
    """Every guard of ``skill`` that ``state`` violates, in declaration order."""
    return [
        Problem("guard", message, "", SOURCE)
        for name, message, violated in GUARDS
        if name == skill and violated(state)
    ]
