"""``skillstate diff RUN_ID V1 [V2] [--json]``: what changed in the state from V1 to V2.

V2 defaults to the run's current version. The readable form has one line per
change, objects compared key by key (``+ path: value``, ``- path: old``,
``~ path: old → new``); ``--json`` prints an RFC 6902 JSON Patch that turns Σ_V1 into
Σ_V2 (made by the ``jsonpatch`` library).
"""

from __future__ import annotations

import argparse

from skillstate.cli.context import CliContext

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_id", metavar="RUN_ID")
    parser.add_argument("v1", metavar="V1", help="the version to compare from")
    parser.add_argument(
        "v2", metavar="V2", nargs="?", help="the version to compare to (default: the current one)"
    )
    parser.add_argument("--json", action="store_true", help="print an RFC 6902 JSON Patch")


def run(ctx: CliContext) -> int:
    from skillstate.cli.runs import OK, USAGE, open_run, version_arg
    from skillstate.errors import VersionNotFound
    from skillstate.history import state_changes
    from skillstate.jsondoc import compact, pretty

    a = ctx.args
    first = version_arg(ctx, a.v1, "V1")
    second = version_arg(ctx, a.v2, "V2")
    if first is False or second is False or first is None:
        return USAGE
    record = open_run(ctx, a.run_id)
    if record is None:
        return USAGE
    try:
        before = ctx.store.state_at(record.id, first, merge=ctx.host.merge).state
        after = (
            record.state
            if second is None
            else ctx.store.state_at(record.id, second, merge=ctx.host.merge).state
        )
    except VersionNotFound as exc:
        ctx.error(str(exc))
        return USAGE
    from skillstate.display import printable_json  # C1 controls, U+202E: JSON escapes

    if a.json:
        import jsonpatch

        print(printable_json(pretty(jsonpatch.make_patch(before, after).patch)), file=ctx.out)
        return OK
    for op, path, old, new in state_changes(before, after):
        if op == "+":
            line = f"+ {path}: {compact(new)}"
        elif op == "-":
            line = f"- {path}: {compact(old)}"
        else:
            line = f"~ {path or '(the whole state)'}: {compact(old)} → {compact(new)}"
        print(printable_json(line), file=ctx.out)
    return OK
