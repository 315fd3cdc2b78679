"""``skillstate get RUN_ID [--field dotted.path] [--at V] [--with-version]``: the state as JSON, or one field."""

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
    parser.add_argument(
        "--at",
        metavar="V",
        help="the state as it was at version V (1 is the creation; see 'skillstate log')",
    )
    parser.add_argument(
        "--with-version",
        action="store_true",
        help="print the version read on a first line of its own (for patch --expected-version)",
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.reads import do_get
    from skillstate.cli.runs import USAGE, version_arg

    a = ctx.args
    at = version_arg(ctx, a.at, "--at")
    if at is False:
        return USAGE
    return do_get(ctx, a.run_id, a.field, at=at, with_version=a.with_version)
