"""``skillstate patch RUN_ID [--json JSON|-] [--step LABEL] [--force]``: apply a sparse patch."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--json", metavar="JSON", help="the patch (RFC 7396); omitted or '-': read stdin"
    )
    parser.add_argument("--step", metavar="LABEL", default="", help="the journal's step label")
    parser.add_argument(
        "--force", action="store_true", help="allow leaving a terminal phase (reopen the run)"
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import do_patch

    a = ctx.args
    return do_patch(ctx, a.run_id, a.json, a.step, a.force)
