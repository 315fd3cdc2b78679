"""``skillstate init SKILL RUN_ID [--json JSON|-]``: create a run of any registered skill."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("skill", help="a registered skill (see `skillstate plugins`)")
    parser.add_argument("run_id", metavar="RUN_ID", help="alphanumeric with . _ -, up to 80 chars")
    parser.add_argument(
        "--json", metavar="JSON", help="the seed merged into the initial state ('-': stdin)"
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import do_init

    return do_init(ctx, ctx.args.skill, ctx.args.run_id, ctx.args.json)
