"""``skillstate verify [RUN_ID ...] [--json] [--repair]``: replay journals, report what differs.

Every named run (every run in the store when none is named) is read, its journal
replayed (:func:`skillstate.journal.verify_record`), and any difference reported —
including a snapshot the store keeps (``Store.snapshots``) that is not the replay's
state at its version. A
run the store cannot read (a damaged record or journal; one a listing skipped with a
warning) is reported too, as ``cannot be read``: verify never counts it as fine.
Before any run is read (a read may mend what it finds), the store is asked what is
wrong as it lies (``Store.damage``: a record torn as stored, reported as ``damaged``)
and what a delete killed halfway left (``Store.debris``: a journal or lock without its
record, reported as ``debris``).
``--repair`` asks the store to rebuild each run that differs, cannot be read or is
damaged from its journal (``Store.repair``; the file store can, when the journal holds
the records), then checks it again; debris is collected
(``Store.delete(id, expected_version=0)``, which never touches a run created since).

Exit 0 when every run agrees with its journal and nothing is damaged or left over, 1
otherwise (after ``--repair``: when anything is still wrong); an invalid or unknown
run id is a usage error (exit 2, before anything is checked).
"""

from __future__ import annotations

import argparse
import json
import warnings
from typing import TYPE_CHECKING, Any

from skillstate.plugin.cli import CliContext, ExitCode

if TYPE_CHECKING:
    from skillstate.plugin import Store

__all__ = ["check_run", "configure", "every_run", "run"]

UNREADABLE = "cannot be read"
DIFFERS = "differs from its journal"
DAMAGED = "damaged"
DEBRIS = "debris of an interrupted delete"
HEADINGS = {"unreadable": UNREADABLE, "differs": DIFFERS, "damaged": DAMAGED, "debris": DEBRIS}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_ids", nargs="*", metavar="RUN_ID", help="runs to check (default: every run)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print a JSON list of {id, ok, status, problems}"
    )
    parser.add_argument(
        "--repair",
        action="store_true",
        help="rebuild each run that differs or cannot be read from its journal, then recheck",
    )


def check_run(
    store: Store, run_id: str, attempts: int = 3, merge: Any = None
) -> tuple[str, list[str]]:
    """``(status, problems)`` of run ``run_id``: ``ok``, ``differs`` or ``unreadable``.

    The record and the journal are two reads; a commit landing between them looks
    like a difference, so a difference is confirmed by reading again (a live store
    is fine to verify).
    """
    from skillstate.plugin import RunNotFound, StoreError, merge_patch
    from skillstate.plugin.history import verify_record

    problems: list[str] = []
    for _ in range(attempts):
        try:
            record = store.get(run_id)
            entries = store.journal(run_id)
            snapshots = store.snapshots(run_id)
        except RunNotFound:
            return "unreadable", ["the run disappeared while it was being checked"]
        except StoreError as exc:
            return "unreadable", [str(exc)]
        problems = verify_record(record, entries, merge or merge_patch, snapshots)
        if not problems:
            return "ok", []
    return "differs", problems


def every_run(store: Any) -> tuple[list[str], dict[str, list[str]]]:
    """The ids a listing gives, and those it skipped with a warning naming the run
    (:meth:`Store.warn <skillstate.plugin.Store.warn>`'s, which carry its ``run_id``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        listed = [summary.id for summary in store.list()]
    skipped: dict[str, list[str]] = {}
    for warning in caught:
        message = warning.message
        run_id = getattr(message, "run_id", None)
        if isinstance(run_id, str):
            if run_id not in listed:
                skipped.setdefault(run_id, []).append(str(message))
                continue
        warnings.showwarning(message, warning.category, warning.filename, warning.lineno)
    return listed, skipped


def run(ctx: CliContext) -> int:
    from skillstate.plugin import RunNotFound, SkillstateError, check_run_id

    store = ctx.existing_store()  # a mistyped --store: one line, exit 2, nothing created
    named = [check_run_id(run_id) for run_id in ctx.args.run_ids]
    # first, as the store lies: any read after this may mend a torn record
    damaged = store.damage()
    debris = store.debris()
    if named:
        damaged = {i: p for i, p in damaged.items() if i in named}
        debris = [i for i in debris if i in named]
    results: dict[str, tuple[str, list[str]]] = {i: ("damaged", p) for i, p in damaged.items()}
    for run_id in debris:
        results[run_id] = ("debris", ["a journal or lock without its record"])
    skipped: dict[str, list[str]] = {}
    if named:
        run_ids = [i for i in named if i not in results]
        for run_id in run_ids:
            if not store.exists(run_id):
                raise RunNotFound(run_id)
    else:
        run_ids, skipped = every_run(store)
        run_ids = [i for i in run_ids if i not in results]
    for run_id, problems in skipped.items():
        results.setdefault(run_id, ("unreadable", problems))
    for run_id in run_ids:
        results[run_id] = check_run(store, run_id, merge=ctx.host.merge)
    repaired: dict[str, str] = {}
    if ctx.args.repair:
        for run_id, (status, problems) in list(results.items()):
            if status == "ok":
                continue
            try:
                repaired[run_id] = _repair(store, run_id, status)
            except SkillstateError as exc:
                results[run_id] = (status, [*problems, f"not repaired: {exc}"])
                continue
            if status == "debris":
                results[run_id] = ("ok", [])
                continue
            results[run_id] = check_run(store, run_id, merge=ctx.host.merge)
    ordered = sorted(results.items())
    if ctx.args.json:
        rows = [
            {"id": i, "ok": s == "ok", "status": s, "problems": p, "repaired": repaired.get(i)}
            for i, (s, p) in ordered
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False), file=ctx.out)
    else:
        from skillstate.plugin import excerpt  # a file's name is the caller's text: escaped

        for run_id, (status, problems) in ordered:
            shown = excerpt(run_id, 200)
            if run_id in repaired:
                print(f"{shown}: {repaired[run_id]}", file=ctx.out)
            if status == "ok":
                continue
            print(f"{shown}: {HEADINGS[status]}", file=ctx.out)
            for problem in problems:
                print(f"  - {excerpt(problem, 2000)}", file=ctx.out)
        print(_summary(ordered, len(repaired)), file=ctx.out)
    bad = any(status != "ok" for _, (status, _) in ordered)
    return ExitCode.REJECTED if bad else ExitCode.OK


def _repair(store: Store, run_id: str, status: str) -> str:
    """Mend one run: collect debris (never a run created since), else rebuild the record."""
    if status == "debris":
        store.delete_if_at(run_id, 0)
        return "debris collected"
    return store.repair(run_id)


def _summary(results: list[tuple[str, tuple[str, list[str]]]], repaired: int) -> str:
    """``N runs checked, M differ from their journal, K cannot be read[, R repaired]``."""
    differ = sum(1 for _, (s, _) in results if s == "differs")
    unreadable = sum(1 for _, (s, _) in results if s == "unreadable")
    n = len(results)
    text = (
        f"{n} run{'s' if n != 1 else ''} checked, "
        f"{differ} differ{'s' if differ == 1 else ''} from "
        f"{'its' if differ == 1 else 'their'} journal"
    )
    if unreadable:
        text += f", {unreadable} cannot be read"
    damaged = sum(1 for _, (s, _) in results if s == "damaged")
    if damaged:
        text += f", {damaged} damaged"
    debris = sum(1 for _, (s, _) in results if s == "debris")
    if debris:
        text += f", {debris} left by an interrupted delete"
    if repaired:
        text += f", {repaired} repaired"
    return text
