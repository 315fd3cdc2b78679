"""What environment, command and doctor plugins register, and an environment's answer.

None of these is needed to read or patch a run, so they are built only when a
surface that uses them (sessions, ``skillstate`` sub-commands, ``doctor``) asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    import argparse

    from skillstate.cli.context import CliContext
    from skillstate.environment import Environment


__all__ = [
    "ActionResult",
    "CommandSpec",
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


@attrs.frozen
class CommandSpec:
    """A sub-command of ``skillstate``, registered by a plugin (or by the core).

    ``name`` is what users type (``skillstate NAME``); ``help`` is its one-line help.
    ``configure(parser)`` adds its arguments to an :class:`argparse.ArgumentParser`;
    ``run(ctx)`` runs it with a :class:`~skillstate.cli.context.CliContext` (parsed
    ``ctx.args``, ``ctx.out``/``ctx.err``, and ``ctx.config``/``ctx.host``/``ctx.store``
    built on first use) and returns the exit code. Both are called only when the
    command runs (or for ``--help``), so a plugin can import its command's module
    inside them and keep start-up cheap.
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[CliContext], int]
    description: str = ""

    def __attrs_post_init__(self) -> None:
        name = self.name
        if (
            not isinstance(name, str)
            or not name
            or name.startswith("-")
            or any(c.isspace() for c in name)
        ):
            raise ValueError(f"a command name must be one word not starting with '-', got {name!r}")
        if not isinstance(self.help, str):
            raise ValueError(f"command {name}: help must be a string")
        if not callable(self.configure) or not callable(self.run):
            raise ValueError(f"command {name}: configure and run must be callables")

    @classmethod
    def from_module(cls, name: str, help: str, module: str, description: str = "") -> CommandSpec:
        """A command whose ``configure`` and ``run`` are the functions of ``module``,
        imported only when the command is used (``CommandSpec.from_module("x", "...",
        f"{__package__}.x_cmd")``)."""

        def _module() -> Any:
            import importlib

            return importlib.import_module(module)

        def configure(parser: argparse.ArgumentParser) -> None:
            _module().configure(parser)

        def run(ctx: CliContext) -> int:
            code: int = _module().run(ctx)
            return code

        return cls(name, help, configure, run, description)
