"""``skillstate gc [--closed-before DATE] [--older-than 30d] [--dry-run]``: delete old runs.

A run is deleted (record and journal, as ``rm`` does) when it matches every
criterion given: ``--closed-before DATE`` — finished (status ``closed`` or
``completed``) and last written before DATE; ``--older-than D`` — last written more
than D ago (``30d``, ``12h``, ``90m``, ``2w``). At least one is required. Each run is
read again just before it is deleted, and deleted only if it is still at the version
read, checked and deleted in one step (``Store.delete(id, expected_version=…)``): one
written meanwhile is kept.
``--dry-run`` lists what would go and deletes nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from skillstate.plugin.cli import CliContext, ExitCode

__all__ = ["FINISHED", "configure", "matches", "parse_date", "run"]

FINISHED = ("closed", "completed")


def _time(text: Any) -> datetime | None:
    """An ISO 8601 time (``Z`` allowed) as an aware datetime (UTC when it names no zone)."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def parse_date(text: str, what: str = "date") -> datetime:
    """``2026-09-01`` (midnight UTC) or an ISO 8601 time (``2026-09-01T12:00:00Z``)."""
    from skillstate.plugin import InvalidInput, excerpt

    value = _time(text)
    if value is None:
        raise InvalidInput(
            f"{what} must be a date like 2026-09-01 or a time like 2026-09-01T12:00:00Z, "
            f"got {excerpt(repr(text))}"
        )
    return value


def matches(
    summary: Any,
    *,
    closed_before: datetime | None,
    older_than: timedelta | None,
    now: datetime,
    statuses: Sequence[str] = FINISHED,
) -> bool:
    """Whether ``summary`` (a :class:`~skillstate.plugin.RunSummary`) is a run ``gc``
    removes (every given criterion holds). A run whose last write time cannot be read is
    never removed."""
    updated = _time(summary.updated)
    if updated is None:
        return False
    if closed_before is not None and (summary.status not in statuses or updated >= closed_before):
        return False
    if older_than is None:
        return True
    try:
        return updated < now - older_than
    except OverflowError:  # before the year 1: nothing is that old
        return False


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--closed-before",
        metavar="DATE",
        help="finished runs last written before DATE (2026-09-01 or an ISO 8601 time, UTC)",
    )
    parser.add_argument(
        "--older-than", metavar="AGE", help="runs last written more than AGE ago (30d, 12h, 2w)"
    )
    parser.add_argument("--dry-run", action="store_true", help="list what would be deleted")
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"dry_run": …, "runs": [{id, skill, status, updated}]}',
    )


def run(ctx: CliContext) -> int:
    import json

    from skillstate.plugin import InvalidInput, RunNotFound, RunSummary, VersionConflict
    from skillstate.plugin.cli import parse_duration

    a = ctx.args
    if a.closed_before is None and a.older_than is None:
        ctx.error("gc needs --closed-before DATE or --older-than AGE (or both); nothing deleted")
        return ExitCode.USAGE
    try:
        closed_before = (
            None if a.closed_before is None else parse_date(a.closed_before, "--closed-before")
        )
        older = (
            None
            if a.older_than is None
            else parse_duration(a.older_than, "--older-than", bare=False)  # 30 is not 30 days
        )
    except InvalidInput as exc:
        ctx.error(f"{exc}; nothing deleted")
        return ExitCode.USAGE
    older_than = None if older is None else timedelta(seconds=older)
    now = datetime.now(UTC)
    store = ctx.existing_store()  # a mistyped --store: one line, exit 2, nothing created
    gone = []
    for summary in store.list():
        if not matches(summary, closed_before=closed_before, older_than=older_than, now=now):
            continue
        try:  # read again: a run written since the listing is kept
            record = store.get(summary.id)
        except RunNotFound:
            continue
        fresh = RunSummary.of(record)
        if not matches(fresh, closed_before=closed_before, older_than=older_than, now=now):
            continue
        if not a.dry_run:
            try:  # only the version just checked: a commit since then keeps the run
                if not store.delete_if_at(summary.id, record.version):
                    continue
            except VersionConflict:
                continue
        gone.append(
            {"id": fresh.id, "skill": fresh.skill, "status": fresh.status, "updated": fresh.updated}
        )
    verb = "would delete" if a.dry_run else "deleted"
    if a.json:
        print(json.dumps({"dry_run": a.dry_run, "runs": gone}, indent=2), file=ctx.out)
        return ExitCode.OK
    for row in gone:
        print(
            f"{verb} {row['id']}\t{row['skill']}\t{row['status']}\t{row['updated']}", file=ctx.out
        )
    print(f"{verb} {len(gone)} run{'s' if len(gone) != 1 else ''}", file=ctx.out)
    return ExitCode.OK
