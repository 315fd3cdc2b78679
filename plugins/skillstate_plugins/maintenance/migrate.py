"""``skillstate migrate --from URL --to URL``: copy every run with its journal between stores.

Each run is verified before and after the copy: its record must equal the replay of
its journal in the source, and the target must then hold the same record and the
same journal. Runs already in the target and identical are left alone, so running
the command again copies nothing new. A run that exists in the target with
different content is never overwritten: it is reported, and the exit code is 1.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from skillstate.plugin import mask_url
from skillstate.plugin.cli import CliContext, ExitCode

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", metavar="URL", required=True, help="source store")
    parser.add_argument("--to", dest="target", metavar="URL", required=True, help="target store")
    parser.add_argument(
        "--run",
        dest="runs",
        metavar="ID",
        action="append",
        help="copy only this run (repeatable); default: every run",
    )
    parser.add_argument("--dry-run", action="store_true", help="report what would be copied")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _copy_one(
    source: Any, target: Any | None, run_id: str, dry_run: bool, merge: Any
) -> tuple[str, str]:
    """``(outcome, detail)``; outcome is copied, present, differs, invalid or failed.
    ``target`` is ``None`` for a dry run into a store that does not exist yet (looking
    into it would create it)."""
    from skillstate.plugin import RunExists, RunNotFound, SkillstateError
    from skillstate.plugin.history import verify_record

    try:
        record, entries = source.get(run_id), source.journal(run_id)
    except RunNotFound:
        return "invalid", "the run disappeared from the source while it was being copied"
    except SkillstateError as exc:  # a damaged record or journal: the others still go
        return "invalid", f"cannot be read in the source: {exc}"
    problems = verify_record(record, entries, merge)
    if problems:
        return "invalid", "source does not replay: " + "; ".join(problems)
    size = f"version {record.version}, {len(entries)} journal entries"
    if target is None:
        return "copied", f"would copy ({size})"
    if target.exists(run_id):
        if target.get(run_id) == record and target.journal(run_id) == entries:
            return "present", f"already in the target ({size})"
        return "differs", (
            f"the target has a different run '{run_id}' (version {target.get(run_id).version}); "
            "not overwritten — delete it there to copy this one"
        )
    if dry_run:
        return "copied", f"would copy ({size})"
    try:
        target.import_run(record, entries, merge=merge)
    except RunExists:
        return "differs", f"run '{run_id}' appeared in the target meanwhile; not overwritten"
    except SkillstateError as exc:
        return "failed", f"cannot write it: {exc}"
    copied, copied_entries = target.get(run_id), target.journal(run_id)
    if copied != record or copied_entries != entries:
        return "failed", "the copy read back differs from the source"
    problems = verify_record(copied, copied_entries, merge)
    if problems:
        return "failed", "the copy does not replay: " + "; ".join(problems)
    return "copied", f"copied ({size})"


def run(ctx: CliContext) -> int:
    from skillstate.plugin import check_run_id

    args = ctx.args
    if args.source == args.target:
        ctx.error("--from and --to name the same store; nothing to do")
        return ExitCode.USAGE
    for run_id in args.runs or ():
        check_run_id(run_id)
    source = ctx.host.open_store(args.source)
    if not source.found():  # a mistyped --from: say so, create nothing there
        ctx.error(f"no store at {mask_url(args.source)} (--from): nothing was created")
        return ExitCode.USAGE
    from .verify import every_run

    target = ctx.host.open_store(args.target)
    skipped: dict[str, list[str]] = {}
    if args.runs:
        missing = [r for r in args.runs if not source.exists(r)]
        if missing:
            ctx.error(f"no run {', '.join(repr(r) for r in missing)} in {mask_url(args.source)}")
            return ExitCode.USAGE
        run_ids = list(dict.fromkeys(args.runs))
    else:
        run_ids, skipped = every_run(source)  # a run the listing skips is reported, not lost

    report: dict[str, list[dict[str, str]]] = {
        k: [] for k in ("copied", "present", "differs", "invalid", "failed")
    }
    for run_id, problems in sorted(skipped.items()):
        detail = "cannot be read in the source: " + "; ".join(problems)
        report["invalid"].append({"id": run_id, "detail": detail})
        if not args.json:
            print(f"{'invalid':8} {run_id}: {detail}", file=ctx.out)
    into = None if args.dry_run and not target.found() else target
    for run_id in run_ids:
        outcome, detail = _copy_one(source, into, run_id, args.dry_run, ctx.host.merge)
        report[outcome].append({"id": run_id, "detail": detail})
        if not args.json:
            print(f"{outcome:8} {run_id}: {detail}", file=ctx.out)

    bad = len(report["differs"]) + len(report["invalid"]) + len(report["failed"])
    verb = "would copy" if args.dry_run else "copied"
    summary = (
        f"{verb} {len(report['copied'])} run(s), {len(report['present'])} already present, "
        f"{bad} not copied; from {mask_url(args.source)} to {mask_url(args.target)}"
    )
    if not report["copied"] and not bad:
        summary = f"nothing to copy: {summary}"
    if args.json:
        payload = {
            "from": mask_url(args.source),
            "to": mask_url(args.target),
            "dry_run": args.dry_run,
            **report,
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False), file=ctx.out)
    else:
        print(summary, file=ctx.out)
    return ExitCode.REJECTED if bad else ExitCode.OK
