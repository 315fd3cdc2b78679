"""``skillstate verify [RUN_ID ...] [--json]``: replay journals, report records that differ.

Every named run (every run in the store when none is named) is read, its journal
replayed (:func:`skillstate.journal.verify_record`), and any difference reported —
including a snapshot the store keeps (``Store.snapshots``) that is not the replay's
state at its version.
Exit 0 when every run agrees with its journal, 1 when any differs or cannot be read;
an invalid or unknown run id is a usage error (exit 2, before anything is checked).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from skillstate.cli.context import CliContext

__all__ = ["check_run", "configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_ids", nargs="*", metavar="RUN_ID", help="runs to check (default: every run)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print a JSON list of {id, ok, problems}"
    )


def check_run(store: Any, run_id: str, attempts: int = 3, merge: Any = None) -> list[str]:
    """Why run ``run_id`` differs from its journal's replay (empty when it agrees).

    The record and the journal are two reads; a commit landing between them looks
    like a difference, so a difference is confirmed by reading again (a live store
    is fine to verify).
    """
    from skillstate.errors import RunNotFound, StoreError
    from skillstate.journal import verify_record
    from skillstate.merge import merge_patch

    problems: list[str] = []
    for _ in range(attempts):
        try:
            record = store.get(run_id)
            entries = store.journal(run_id)
            snapshots = store.snapshots(run_id)
        except RunNotFound:
            return ["the run disappeared while it was being checked"]
        except StoreError as exc:
            return [str(exc)]
        problems = verify_record(record, entries, merge or merge_patch, snapshots)
        if not problems:
            break
    return problems


def run(ctx: CliContext) -> int:
    from skillstate.errors import RunNotFound
    from skillstate.store import check_run_id

    store = ctx.store
    if ctx.args.run_ids:
        run_ids = [check_run_id(run_id) for run_id in ctx.args.run_ids]
        for run_id in run_ids:
            if not store.exists(run_id):
                raise RunNotFound(run_id)
    else:
        run_ids = [summary.id for summary in store.list()]
    results = [(run_id, check_run(store, run_id, merge=ctx.host.merge)) for run_id in run_ids]
    bad = [(run_id, problems) for run_id, problems in results if problems]
    if ctx.args.json:
        rows = [{"id": i, "ok": not p, "problems": p} for i, p in results]
        print(json.dumps(rows, indent=2, ensure_ascii=False), file=ctx.out)
    else:
        for run_id, problems in bad:
            print(f"{run_id}: differs from its journal", file=ctx.out)
            for problem in problems:
                print(f"  - {problem}", file=ctx.out)
        print(
            f"{len(results)} run{'s' if len(results) != 1 else ''} checked, "
            f"{len(bad)} differ{'s' if len(bad) == 1 else ''} from {'its' if len(bad) == 1 else 'their'} journal",
            file=ctx.out,
        )
    return 1 if bad else 0
