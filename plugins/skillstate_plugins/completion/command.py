"""``skillstate completion SHELL``: the completion script for SHELL on stdout.

shtab writes it from the parser of the whole command line (the core's commands and
every loaded plugin's, :func:`skillstate.plugin.cli.build_parser`). A shell it does not
know is one line and exit 2; shtab missing from a broken install is one line and exit 3.
"""

from __future__ import annotations

import argparse

from skillstate.plugin.cli import CliContext, ExitCode

__all__ = ["SHELLS", "configure", "run"]

SHELLS = ("bash", "zsh", "fish", "tcsh")
"""The shells a script is printed for (shtab's, less PowerShell, which nobody here tests)."""

MISSING = "shell completion needs shtab, a dependency of skillstate, which is not installed: pip install shtab"


class _Offered(tuple[str, ...]):
    """The shells as argparse ``choices``: listed in ``--help`` and offered by the
    completion itself, while every word passes argparse's check (``in`` is always true),
    so that :func:`run` refuses a wrong one in one line instead of argparse's usage."""

    def __contains__(self, item: object) -> bool:
        return True


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=_Offered(SHELLS), help="the shell to complete in")


def run(ctx: CliContext) -> int:
    from skillstate.plugin import excerpt

    shell = ctx.args.shell
    if shell not in SHELLS:
        ctx.error(f"unknown shell {excerpt(repr(shell))}: one of {', '.join(SHELLS)}")
        return ExitCode.USAGE
    try:
        import shtab
    except ImportError:
        ctx.error(MISSING)
        return ExitCode.ERROR
    from skillstate.plugin.cli import all_commands, build_parser

    commands, owners = all_commands(ctx)
    script = shtab.complete(build_parser(commands, owners=owners), shell=shell)
    print(script, end="" if script.endswith("\n") else "\n", file=ctx.out)
    return ExitCode.OK
