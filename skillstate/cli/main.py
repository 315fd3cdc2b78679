"""``skillstate``: the entry point. The core's commands, then the ones plugins register.

Each core command lives in its own module, imported only when it runs (or for
``--help``). Plugin commands come from ``skillstate_register_commands``: a command is
looked up among the core's first, and the plugins are loaded to find any other name
(and for ``--help``). A plugin command whose name the core or another plugin already
uses is a conflict, named, and nothing runs until one is blocked.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from skillstate.cli.context import CliContext
    from skillstate.records import CommandSpec

__all__ = ["CORE_COMMANDS", "main"]

_CORE: tuple[tuple[str, str, str], ...] = (
    ("plugins", "plugins_cmd", "list every plugin: name, distribution, version, status, hooks"),
    ("config", "config_cmd", "show or change the configuration (list, get, set)"),
    ("migrate", "migrate_cmd", "copy every run with its journal to another store"),
    ("init", "init_cmd", "create a run of a skill, seeded with --json"),
    ("patch", "patch_cmd", "apply a patch to a run (checked; rejected = no change)"),
    ("get", "get_cmd", "print a run's state as JSON, or one --field"),
    ("show", "show_cmd", "print a run's state compactly (what a step reads)"),
    ("list", "list_cmd", "list runs: id, skill, phase, updated, next action"),
    ("journal", "journal_cmd", "print a run's journal of accepted writes"),
    ("rm", "rm_cmd", "delete a run and its journal"),
    ("verify", "verify_cmd", "replay journals; report runs whose record differs"),
    ("doctor", "doctor_cmd", "check the project (plugins add checks); --fix"),
    ("skills", "skills_cmd", "the skill store: SKILL.md skills, list/view/edit"),
    ("mcp", "mcp_cmd", "the MCP server (stdio, or --http): SKILL.state for any MCP client"),
)


_REPORTING = ("plugins", "doctor", "config")
"""Core commands that run despite a command conflict: the ones that show what is wrong."""


class _CoreCommands:
    """The core's command records, built on first use (attrs is not imported for ``--version``)."""

    def __init__(self) -> None:
        self._specs: tuple[CommandSpec, ...] | None = None

    def _all(self) -> tuple[CommandSpec, ...]:
        if self._specs is None:
            from skillstate.records import CommandSpec

            self._specs = tuple(
                CommandSpec.from_module(name, text, f"skillstate.cli.{module}")
                for name, module, text in _CORE
            )
        return self._specs

    def __iter__(self) -> Any:
        return iter(self._all())

    def __len__(self) -> int:
        return len(_CORE)

    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in _CORE)


CORE_COMMANDS = _CoreCommands()
"""The commands of ``skillstate`` itself (``CommandSpec`` records, in ``--help`` order)."""


def _parser() -> argparse.ArgumentParser:
    import argparse

    from skillstate._version import __version__

    parser = argparse.ArgumentParser(
        prog="skillstate",
        description="Durable, typed, patch-only working state for long-running agents.",
    )
    parser.add_argument("--version", action="version", version=f"skillstate {__version__}")
    parser.add_argument(
        "--store", metavar="URL", help="store URL (overrides SKILLSTATE_STORE and the config)"
    )
    parser.add_argument(
        "--disable-plugin",
        metavar="NAME",
        action="append",
        help="do not load this plugin (entry-point or distribution name); repeatable",
    )
    return parser


def _command_name(argv: Sequence[str]) -> str | None:
    """The first word that is neither a global option nor its value."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--store", "--disable-plugin"):
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def build_parser(
    commands: Sequence[CommandSpec], only: str | None = None
) -> argparse.ArgumentParser:
    """The whole command line: global flags, then each command (configured if ``only`` is it)."""
    parser = _parser()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for spec in commands:
        command = sub.add_parser(
            spec.name, help=spec.help, description=spec.description or spec.help
        )
        if only is None or only == spec.name:
            spec.configure(command)
            command.set_defaults(_spec=spec)
    return parser


def all_commands(ctx: CliContext) -> list[CommandSpec]:
    """The core's commands, then every plugin's (building ``ctx``'s host)."""
    return [*CORE_COMMANDS, *ctx.host.commands]


def main(argv: Sequence[str] | None = None) -> int:
    """The ``skillstate`` console script; exit codes in :mod:`skillstate.cli.exits`."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list in (["--version"], ["-V"]):
        from skillstate._version import __version__

        print(f"skillstate {__version__}")
        return 0
    from skillstate.cli.context import CliContext
    from skillstate.cli.exits import USAGE, install_warning_format, run_guarded

    install_warning_format("skillstate")

    # Global flags first (--store, --disable-plugin): they decide which plugins load.
    pre, _ = _parser().parse_known_args(
        [a for a in args_list if a not in ("-h", "--help", "--version")]
    )
    ctx = CliContext(pre)

    def body() -> int:
        name = _command_name(args_list)
        if name in CORE_COMMANDS.names():
            commands: list[CommandSpec] = list(CORE_COMMANDS)
            if name not in _REPORTING:  # a plugin taking a core name is refused here too
                ctx.host.commands  # noqa: B018
        else:
            commands = all_commands(ctx)
        parser = build_parser(commands, name)
        args = parser.parse_args(args_list)
        if not getattr(args, "command", None):
            parser.print_help()
            return USAGE
        ctx.args = args
        code: int = args._spec.run(ctx)
        return code

    return run_guarded(body, ctx.error)


if __name__ == "__main__":
    sys.exit(main())
