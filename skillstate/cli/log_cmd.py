"""``skillstate log RUN_ID [--limit N] [--since V] [--json]``: one line per version.

Each line: version, time, label, the top-level keys the version changed (stamps
such as ``updatedAt`` left out), the action, the run status after it, and what the
version was beyond a patch (a session's rollback, a fork, a rewind). ``--since V``
shows the versions after V (the first N with ``--limit``); otherwise ``--limit N``
shows the last N. ``--json`` prints a JSON array of the same rows.
"""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument(
        "--limit", metavar="N", help="at most N versions (the last N, or the first N after --since)"
    )
    parser.add_argument("--since", metavar="V", help="only the versions after version V")
    parser.add_argument("--json", action="store_true", help="print a JSON array of the rows")


def run(ctx: CliContext) -> int:
    import json

    from skillstate.cli.runs import OK, USAGE, number_arg, open_run
    from skillstate.errors import VersionNotFound
    from skillstate.history import log_rows
    from skillstate.jsondoc import compact

    a = ctx.args
    limit = number_arg(ctx, a.limit, "--limit", 1)
    since = number_arg(ctx, a.since, "--since", 0)
    if limit is False or since is False:
        return USAGE
    record = open_run(ctx, a.run_id)
    if record is None:
        return USAGE
    try:
        rows = log_rows(ctx.store, record.id, since=since, limit=limit, merge=ctx.host.merge)
    except VersionNotFound as exc:
        ctx.error(f"--since {since} is past the run's last version: {exc}")
        return USAGE
    from skillstate.display import one_line, printable, printable_json

    if a.json:
        print(printable_json(json.dumps(rows, indent=2, ensure_ascii=False)), file=ctx.out)
        return OK
    for row in rows:
        note = row["note"]
        fields = [
            str(row["version"]),
            row["ts"] or "-",
            row["label"] or "-",
            ",".join(row["keys"]) or "-",
            "-" if row["action"] is None else compact(row["action"]),
            row["status"],
        ]
        cells = fields + ([note] if note else [])
        print(printable("\t".join(one_line(c, tabs=True) for c in cells)), file=ctx.out)
    return OK
