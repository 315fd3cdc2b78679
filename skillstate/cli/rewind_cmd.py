"""``skillstate rewind RUN_ID --to V [--force]``: a new version whose state is the state at V.

History is never rewritten: the rewind is one more accepted write, checked like a
patch (schema, budgets, guards), whose journal entry says where it went back to
(``"origin": {"op": "rewind", "version": V}``). Leaving a terminal phase needs
``--force``, as for ``patch``. A rejected rewind prints the unchanged state and the
reasons, exit 1.
"""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--to", metavar="V", required=True, help="the version whose state to restore"
    )
    parser.add_argument(
        "--force", action="store_true", help="allow leaving a terminal phase (as for patch)"
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import OK, REJECTED, USAGE, open_run, print_run, version_arg
    from skillstate.errors import VersionNotFound
    from skillstate.history import rewind_run

    a = ctx.args
    to = version_arg(ctx, a.to, "--to")
    if to is False or to is None:
        return USAGE
    record = open_run(ctx, a.run_id)
    if record is None:
        return USAGE
    try:
        outcome = rewind_run(ctx.host, ctx.store, record.id, to, force=a.force)
    except VersionNotFound as exc:
        ctx.error(str(exc))
        return USAGE
    if outcome.record is not None:
        print_run(ctx, outcome.record)
    if not outcome.accepted:
        ctx.reasons("rewind rejected", outcome.problems)
        return REJECTED
    return OK
