"""``skillstate journal RUN_ID [--json]``: the run's journal, one JSON object per line (or an array)."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--json", action="store_true", help="one JSON array of the entries instead of JSON lines"
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.reads import do_journal

    return do_journal(ctx, ctx.args.run_id, as_json=ctx.args.json)
