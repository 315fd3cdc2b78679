"""``skillstate show RUN_ID [--at V] [--json]``: the compact rendering a skill reads at each step."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--at",
        metavar="V",
        help="the run as it was at version V (1 is the creation; see 'skillstate log')",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="{id, skill, version, step, status, text}: text is the compact rendering",
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.reads import do_show
    from skillstate.cli.runs import USAGE, version_arg

    at = version_arg(ctx, ctx.args.at, "--at")
    if at is False:
        return USAGE
    return do_show(ctx, ctx.args.run_id, at=at, as_json=ctx.args.json)
