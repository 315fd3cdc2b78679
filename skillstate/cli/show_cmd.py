"""``skillstate show RUN_ID``: the compact rendering a skill reads at each step."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import do_show

    return do_show(ctx, ctx.args.run_id)
