"""``skillstate import FILE [--as NEW_ID]``: a run from an export file, checked before anything is written.

The whole file is checked first (:func:`.export_file.read_export`): its format and
version, its sha256, and that its journal replays exactly to its record. A file that
fails any check — edited, cut short, not an export — is refused with one line and exit
5, and nothing is written. A digest can be recomputed by whoever edits a file, so the
run is also held to its skill's rules, as a fork is (:meth:`Host.refusals
<skillstate.plugin.Host.refusals>`): an unknown skill, or a final state its schema,
budgets or guards refuse, is exit 5 too, with the reasons. ``--as NEW_ID`` imports the
run under another id (the skill's run-id key in the state, rig's ``runId``, follows).
An id that is taken is a usage error (exit 2). ``FILE`` may be ``-`` for stdin. A file
over :data:`MAX_EXPORT_BYTES` is refused after reading that much, never read whole.
"""

from __future__ import annotations

import argparse
import sys

from skillstate.plugin.cli import CliContext, ExitCode

__all__ = ["MAX_EXPORT_BYTES", "configure", "run"]

MAX_EXPORT_BYTES = 256 * 1024 * 1024
"""The largest export ``import`` reads (256 MiB: a run of about 100,000 journal entries)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", help="an export written by 'skillstate export' ('-': stdin)"
    )
    parser.add_argument(
        "--as", dest="new_id", metavar="NEW_ID", help="import under this id instead"
    )


def run(ctx: CliContext) -> int:
    from skillstate.plugin import InvalidRunId, RunExists, check_run_id
    from skillstate.plugin.history import verify_record

    from .export_file import ExportError, read_export, renamed

    a = ctx.args
    name = "standard input" if a.file == "-" else a.file
    if a.new_id is not None:
        check_run_id(a.new_id)  # an invalid id: one line, exit 2
    try:
        if a.file == "-":
            raw = getattr(sys.stdin, "buffer", None)  # none when a program set a text stream
            data = (
                raw.read(MAX_EXPORT_BYTES + 1)
                if raw is not None
                else sys.stdin.read(MAX_EXPORT_BYTES + 1).encode("utf-8", "surrogatepass")
            )
        else:
            with open(a.file, "rb") as handle:
                data = handle.read(MAX_EXPORT_BYTES + 1)
    except OSError as exc:
        ctx.error(f"cannot read {name}: {exc.strerror or exc}")
        return ExitCode.USAGE
    if len(data) > MAX_EXPORT_BYTES:
        ctx.error(
            f"{name} is over {MAX_EXPORT_BYTES // 2**20} MiB, more than an export holds; nothing written"
        )
        return ExitCode.BAD_FILE
    text = data.decode("utf-8", errors="replace")
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
        check_run_id(record.id)
    except ExportError as exc:
        ctx.error(f"{exc}; nothing written")
        return ExitCode.BAD_FILE
    except InvalidRunId:  # the id inside the file is not a valid one
        ctx.error(f"{name} holds a run with an invalid id; nothing written")
        return ExitCode.BAD_FILE
    refused = ctx.host.refusals(record)
    if refused:
        ctx.reasons(f"{name} holds a run its skill refuses (nothing written)", refused)
        return ExitCode.BAD_FILE
    try:
        ctx.store.import_run(record, entries, merge=ctx.host.merge)
    except RunExists:
        ctx.error(f"run '{record.id}' already exists — import it with --as NEW_ID; nothing written")
        return ExitCode.USAGE
    print(
        f"imported {record.id} (version {record.version}, {len(entries)} journal entries)",
        file=ctx.out,
    )
    return ExitCode.OK
