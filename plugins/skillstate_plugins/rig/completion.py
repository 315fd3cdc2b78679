"""``rig-state completion bash|zsh|fish|tcsh``: a completion script for ``rig-state``.

rig-state parses its command line by hand, as rig does (:mod:`.cli`); the script is
written by shtab from an argparse parser built from the same table of commands, so
the two cannot drift apart. Not one of rig's commands: an addition, which rig itself
would refuse as an unknown command (exit 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .cli import COMMANDS, GLOBAL_BOOL, GLOBAL_VALUE, PROG, RIG_SKILLS

if TYPE_CHECKING:
    from .cli import RigContext

__all__ = ["SHELLS", "completion", "parser"]

SHELLS = ("bash", "zsh", "fish", "tcsh")


def parser() -> argparse.ArgumentParser:
    """rig-state's command line as an argparse parser, for shtab alone (never parses)."""
    root = argparse.ArgumentParser(prog=PROG)
    sub = root.add_subparsers(dest="command")
    # each with a help text: shtab lists only the sub-commands argparse shows in --help
    commands = (
        sub.add_parser(name, help=usage.removeprefix("usage: "))
        for name, (usage, *_) in COMMANDS.items()
    )
    for parent in (root, *commands):
        name = parent.prog.removeprefix(f"{PROG} ")
        for flag in GLOBAL_VALUE:
            parent.add_argument(flag, metavar="DIR")
        if name not in COMMANDS:
            continue
        _usage, positionals, values, flags = COMMANDS[name]
        for index, positional in enumerate(positionals):
            choices = RIG_SKILLS if (name, index) == ("init", 0) else None
            parent.add_argument(positional, choices=choices)
        for flag in values:
            parent.add_argument(flag)
        for flag in flags + (GLOBAL_BOOL if name == "patch" else ()):
            parent.add_argument(flag, action="store_true")
    shells = f"rig-state completion <{'|'.join(SHELLS)}>"
    sub.add_parser("completion", help=shells).add_argument("shell", choices=SHELLS)
    return root


def completion(words: Sequence[str], ctx: RigContext) -> int:
    """Print the script for ``words[0]``; a wrong command line is one line and exit 2."""
    from skillstate.plugin.cli import ExitCode

    if len(words) != 1 or words[0] not in SHELLS:
        ctx.error(f"usage: rig-state completion <{'|'.join(SHELLS)}>")
        return ExitCode.USAGE
    try:
        import shtab
    except ImportError:
        ctx.error("shell completion needs shtab, which is not installed: pip install shtab")
        return ExitCode.ERROR
    print(shtab.complete(parser(), shell=words[0]), end="", file=ctx.out)
    return ExitCode.OK
