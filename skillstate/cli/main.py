"""``skillstate``: the entry point. The core's commands, then the ones plugins register.

Each core command lives in its own module, imported only when it runs (or for
``--help``). Plugin commands come from ``skillstate_register_commands``: the plugins
are loaded to find a name that is not the core's (and for ``--help``). A plugin
command whose name the core or another plugin already uses is a conflict, named, and
nothing runs until one is blocked.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from skillstate.cli.context import CliContext
    from skillstate.records import CommandSpec

__all__ = ["all_commands", "build_parser", "console", "core_commands", "main"]

_REPORTING = ("plugins", "doctor", "config")
"""Core commands that run despite a command conflict: the ones that show what is wrong."""

_CREATING = ("plugins", "config", "init", "doctor")
"""Core commands that may run on a store that does not exist yet: ``init`` creates it,
``doctor`` reports it. Every other core
command reads or changes existing runs, so it refuses a missing store
(:meth:`CliContext.existing_store`) instead of creating one at a mistyped path."""


def core_commands() -> list[CommandSpec]:
    """The commands of ``skillstate`` itself, in ``--help`` order."""
    from skillstate.records import CommandSpec
    from skillstate.records.commands import CORE_COMMANDS

    return [
        CommandSpec.from_module(name, text, f"skillstate.cli.{module}")
        for name, module, text in CORE_COMMANDS
    ]


def _parser(parser_class: type[argparse.ArgumentParser] | None = None) -> argparse.ArgumentParser:
    from skillstate._version import __version__
    from skillstate.cli.parser import Parser

    parser = (parser_class or Parser)(
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
    loudness = parser.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q", "--quiet", action="store_true", help="no warning lines on stderr (errors only)"
    )
    loudness.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also say on stderr which store the command uses and where that came from",
    )
    return parser


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


_GLOBAL_FLAGS = ("-q", "--quiet", "-v", "--verbose", "-h", "--help", "--version")


def _unknown_command(
    name: str | None, before: Sequence[str], known: Sequence[str], partial: bool = False
) -> str | None:
    """Why ``name`` is not a command, with the nearest one ("did you mean"); ``None`` if it
    is. A word before it that is no global option is named instead (``--sto memory:
    list``: the option is the mistake, not ``memory:``). ``partial``: some plugins are
    not loaded (disabled, or left out of an allow-list), which may be why."""
    if name is None or name in known:
        return None
    from difflib import get_close_matches

    from skillstate.display import excerpt

    values = ("--store", "--disable-plugin")
    for index, arg in enumerate(before):
        if arg in values or (index and before[index - 1] in values) or arg in _GLOBAL_FLAGS:
            continue
        if not arg.startswith(tuple(f"{v}=" for v in values)):
            option = arg.split("=", 1)[0]
            near = get_close_matches(option, [*values, *_GLOBAL_FLAGS], n=1, cutoff=0.6)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            return (
                f"unknown option '{excerpt(option, 40)}'{hint}; "
                "'skillstate --help' lists the options"
            )
    near = get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean '{near[0]}'?)" if near else ""
    if partial:
        hint += "; some plugins are not loaded ('skillstate plugins' lists them)"
    return (
        f"invalid choice: '{excerpt(name, 40)}' is not a command{hint}; "
        "'skillstate --help' lists them"
    )


def build_parser(
    commands: Sequence[CommandSpec],
    only: str | None = None,
    owners: Mapping[str, str] | None = None,
    parser_class: type[argparse.ArgumentParser] | None = None,
) -> argparse.ArgumentParser:
    """The whole command line: global flags, then each command (configured if ``only`` is it).

    ``owners`` names the plugin of each plugin command, for the message when its
    ``configure`` fails; ``parser_class`` is the parser's class (the reference page's).
    """
    from skillstate.errors import PluginError

    parser = _parser(parser_class)
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
            command.set_defaults(_spec=spec, _parser=command)
    return parser


def all_commands(ctx: CliContext) -> tuple[list[CommandSpec], dict[str, str]]:
    """The core's commands, then every plugin's (building ``ctx``'s host), and their owners."""
    registry = ctx.host.commands
    owners = {spec.name: registry.owner(spec.name) or "" for spec in registry}
    return [*core_commands(), *registry], owners


def main(argv: Sequence[str] | None = None) -> int:
    """The ``skillstate`` console script; exit codes in :mod:`skillstate.cli.exits`."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if "--" in args_list and _command_index(args_list[: args_list.index("--")]) is None:
        args_list.remove("--")  # the end of the global options: the command word follows
    if args_list in (["--version"], ["-V"]):
        from skillstate._version import __version__

        print(f"skillstate {__version__}")
        return 0
    from skillstate.cli.context import CliContext
    from skillstate.records.commands import CORE_COMMANDS

    index = _command_index(args_list)
    name = None if index is None else args_list[index]
    # Global flags first (--store, --disable-plugin): they decide which plugins load. Only
    # the words before the command are global; a command may have a --store of its own.
    before = args_list if index is None else args_list[:index]
    pre, _ = _parser().parse_known_args([a for a in before if a not in ("-h", "--help")])
    ctx = CliContext(pre, check_commands=name not in _REPORTING)
    core = {entry[0] for entry in CORE_COMMANDS}

    def body() -> int:
        owners: dict[str, str] = {}
        if name in core and not {"-h", "--help"} & set(before):
            commands = core_commands()
        else:
            commands, owners = all_commands(ctx)
        known = [spec.name for spec in commands]
        unknown = None
        if name is not None and name not in known:  # the host, and so the config, is built
            partial = bool(ctx.config.disable_plugins) or ctx.config.load_plugins is not None
            unknown = _unknown_command(name, before, known, partial)
        if unknown:
            ctx.error(unknown)
            from skillstate.cli.exits import USAGE

            return USAGE
        parser = build_parser(commands, name, owners)
        args, extra = parser.parse_known_args(args_list)
        if extra:  # as parse_args says it; after the command word, by the command's parser
            command = None if set(extra) & set(before) else getattr(args, "_parser", None)
            (command or parser).error(f"unrecognized arguments: {' '.join(extra)}")
        spec = getattr(args, "_spec", None)
        if spec is None:
            parser.print_help()
            from skillstate.cli.exits import USAGE

            return USAGE
        ctx.args = args
        if name in core and name not in _CREATING:
            ctx.existing_store()  # one line, exit 2: never a new, empty store at a typo
        code: int = spec.run(ctx)
        return code

    return ctx.run(body)


def console() -> int:
    """The ``skillstate`` console script."""
    return main()


if __name__ == "__main__":
    sys.exit(console())
