"""``skillstate export RUN_ID [-o FILE]``: the run (record + journal) as one self-contained file.

The file (format ``skillstate-run``, version 1; :mod:`skillstate.exports`) is what
``skillstate import`` reads back, on this machine or another, into any store. With
``-o`` it is written to a temporary file beside FILE and renamed into place, so FILE
is never left half-written, and nothing is left behind when it cannot be written (a
directory, an unwritable place: one line, exit 2 or 3); without, it goes to stdout.
"""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")


def run(ctx: CliContext) -> int:
    import os
    import tempfile

    from skillstate.cli.runs import ERROR, OK, USAGE, open_run
    from skillstate.exports import dump_export
    from skillstate.journal import verify_record
    from skillstate.pipeline import now_iso

    record = open_run(ctx, ctx.args.run_id)
    if record is None:
        return USAGE
    for _ in range(3):  # a commit landing between the two reads: read again
        entries = ctx.store.journal(record.id)
        if not verify_record(record, entries, ctx.host.merge):
            break
        record = ctx.store.get(record.id)
    else:
        ctx.error(
            f"run '{record.id}' does not replay to its record; run 'skillstate verify {record.id}'"
        )
        return ERROR
    text = dump_export(record, entries, now_iso())
    target = ctx.args.output
    if target is None or target == "-":
        ctx.out.write(text)
        return OK
    if os.path.isdir(target):
        ctx.error(f"cannot write {target}: it is a directory (give a file name); nothing written")
        return USAGE
    directory = os.path.dirname(os.path.abspath(target))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".skillstate-export-", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        ctx.error(f"cannot write {target}: {exc.strerror or exc}; nothing written")
        return ERROR
    finally:
        if tmp is not None:  # never leave the temporary file behind
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return OK
