"""``skillstate export RUN_ID [-o FILE]``: the run (record + journal) as one self-contained file.

The file (format ``skillstate-run``, version 1, written by
:func:`skillstate.plugin.history.dump_export`) is what ``skillstate import`` reads
back, on this machine or another, into any store. With ``-o`` it is written to a
temporary file beside FILE and renamed into place, so FILE is never left half-written,
and nothing is left behind when it cannot be written (a directory, an unwritable
place: one line, exit 2 or 3); without, it goes to stdout.
"""

from __future__ import annotations

import argparse
import os
import tempfile

from skillstate.plugin.cli import CliContext, ExitCode

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")


def run(ctx: CliContext) -> int:
    from skillstate.plugin import RunNotFound, check_run_id, now_iso
    from skillstate.plugin.history import dump_export, verify_record

    run_id = check_run_id(ctx.args.run_id)
    try:
        record = ctx.existing_store().get(run_id)
    except RunNotFound:
        ctx.error(f"no run '{run_id}' — run '{ctx.prog} init <skill> {run_id}' first")
        return ExitCode.USAGE
    for _ in range(3):  # a commit landing between the two reads: read again
        entries = ctx.store.journal(record.id)
        if not verify_record(record, entries, ctx.host.merge):
            break
        record = ctx.store.get(record.id)
    else:
        ctx.error(
            f"run '{record.id}' does not replay to its record; run 'skillstate verify {record.id}'"
        )
        return ExitCode.ERROR
    text = dump_export(record, entries, now_iso())
    target = ctx.args.output
    if target is None or target == "-":
        ctx.out.write(text)
        return ExitCode.OK
    if os.path.isdir(target):
        ctx.error(f"cannot write {target}: it is a directory (give a file name); nothing written")
        return ExitCode.USAGE
    return _write(ctx, target, text)


def _write(ctx: CliContext, target: str, text: str) -> int:
    """``text`` into ``target`` through a temporary file renamed over it; nothing is left
    behind when that fails."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=".skillstate-export-", dir=os.path.dirname(os.path.abspath(target))
        )
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        ctx.error(f"cannot write {target}: {exc.strerror or exc}; nothing written")
        return ExitCode.ERROR
    finally:
        if tmp is not None:  # never leave the temporary file behind
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return ExitCode.OK
