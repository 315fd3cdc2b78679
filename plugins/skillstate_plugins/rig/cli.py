"""``rig-state``: a drop-in replacement for rig's ``scripts/rig-state.ts``.

Same commands, flags, messages, output formats and exit codes as the reference
(see ``docs/rig.md``), on skillstate's pipeline, with runs stored under
``<root>/.rig/state/`` by the ``file`` store::

    rig-state init <skill> <runId> [--json '{...}'|-]
    rig-state patch <runId> [--json '{...}'|-] [--step <label>] [--force]
    rig-state get <runId> [--field <dotted.path>]
    rig-state show <runId>
    rig-state list [--skill <name>]
    rig-state journal <runId>
    rig-state rm <runId>
    rig-state doctor [--fix] [--stale-days N]
    rig-state completion bash|zsh|fish|tcsh     (not rig's: a completion script)

``--root DIR`` (anywhere) sets the project directory; default: the current one.
Unlike the reference, flags are parsed properly: a flag missing its value, an
unknown flag or a stray argument is a usage error (exit 2).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from functools import cached_property
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TextIO, cast

from skillstate.plugin.cli import CliContext

if TYPE_CHECKING:
    import argparse

    from skillstate.plugin.cli import RunCommands

__all__ = ["PROG", "RigContext", "console", "main", "parse_args", "state_dir"]

PROG = "rig-state"
RIG_SKILLS = ("rig-task", "rig-epic", "rig-review")
GENERAL_USAGE = "usage: rig-state <init|patch|get|show|list|journal|rm> [args]"

# command -> (usage, positional names, value flags, boolean flags)
COMMANDS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "init": (
        "usage: rig-state init <skill> <runId> [--json '{...}']",
        ("skill", "runId"),
        ("--json",),
        (),
    ),
    "patch": (
        "usage: rig-state patch <runId> --json '{...}' [--step <label>]",
        ("runId",),
        ("--json", "--step"),
        (),
    ),
    "get": ("usage: rig-state get <runId> [--field <dotted.path>]", ("runId",), ("--field",), ()),
    "show": ("usage: rig-state show <runId>", ("runId",), (), ()),
    "list": ("usage: rig-state list [--skill <name>]", (), ("--skill",), ()),
    "journal": ("usage: rig-state journal <runId>", ("runId",), (), ()),
    "rm": ("usage: rig-state rm <runId>", ("runId",), (), ()),
    "doctor": (
        "usage: rig-state doctor [--fix] [--stale-days N]",
        (),
        ("--stale-days",),
        ("--fix",),
    ),
}
GLOBAL_VALUE = ("--root",)
GLOBAL_BOOL = ("--force",)  # the reference counts --force wherever it appears


class UsageError(Exception):
    """A command line rig-state cannot run; the message is printed after ``rig-state: ``."""


class Parsed:
    """A parsed command line: the command, its positionals and flags."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.positionals: list[str] = []
        self.values: dict[str, str] = {}
        self.flags: set[str] = set()


def parse_args(argv: Sequence[str]) -> Parsed:
    """Split ``argv`` into command, positionals and flags; raise :class:`UsageError`."""
    tokens = list(argv)
    command = next((t for i, t in enumerate(tokens) if not _is_flag_value(tokens, i)), None)
    if command is None or command not in COMMANDS:
        raise UsageError(GENERAL_USAGE)
    usage, positional_names, value_flags, bool_flags = COMMANDS[command]
    parsed = Parsed(command)
    index = 0
    seen_command = False
    while index < len(tokens):
        token = tokens[index]
        if token.startswith("--"):
            if token in value_flags or token in GLOBAL_VALUE:
                if index + 1 >= len(tokens) or tokens[index + 1].startswith("--"):
                    raise UsageError(f"{token} needs a value. {usage}")
                parsed.values.setdefault(token, tokens[index + 1])
                index += 2
                continue
            if token in bool_flags or token in GLOBAL_BOOL:
                parsed.flags.add(token)
                index += 1
                continue
            raise UsageError(f"unknown flag '{_shown(token)}' for {command}. {usage}")
        if not seen_command and token == command:
            seen_command = True
        else:
            parsed.positionals.append(token)
        index += 1
    # rig reads positionals by position and treats an empty one as missing ('' is falsy)
    if len(parsed.positionals) < len(positional_names) or not all(
        parsed.positionals[: len(positional_names)]
    ):
        raise UsageError(usage)
    if len(parsed.positionals) > len(positional_names):
        extra = parsed.positionals[len(positional_names)]
        raise UsageError(f"unexpected argument '{_shown(extra)}'. {usage}")
    return parsed


