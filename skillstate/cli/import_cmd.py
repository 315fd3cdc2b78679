"""``skillstate import FILE [--as NEW_ID]``: a run from an export file, checked before anything is written.

The whole file is checked first (:func:`skillstate.exports.read_export`): its format
and version, its sha256, and that its journal replays exactly to its record. A file
that fails any check — edited, cut short, not an export — is refused with one line
and exit 5, and nothing is written. A digest can be recomputed by whoever edits a file,
so the run is also held to its skill's rules, as a fork is
(:func:`skillstate.exports.rule_problems`): an unknown skill, or a final state its
schema, budgets or guards refuse, is exit 5 too, with the reasons. ``--as NEW_ID`` imports the run under another id
(the skill's run-id key in the state, rig's ``runId``, follows). An id that is taken
is a usage error (exit 2). ``FILE`` may be ``-`` for stdin.
"""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", help="an export written by 'skillstate export' ('-': stdin)"
    )
    parser.add_argument(
        "--as", dest="new_id", metavar="NEW_ID", help="import under this id instead"
    )


def run(ctx: CliContext) -> int:
    import sys

    from skillstate.cli.runs import BAD_FILE, OK, USAGE
    from skillstate.errors import RunExists
    from skillstate.exports import ExportError, read_export, renamed, rule_problems
    from skillstate.journal import verify_record
    from skillstate.store import is_valid_run_id, run_id_problem

    a = ctx.args
    name = "standard input" if a.file == "-" else a.file
    problem = None if a.new_id is None else run_id_problem(a.new_id)
    if problem is not None:
        ctx.error(problem)
        return USAGE
    try:
        if a.file == "-":
            text = sys.stdin.read()
        else:
            with open(a.file, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
    except OSError as exc:
        ctx.error(f"cannot read {name}: {exc.strerror or exc}")
        return USAGE
    try:
        record, entries = read_export(text, name, ctx.host.merge)
        if a.new_id is not None and a.new_id != record.id:
            skill = ctx.host.skills.get(record.skill)
            record, entries = renamed(
                record, entries, a.new_id, skill.run_id_key if skill else None
            )
            problems = verify_record(record, entries, ctx.host.merge)
            if problems:
                raise ExportError(f"{name} cannot be renamed: {'; '.join(problems)}")
    except ExportError as exc:
        ctx.error(f"{exc}; nothing written")
        return BAD_FILE
    if not is_valid_run_id(record.id):
        ctx.error(f"{name} holds a run with an invalid id; nothing written")
        return BAD_FILE
    broken = rule_problems(ctx.host, record)
    if broken:
        from skillstate.cli.runs import reasons
        from skillstate.records import Problem

        title = f"{name} holds a run its skill refuses (nothing written)"
        reasons(ctx, title, [Problem("import", m, "") for m in broken])
        return BAD_FILE
    try:
        ctx.store.import_run(record, entries, merge=ctx.host.merge)
    except RunExists:
        ctx.error(f"run '{record.id}' already exists — import it with --as NEW_ID; nothing written")
        return USAGE
    print(
        f"imported {record.id} (version {record.version}, {len(entries)} journal entries)",
        file=ctx.out,
    )
    return OK
