"""``skillstate list [--skill NAME] [--json]``: one tab-separated line per run, or a JSON array."""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--skill", metavar="NAME", help="only runs of this skill")
    parser.add_argument(
        "--json",
        action="store_true",
        help="a JSON array of {id, skill, status, version, phase, updated, next_action}",
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.reads import do_list

    return do_list(ctx, ctx.args.skill, as_json=ctx.args.json)