def _shown(token: str) -> str:
    """A word the user typed, fit for the one usage line: printable, bounded, no newline,
    a URL's password masked."""
    from skillstate.plugin import excerpt, mask_url

    flag, eq, value = token.partition("=")  # --store=URL: the URL after the flag
    shown = f"{flag}={mask_url(value)}" if eq else mask_url(token)
    return excerpt(shown).replace("\n", "\\n")


def _is_flag_value(tokens: list[str], index: int) -> bool:
    """Whether ``tokens[index]`` is a flag or the value of a (global) flag before the command."""
    token = tokens[index]
    if token.startswith("--"):
        return True
    return index > 0 and tokens[index - 1] in GLOBAL_VALUE


def state_dir(root: str) -> str:
    """The directory rig-state keeps runs in: ``<root>/.rig/state``."""
    return os.path.join(os.path.abspath(root), ".rig", "state")


class RigContext(CliContext):
    """Configuration, host and the ``.rig/state`` file store, built on first use."""

    def __init__(self, root: str, out: TextIO | None = None, err: TextIO | None = None) -> None:
        super().__init__(
            cast("argparse.Namespace", SimpleNamespace()), prog=PROG, check_commands=False
        )
        self.root = root
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    @cached_property
    def config(self) -> Any:
        from skillstate.plugin.cli import load_config

        return load_config(self.root, overrides={"store": f"file:{state_dir(self.root)}"})

    @cached_property
    def commands(self) -> RunCommands:
        from skillstate.plugin.cli import RunCommands

        return RunCommands(self)


def run(parsed: Parsed, ctx: RigContext) -> int:
    """Run one parsed command; the exit code."""
    command, args, values = parsed.command, parsed.positionals, parsed.values
    runs = ctx.commands
    if command == "init":
        return runs.init(args[0], args[1], values.get("--json"), allowed=RIG_SKILLS)
    if command == "patch":
        return runs.patch(
            args[0],
            values.get("--json"),
            values.get("--step"),
            "--force" in parsed.flags,
            allowed=RIG_SKILLS,
        )
    if command == "get":
        return runs.get(args[0], values.get("--field"))
    if command == "show":
        return runs.show(args[0])
    if command == "list":
        return runs.list(values.get("--skill"))
    if command == "journal":
        return runs.journal(args[0])
    if command == "rm":
        return runs.rm(args[0])
    return _doctor(parsed, ctx)


def _doctor(parsed: Parsed, ctx: RigContext) -> int:
    from skillstate.plugin.cli import ExitCode

    days = parsed.values.get("--stale-days")
    if days is not None:
        try:
            if float(days) <= 0:
                raise ValueError(days)
        except ValueError:
            ctx.error(f"--stale-days must be a positive number of days, got '{days}'")
            return ExitCode.USAGE
        os.environ["SKILLSTATE_RIG_STALE_DAYS"] = days
    return ctx.commands.doctor(ctx.root, fix="--fix" in parsed.flags)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``rig-state`` console script (rig's exit codes; 3 for what rig has none for)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["completion"]:  # not rig's: rig-state's own addition (.completion)
        from .completion import completion

        ctx = RigContext(".")
        return ctx.run(lambda: completion(args[1:], ctx))
    try:
        parsed = parse_args(args)
    except UsageError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    ctx = RigContext(parsed.values.get("--root", "."))
    return ctx.run(lambda: run(parsed, ctx))


def console() -> int:
    """The ``rig-state`` console script."""
    return main()


if __name__ == "__main__":
    sys.exit(console())
