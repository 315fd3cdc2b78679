"""What a command plugin registers: a ``skillstate`` sub-command (and the core's own).

Every ``skillstate`` command line builds this record (the command table), so it is a
module of its own, apart from the environment and doctor records
(:mod:`skillstate.records.extensions`), which only sessions and ``doctor`` need.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    import argparse

    from skillstate.cli.context import CliContext

__all__ = ["CORE_COMMANDS", "CommandSpec"]

CORE_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("plugins", "plugins_cmd", "list every plugin: name, distribution, version, status, hooks"),
    ("config", "config_cmd", "show or change the configuration (list, get, set)"),
    ("init", "init_cmd", "create a run of a skill, seeded with --json"),
    ("patch", "patch_cmd", "apply a patch to a run (checked; rejected = no change)"),
    ("get", "get_cmd", "print a run's state as JSON, or one --field"),
    ("show", "show_cmd", "print a run's state compactly (what a step reads)"),
    ("list", "list_cmd", "list runs: id, skill, phase, updated, next action"),
    ("journal", "journal_cmd", "print a run's journal of accepted writes"),
    ("log", "log_cmd", "one line per version: time, label, keys changed, action, status"),
    ("diff", "diff_cmd", "what changed in a run's state between two versions (--json: RFC 6902)"),
    ("fork", "fork_cmd", "a new run starting from another run's state at a version"),
    ("rewind", "rewind_cmd", "append a version whose state is the state at an earlier version"),
    ("rm", "rm_cmd", "delete a run and its journal"),
    ("doctor", "doctor_cmd", "check the project (plugins add checks); --fix"),
)
"""The ``skillstate`` commands of the core: ``(name, module in skillstate.cli, help)``, in
``--help`` order. Their names are taken: a plugin registering one is a conflict."""


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
