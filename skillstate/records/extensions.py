"""What environment and doctor plugins register, and an environment's answer.

None of these is needed to read or patch a run, so they are built only when a
surface that uses them (sessions, ``doctor``) asks. (What command plugins register,
:class:`~skillstate.records.commands.CommandSpec`, is a module of its own: every
``skillstate`` command builds it, and none of these.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from skillstate.environment import Environment


__all__ = [
    "ActionResult",
    "DoctorFinding",
    "EnvironmentSpec",
]


@attrs.frozen
class EnvironmentSpec:
    """An environment, selected by name (``mock``, ``warehouse``...).

    ``factory(options, snapshot)`` builds a fresh environment: from ``options`` for a
    new session (``snapshot`` is ``None``), or restored from a previous
    :meth:`Environment.snapshot`. ``default`` offers it as the environment of sessions
    that name none, unless ``default_environment`` is configured (the bundled ``mock``
    does, as the reference server defaults to its mock); two plugins offering one is
    an error naming both.
    """

    name: str
    factory: Callable[[Mapping[str, Any], Any], Environment]
    description: str = ""
    default: bool = False

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"an environment name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "name", self.name.strip())


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
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
