"""``skillstate get RUN_ID [--field dotted.path]``: the state as JSON, or one field."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--field",
        metavar="PATH",
        help="a dotted path through objects; missing: exit 1 with no output",
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import do_get

    return do_get(ctx, ctx.args.run_id, ctx.args.field)
