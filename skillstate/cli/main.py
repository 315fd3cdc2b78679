"""``skillstate``: the entry point. The core's commands, then the ones plugins register.

Each core command lives in its own module, imported only when it runs (or for
``--help``). Plugin commands come from ``skillstate_register_commands``: a command is
looked up among the core's first, and the plugins are loaded to find any other name
(and for ``--help``). A plugin command whose name the core or another plugin already
uses is a conflict, named, and nothing runs until one is blocked.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import argparse

    from skillstate.cli.context import CliContext
    from skillstate.records import CommandSpec

__all__ = ["CORE_COMMANDS", "SHORT_COMMANDS", "all_commands", "build_parser", "console", "main"]

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
    ("log", "log_cmd", "one line per version: time, label, keys changed, action, status"),
    ("diff", "diff_cmd", "what changed in a run's state between two versions (--json: RFC 6902)"),
    ("fork", "fork_cmd", "a new run starting from another run's state at a version"),
    ("rewind", "rewind_cmd", "append a version whose state is the state at an earlier version"),
    ("export", "export_cmd", "write a run (record + journal) to one self-contained file"),
    ("import", "import_cmd", "read a run from an export file, checked before anything is written"),
    ("gc", "gc_cmd", "delete finished or old runs (--closed-before, --older-than, --dry-run)"),
    ("rm", "rm_cmd", "delete a run and its journal"),
    ("verify", "verify_cmd", "replay journals; report runs whose record differs"),
    ("doctor", "doctor_cmd", "check the project (plugins add checks); --fix"),
)


SHORT_COMMANDS = frozenset(
    ("plugins", "config", "init", "patch", "get", "show", "list", "journal", "log", "diff", "rm")
)
"""Commands run by the console script with the cyclic garbage collector off
(:mod:`skillstate.cli.startup`): bounded work on one run or on the plugin table."""


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


class _Reparse(Exception):
    """A command line the one-command parser refuses: parsed again with every core command's."""


def _parser(reparse: bool = False) -> argparse.ArgumentParser:
    """The top-level parser; with ``reparse``, its errors (and its sub-parsers') raise
    :class:`_Reparse` instead of printing, for :func:`main` to parse again in full."""
    import argparse

    from skillstate._version import __version__

    class Parser(argparse.ArgumentParser):
        """argparse's parser, its help formatter given the width ``shutil`` would find:
        argparse imports :mod:`shutil` (and with it bz2, lzma and zlib) to ask, on every
        ``add_argument``; the sub-command parsers are of this class too."""

        def _get_formatter(self) -> argparse.HelpFormatter:
            return self.formatter_class(prog=self.prog, width=_help_width())  # type: ignore[call-arg]

    class ReparsingParser(Parser):
        def error(self, message: str) -> NoReturn:
            raise _Reparse(message)

    parser = (ReparsingParser if reparse else Parser)(
        prog="skillstate",
        description="Durable, typed, patch-only working state for long-running agents.",
        allow_abbrev=False,  # --sto is not --store: the command word must be found exactly
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


def _help_width() -> int:
    """``shutil.get_terminal_size().columns - 2``, argparse's help width, without shutil."""
    import os
    import sys

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns if columns > 0 else 80) - 2


def _command_index(argv: Sequence[str]) -> int | None:
    """Where the command word is: the first word that is neither a global option nor its value."""
    skip = False
    for index, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg in ("--store", "--disable-plugin"):
            skip = True
        elif not arg.startswith("-"):
            return index
    return None


def build_parser(
    commands: Sequence[CommandSpec],
    only: str | None = None,
    owners: Mapping[str, str] | None = None,
    reparse: bool = False,
) -> argparse.ArgumentParser:
    """The whole command line: global flags, then each command (configured if ``only`` is it).

    ``owners`` names the plugin of each plugin command, for the message when its
    ``configure`` fails. ``reparse``: a parse error raises (see :func:`_parser`).
    """
    from skillstate.errors import PluginError

    parser = _parser(reparse)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for spec in commands:
        command = sub.add_parser(
            spec.name, help=spec.help, description=spec.description or spec.help
        )
        if only is None or only == spec.name:
            try:
                spec.configure(command)
            except Exception as exc:
                owner = (owners or {}).get(spec.name)
                if owner is None:
                    raise  # the core's own command: a bug to see whole
                raise PluginError(
                    f"command '{spec.name}' of plugin '{owner}' cannot set up its arguments: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            command.set_defaults(_spec=spec)
    return parser


def all_commands(ctx: CliContext) -> tuple[list[CommandSpec], dict[str, str]]:
    """The core's commands, then every plugin's (building ``ctx``'s host), and their owners."""
    registry = ctx.host.commands
    owners = {spec.name: registry.owner(spec.name) or "" for spec in registry}
    return [*CORE_COMMANDS, *registry], owners


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

    index = _command_index(args_list)
    name = None if index is None else args_list[index]
    # Global flags first (--store, --disable-plugin): they decide which plugins load. Only
    # the words before the command are global; a command may have a --store of its own.
    before = args_list if index is None else args_list[:index]
    pre, _ = _parser().parse_known_args([a for a in before if a not in ("-h", "--help")])
    ctx = CliContext(pre, check_commands=name not in _REPORTING)

    def body() -> int:
        owners: dict[str, str] = {}
        reparse = False
        if name in CORE_COMMANDS.names():
            commands: list[CommandSpec] = list(CORE_COMMANDS)
            if not {"-h", "--help"} & set(before):
                # Only the command's own parser: nothing but the top-level help lists the
                # others, and each sub-parser costs argparse's gettext look-ups (~1 ms).
                commands = [spec for spec in commands if spec.name == name]
                reparse = True
        else:
            commands, owners = all_commands(ctx)
        parser = build_parser(commands, name, owners, reparse)
        try:
            args = parser.parse_args(args_list)
        except _Reparse:
            # A line argparse reads otherwise than _command_index (`-- patch`, `-1 patch`):
            # its error, which may list the commands, is the one every core command's gives.
            parser = build_parser(list(CORE_COMMANDS), name, owners)
            args = parser.parse_args(args_list)
        spec = getattr(args, "_spec", None)
        if spec is None:
            parser.print_help()
            return USAGE
        ctx.args = args
        if name not in SHORT_COMMANDS:
            from skillstate.cli.startup import long_running

            long_running()  # a server, a benchmark, a migration: the collector back on
        code: int = spec.run(ctx)
        return code

    return run_guarded(body, ctx.error)


def console() -> int:
    """The ``skillstate`` console script: :func:`main` with the collector off for short commands."""
    from skillstate.cli.startup import run_console

    return run_console(main)


if __name__ == "__main__":
    sys.exit(console())
