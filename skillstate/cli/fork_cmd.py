"""``skillstate fork RUN_ID NEW_ID [--at V]``: a new run starting from the state at version V.

The fork goes through the pipeline like ``init`` (schema, budgets and guards apply),
with the parent's skill; the skill's run-id and timestamp keys get the new run's
values. Its first journal entry names the parent and the version
(``"origin": {"op": "fork", "run": RUN_ID, "version": V}``). A session is forked with
its spec, and its environment as it was at V (see ``docs/history.md``).
"""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("new_id", metavar="NEW_ID", help="the new run's id (must be free)")
    parser.add_argument(
        "--at", metavar="V", help="the version to start from (default: the current one)"
    )


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import OK, REJECTED, USAGE, open_run, print_run, version_arg
    from skillstate.errors import RunExists, VersionNotFound
    from skillstate.runtime.payloads import is_session
    from skillstate.store import run_id_problem

    a = ctx.args
    at = version_arg(ctx, a.at, "--at")
    if at is False:
        return USAGE
    record = open_run(ctx, a.run_id)
    if record is None:
        return USAGE
    problem = run_id_problem(a.new_id)
    if problem is not None:
        ctx.error(problem)
        return USAGE
    try:
        if is_session(record):
            from skillstate.runtime import Runtime

            outcome = Runtime(host=ctx.host).fork_version(record.id, a.new_id, at)
        else:
            from skillstate.history import fork_run

            outcome = fork_run(ctx.host, ctx.store, record.id, a.new_id, at)
    except RunExists:
        ctx.error(f"run '{a.new_id}' already exists — fork onto a new id")
        return USAGE
    except VersionNotFound as exc:
        ctx.error(str(exc))
        return USAGE
    if not outcome.accepted or outcome.record is None:
        ctx.reasons("fork rejected (nothing written)", outcome.problems)
        return REJECTED
    print_run(ctx, outcome.record)
    return OK
