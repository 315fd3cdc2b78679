"""``skillstate rm RUN_ID [--expected-version N]``: delete a run and its journal.

Silent, and exit 0 when there was none. ``--expected-version N`` deletes only if the
run is still at version N, checked and deleted in one step (exit 4 and nothing deleted
otherwise; exit 2 when there is no such run).
"""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--expected-version",
        metavar="N",
        help="delete only if the run is still at version N; else delete nothing and exit 4",
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import USAGE, do_rm, version_arg

    expected = version_arg(ctx, ctx.args.expected_version, "--expected-version")
    if expected is False:
        return USAGE
    return do_rm(ctx, ctx.args.run_id, expected)
