"""``skillstate list [--skill NAME]``: one tab-separated line per run."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--skill", metavar="NAME", help="only runs of this skill")


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import do_list

    return do_list(ctx, ctx.args.skill)
