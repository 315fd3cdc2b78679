"""What doctor plugins register, and an environment's answer to an action.

Neither is needed to read or patch a run, so they are built only when a surface that
uses them (sessions, ``doctor``) asks. What command and environment plugins register
(:class:`~skillstate.records.commands.CommandSpec`,
:class:`~skillstate.records.environments.EnvironmentSpec`) are modules of their own:
every ``skillstate`` command builds the first, ``skillstate plugins`` the second
(the registries' conflict check), and neither needs these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

__all__ = [
    "ActionResult",
    "DoctorFinding",
]


@attrs.frozen
class ActionResult:
    """What an environment answers to one action.

    ``status`` is ``"accepted"``, ``"rejected"`` (the whole step rolls back) or
    ``"completed"`` (accepted, and the session is finished).
    """

    status: str
    observation: str
    details: Mapping[str, Any] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        if self.status not in ("accepted", "rejected", "completed"):
            raise ValueError(
                f"action status must be accepted, rejected or completed, not {self.status!r}"
            )


@attrs.frozen
class DoctorFinding:
    """One finding of ``skillstate doctor``.

    ``severity`` is ``ok``, ``nit``, ``warn`` or ``error``; ``fix`` tells a human what
    to do. ``autofix``, when set, is the safe automatic fix ``doctor --fix`` applies:
    called with no argument, it makes the change and returns one line saying what it
    did (``None`` when there was nothing left to do). Only offer an ``autofix`` that
    cannot lose data.
    """

    check: str
    severity: str
    message: str
    fix: str | None = None
    source: str = "core"
    autofix: Callable[[], str | None] | None = attrs.field(default=None, eq=False)


def __getattr__(name: str) -> Any:
    if name == "CommandSpec":  # in skillstate.records.commands since the start-up work
        from skillstate.records.commands import CommandSpec

        return CommandSpec
    if name == "EnvironmentSpec":  # in skillstate.records.environments, likewise
        from skillstate.records.environments import EnvironmentSpec

        return EnvironmentSpec
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
