"""``skillstate rm RUN_ID``: delete a run and its journal (silent; exit 0 if there was none)."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import do_rm

    return do_rm(ctx, ctx.args.run_id)
