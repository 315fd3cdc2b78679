"""``skillstate patch RUN_ID [--json JSON|-] [--step LABEL] [--force] [--expected-version N]``.

Applies a sparse patch. ``--expected-version N`` makes it a compare-and-swap from the
shell: if the run is not at version N the patch is not applied and the exit code is 4
(``skillstate get RUN --with-version`` prints the version with the state it read).
"""

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
    parser.add_argument(
        "--expected-version",
        metavar="N",
        help="write only if the run is still at version N; else change nothing and exit 4",
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import USAGE, do_patch, version_arg

    a = ctx.args
    expected = version_arg(ctx, a.expected_version, "--expected-version")
    if expected is False:
        return USAGE
    return do_patch(ctx, a.run_id, a.json, a.step, a.force, expected_version=expected)
